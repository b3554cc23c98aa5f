r"""The whole dataset's error rate from a stratified review: disputed + undisputed examples.

Arrays in, numbers out: this module imports nothing from benchcheck.

Reviewing only the flagged (*disputed*) examples bounds the error rate from below
(:func:`benchcheck.stats.intervals.error_rate_interval`). A seeded random *audit sample* of
the undisputed examples, reviewed blind beside the flags, makes the review a stratified
random sample without replacement (Cochran 1977, ch. 5): stratum ``h`` holds ``N_h``
examples, ``n_h`` of them reviewed, ``k_h`` found wrong. Then

.. math::

    \hat p = \sum_h W_h \hat p_h, \qquad W_h = N_h / N, \qquad \hat p_h = k_h / n_h

estimates the error rate of all ``N`` examples without bias, and the detector's recall (the
share of all errors that the flags contain) is

.. math::

    \hat R = \frac{N_D \hat p_D}{N_D \hat p_D + N_U \hat p_U}.

**Per stratum** the exact interval for a sample drawn without replacement is the
hypergeometric one (Buonaccorsi 1987; Wang 2015, *J. Stat. Plan. Inference* 164): with
``X ~ Hypergeom(N_h, M, n_h)`` for ``M`` errors in the stratum,

.. math::

    M_L = \min\{M : P_M(X \ge k) > \alpha/2\}, \qquad
    M_U = \max\{M : P_M(X \le k) > \alpha/2\},

and the *mid-p* variant (Lancaster 1961; Berry & Armitage 1995, *The Statistician* 44:417)
counts half the probability of the observed ``k``: ``P_M(X > k) + P_M(X = k)/2 > alpha/2``
(and the mirror image for ``M_U``). Both need no separate finite population correction:
the hypergeometric law *is* sampling without replacement (a census, ``n_h = N_h``, gives the
point ``k_h / N_h``). No library computes them, so :func:`hypergeometric_interval` searches
``M`` by bisection (the tail probabilities rise monotonically in ``M``) over the
hypergeometric pmf computed from SciPy's ``gammaln`` (checked against ``scipy.stats.hypergeom``
in the tests).

**Combined**, the interval for ``sum_h W_h p_h`` is the MOVER ("method of variance
estimates recovery": Zou & Donner 2008, *Stat. Med.* 27:1693; for linear functions of
proportions Zou, Huang & Zhang 2009, *CSDA* 53:1080), with positive weights:

.. math::

    L = \hat p - \sqrt{\textstyle\sum_h W_h^2 (\hat p_h - l_h)^2}, \qquad
    U = \hat p + \sqrt{\textstyle\sum_h W_h^2 (u_h - \hat p_h)^2},

``[l_h, u_h]`` the per-stratum interval (mid-p by default, ``method="exact"`` for the exact
one). ``L >= sum_h W_h l_h >= 0`` and ``U <= 1``, so no clipping is needed. Neither SciPy nor
statsmodels has MOVER (statsmodels' ``proportion_confint`` covers one binomial proportion),
so :func:`mover_interval` writes the two lines out.

**Why mid-p + MOVER.** Chosen by coverage, computed exactly (summing the hypergeometric
probabilities of every outcome, no simulation noise) over 800 two-stratum reviews (``N`` =
1,000 and 10,000; 10% flagged, 30% of them wrong; all flags or 50 reviewed; 30–400 audited;
undisputed error rates 0.2–12%) at nominal 95%: mid-p + MOVER covers 95.9% on average,
at least 92.6% everywhere, below 93% in 0.3% of the settings; exact + MOVER at least 95.1%
(mean 97.3%) but 10% wider; Wilson + MOVER falls to 84% (2.9% of the settings below 93%),
Jeffreys + MOVER to 87% (6.4%); the textbook stratified Wald interval to 6% (58% of the
settings below 93%: an audit that finds no error gives its stratum zero width), and a
stratified percentile bootstrap (simulated on 80 of the settings) to 61% (26% below 93%).
``benchmarks/error_rate_bench.py`` reproduces these figures. ``method="exact"`` is there
for a guarantee (never below nominal) at the price of width.

**Recall** gets the rectangle interval: each stratum's interval at level
``sqrt(1 - alpha)`` (independent samples, so both hold together with probability at least
``1 - alpha`` when each does), and ``R``, which rises with ``p_D`` and falls with ``p_U``,
taken at the corners: ``[R(l_D, u_U), R(u_D, l_U)]``. Conservative by construction.

**Planning** (:func:`plan_reviews`): Neyman allocation for proportions (Cochran 1977,
eq. 5.26), ``n_h ∝ N_h sqrt(p_h (1 - p_h))`` at anticipated rates ``p_h``, bounded below by
the reviews already done and above by ``N_h`` (the excess re-allocated, Cochran §5.9); the
smallest total whose *expected* interval width (the mean width over the hypergeometric
distribution of the counts at the anticipated rates, computed exactly) is at most the
target, found by bisection on the total.

Edge rules: a stratum with ``N_h = 0`` is left out; a stratum with ``N_h > 0`` and no review
has no estimate, so neither has the whole (``ValueError``); recall is ``None`` when the
estimate finds no error at all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats as _st
from scipy.special import gammaln

__all__ = [
    "METHODS",
    "ReviewPlan",
    "StratifiedErrorRate",
    "StratumEstimate",
    "StratumPlan",
    "expected_width",
    "hypergeometric_bounds",
    "hypergeometric_interval",
    "mover_interval",
    "plan_reviews",
    "recall_interval",
    "stratified_error_rate",
    "stratified_interval",
]

#: Per-stratum intervals the combination can use: ``midp`` (default) or ``exact``.
METHODS = ("midp", "exact")


def hypergeometric_bounds(
    errors: npt.ArrayLike,
    sample: int,
    population: int,
    *,
    confidence: float = 0.95,
    midp: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised bounds ``(M_L, M_U)`` on the number of errors in the population.

    ``errors`` may be an array (every possible count at once, as a simulation needs); the
    formula is in the module docstring. Integers are returned.

    >>> lo, hi = hypergeometric_bounds([0, 5, 10], 10, 10)
    >>> lo.tolist(), hi.tolist()
    ([0, 5, 10], [0, 5, 10])
    """
    k = np.atleast_1d(np.asarray(errors, dtype=np.int64))
    n, big_n = int(sample), int(population)
    _check_sample(k, n, big_n)
    _check_confidence(confidence)
    # a tail equal to alpha/2 (a tie, e.g. mid-p at k = 1) does not count as above it, in
    # floating point too
    half = (1.0 - confidence) / 2.0 + 1e-12

    log_fact = _log_factorials(big_n)

    def upper_tail(m: np.ndarray) -> np.ndarray:  # P_M(X >= k), or mid-p
        ge, _, eq = _tails(k, m, n, big_n, log_fact)
        return ge - 0.5 * eq if midp else ge

    def lower_tail(m: np.ndarray) -> np.ndarray:  # P_M(X <= k), or mid-p
        _, le, eq = _tails(k, m, n, big_n, log_fact)
        return le - 0.5 * eq if midp else le

    least, most = k.copy(), big_n - (n - k)  # M can be neither below k nor above N - (n - k)
    # Bracket each bound within 12 standard errors of the estimate (each end checked; where a
    # check fails the bracket falls back to [least, most]), so bisection takes ~12 steps
    # instead of log2(N).
    p_tilde = (k + 1) / (n + 2)
    se = np.sqrt(p_tilde * (1 - p_tilde) / n * max(big_n - n, 0) / max(big_n - 1, 1))
    center = np.rint(big_n * k / n).astype(np.int64)
    span = np.ceil(12 * se * big_n).astype(np.int64) + 2

    a = np.clip(center - span, least, most)  # smallest M with upper_tail(M) > alpha / 2
    b = np.clip(center + 1, least, most)
    a = np.where((a > least) & (upper_tail(a) > half), least, a)
    b = np.where(upper_tail(b) > half, b, most)
    while np.any(a < b):
        m = (a + b) // 2
        ok = upper_tail(m) > half
        b, a = np.where(ok, m, b), np.where(ok, a, m + 1)
    low = a
    a = np.clip(center - 1, least, most)  # largest M with lower_tail(M) > alpha / 2
    b = np.clip(center + span, least, most)
    a = np.where(lower_tail(a) > half, a, least)
    b = np.where((b < most) & (lower_tail(b) > half), most, b)
    while np.any(a < b):
        m = (a + b + 1) // 2
        ok = lower_tail(m) > half
        a, b = np.where(ok, m, a), np.where(ok, b, m - 1)
    return low, a


def _log_factorials(big_n: int) -> Callable[[npt.ArrayLike], np.ndarray]:
    """``k -> log k!`` for integers ``0 <= k <= N`` (SciPy's ``gammaln``).

    A table read by index up to ``N = 2 * 10^6`` (16 MB at most); beyond, ``gammaln`` itself.
    """
    if big_n <= 2_000_000:
        table = np.asarray(gammaln(np.arange(big_n + 1, dtype=float) + 1))
        return lambda k: table[np.asarray(k, dtype=np.int64)]
    return lambda k: np.asarray(gammaln(np.asarray(k, dtype=float) + 1))


def _tails(
    k: np.ndarray,
    m: np.ndarray,
    n: int,
    big_n: int,
    log_fact: Callable[[npt.ArrayLike], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``P(X >= k)``, ``P(X <= k)`` and ``P(X = k)`` for ``X ~ Hypergeom(N, m, n)``, elementwise.

    ``log pmf(j) = log C(m, j) + log C(N - m, n - j) - log C(N, n)``, the binomial
    coefficients read from a table of ``log k!``, over a window of counts around each mode
    (10 standard deviations + 12 each side: the mass outside is below 1e-20), summed per
    row. SciPy's ``hypergeom`` (``sf`` + ``cdf`` + ``pmf`` of the same 60 counts) took 77×
    as long at ``N`` = 98,000 and 9× at ``N`` = 5,000 (one run, same machine), too slow for
    the thousands of calls a bisection and a plan make. Checked against SciPy in the tests.
    """
    lf = _log_factorials(big_n) if log_fact is None else log_fact
    flat_k = k.ravel().astype(np.int64)
    flat_m = m.ravel().astype(np.int64)
    ge = np.empty(flat_k.size)
    le = np.empty(flat_k.size)
    eq = np.empty(flat_k.size)
    log_total = lf(big_n) - lf(n) - lf(big_n - n)
    p = flat_m / big_n
    sd = np.sqrt(n * p * (1 - p) * max(big_n - n, 0) / max(big_n - 1, 1))
    mode = np.floor((n + 1) * (flat_m + 1) / (big_n + 2)).astype(np.int64)
    half = int(np.ceil(10 * sd.max(initial=0.0))) + 12
    if 2 * half + 1 >= n + 1:
        offsets = np.arange(n + 1)
        base = np.zeros(flat_k.size, dtype=np.int64)
    else:
        offsets = np.arange(-half, half + 1)
        base = mode
    step = max(1, 2_000_000 // offsets.size)
    for s in range(0, flat_k.size, step):
        j = base[s : s + step, None] + offsets
        mm = flat_m[s : s + step, None]
        kk = flat_k[s : s + step, None]
        ok = (j >= 0) & (j <= n) & (j <= mm) & (n - j <= big_n - mm)
        jj = np.where(ok, j, 0)
        rest = np.where(ok, big_n - mm - n + jj, 0)
        logp = (
            lf(mm)
            - lf(jj)
            - lf(np.where(ok, mm - jj, 0))
            + lf(big_n - mm)
            - lf(n - jj)
            - lf(rest)
            - log_total
        )
        pmf = np.exp(np.where(ok, logp, -np.inf))
        pmf /= pmf.sum(axis=1, keepdims=True)
        ge[s : s + step] = np.sum(np.where(j >= kk, pmf, 0.0), axis=1)
        le[s : s + step] = np.sum(np.where(j <= kk, pmf, 0.0), axis=1)
        eq[s : s + step] = np.sum(np.where(j == kk, pmf, 0.0), axis=1)
    return ge.reshape(k.shape), le.reshape(k.shape), eq.reshape(k.shape)


def hypergeometric_interval(
    errors: int, sample: int, population: int, *, confidence: float = 0.95, midp: bool = False
) -> tuple[float, float]:
    """Exact (or mid-p) interval for a stratum's error rate, sampled without replacement.

    The bounds of :func:`hypergeometric_bounds` divided by ``population``. For a large
    population the exact interval approaches Clopper–Pearson's.

    >>> [round(x, 4) for x in hypergeometric_interval(12, 200, 5000)]
    [0.032, 0.1016]
    >>> hypergeometric_interval(0, 10, 10)
    (0.0, 0.0)
    """
    lo, hi = hypergeometric_bounds([errors], sample, population, confidence=confidence, midp=midp)
    return float(lo[0]) / population, float(hi[0]) / population


def mover_interval(
    estimates: npt.ArrayLike,
    lows: npt.ArrayLike,
    highs: npt.ArrayLike,
    weights: npt.ArrayLike,
) -> tuple[np.ndarray, np.ndarray]:
    r"""MOVER interval of ``sum_h w_h theta_h`` (``w_h > 0``) from per-part intervals.

    ``L = sum w θ - sqrt(sum w² (θ - l)²)``, ``U = sum w θ + sqrt(sum w² (u - θ)²)``
    (Zou & Donner 2008). Arrays have the parts on the last axis; the result drops it.

    >>> lo, hi = mover_interval([0.2, 0.1], [0.2, 0.05], [0.2, 0.2], [0.5, 0.5])
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.125, 0.2)
    """
    est = np.asarray(estimates, dtype=float)
    lo = np.asarray(lows, dtype=float)
    hi = np.asarray(highs, dtype=float)
    w = np.asarray(weights, dtype=float)
    if np.any(w <= 0):
        raise ValueError("MOVER weights must be positive")
    point = np.sum(w * est, axis=-1)
    down = np.sqrt(np.sum((w * (est - lo)) ** 2, axis=-1))
    up = np.sqrt(np.sum((w * (hi - est)) ** 2, axis=-1))
    return point - down, point + up


@dataclass(frozen=True)
class StratumEstimate:
    """One stratum of the review: size, reviews, errors, exact and mid-p intervals."""

    name: str
    population: int
    reviewed: int
    errors: int
    error_rate: float
    ci_exact: tuple[float, float]
    ci_midp: tuple[float, float]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "name": self.name,
            "population": self.population,
            "reviewed": self.reviewed,
            "errors": self.errors,
            "error_rate": self.error_rate,
            "ci_exact": list(self.ci_exact),
            "ci_midp": list(self.ci_midp),
        }


@dataclass(frozen=True)
class StratifiedErrorRate:
    """The whole dataset's error rate and the detector's recall from a stratified review.

    ``ci`` is the MOVER combination of the per-stratum ``method`` intervals;
    ``errors_estimate``/``errors_ci`` are the same in examples (times ``population``);
    ``recall`` is the share of all errors inside the stratum named ``flagged`` (``None``
    when no error is estimated anywhere, or when that stratum is absent).
    """

    strata: tuple[StratumEstimate, ...]
    population: int
    error_rate: float
    ci: tuple[float, float]
    errors_estimate: float
    errors_ci: tuple[float, float]
    recall: float | None
    recall_ci: tuple[float, float] | None
    confidence: float
    method: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "method": self.method,
            "confidence": self.confidence,
            "population": self.population,
            "error_rate": self.error_rate,
            "ci": list(self.ci),
            "errors_estimate": self.errors_estimate,
            "errors_ci": list(self.errors_ci),
            "recall": self.recall,
            "recall_ci": None if self.recall_ci is None else list(self.recall_ci),
            "strata": [s.to_dict() for s in self.strata],
        }


def _per_stratum(
    k: np.ndarray, n: int, big_n: int, confidence: float, method: str
) -> tuple[np.ndarray, np.ndarray]:
    """Per-stratum interval (rates) for every count in ``k``, each distinct count computed once."""
    uniq, inverse = np.unique(np.asarray(k, dtype=np.int64), return_inverse=True)
    lo, hi = hypergeometric_bounds(uniq, n, big_n, confidence=confidence, midp=method == "midp")
    return (lo / big_n)[inverse].reshape(np.shape(k)), (hi / big_n)[inverse].reshape(np.shape(k))


def _check_strata(
    errors: np.ndarray, reviewed: np.ndarray, population: np.ndarray, method: str
) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    if reviewed.ndim != 1 or reviewed.shape != population.shape or reviewed.size == 0:
        raise ValueError("reviewed and population need one value per stratum")
    if errors.shape[-1:] != reviewed.shape:
        raise ValueError("errors need one value per stratum (on the last axis)")
    for k, n, big_n in zip(np.moveaxis(errors, -1, 0), reviewed, population, strict=True):
        if big_n == 0:
            continue
        if n < 1:
            raise ValueError(f"a stratum of {big_n} examples has no review")
        _check_sample(k, int(n), int(big_n))


def stratified_interval(
    errors: npt.ArrayLike,
    reviewed: npt.ArrayLike,
    population: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    method: str = "midp",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised stratified estimate and MOVER interval: ``(p_hat, low, high)``.

    ``errors`` holds one count per stratum on its last axis; any leading axes are reviews
    (a simulation passes thousands at once). Empty strata (``N_h = 0``) are left out.

    >>> est, lo, hi = stratified_interval([[0, 5], [10, 5]], [10, 50], [10, 90])
    >>> [round(float(x), 2) for x in est]
    [0.09, 0.19]
    """
    _check_confidence(confidence)
    ks = np.asarray(errors, dtype=np.int64)
    ns, big_ns = np.asarray(reviewed, dtype=np.int64), np.asarray(population, dtype=np.int64)
    _check_strata(ks, ns, big_ns, method)
    keep = np.flatnonzero(big_ns > 0)
    w = big_ns[keep] / big_ns[keep].sum()
    est = np.stack([ks[..., h] / ns[h] for h in keep], axis=-1)
    bounds = [
        _per_stratum(ks[..., h], int(ns[h]), int(big_ns[h]), confidence, method) for h in keep
    ]
    lo, hi = mover_interval(
        est, np.stack([b[0] for b in bounds], -1), np.stack([b[1] for b in bounds], -1), w
    )
    return np.sum(w * est, axis=-1), lo, hi


def recall_interval(
    errors: npt.ArrayLike,
    reviewed: npt.ArrayLike,
    population: npt.ArrayLike,
    *,
    flagged: int = 0,
    confidence: float = 0.95,
    method: str = "midp",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised recall of the flags (stratum ``flagged``) and its rectangle interval.

    ``R = N_D p_D / sum_h N_h p_h``; the interval takes every stratum's interval at level
    ``sqrt(confidence)`` and ``R`` at the corners (module docstring). ``R`` is NaN where no
    error is estimated at all; the interval is then ``[0, 1]``.

    >>> r, lo, hi = recall_interval([10, 0], [20, 100], [20, 980])
    >>> float(r), round(float(lo), 3), float(hi)
    (1.0, 0.233, 1.0)
    """
    _check_confidence(confidence)
    ks = np.asarray(errors, dtype=np.int64)
    ns, big_ns = np.asarray(reviewed, dtype=np.int64), np.asarray(population, dtype=np.int64)
    _check_strata(ks, ns, big_ns, method)
    level = math.sqrt(confidence)
    shape = ks.shape[:-1]
    found, missed = np.zeros(shape), np.zeros(shape)
    d_lo, d_hi = np.zeros(shape), np.zeros(shape)
    r_lo, r_hi = np.zeros(shape), np.zeros(shape)
    for h in np.flatnonzero(big_ns > 0):
        e = ks[..., h] / ns[h] * big_ns[h]
        lo, hi = _per_stratum(ks[..., h], int(ns[h]), int(big_ns[h]), level, method)
        if h == flagged:
            found, d_lo, d_hi = e, lo * big_ns[h], hi * big_ns[h]
        else:
            missed, r_lo, r_hi = missed + e, r_lo + lo * big_ns[h], r_hi + hi * big_ns[h]
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = np.where(found + missed > 0, found / (found + missed), np.nan)
        low = np.where(d_lo > 0, d_lo / (d_lo + r_hi), 0.0)
        high = np.where(d_hi > 0, d_hi / (d_hi + r_lo), 0.0)
    high = np.where(np.isnan(recall), 1.0, high)
    return recall, low, high


def stratified_error_rate(
    errors: npt.ArrayLike,
    reviewed: npt.ArrayLike,
    population: npt.ArrayLike,
    *,
    names: Sequence[str] | None = None,
    flagged: str | None = None,
    confidence: float = 0.95,
    method: str = "midp",
) -> StratifiedErrorRate:
    """Stratified estimate of the whole error rate (module docstring: formula and method).

    ``errors[h]`` of ``reviewed[h]`` reviewed examples of stratum ``h`` (of
    ``population[h]``) were wrong. ``flagged`` names the stratum of the detector's flags,
    whose share of all errors is the recall. The scalar face of :func:`stratified_interval`
    and :func:`recall_interval`, with each stratum's exact and mid-p intervals.

    >>> r = stratified_error_rate([30, 2], [100, 200], [100, 1900],
    ...                           names=["disputed", "undisputed"], flagged="disputed")
    >>> round(r.error_rate, 4), [round(x, 4) for x in r.ci]
    (0.0245, [0.017, 0.0445])
    >>> round(r.recall, 3), [round(x, 3) for x in r.recall_ci]
    (0.612, [0.309, 0.909])
    """
    ks, ns, big_ns = (np.asarray(v, dtype=np.int64) for v in (errors, reviewed, population))
    if ks.ndim != 1:
        raise ValueError("errors, reviewed and population need one value per stratum")
    est, lo, hi = stratified_interval(ks, ns, big_ns, confidence=confidence, method=method)
    labels = list(names) if names is not None else [f"stratum_{i + 1}" for i in range(ks.size)]
    if len(labels) != ks.size:
        raise ValueError("one name per stratum")
    strata = tuple(
        StratumEstimate(
            name,
            int(big_n),
            int(n),
            int(k),
            k / n,
            hypergeometric_interval(int(k), int(n), int(big_n), confidence=confidence),
            hypergeometric_interval(int(k), int(n), int(big_n), confidence=confidence, midp=True),
        )
        for name, k, n, big_n in zip(labels, ks, ns, big_ns, strict=True)
        if big_n > 0
    )
    total = int(big_ns.sum())
    recall: float | None = None
    recall_ci: tuple[float, float] | None = None
    if flagged is not None and flagged in labels and big_ns[labels.index(flagged)] > 0:
        r, r_lo, r_hi = recall_interval(
            ks, ns, big_ns, flagged=labels.index(flagged), confidence=confidence, method=method
        )
        if not math.isnan(float(r)):
            recall, recall_ci = float(r), (float(r_lo), float(r_hi))
    low, high = float(lo), float(hi)
    return StratifiedErrorRate(
        strata,
        total,
        float(est),
        (low, high),
        float(est) * total,
        (low * total, high * total),
        recall,
        recall_ci,
        confidence,
        method,
    )


@dataclass(frozen=True)
class StratumPlan:
    """How many reviews one stratum gets in a :class:`ReviewPlan`."""

    name: str
    population: int
    anticipated_rate: float
    reviewed: int
    planned: int

    @property
    def additional(self) -> int:
        """Reviews still to do in this stratum."""
        return self.planned - self.reviewed

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "name": self.name,
            "population": self.population,
            "anticipated_rate": self.anticipated_rate,
            "reviewed": self.reviewed,
            "planned": self.planned,
            "additional": self.additional,
        }


@dataclass(frozen=True)
class ReviewPlan:
    """Reviews per stratum for an expected interval width (see :func:`plan_reviews`)."""

    strata: tuple[StratumPlan, ...]
    target_width: float
    expected_width: float
    confidence: float
    method: str
    allocation: str = "neyman"

    @property
    def additional(self) -> int:
        """Reviews still to do, all strata together."""
        return sum(s.additional for s in self.strata)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "target_width": self.target_width,
            "expected_width": self.expected_width,
            "confidence": self.confidence,
            "method": self.method,
            "allocation": self.allocation,
            "additional": self.additional,
            "strata": [s.to_dict() for s in self.strata],
        }


def _support(n: int, big_n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Return the counts that carry probability when ``round(p N)`` are errors, and their pmf.

    The pmf (from a table of ``log k!``, as :func:`_tails`) over every possible count,
    keeping those whose probability exceeds 1e-12.
    """
    m = int(round(p * big_n))
    lf = _log_factorials(big_n)
    ks = np.arange(max(0, n - (big_n - m)), min(n, m) + 1)
    logp = (
        lf(m)
        - lf(ks)
        - lf(m - ks)
        + lf(big_n - m)
        - lf(n - ks)
        - lf(big_n - m - n + ks)
        - (lf(big_n) - lf(n) - lf(big_n - n))
    )
    pmf = np.exp(logp)
    keep = pmf > 1e-12
    return ks[keep], pmf[keep] / pmf[keep].sum()


def expected_width(
    reviewed: npt.ArrayLike,
    population: npt.ArrayLike,
    rates: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    method: str = "midp",
) -> float:
    """Mean width of the stratified interval when stratum ``h`` has ``round(rates[h] N_h)`` errors.

    Exact expectation over the hypergeometric distribution of every stratum's count (the
    joint outcomes of all strata, each truncated where its tail probability is below 1e-11).

    >>> expected_width([10, 10], [10, 10], [0.3, 0.1])
    0.0
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    big_ns = np.asarray(population, dtype=np.int64)
    total = big_ns.sum()
    downs: list[tuple[np.ndarray, np.ndarray]] = []
    ups: list[np.ndarray] = []
    ns = np.asarray(reviewed, dtype=np.int64)
    ps = np.asarray(rates, dtype=float)
    for n, big_n, p in zip(ns.tolist(), big_ns.tolist(), ps.tolist(), strict=True):
        if big_n == 0:
            continue
        if n < 1:
            raise ValueError("every non-empty stratum needs at least one review")
        k, pmf = _support(int(n), int(big_n), float(p))
        lo, hi = _per_stratum(k, int(n), int(big_n), confidence, method)
        w = big_n / total
        downs.append((pmf, (w * (k / n - lo)) ** 2))
        ups.append((w * (hi - k / n)) ** 2)
    # joint outcomes: outer sums of the per-stratum squared distances
    prob = np.ones(1)
    down = np.zeros(1)
    up = np.zeros(1)
    for (pmf, d), u in zip(downs, ups, strict=True):
        prob = np.multiply.outer(prob, pmf).ravel()
        down = np.add.outer(down, d).ravel()
        up = np.add.outer(up, u).ravel()
    return float(np.sum(prob * (np.sqrt(down) + np.sqrt(up))))


def _neyman(total: int, big_ns: np.ndarray, s: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Neyman allocation of ``total`` reviews, ``low <= n_h <= N_h`` (water-filling)."""
    weight = big_ns * s
    if weight.sum() == 0:
        weight = big_ns.astype(float)

    def alloc(lam: float) -> np.ndarray:
        return np.clip(np.floor(lam * weight), low, big_ns).astype(np.int64)

    a, b = 0.0, float(total) / max(float(weight[weight > 0].min()), 1e-12) + 1.0
    for _ in range(200):
        mid = (a + b) / 2
        if alloc(mid).sum() >= total:
            b = mid
        else:
            a = mid
    n = alloc(a)
    # hand out the remainder (from flooring) to the strata furthest below their share
    short = total - int(n.sum())
    ideal = b * weight
    order = np.argsort(-(ideal - n))
    for h in order:
        if short <= 0:
            break
        room = int(big_ns[h] - n[h])
        add = min(room, short)
        n[h] += add
        short -= add
    return n


def plan_reviews(
    population: npt.ArrayLike,
    anticipated: npt.ArrayLike,
    *,
    width: float,
    reviewed: npt.ArrayLike | None = None,
    names: Sequence[str] | None = None,
    confidence: float = 0.95,
    method: str = "midp",
) -> ReviewPlan:
    """Reviews per stratum whose expected stratified interval is at most ``width`` wide.

    Neyman allocation at the ``anticipated`` error rates (each in (0, 1)), never below
    ``reviewed`` (reviews already done) nor above the stratum; the smallest total meeting the
    width is found by bisection (module docstring). A census always meets it (width 0).

    >>> plan = plan_reviews([200, 1800], [0.3, 0.02], width=0.05, reviewed=[200, 0])
    >>> [s.planned for s in plan.strata], plan.expected_width <= 0.05
    ([200, 104], True)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    _check_confidence(confidence)
    if not 0 < width < 1:
        raise ValueError(f"width must be in (0, 1), got {width}")
    big_ns = np.asarray(population, dtype=np.int64)
    p = np.asarray(anticipated, dtype=float)
    done = np.zeros_like(big_ns) if reviewed is None else np.asarray(reviewed, dtype=np.int64)
    if not (big_ns.shape == p.shape == done.shape) or big_ns.ndim != 1:
        raise ValueError("population, anticipated and reviewed need one value per stratum")
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError(f"anticipated error rates must be in (0, 1), got {p.tolist()}")
    if np.any(done > big_ns) or np.any(done < 0):
        raise ValueError("reviewed must be between 0 and the stratum size")
    labels = list(names) if names is not None else [f"stratum_{i + 1}" for i in range(p.size)]
    low = np.where(big_ns > 0, np.maximum(done, 1), 0)
    s = np.sqrt(p * (1 - p))

    def width_at(total: int) -> tuple[float, np.ndarray]:
        n = _neyman(total, big_ns, s, low)
        return expected_width(n, big_ns, p, confidence=confidence, method=method), n

    lo_t, hi_t = int(low.sum()), int(big_ns.sum())
    cache: dict[int, tuple[float, np.ndarray]] = {}

    def at(total: int) -> tuple[float, np.ndarray]:
        if total not in cache:
            cache[total] = width_at(total)
        return cache[total]

    # Cochran's total for a Wald interval of this width (eq. 5.26) brackets the search
    z = float(_st.norm.ppf(0.5 + confidence / 2))
    wts = big_ns / big_ns.sum()
    var = (width / (2 * z)) ** 2
    guess = float(np.sum(wts * s)) ** 2 / (var + float(np.sum(wts * s**2)) / big_ns.sum())
    a = min(max(int(guess), lo_t), hi_t)
    if at(a)[0] <= width:  # go down until the width is missed
        b = a
        while a > lo_t and at(a)[0] <= width:
            b, a = a, max(lo_t, int(a / 1.5))
        if at(a)[0] <= width:
            b = a
    else:  # go up until the width is met
        b = a
        while at(b)[0] > width and b < hi_t:
            a, b = b, min(hi_t, int(b * 1.5) + 1)
    while b - a > 1:  # width(a) > target >= width(b), or a == b
        mid = (a + b) // 2
        if at(mid)[0] <= width:
            b = mid
        else:
            a = mid
    best_w, best = at(b) if b != hi_t or at(b)[0] <= width else (0.0, big_ns.copy())
    plans = tuple(
        StratumPlan(name, int(big_n), float(rate), int(d), int(n))
        for name, big_n, rate, d, n in zip(labels, big_ns, p, done, best, strict=True)
    )
    return ReviewPlan(plans, float(width), float(best_w), confidence, method)


def _check_sample(k: np.ndarray, n: int, big_n: int) -> None:
    if n < 1:
        raise ValueError(f"sample size must be >= 1, got {n}")
    if big_n < n:
        raise ValueError(f"population ({big_n}) must be >= sample size ({n})")
    if np.any(k < 0) or np.any(k > n):
        raise ValueError(f"errors must be integers in [0, {n}]")


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
