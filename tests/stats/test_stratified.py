"""Stratified error rate: exact/mid-p hypergeometric bounds by brute force, MOVER by hand,
recall corners, planning, and the coverage of the interval in simulated reviews."""

import math

import numpy as np
import pytest
from scipy import stats as st
from statsmodels.stats.proportion import proportion_confint

from benchcheck.stats.stratified import (
    _tails,
    expected_width,
    hypergeometric_bounds,
    hypergeometric_interval,
    mover_interval,
    plan_reviews,
    recall_interval,
    stratified_error_rate,
    stratified_interval,
)


def _brute(k, n, big_n, alpha=0.05, midp=False):
    """The definitions, over every M with SciPy's hypergeometric law (no bisection)."""
    ms = np.arange(big_n + 1)
    pmf = st.hypergeom.pmf(k, big_n, ms, n)
    ge = st.hypergeom.sf(k - 1, big_n, ms, n) - (0.5 * pmf if midp else 0)
    le = st.hypergeom.cdf(k, big_n, ms, n) - (0.5 * pmf if midp else 0)
    possible = (ms >= k) & (big_n - ms >= n - k)
    tie = 1e-12  # a tail equal to alpha/2 is not above it (exact ties in floating point)
    low = ms[possible & (ge > alpha / 2 + tie)].min()
    high = ms[possible & (le > alpha / 2 + tie)].max()
    return int(low), int(high)


@pytest.mark.parametrize("n, big_n", [(10, 10), (12, 40), (30, 200), (50, 1000), (1, 7)])
@pytest.mark.parametrize("midp", [False, True])
def test_hypergeometric_bounds_match_the_definition(n, big_n, midp):
    ks = np.arange(n + 1)
    lo, hi = hypergeometric_bounds(ks, n, big_n, midp=midp)
    want = [_brute(int(k), n, big_n, midp=midp) for k in ks]
    assert list(zip(lo.tolist(), hi.tolist(), strict=True)) == want


def test_tails_match_scipy_also_for_large_populations():
    for big_n, m, n in [(5000, 500, 100), (98000, 2000, 600), (98000, 3, 300), (50, 10, 50)]:
        k = np.arange(n + 1)
        ge, le, eq = _tails(k, np.full(k.shape, m), n, big_n)
        assert np.allclose(ge, st.hypergeom.sf(k - 1, big_n, m, n), atol=1e-10)
        assert np.allclose(le, st.hypergeom.cdf(k, big_n, m, n), atol=1e-10)
        assert np.allclose(eq, st.hypergeom.pmf(k, big_n, m, n), atol=1e-10)


def test_exact_interval_tends_to_clopper_pearson_and_census_is_a_point():
    for k, n in [(0, 50), (3, 50), (12, 200), (50, 50)]:
        lo, hi = hypergeometric_interval(k, n, 10**8)
        cp = proportion_confint(k, n, alpha=0.05, method="beta")
        assert lo == pytest.approx(cp[0], abs=1e-6) and hi == pytest.approx(cp[1], abs=1e-6)
    assert hypergeometric_interval(3, 20, 20) == (0.15, 0.15)
    assert hypergeometric_interval(3, 20, 20, midp=True) == (0.15, 0.15)
    # mid-p lies inside the exact interval
    ex, mid = hypergeometric_interval(4, 60, 900), hypergeometric_interval(4, 60, 900, midp=True)
    assert ex[0] <= mid[0] <= 4 / 60 <= mid[1] <= ex[1]


def test_mover_and_the_estimate_by_hand():
    errors, reviewed, population = [30, 2], [100, 200], [400, 1900]
    r = stratified_error_rate(
        errors, reviewed, population, names=["disputed", "undisputed"], flagged="disputed"
    )
    w = [400 / 2300, 1900 / 2300]
    p = [0.3, 0.01]
    assert r.error_rate == pytest.approx(w[0] * p[0] + w[1] * p[1])
    bounds = [_brute(30, 100, 400, midp=True), _brute(2, 200, 1900, midp=True)]
    lows = [b[0] / nn for b, nn in zip(bounds, population, strict=True)]
    highs = [b[1] / nn for b, nn in zip(bounds, population, strict=True)]
    down = math.sqrt(sum((wi * (pi - li)) ** 2 for wi, pi, li in zip(w, p, lows, strict=True)))
    up = math.sqrt(sum((wi * (hi - pi)) ** 2 for wi, pi, hi in zip(w, p, highs, strict=True)))
    assert r.ci == pytest.approx((r.error_rate - down, r.error_rate + up))
    assert r.errors_estimate == pytest.approx(2300 * r.error_rate)
    assert r.strata[0].ci_exact == tuple(x / 400 for x in _brute(30, 100, 400))
    assert r.strata[1].ci_midp == (lows[1], highs[1])
    # exact per stratum: the same formula with the exact bounds, and wider
    ex = stratified_error_rate(errors, reviewed, population, method="exact")
    assert ex.ci[0] <= r.ci[0] and ex.ci[1] >= r.ci[1]
    # recall by hand: corners of the sqrt(0.95) intervals
    lvl = math.sqrt(0.95)
    d = [x * 1 for x in _brute(30, 100, 400, alpha=1 - lvl, midp=True)]
    u = [x * 1 for x in _brute(2, 200, 1900, alpha=1 - lvl, midp=True)]
    found, missed = 400 * 0.3, 1900 * 0.01
    assert r.recall == pytest.approx(found / (found + missed))
    assert r.recall_ci == pytest.approx((d[0] / (d[0] + u[1]), d[1] / (d[1] + u[0])))


def test_edges():
    both = stratified_error_rate([2, 1], [10, 30], [10, 30])  # two censuses
    assert both.ci == pytest.approx((0.075, 0.075))
    lo, hi = mover_interval([0.2, 0.1], [0.2, 0.05], [0.2, 0.2], [0.5, 0.5])
    assert float(lo) == pytest.approx(0.15 - 0.025) and float(hi) == pytest.approx(0.15 + 0.05)
    none = stratified_error_rate([0, 0], [50, 50], [100, 900], flagged="stratum_1")
    assert none.error_rate == 0 and none.ci[0] == 0 and none.recall is None
    empty = stratified_error_rate([3, 1], [5, 20], [0 + 5, 100], names=["d", "u"])
    assert [s.name for s in empty.strata] == ["d", "u"]
    no_flags = stratified_error_rate([0, 1], [0, 20], [0, 100], names=["d", "u"], flagged="d")
    assert len(no_flags.strata) == 1 and no_flags.recall is None
    with pytest.raises(ValueError, match="no review"):
        stratified_error_rate([0, 1], [0, 20], [10, 100])
    with pytest.raises(ValueError, match="method"):
        stratified_error_rate([0, 1], [5, 20], [10, 100], method="wilson")
    with pytest.raises(ValueError, match="errors"):
        stratified_error_rate([6, 1], [5, 20], [10, 100])


def test_expected_width_is_the_mean_over_every_outcome():
    big_n, e, n = [40, 160], [12, 8], [10, 30]
    w = np.array(big_n) / sum(big_n)
    kd, ku = np.arange(n[0] + 1), np.arange(n[1] + 1)
    pd = st.hypergeom.pmf(kd, big_n[0], e[0], n[0])
    pu = st.hypergeom.pmf(ku, big_n[1], e[1], n[1])
    grid = np.stack(np.meshgrid(kd, ku, indexing="ij"), axis=-1)  # every outcome (k_D, k_U)
    _, lo, hi = stratified_interval(grid, n, big_n)
    total = float(np.sum(pd[:, None] * pu[None, :] * (hi - lo)))
    got = expected_width(n, big_n, [e[0] / big_n[0], e[1] / big_n[1]])
    assert got == pytest.approx(total, rel=1e-9)
    assert w.sum() == pytest.approx(1)


def test_plan_is_minimal_and_neyman():
    # all flags reviewed (a census): only the undisputed stratum grows
    plan = plan_reviews([300, 9700], [0.3, 0.02], width=0.03, reviewed=[300, 50], names=["d", "u"])
    d, u = plan.strata
    assert d.planned == 300 and d.additional == 0 and u.planned > 50
    assert plan.expected_width <= 0.03
    assert expected_width([300, u.planned - 1], [300, 9700], [0.3, 0.02]) > 0.03
    assert plan.additional == u.planned - 50
    # nothing reviewed yet, large strata: Neyman's n_h ∝ N_h sqrt(p_h (1 - p_h))
    plan = plan_reviews([20000, 80000], [0.3, 0.03], width=0.03)
    n = [s.planned for s in plan.strata]
    share = 20000 * math.sqrt(0.21) / (20000 * math.sqrt(0.21) + 80000 * math.sqrt(0.0291))
    assert n[0] / sum(n) == pytest.approx(share, abs=0.01)
    assert plan.expected_width <= 0.03
    with pytest.raises(ValueError, match="anticipated"):
        plan_reviews([10, 10], [0.0, 0.5], width=0.1)
    with pytest.raises(ValueError, match="width"):
        plan_reviews([10, 10], [0.1, 0.5], width=0)


# ---------------------------------------------------------------- coverage in simulated reviews

#: (flagged, its error rate, undisputed, its error rate, flags reviewed, audited):
#: realistic reviews, fixed before looking at any result.
SCENARIOS = {
    "10k, flags and audit sampled": (800, 0.35, 9200, 0.02, 200, 200),
    "2k, every flag reviewed": (150, 0.40, 1850, 0.01, 150, 100),
    "50k, large audit": (3000, 0.25, 47000, 0.04, 300, 400),
}


def _simulate(scenario, sims=1000, seed=0):
    """Plant errors (binomial per stratum), review a random sample of each (hypergeometric)."""
    nd_pop, pd, nu_pop, pu, nd, nu = scenario
    rng = np.random.default_rng(seed)
    e_d = rng.binomial(nd_pop, pd, sims)
    e_u = rng.binomial(nu_pop, pu, sims)
    k_d = rng.hypergeometric(e_d, nd_pop - e_d, nd)
    k_u = rng.hypergeometric(e_u, nu_pop - e_u, nu)
    truth = (e_d + e_u) / (nd_pop + nu_pop)
    recall = e_d / (e_d + e_u)
    return np.stack([k_d, k_u], axis=1), [nd, nu], [nd_pop, nu_pop], truth, recall


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_interval_covers_the_true_error_rate_in_simulated_reviews(name):
    ks, n, big_n, truth, recall = _simulate(SCENARIOS[name])
    eps = 1e-12
    _, lo, hi = stratified_interval(ks, n, big_n)  # the default: mid-p + MOVER
    cover = float(np.mean((lo <= truth + eps) & (truth - eps <= hi)))
    _, lo_x, hi_x = stratified_interval(ks, n, big_n, method="exact")
    cover_exact = float(np.mean((lo_x <= truth + eps) & (truth - eps <= hi_x)))
    r, r_lo, r_hi = recall_interval(ks, n, big_n, flagged=0)
    cover_recall = float(np.mean((r_lo <= recall + eps) & (recall - eps <= r_hi)))
    print(f"{name}: mid-p {cover:.3f}, exact {cover_exact:.3f}, recall {cover_recall:.3f}")
    assert cover >= 0.93
    assert cover_exact >= cover and cover_exact >= 0.94
    assert cover_recall >= 0.94
