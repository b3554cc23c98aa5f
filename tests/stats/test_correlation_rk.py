import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import matthews_corrcoef

from benchcheck.stats.correlation import rk, rk_from_confusion, rk_from_confusions


def expand(conf):
    """Label arrays whose confusion matrix is ``conf`` (rows gold, columns predicted)."""
    gold, pred = [], []
    for i, row in enumerate(conf):
        for j, count in enumerate(row):
            gold += [i] * int(count)
            pred += [j] * int(count)
    return gold, pred


def formula(conf):
    """methods.md section 3, written out independently with Python sums."""
    k = len(conf)
    s = sum(sum(r) for r in conf)
    c = sum(conf[i][i] for i in range(k))
    t = [sum(conf[i]) for i in range(k)]
    p = [sum(conf[i][j] for i in range(k)) for j in range(k)]
    den = (s * s - sum(x * x for x in p)) * (s * s - sum(x * x for x in t))
    return 0.0 if den == 0 else (c * s - sum(p[i] * t[i] for i in range(k))) / math.sqrt(den)


matrices = st.integers(2, 5).flatmap(
    lambda k: st.lists(st.lists(st.integers(0, 12), min_size=k, max_size=k), min_size=k, max_size=k)
)


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")
@settings(max_examples=200, deadline=None)
@given(matrices)
def test_rk_matches_formula_and_sklearn(conf):
    value = rk_from_confusion(conf)
    assert value == pytest.approx(formula(conf), abs=1e-12)
    gold, pred = expand(conf)
    if gold:
        ref = matthews_corrcoef(gold, pred)
        assert value == pytest.approx(ref, abs=1e-9)
        assert rk([str(g) for g in gold], [str(q) for q in pred]) == pytest.approx(ref, abs=1e-9)
    assert -1.0 - 1e-12 <= value <= 1.0 + 1e-12


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from("abc"), min_size=1, max_size=40))
def test_perfect_is_one_and_constant_is_zero(labels):
    expected = 1.0 if len(set(labels)) > 1 else 0.0  # one gold class: denominator is 0
    assert rk(labels, labels) == expected
    assert rk(labels, ["a"] * len(labels)) == 0.0


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_vectorised_matches_single(conf):
    stack = np.array([conf, np.array(conf).T.tolist()])
    out = rk_from_confusions(stack)
    assert out[0] == pytest.approx(rk_from_confusion(conf))
    # R_K is symmetric in gold and predicted: the transpose has the same value.
    assert out[1] == pytest.approx(out[0])


def test_k2_is_mcc_by_hand():
    # tp=6, fn=2, fp=1, tn=5: MCC = (6*5 - 1*2) / sqrt(7*7*8*6)
    conf = [[5, 1], [2, 6]]
    assert rk_from_confusion(conf) == pytest.approx(28 / math.sqrt(7 * 7 * 8 * 6))


def test_errors():
    with pytest.raises(ValueError):
        rk_from_confusion([[1, 2, 3]])
    assert rk([], []) == 0.0
