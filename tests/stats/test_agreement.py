import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, f1_score
from statsmodels.stats import inter_rater

from benchcheck.stats.agreement import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    krippendorff_alpha_ci,
    majority_vote,
    percent_agreement,
    strict_vote,
    weighted_f1_matrix,
)


def test_cohen_by_hand_and_sklearn():
    a = [0, 1, 1, 0, 1, 1, 0, 0, 1, 1]
    b = [0, 1, 0, 0, 1, 1, 1, 0, 1, 1]
    # p_o = 0.8; p_e = 0.4*0.4 + 0.6*0.6 = 0.52; kappa = 0.28 / 0.48
    assert cohen_kappa(a, b) == pytest.approx(0.28 / 0.48)
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    assert percent_agreement(a, b) == 0.8


def test_cohen_missing_dropped_and_empty():
    assert cohen_kappa([0, None, 1], [0, 1, 1]) == 1.0
    assert cohen_kappa([0, math.nan, 1], [0, 1, None]) is None  # one item left: "0" only
    assert cohen_kappa([None], [1]) is None  # no items: undefined
    with pytest.raises(ValueError):
        cohen_kappa([0, 1], [0])


labels = st.lists(st.sampled_from(["0", "1", "2"]), min_size=1, max_size=40)


def _quiet(f, *args, **kwargs):
    """Call a reference implementation with its 0/0 warnings silenced."""
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _sm_fleiss(rows):
    coded = np.array([[int(v) for v in r] for r in rows])
    table, _ = inter_rater.aggregate_raters(coded, n_cat=3)
    return _quiet(inter_rater.fleiss_kappa, table)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_kappa_properties(data):
    a = data.draw(labels)
    b = data.draw(st.lists(st.sampled_from(["0", "1", "2"]), min_size=len(a), max_size=len(a)))
    rows = [[x, y] for x, y in zip(a, b, strict=True)]
    ab, ba = cohen_kappa(a, b), cohen_kappa(b, a)
    if len(set(a) | set(b)) == 1:
        # The undefined case (0/0): None from both, where the references give NaN.
        assert ab is None and ba is None and fleiss_kappa(rows) is None
        assert math.isnan(_quiet(cohen_kappa_score, a, b))
        assert math.isnan(_sm_fleiss(rows))
    else:
        assert ab == pytest.approx(ba) == pytest.approx(cohen_kappa_score(a, b))
        assert cohen_kappa(a, b, weights="linear") == pytest.approx(
            cohen_kappa_score(a, b, weights="linear")
        )
        f_ab = fleiss_kappa(rows)
        assert f_ab == pytest.approx(fleiss_kappa([[y, x] for x, y in rows]))
        assert f_ab == pytest.approx(_sm_fleiss(rows))
    # Identical raters: 1 when they use two categories or more, else undefined.
    expected = 1.0 if len(set(a)) > 1 else None
    assert cohen_kappa(a, a) == expected
    assert fleiss_kappa([[x, x, x] for x in a]) == expected


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_single_category_is_none(weights):
    # p_o = p_e = 1: kappa = 0/0; scikit-learn and statsmodels return NaN, we return None.
    assert cohen_kappa(["x"] * 5, ["x"] * 5, weights=weights) is None
    assert cohen_kappa([1, 1, None], [1, 1, 0], weights=weights) is None
    assert fleiss_kappa([["x", "x", "x"]] * 4) is None
    assert fleiss_kappa([[7, 7]]) is None
    # Two raters who each use one category, but different ones: p_o = p_e = 0, so kappa is
    # defined and 0.
    assert (
        cohen_kappa(["x"] * 3, ["y"] * 3)
        == pytest.approx(cohen_kappa_score(["x"] * 3, ["y"] * 3))
        == 0.0
    )


def test_fleiss_vs_statsmodels():
    rng = np.random.default_rng(0)
    ratings = rng.integers(0, 3, size=(30, 4))
    table, _ = inter_rater.aggregate_raters(ratings, n_cat=3)
    assert fleiss_kappa(ratings.tolist()) == pytest.approx(inter_rater.fleiss_kappa(table))
    str_ratings = [[f"c{v}" for v in r] for r in ratings]
    assert fleiss_kappa(str_ratings) == pytest.approx(inter_rater.fleiss_kappa(table))


def test_fleiss_rejects_ragged():
    with pytest.raises(ValueError):
        fleiss_kappa([[0, 1], [0, 1, 1]])
    with pytest.raises(ValueError):
        fleiss_kappa([[0, None], [0, 1]])
    assert fleiss_kappa([]) is None


def test_weighted_f1_matrix_vs_sklearn():
    src = {
        "original": ["1", "1", "0", "0", "1", "0"],
        "llm": ["1", "0", "0", "1", "1", "0"],
        "gold": ["1", "0", "0", None, "1", "0"],
    }
    m = weighted_f1_matrix(src)
    assert m.names == ("original", "llm", "gold")
    wf1 = lambda t, p: f1_score(t, p, average="weighted")  # noqa: E731
    assert m.values[0][1] == pytest.approx(wf1(src["original"], src["llm"]))
    assert m.values[1][0] == pytest.approx(wf1(src["llm"], src["original"]))
    keep = [i for i in range(6) if src["gold"][i] is not None]
    assert m.values[2][0] == pytest.approx(
        wf1([src["gold"][i] for i in keep], [src["original"][i] for i in keep])
    )
    assert m.counts[2][0] == 5 and m.counts[0][1] == 6
    assert all(m.values[i][i] == 1.0 for i in range(3))
    d = m.to_dict()
    assert d["f1"]["gold"]["gold"] == 1.0


def test_votes():
    r = [["1", "1", "0"], ["1", "1", "1"], ["0", "1"], ["0", None, "0"]]
    assert majority_vote(r) == ["1", "1", None, "0"]
    assert strict_vote(r, negative="0") == ["0", "1", "0", "0"]


# ----------------------------------------------------------------------------- Krippendorff

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers
# × 12 units, nominal values 1-5, missing answers (None). Rows here are units.
_KRIPP_C = [
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, 3, None, None],
]


def _alpha_by_hand(units, level):
    """The paper's steps with exact fractions: coincidences, marginals, then alpha."""
    from fractions import Fraction

    cats = sorted({v for u in units for v in u if v is not None})
    o = {(c, k): Fraction(0) for c in cats for k in cats}
    for u in units:
        vals = [v for v in u if v is not None]
        m = len(vals)
        if m < 2:
            continue  # unit 12: a single value is not pairable
        for i, c in enumerate(vals):
            for j, k in enumerate(vals):
                if i != j:
                    o[c, k] += Fraction(1, m - 1)
    n_c = {c: sum(o[c, k] for k in cats) for c in cats}
    n = sum(n_c.values())

    def delta(c, k):
        if level == "nominal":
            return 0 if c == k else 1
        lo, hi = min(c, k), max(c, k)
        between = sum(n_c[g] for g in cats if lo <= g <= hi)
        return (between - (n_c[c] + n_c[k]) / 2) ** 2

    d_o = sum(o[c, k] * delta(c, k) for c in cats for k in cats)
    d_e = sum(n_c[c] * n_c[k] * delta(c, k) for c in cats for k in cats)
    return n, 1 - (n - 1) * d_o / d_e


def test_krippendorff_alpha_worked_example_by_hand():
    n, nominal = _alpha_by_hand(_KRIPP_C, "nominal")
    assert n == 40  # the paper's n: 40 pairable values
    assert round(float(nominal), 3) == 0.743  # the paper's nominal alpha
    _, ordinal = _alpha_by_hand(_KRIPP_C, "ordinal")
    assert round(float(ordinal), 3) == 0.815  # the paper's ordinal alpha
    assert krippendorff_alpha(_KRIPP_C) == pytest.approx(float(nominal), abs=1e-12)
    assert krippendorff_alpha(_KRIPP_C, level="ordinal") == pytest.approx(float(ordinal), abs=1e-12)


def _reference(units, level):
    import krippendorff

    width = max(len(u) for u in units)
    cats = sorted({v for u in units for v in u if v is not None}, key=repr)
    code = {c: i for i, c in enumerate(cats)}
    data = np.full((width, len(units)), np.nan)
    for j, u in enumerate(units):
        for i, v in enumerate(u):
            if v is not None:
                data[i, j] = code[v] if level == "nominal" else float(v)
    return krippendorff.alpha(reliability_data=data, level_of_measurement=level)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_krippendorff_alpha_matches_the_krippendorff_package(level):
    rng = np.random.default_rng(7)
    for trial in range(20):
        units, raters = int(rng.integers(5, 60)), int(rng.integers(2, 7))
        truth = rng.integers(0, 4, units)
        noisy = np.where(
            rng.random((units, raters)) < 0.7, truth[:, None], rng.integers(0, 4, (units, raters))
        )
        rows = [[None if rng.random() < 0.25 else int(v) for v in r] for r in noisy]
        got = krippendorff_alpha(rows, level=level)
        if got is None:
            continue
        assert got == pytest.approx(_reference(rows, level), abs=1e-10), trial
    assert krippendorff_alpha(_KRIPP_C, level=level) == pytest.approx(_reference(_KRIPP_C, level))


def test_krippendorff_alpha_string_labels_order_and_undefined():
    rows = [["a", "a"], ["b", "b"], ["a", "b"], ["c", None, "c"]]
    assert krippendorff_alpha(rows) == pytest.approx(_reference(rows, "nominal"))
    # ordinal strings need an order; the given order ranks them
    with pytest.raises(ValueError, match="order"):
        krippendorff_alpha(rows, level="ordinal")
    ranked = krippendorff_alpha(rows, level="ordinal", order=["a", "b", "c"])
    numeric = [[{"a": 1, "b": 2, "c": 3}.get(v) for v in r] for r in rows]
    assert ranked == pytest.approx(_reference(numeric, "ordinal"))
    assert krippendorff_alpha([["x", "x"], ["x", None]]) is None  # one category
    assert krippendorff_alpha([["x", None], [None, "y"]]) is None  # nothing pairable
    assert krippendorff_alpha([]) is None
    assert krippendorff_alpha_ci([["x", "x"]]) is None


def test_krippendorff_alpha_ci_contains_estimate_and_is_seeded():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 200)
    rows = [
        [int(t) if rng.random() < 0.8 else int(rng.integers(0, 3)) for _ in range(3)] for t in truth
    ]
    a = krippendorff_alpha(rows)
    lo, hi = krippendorff_alpha_ci(rows, n_resamples=500, seed=1)
    assert lo <= a <= hi
    assert 0.05 < hi - lo < 0.3
    assert krippendorff_alpha_ci(rows, n_resamples=500, seed=1) == (lo, hi)
    # the interval narrows with 4x the items (roughly halves)
    lo4, hi4 = krippendorff_alpha_ci(rows * 4, n_resamples=500, seed=1)
    assert (hi4 - lo4) < 0.7 * (hi - lo)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "b", "c", None]), min_size=2, max_size=4),
        min_size=1,
        max_size=12,
    )
)
def test_krippendorff_alpha_rater_order_invariant_and_bounded(rows):
    a = krippendorff_alpha(rows)
    b = krippendorff_alpha([list(reversed(r)) for r in reversed(rows)])
    if a is None:
        assert b is None
        return
    assert b == pytest.approx(a, abs=1e-12)
    assert a <= 1 + 1e-12
