import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from benchcheck.stats.intervals import (
    bootstrap_ci,
    clopper_pearson,
    error_rate_interval,
    fpc_factor,
    paired_bootstrap,
    proportion_bootstrap_ci,
)


@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (12, 200), (50, 100), (10, 10), (3, 7)])
def test_clopper_pearson_matches_beta_quantiles_and_statsmodels(k, n):
    lo, hi = clopper_pearson(k, n)
    # Beta-quantile definition, computed independently
    ref_lo = 0.0 if k == 0 else sps.beta.ppf(0.025, k, n - k + 1)
    ref_hi = 1.0 if k == n else sps.beta.ppf(0.975, k + 1, n - k)
    assert lo == pytest.approx(ref_lo, abs=1e-9)
    assert hi == pytest.approx(ref_hi, abs=1e-9)
    sm_lo, sm_hi = proportion_confint(k, n, alpha=0.05, method="beta")
    assert lo == pytest.approx(sm_lo, abs=1e-9)
    assert hi == pytest.approx(sm_hi, abs=1e-9)


def test_error_rate_fpc_by_hand():
    r = error_rate_interval(12, 200, 5000)
    lo, hi = proportion_confint(12, 200, alpha=0.05, method="beta")
    f = math.sqrt((5000 - 200) / (5000 - 1))
    assert r.fpc == pytest.approx(f)
    assert r.error_rate == 0.06
    assert r.ci == pytest.approx((lo, hi))
    assert r.ci_fpc == pytest.approx((0.06 - f * (0.06 - lo), 0.06 + f * (hi - 0.06)))
    assert r.lower_bound == r.ci_fpc[0]
    assert r.population_errors_lower == math.ceil(r.ci_fpc[0] * 5000)
    d = r.to_dict()
    for key in ("errors", "sample", "population", "error_rate", "ci", "ci_fpc"):
        assert key in d


def test_edge_zero_errors():
    r = error_rate_interval(0, 50, 1000)
    assert r.ci[0] == 0.0 and r.ci_fpc[0] == 0.0
    assert r.ci_fpc[1] < r.ci[1]
    assert r.population_errors_lower == 0


def test_edge_all_errors():
    r = error_rate_interval(50, 50, 1000)
    assert r.ci[1] == 1.0 and r.ci_fpc[1] == 1.0 and r.ci_fpc[0] > r.ci[0]
    assert r.population_errors_lower >= 50


def test_edge_census():
    r = error_rate_interval(7, 40, 40)
    assert r.fpc == 0.0
    assert r.ci_fpc == (7 / 40, 7 / 40)
    assert r.population_errors_lower == 7
    assert error_rate_interval(1, 1, 1).ci_fpc == (1.0, 1.0)


def test_no_population():
    r = error_rate_interval(3, 30)
    assert r.ci_fpc is None and r.lower_bound is None and r.population is None


@pytest.mark.parametrize("args", [(5, 0, 10), (11, 10, 20), (-1, 10, 20), (2, 10, 5)])
def test_bad_counts(args):
    with pytest.raises(ValueError):
        error_rate_interval(*args)


def test_fpc_factor_rejects_bad():
    with pytest.raises(ValueError):
        fpc_factor(10, 5)
    with pytest.raises(ValueError):
        fpc_factor(0, 5)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 400).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.just(n), st.integers(n, 5000))
    )
)
def test_property_intervals(knN):
    k, n, N = knN
    r = error_rate_interval(k, n, N)
    lo, hi = r.ci
    flo, fhi = r.ci_fpc
    assert lo <= r.error_rate <= hi  # interval contains the estimate
    assert lo - 1e-12 <= flo <= r.error_rate <= fhi <= hi + 1e-12  # FPC interval within plain
    assert 0.0 <= flo and fhi <= 1.0


def test_bootstrap_matches_scipy_and_is_seeded():
    data = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.55, 0.6])
    a = bootstrap_ci(data, n_resamples=500, seed=3)
    b = bootstrap_ci(data, n_resamples=500, seed=3)
    assert a == b
    ref = sps.bootstrap(
        (data,), np.mean, n_resamples=500, method="percentile", rng=np.random.default_rng(3)
    ).confidence_interval
    assert a == pytest.approx((ref.low, ref.high))
    assert a[0] <= data.mean() <= a[1]


def test_proportion_bootstrap_degenerate_and_empty():
    assert proportion_bootstrap_ci([1, 1, 1, 1]) == (1.0, 1.0)
    assert all(math.isnan(v) for v in proportion_bootstrap_ci([]))
    lo, hi = proportion_bootstrap_ci([1, 0] * 20, n_resamples=300, seed=1)
    assert lo < 0.5 < hi


def test_paired_bootstrap_by_hand():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    a = np.where(rng.random(300) < 0.9, y, 1 - y)
    b = np.where(rng.random(300) < 0.6, y, 1 - y)

    def acc(t, p):
        return float((t == p).mean())

    r = paired_bootstrap(y, a, b, acc, n_resamples=400, seed=5)
    assert r.difference == pytest.approx(acc(y, a) - acc(y, b))
    assert r.ci[0] <= r.difference <= r.ci[1]
    assert r.p_value < 0.01
    # reproduce the resampling independently
    rng2 = np.random.default_rng(5)
    diffs = []
    for _ in range(400):
        idx = rng2.integers(0, 300, size=300)
        diffs.append(acc(y[idx], a[idx]) - acc(y[idx], b[idx]))
    assert r.ci == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])))
    d = np.asarray(diffs)
    assert r.p_value == min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))
    assert r.skipped == 0 and r.n_resamples == 400
    same = paired_bootstrap(y, a, a, acc, n_resamples=100, seed=1)
    assert same.difference == 0 and same.p_value == 1.0


# ----------------------------------------------------------------------------- posteriors


def test_posterior_error_rate_with_certain_errors_is_clopper_pearson():
    from benchcheck.stats.intervals import clopper_pearson, posterior_error_rate

    for k, n in ((0, 10), (3, 40), (40, 40), (7, 200)):
        r = posterior_error_rate([1.0] * k + [0.0] * (n - k), population=5 * n)
        assert r.ci == pytest.approx(clopper_pearson(k, n), abs=1e-12)
        assert r.expected_errors == k and r.sd_errors == 0.0
        hard = error_rate_interval(k, n, 5 * n)
        assert r.ci_fpc == pytest.approx(hard.ci_fpc, abs=1e-12)


def test_posterior_error_rate_moments_and_mixture_by_monte_carlo():
    from benchcheck.stats.intervals import clopper_pearson, posterior_error_rate

    rng = np.random.default_rng(5)
    p = np.concatenate([rng.uniform(0.05, 0.95, 30), np.zeros(150), np.ones(5)])
    r = posterior_error_rate(p, confidence=0.9)
    assert r.expected_errors == pytest.approx(p.sum())
    assert r.sd_errors == pytest.approx(math.sqrt(np.sum(p * (1 - p))))
    # the mixed lower bound: P(Beta(K, n-K+1) <= L) averaged over K is alpha/2, K drawn
    draws = (rng.random((200_000, len(p))) < p).sum(axis=1)
    lo_cdf = np.mean(sps.beta.cdf(r.ci[0], draws, len(p) - draws + 1))
    hi_cdf = np.mean(sps.beta.cdf(r.ci[1], draws + 1, len(p) - draws))
    assert lo_cdf == pytest.approx(0.05, abs=0.003)
    assert hi_cdf == pytest.approx(0.95, abs=0.003)
    # uncertainty about the labels widens the interval of the same expected count
    k = round(p.sum())
    plain = clopper_pearson(k, len(p), confidence=0.9)
    assert r.ci[1] - r.ci[0] > plain[1] - plain[0]
    with pytest.raises(ValueError, match="empty"):
        posterior_error_rate([])
