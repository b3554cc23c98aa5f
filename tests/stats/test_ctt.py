"""CTT statistics against independent computations: pingouin, scipy, plain Python."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from benchcheck.stats import ctt


def _sim(k: int = 40, m: int = 12, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, m)
    b = rng.normal(0, 1, k)
    p = 1 / (1 + np.exp(-(theta[None, :] - b[:, None]) * 1.5))
    x = (rng.random((k, m)) < p).astype(float)
    x[0] = (theta < np.median(theta)).astype(float)  # a reversed item: weak models right
    return x


def test_alpha_matches_pingouin_and_kr20() -> None:
    pg = pytest.importorskip("pingouin")
    import pandas as pd

    x = _sim()
    alpha_pg, ci_pg = pg.cronbach_alpha(pd.DataFrame(x.T))  # rows = examinees
    assert ctt.cronbach_alpha(x) == pytest.approx(alpha_pg, abs=1e-12)
    # KR-20 by the written formula, plain Python
    k, m = x.shape
    totals = [sum(x[i][j] for i in range(k)) for j in range(m)]
    mean = sum(totals) / m
    var_t = sum((t - mean) ** 2 for t in totals) / m
    pq = sum((sum(row) / m) * (1 - sum(row) / m) for row in x)
    assert ctt.kr20(x) == pytest.approx(k / (k - 1) * (1 - pq / var_t), abs=1e-12)
    assert ctt.kr20(x) == pytest.approx(alpha_pg, abs=1e-12)  # equal on 0/1 items


def test_partial_credit_alpha_matches_pingouin() -> None:
    pg = pytest.importorskip("pingouin")
    import pandas as pd

    rng = np.random.default_rng(3)
    x = np.clip(_sim(seed=3) * 0.7 + rng.random((40, 12)) * 0.3, 0, 1)
    assert ctt.cronbach_alpha(x) == pytest.approx(pg.cronbach_alpha(pd.DataFrame(x.T))[0])
    with pytest.raises(ValueError, match="KR-20 needs 0/1"):
        ctt.kr20(x)


def test_alpha_if_deleted_matches_pingouin() -> None:
    pg = pytest.importorskip("pingouin")
    import pandas as pd

    x = _sim()
    got = ctt.alpha_if_deleted(x)
    for i in (0, 5, 17):
        rest = np.delete(x, i, axis=0)
        assert got[i] == pytest.approx(pg.cronbach_alpha(pd.DataFrame(rest.T))[0], abs=1e-10)


def test_corrected_item_total_is_pointbiserial_on_rest_score() -> None:
    x = _sim()
    got = ctt.corrected_item_total(x)
    unc = ctt.item_total(x)
    totals = x.sum(axis=0)
    for i in range(x.shape[0]):
        if x[i].std() == 0:
            assert math.isnan(got[i])
            continue
        r = st.pointbiserialr(x[i].astype(bool), totals - x[i]).statistic
        assert got[i] == pytest.approx(r, abs=1e-12)
        assert unc[i] == pytest.approx(st.pearsonr(x[i], totals).statistic, abs=1e-12)
    assert got[0] < 0  # the reversed item


def test_undefined_cases_are_nan() -> None:
    x = np.array([[1, 1, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 0]], dtype=float)
    r = ctt.corrected_item_total(x)
    assert math.isnan(r[0]) and math.isnan(r[2])  # every model right / wrong
    equal = np.array([[1, 0], [0, 1]], dtype=float)  # totals 1 and 1
    assert math.isnan(ctt.cronbach_alpha(equal))
    assert math.isnan(ctt.kr20(equal))
    assert np.isnan(ctt.upper_lower_index(equal)).all()
    assert math.isnan(ctt.sem(equal, math.nan))
    assert math.isnan(ctt.cronbach_alpha(np.array([[1, 0, 1]])))  # one item


def test_upper_lower_by_hand() -> None:
    x = _sim(k=10, m=11, seed=4)
    totals = x.sum(axis=0)
    g = round(0.27 * 11)  # 3
    cut_hi = sorted(totals)[11 - g]
    cut_lo = sorted(totals)[g - 1]
    upper = [j for j in range(11) if totals[j] >= cut_hi]
    lower = [j for j in range(11) if totals[j] <= cut_lo]
    want = [
        sum(x[i][j] for j in upper) / len(upper) - sum(x[i][j] for j in lower) / len(lower)
        for i in range(10)
    ]
    assert ctt.upper_lower_index(x).tolist() == pytest.approx(want)


def test_upper_lower_ignores_model_order() -> None:
    x = _sim(seed=5)
    perm = np.random.default_rng(0).permutation(x.shape[1])
    np.testing.assert_allclose(ctt.upper_lower_index(x), ctt.upper_lower_index(x[:, perm]))


def test_sem_by_hand() -> None:
    x = _sim()
    r = ctt.kr20(x)
    assert ctt.sem(x, r) == pytest.approx(np.std(x.sum(axis=0)) * math.sqrt(1 - r))


def test_bootstrap_equals_resampling_rows() -> None:
    """The count-weighted bootstrap gives the same alphas as stacking the drawn rows."""
    x = _sim(k=25, m=9, seed=6)
    res = ctt.reliability_bootstrap(x, n_resamples=300, seed=11, chunk=70)
    rng = np.random.default_rng(11)
    alphas = []
    for start in range(0, 300, 70):
        b = min(70, 300 - start)
        idx = rng.integers(0, 25, size=(b, 25))
        for row in idx:
            alphas.append(ctt.cronbach_alpha(x[row]))
    ok = np.array([a for a in alphas if math.isfinite(a)])
    lo, hi = np.quantile(ok, [0.025, 0.975])
    assert (res.low, res.high) == pytest.approx((lo, hi), abs=1e-12)
    assert res.n_undefined == 300 - ok.size
    again = ctt.reliability_bootstrap(x, n_resamples=300, seed=11, chunk=70)
    assert again == res


def test_bootstrap_interval_covers_alpha_on_large_test() -> None:
    x = _sim(k=400, m=30, seed=7)
    res = ctt.reliability_bootstrap(x, n_resamples=500, seed=0)
    assert res.low < ctt.cronbach_alpha(x) < res.high


def test_scores_outside_unit_interval_refused() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ctt.difficulty(np.array([[0, 2]]))
