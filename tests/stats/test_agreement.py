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
