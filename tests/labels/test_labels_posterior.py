"""Error posteriors (issue 24): Bayes rules by hand, EM against crowd-kit, totals, top sets."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest

from benchcheck.errors import UsageError
from benchcheck.labels.calibration import reliability
from benchcheck.labels.detectors import detect
from benchcheck.labels.posterior import (
    bayes_rule,
    dawid_skene,
    error_posterior,
    expected_errors,
    fit_noisy_platt,
    symmetric_noise_mle,
    top_by_budget,
    top_by_precision,
)


def test_bayes_rule_two_classes_by_hand():
    # noise matrix T[j, k] = P(label j | true k): class 0 flips to 1 at 10 %, 1 to 0 at 30 %
    t = np.array([[0.9, 0.3], [0.1, 0.7]])
    p = np.array([[0.6, 0.4], [0.2, 0.8]])
    post = bayes_rule(p, [1, 0], t)
    # example 0, label 1: P(z=0) ∝ 0.6·0.1 = 0.06, P(z=1) ∝ 0.4·0.7 = 0.28
    assert post[0].tolist() == pytest.approx([0.06 / 0.34, 0.28 / 0.34], abs=1e-12)
    # example 1, label 0: P(z=0) ∝ 0.2·0.9 = 0.18, P(z=1) ∝ 0.8·0.3 = 0.24
    assert post[1].tolist() == pytest.approx([0.18 / 0.42, 0.24 / 0.42], abs=1e-12)


def test_bayes_three_classes_and_the_flip_rate_by_hand():
    # K = 3, symmetric flips: T_jj = 1 - π, T_jk = π/2
    p = np.array([[0.7, 0.2, 0.1]])
    post = bayes_rule(p, [2], [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    den = 0.7 * 0.1 + 0.2 * 0.1 + 0.1 * 0.8
    assert post[0].tolist() == pytest.approx([0.07 / den, 0.02 / den, 0.08 / den], abs=1e-12)
    # MLE of π: a = (0.9, 0.1, 0.5), K = 2, l'(π) = Σ (b - a)/(a + π(b - a)); by hand the
    # root of -0.8/(0.9 - 0.8π) + 0.8/(0.1 + 0.8π) + 0 = 0 is π = 0.5
    pi = symmetric_noise_mle([[0.1, 0.9], [0.9, 0.1], [0.5, 0.5]], [1, 1, 0])
    assert pi == pytest.approx(0.5, abs=1e-9)
    # and a clean detector agreeing with every label: π = 0
    assert symmetric_noise_mle([[0.9, 0.1], [0.2, 0.8]], [0, 1]) == 0.0


def test_bayes_posterior_is_the_em_fixed_point():
    rng = np.random.default_rng(1)
    p1 = rng.uniform(0.01, 0.99, 200)
    p = np.column_stack([1 - p1, p1])
    y = (rng.random(200) < 0.5).astype(int)
    r = error_posterior(p, y, method="bayes")
    # EM on π: π ← mean posterior error; started anywhere inside, it reaches the MLE
    pi = 0.3
    for _ in range(5000):
        a = p[np.arange(200), y]
        e = pi * (1 - a) / ((1 - pi) * a + pi * (1 - a))
        pi = float(e.mean())
    assert r.params["flip_rate"] == pytest.approx(pi, abs=1e-6)
    assert r.error.sum() == pytest.approx(200 * r.params["flip_rate"], abs=1e-6)


def test_noisy_platt_recovers_flip_rate_and_temperature():
    rng = np.random.default_rng(0)
    n = 6000
    z = rng.integers(0, 2, n)
    x = rng.normal(2.0 * (2 * z - 1), 1.0)  # P(z=1 | x) = σ(4x)
    p = np.column_stack([1 / (1 + np.exp(x / 2)), 1 / (1 + np.exp(-x / 2))])  # says σ(x/2)
    flip = rng.random(n) < 0.08
    y = np.where(flip, 1 - z, z)
    q, pi, alpha, delta = fit_noisy_platt(p, y)
    assert pi == pytest.approx(0.08, abs=0.01)
    assert alpha == pytest.approx(8.0, rel=0.1)
    assert abs(delta[1]) < 0.2
    r = error_posterior(p, y, method="bayes-platt")
    # calibrated against the planted truth (the model is right here): ECE within 0.02
    assert reliability(r.error, flip.astype(float)).ece < 0.02
    assert r.error.sum() == pytest.approx(flip.sum(), rel=0.1)


def _hard_crowd(n: int, k: int, accuracy, seed: int):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    votes = np.zeros((n, len(accuracy), k))
    rows = []
    for w, acc in enumerate(accuracy):
        right = rng.random(n) < acc
        given = np.where(right, truth, (truth + rng.integers(1, k, n)) % k)
        votes[np.arange(n), w, given] = 1.0
        rows += [(f"t{i:04d}", f"w{w}", int(given[i])) for i in range(n)]
    return votes, rows


@pytest.mark.parametrize(("k", "seed"), [(2, 0), (3, 1)])
def test_dawid_skene_equals_crowd_kit_on_hard_votes(k, seed):
    aggregation = pytest.importorskip("crowdkit.aggregation")
    import pandas as pd

    votes, rows = _hard_crowd(400, k, (0.9, 0.75, 0.6, 0.55), seed)
    frame = pd.DataFrame(rows, columns=["task", "worker", "label"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = aggregation.DawidSkene(n_iter=100, tol=1e-5).fit_predict_proba(frame)
    want = ref.loc[[f"t{i:04d}" for i in range(400)], list(range(k))].to_numpy()
    post, prior, conf = dawid_skene(votes, n_iter=100, tol=1e-5)
    np.testing.assert_allclose(post, want, atol=1e-9)
    np.testing.assert_allclose(conf.sum(axis=2), 1.0, atol=1e-12)


def test_dawid_skene_soft_votes_and_missing_answers():
    # a soft vote of (0.5, 0.5) carries no evidence: the posterior equals that without it
    hard = np.array([[[1, 0], [1, 0]], [[0, 1], [0, 1]], [[1, 0], [0, 1]]], dtype=float)
    flat = np.concatenate([hard, np.full((3, 1, 2), 0.5)], axis=1)
    missing = np.concatenate([hard, np.full((3, 1, 2), np.nan)], axis=1)
    post_m, _, _ = dawid_skene(missing)
    post_h, _, _ = dawid_skene(hard)
    np.testing.assert_allclose(post_m, post_h, atol=1e-12)
    post_f, _, conf_f = dawid_skene(flat)
    # the flat annotator's confusion rows are (0.5, 0.5): every likelihood ratio is 1, so
    # the posterior is that without it up to where EM stopped (its start, the mean vote,
    # and its ELBO per answer differ): within 1e-4
    np.testing.assert_allclose(conf_f[2], 0.5, atol=1e-9)
    np.testing.assert_allclose(post_f, post_h, atol=1e-4)
    with pytest.raises(UsageError, match="at least one annotator"):
        dawid_skene(np.full((1, 2, 2), np.nan))


def test_cleanlab_posterior_uses_the_confident_joint():
    count = pytest.importorskip("cleanlab.count")
    rng = np.random.default_rng(2)
    n = 300
    z = rng.integers(0, 2, n)
    p1 = np.clip(np.where(z == 1, 0.8, 0.2) + rng.normal(0, 0.1, n), 0.01, 0.99)
    p = np.column_stack([1 - p1, p1])
    y = np.where(rng.random(n) < 0.1, 1 - z, z)
    r = error_posterior(p, y, method="cleanlab")
    joint = count.estimate_joint(labels=y, pred_probs=p)
    t = joint / joint.sum(axis=0, keepdims=True)
    np.testing.assert_allclose(r.noise, t, atol=1e-12)
    np.testing.assert_allclose(r.posterior, bayes_rule(p, y, t), atol=1e-12)


def test_expected_errors_exact_and_normal():
    # Poisson-binomial of (0.1, 0.5, 0.9): pmf by hand
    r = expected_errors([0.1, 0.5, 0.9], level=0.8)
    pmf = [0.9 * 0.5 * 0.1, 0.1 * 0.5 * 0.1 + 0.9 * 0.5 * 0.1 + 0.9 * 0.5 * 0.9]
    assert pmf[0] == pytest.approx(0.045)  # P(0) < 0.1 ≤ P(≤1) = 0.5: the 10 % quantile is 1
    assert (r.expected, r.low, r.high, r.method) == (pytest.approx(1.5), 1.0, 2.0, "exact")
    big = expected_errors(np.full(30_000, 0.1))
    sd = math.sqrt(30_000 * 0.09)
    assert big.method == "normal"
    assert big.low == pytest.approx(3000 - 1.959964 * sd, abs=1e-3)
    assert big.high == pytest.approx(3000 + 1.959964 * sd, abs=1e-3)
    # exact against scipy's binomial when every score is equal
    from scipy.stats import binom

    e = expected_errors(np.full(200, 0.05))
    assert (e.low, e.high) == (binom.ppf(0.025, 200, 0.05), binom.ppf(0.975, 200, 0.05))


def test_budget_and_target_precision_selection():
    s = np.array([0.3, 0.95, np.nan, 0.7, 0.7, 0.1])
    assert top_by_budget(s, 3).tolist() == [False, True, False, True, True, False]
    assert top_by_budget(s, 99).sum() == 5  # never an unscored row
    assert top_by_budget(s, 0).sum() == 0
    # running means: 0.95, 0.825, 0.783, 0.6625, 0.55
    assert top_by_precision(s, 0.78).tolist() == [False, True, False, True, True, False]
    assert top_by_precision(s, 0.66).sum() == 4
    assert top_by_precision(s, 0.99).sum() == 0
    with pytest.raises(UsageError, match="target_precision"):
        top_by_precision(s, 0.0)


def _case(copies: int = 1):
    """40 examples × ``copies``: two planted errors the judge is sure of per copy."""
    ids, p1, labels = [], [], []
    for c in range(copies):
        part_p = [0.95 if i % 2 else 0.05 for i in range(40)]
        part_l = ["1" if i % 2 else "0" for i in range(40)]
        part_l[2], part_l[5] = "1", "0"  # two planted errors the judge is sure of
        part_p[7] = 0.6  # a doubtful one, label 1
        ids += [f"e{i}" if c == 0 else f"e{i}_{c}" for i in range(40)]
        p1 += part_p
        labels += part_l
    data = pl.DataFrame({"id": ids, "label": labels})
    j = pl.DataFrame(
        {"id": ids, "judge": "m", "prompt": "p", "p_0": [1 - v for v in p1], "p_1": p1}
    )
    return data, j


def test_fallback_scores_are_the_posterior_mean_over_the_flip_rate_by_quadrature():
    # 40 examples < MIN_FIT: the detector is taken as calibrated (alpha = 1, delta = 0) and
    # e_i = E[pi (1 - a_i) / (pi (1 - a_i) + (1 - pi) a_i)] under the posterior of pi,
    # uniform prior on [PI_MIN, 1/2 - 0.001], likelihood prod_i ((1 - pi) a_i + pi (1 - a_i))
    from scipy.integrate import quad

    from benchcheck.labels.posterior import PI_MIN

    data, j = _case()
    y = np.array([int(v) for v in data["label"]])
    p1 = j["p_1"].to_numpy()
    a = np.where(y == 1, p1, 1 - p1)
    r = error_posterior(np.column_stack([1 - p1, p1]), y, method="bayes-platt")
    assert r.rate.rule == "fallback" and "only 40 scored examples" in r.rate.reason

    def lik(pi):
        return float(np.exp(np.sum(np.log((1 - pi) * a + pi * (1 - a)))))

    hi = 0.5 - 1e-3
    z = quad(lik, PI_MIN, hi, points=[0.05, 0.1], limit=200)[0]
    want = [
        quad(
            lambda pi, ai=ai: pi * (1 - ai) / (pi * (1 - ai) + (1 - pi) * ai) * lik(pi),
            PI_MIN,
            hi,
            points=[0.05, 0.1],
            limit=200,
        )[0]
        / z
        for ai in a
    ]
    np.testing.assert_allclose(r.error, want, atol=3e-3)
    mean_pi = quad(lambda pi: pi * lik(pi), PI_MIN, hi, points=[0.05, 0.1], limit=200)[0] / z
    assert r.params["flip_rate"] == pytest.approx(mean_pi, abs=3e-3)
    # no ties made: the order is the detector's (a_i), the two sure errors on top
    order = np.argsort(-r.error, kind="stable")
    assert sorted(order[:2].tolist()) == [2, 5]
    assert len(np.unique(r.error.round(12))) == len(np.unique(a.round(12)))


def test_grid_likelihood_matches_a_brute_force_maximisation_and_weights():
    # 200 examples (fitted): at grid points (pi, alpha) the fitted offset is as good as
    # Nelder-Mead from two starts on the same likelihood, written out here
    from scipy.optimize import minimize

    from benchcheck.labels.base_rate import profile_grid, rate_posterior

    data, j = _case(copies=5)
    y = np.array([int(v) for v in data["label"]])
    p1 = j["p_1"].to_numpy()
    r = rate_posterior(np.column_stack([1 - p1, p1]), y)
    assert r.rule == "fitted"
    logit = np.log(p1) - np.log1p(-p1)
    pis = np.unique(r.combined)[::7]
    alphas = np.array([0.3, 1.0, 8.0])
    ll, th = profile_grid(np.log(np.column_stack([1 - p1, p1])), y, pis, alphas)

    def nll(d, pi, alpha):
        q1 = 1 / (1 + np.exp(-(alpha * logit + min(max(d[0], -30.0), 30.0))))
        qy = np.where(y == 1, q1, 1 - q1)
        return -np.sum(np.log(pi + (1 - 2 * pi) * qy))

    for g, pi in enumerate(pis):
        for h, alpha in enumerate(alphas):
            best = min(
                minimize(nll, [x0], args=(pi, alpha), method="Nelder-Mead").fun for x0 in (0.0, 5.0)
            )
            assert ll[g, h] >= -best - 1e-4, (pi, alpha)
            assert ll[g, h] == pytest.approx(-nll(th[g, h, 1:], pi, alpha), abs=1e-9)
    ex = expected_errors(r.score, rate=r)
    assert ex.kind == "posterior over the error rate" and ex.low <= 10 <= ex.high
    assert r.weight.sum() == pytest.approx(1.0)


def _weak_case(n: int, seed: int):
    """A weak detector (ROC AUC ~0.76, as the embedded judge), under-confident, 10 % flips."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    x = rng.normal(0.5 * (2 * z - 1), 1.0)  # true log-odds of z given x: x
    p = np.column_stack([1 / (1 + np.exp(x / 2)), 1 / (1 + np.exp(-x / 2))])  # says x/2
    flip = rng.random(n) < 0.1
    return p, np.where(flip, 1 - z, z), int(flip.sum())


def test_interval_carries_the_fit_and_covers_with_a_weak_detector():
    # 120 examples, 20 draws: the posterior interval covers the flip count in >= 85 % of
    # draws; the plug-in Poisson-binomial at the posterior mode, which takes the fit as
    # known (issue 24's interval), in at most half of them
    covered, plug_covered = 0, 0
    for seed in range(20):
        p, y, flips = _weak_case(120, seed)
        r = error_posterior(p, y, method="bayes-platt")
        ex = expected_errors(r.error, rate=r.rate)
        plug = expected_errors(r.rate.errors[int(np.argmax(r.rate.weight))])
        covered += ex.low <= flips <= ex.high
        plug_covered += plug.low <= flips <= plug.high
    assert covered >= 17
    assert plug_covered <= 10


def test_detect_operating_points_and_expected_errors():
    data, j = _case(copies=5)  # 200 examples: the error rate is fitted
    base = detect(data, j, calibration="none", posterior="bayes-platt")
    e = base.frame["error_score"].to_numpy()
    r = error_posterior(
        base.frame.select("p_0", "p_1").to_numpy(),
        [int(v) for v in data["label"]],
        method="bayes-platt",
    )
    np.testing.assert_allclose(e, r.error, atol=1e-12)
    assert base.expected.expected == pytest.approx(float(e.sum()), abs=1e-9)
    got = base.to_json()["expected_errors"]
    assert got["interval"] == "posterior over the error rate (normal)" and got["rule"] == "fitted"
    # the default: the largest top set of mean error score >= 0.5 (the ten sure errors)
    point = base.operating_point
    assert point["rule"] == "precision" and point["target_precision"] == 0.5
    disagree = base.frame["disagree"].to_numpy()
    want = top_by_precision(np.where(disagree, e, np.nan), 0.5)
    assert base.frame["flagged"].to_list() == want.tolist()
    sure = {f"e{i}" if c == 0 else f"e{i}_{c}" for c in range(5) for i in (2, 5)}
    assert sure <= set(base.frame.filter(pl.col("flagged"))["id"].to_list())
    assert point["expected_precision"] >= 0.5 and point["expected_errors"] == pytest.approx(e.sum())
    top2 = detect(data, j, calibration="none", posterior="bayes-platt", budget=2)
    assert set(top2.frame.filter(pl.col("flagged"))["id"].to_list()) <= sure
    point = top2.operating_point
    assert point["rule"] == "budget" and point["flags"] == 2
    assert point["expected_true_errors"] == pytest.approx(float(np.sort(e)[-2:].sum()))
    t = float(np.sort(e)[-3:].mean()) - 1e-9
    want = top_by_precision(e, t)
    tp = detect(data, j, calibration="none", posterior="bayes-platt", target_precision=t)
    assert tp.frame["flagged"].to_list() == want.tolist() and want.sum() >= 3
    assert tp.operating_point["expected_precision"] == pytest.approx(float(e[want].mean()))
    with pytest.raises(UsageError, match="two operating points"):
        detect(data, j, budget=1, target_precision=0.5)
    with pytest.raises(UsageError, match="posterior"):
        detect(data, j, posterior="magic")


def test_bad_operating_points_say_what_is_reachable():
    data, j = _case()
    with pytest.raises(UsageError, match="budget 41 is larger than the 40 scored"):
        detect(data, j, calibration="none", budget=41)
    base = detect(data, j, calibration="none")
    best = float(base.frame["error_score"].max())
    with pytest.raises(UsageError, match=f"best reachable expected precision is {best:.3f}"):
        detect(data, j, calibration="none", target_precision=min(1.0, best + 0.01))


def test_fallback_flags_every_disagreement_and_says_why():
    data, j = _case()  # 40 examples: below MIN_FIT
    found = detect(data, j, calibration="none")
    f = found.frame
    assert f["flagged"].to_list() == f["disagree"].to_list()
    assert sorted(f.filter(pl.col("flagged"))["id"].to_list()) == ["e2", "e5"]
    point = found.operating_point
    assert point["rule"] == "disagreements" and "only 40 scored examples" in point["why"]
    got = found.to_json()["expected_errors"]
    assert got["rule"] == "fallback" and got["low"] <= 2 <= got["high"]


def test_judge_error_split_matches_enumeration_on_five_examples():
    # five examples, the fit forced (min_fit=0), the combined rate split in 3: at every
    # component the score is P(z != label | label) by enumerating the true label z under
    # the judge's belief with its error floor, q' = (1 - eps) q + eps (1 - q), and flips
    # at rho; rho + eps - 2 rho eps is the grid's combined rate; the split's weights are
    # the conditional of uniform priors (0.5, 1, 0.5) x 1 / (1 - 2 rho), normalised
    from benchcheck.labels.base_rate import rate_posterior

    p1 = np.array([0.9, 0.2, 0.6, 0.35, 0.75])
    y = np.array([0, 0, 1, 1, 1])
    p = np.column_stack([1 - p1, p1])
    r = rate_posterior(p, y, min_fit=0, split_points=3)
    flat = rate_posterior(p, y, min_fit=0)
    assert r.rule == "fitted" and r.errors.shape == (3 * len(flat.weight), 5)
    rho, eps, c = r.grid, r.judge_error, r.combined
    np.testing.assert_allclose(rho + eps - 2 * rho * eps, c, atol=1e-12)
    logit = np.log(p1 / (1 - p1))
    for g in range(len(r.weight)):
        q1 = 1 / (1 + np.exp(-(r.alpha[g] * logit + r.delta[g][1])))
        for i in range(5):
            qz = {1: (1 - eps[g]) * q1[i] + eps[g] * (1 - q1[i])}
            qz[0] = 1 - qz[1]
            joint = {z: qz[z] * ((1 - rho[g]) if z == y[i] else rho[g]) for z in (0, 1)}
            want = joint[1 - y[i]] / (joint[0] + joint[1])
            assert r.errors[g, i] == pytest.approx(want, abs=1e-9)
    # each combined rate keeps its flip-only weight, shared as the prior says
    for g0, cg in enumerate(flat.grid):
        part = r.weight[3 * g0 : 3 * g0 + 3]
        assert part.sum() == pytest.approx(flat.weight[g0], rel=1e-9)
        r_ = np.array([0.0, cg / 2, cg])
        want = np.array([0.5, 1.0, 0.5]) / (1 - 2 * r_)
        np.testing.assert_allclose(part / part.sum(), want / want.sum(), rtol=1e-9)
    # a share of every disagreement goes to the judge: fewer expected flips, same order
    assert r.score.sum() < flat.score.sum()
    assert np.argsort(-r.score).tolist() == np.argsort(-flat.score).tolist()
    assert "split between them" in r.reason and r.to_json()["judge_error_posterior_mean"] > 0


def test_judge_error_prior_weights_and_scores_match_enumeration_on_five_examples():
    # the judge-error prior Beta(2, 18), four quantile points: at every combined rate c of
    # the flip-only grid, eps_j = Beta(2, 18).ppf((j + 1/2) / 4) where eps_j <= c, the flip
    # rate rho = (c - eps_j) / (1 - 2 eps_j) and the weight flat_w(c) x 1 / (1 - 2 eps_j)
    # (a uniform prior on rho: density 1 times d rho / d c), all normalised together; the
    # scores by enumerating the true label as in the split's test above
    from scipy.stats import beta

    from benchcheck.labels import base_rate
    from benchcheck.labels.base_rate import rate_posterior

    p1 = np.array([0.9, 0.2, 0.6, 0.35, 0.75])
    y = np.array([0, 0, 1, 1, 1])
    p = np.column_stack([1 - p1, p1])
    old = base_rate.JUDGE_POINTS
    base_rate.JUDGE_POINTS = 4
    try:
        r = rate_posterior(p, y, min_fit=0, judge_error=(2.0, 18.0))
    finally:
        base_rate.JUDGE_POINTS = old
    flat = rate_posterior(p, y, min_fit=0)
    qs = beta.ppf((np.arange(4) + 0.5) / 4, 2.0, 18.0)
    want_w, want_rho, want_eps = [], [], []
    for c, wc in zip(flat.grid, flat.weight, strict=True):
        for e in qs[qs <= c]:
            want_w.append(wc / (1 - 2 * e))
            want_rho.append((c - e) / (1 - 2 * e))
            want_eps.append(e)
    np.testing.assert_allclose(r.weight, np.array(want_w) / sum(want_w), rtol=1e-9)
    np.testing.assert_allclose(r.grid, want_rho, atol=1e-12)
    np.testing.assert_allclose(r.judge_error, want_eps, atol=1e-12)
    rho, eps = r.grid, r.judge_error
    logit = np.log(p1 / (1 - p1))
    for g in range(len(r.weight)):
        q1 = 1 / (1 + np.exp(-(r.alpha[g] * logit + r.delta[g][1])))
        for i in range(5):
            qz = {1: (1 - eps[g]) * q1[i] + eps[g] * (1 - q1[i])}
            qz[0] = 1 - qz[1]
            joint = {z: qz[z] * ((1 - rho[g]) if z == y[i] else rho[g]) for z in (0, 1)}
            assert r.errors[g, i] == pytest.approx(joint[1 - y[i]] / sum(joint.values()))
    assert "Beta(2, 18) prior" in r.reason


def test_judge_error_prior_is_measured_on_clean_labels_and_removes_the_overcount():
    # simulated judge with a confident-mistake floor eps = 0.08: on clean labels the fitted
    # combined rate is eps (the prior's mean near 0.08, its moments those of the posterior);
    # with flips at 10 % planted on other data, reading every disagreement as a flip counts
    # at least (0.1 + 0.08 - 2 * 0.1 * 0.08) / 0.1 = 1.64 times the planted errors (1.80
    # here: the temperature-rate ridge adds its own), the prior removes most of the excess
    # without going below the planted count (1.44 here: the clean fit finds eps = 0.05)
    from benchcheck.labels.base_rate import judge_error_prior, rate_posterior

    rng = np.random.default_rng(3)

    def judged(n: int) -> tuple[np.ndarray, np.ndarray]:
        p1 = 1 / (1 + np.exp(-rng.normal(0, 3, n)))
        q = 0.92 * p1 + 0.08 * (1 - p1)
        return np.column_stack([1 - p1, p1]), (rng.random(n) < q).astype(int)

    p_clean, y_clean = judged(2000)
    a, b, m = judge_error_prior(p_clean, y_clean)
    post = rate_posterior(p_clean, y_clean, min_fit=0)
    mean = post.mean
    var = float(post.weight @ (post.grid - mean) ** 2)
    assert m == 2000 and a / (a + b) == pytest.approx(mean, rel=1e-9)
    assert a * b / ((a + b) ** 2 * (a + b + 1)) == pytest.approx(var, rel=1e-6)
    assert abs(mean - 0.08) < 0.04
    p, y = judged(2000)
    flip = np.zeros(2000, bool)
    flip[rng.choice(2000, 200, replace=False)] = True
    noisy = np.where(flip, 1 - y, y)
    plain = rate_posterior(p, noisy).score.sum() / 200
    with_prior = rate_posterior(p, noisy, judge_error=(a, b)).score.sum() / 200
    assert plain > 1.64 and 1.0 < with_prior < plain - 0.3


def test_the_offset_fit_in_row_blocks_is_the_fit_all_at_once(monkeypatch):
    # each (pi, alpha) row is its own Newton problem: blocks of 1, 7 or all 560 rows give
    # bit-identical log-likelihoods and offsets (the blocks bound memory at large n)
    import benchcheck.labels.base_rate as br

    rng = np.random.default_rng(3)
    n = 500
    y = rng.integers(0, 2, n)
    p1 = 1 / (1 + np.exp(-rng.normal(2.0 * (2 * y - 1), 1.5)))
    logp = np.log(np.column_stack([1 - p1, p1]))
    pis = np.linspace(0.001, 0.49, 40)
    alphas = np.exp(np.linspace(np.log(0.05), np.log(50.0), 14))
    got = {}
    for cells in (n, 7 * n, 10**9):
        monkeypatch.setattr(br, "BLOCK_CELLS", cells)
        got[cells] = br.profile_grid(logp, y, pis, alphas)
    for cells in (n, 7 * n):
        np.testing.assert_array_equal(got[cells][0], got[10**9][0])
        np.testing.assert_array_equal(got[cells][1], got[10**9][1])
