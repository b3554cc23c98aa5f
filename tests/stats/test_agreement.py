import math

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
    assert math.isnan(cohen_kappa([None], [1]))
    with pytest.raises(ValueError):
        cohen_kappa([0, 1], [0])


labels = st.lists(st.sampled_from(["0", "1", "2"]), min_size=1, max_size=40)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_kappa_properties(data):
    a = data.draw(labels)
    b = data.draw(st.lists(st.sampled_from(["0", "1", "2"]), min_size=len(a), max_size=len(a)))
    assert cohen_kappa(a, a) == 1.0
    ab, ba = cohen_kappa(a, b), cohen_kappa(b, a)
    assert (math.isnan(ab) and math.isnan(ba)) or ab == pytest.approx(ba)
    rows = [[x, y] for x, y in zip(a, b, strict=True)]
    assert fleiss_kappa([[x, x, x] for x in a]) == pytest.approx(1.0)
    if len(set(a) | set(b)) > 1:
        f_ab = fleiss_kappa(rows)
        f_ba = fleiss_kappa([[y, x] for x, y in rows])
        assert f_ab == pytest.approx(f_ba)


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
    assert math.isnan(fleiss_kappa([]))


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
