"""Confidence intervals: exact Clopper–Pearson with the finite population correction, bootstrap.

Arrays in, numbers out: this module imports nothing from benchcheck.

The error-rate interval of label-error detection (methods.md section 2, step 4) is the exact
Clopper–Pearson interval of a binomial proportion, then shrunk towards the point estimate by
the finite population correction, because the reviewed sample of ``n`` examples is drawn
without replacement from a dataset of known size ``N``::

    p_hat = k / n
    [L, U] = Clopper–Pearson(k, n, 1 - alpha)             (Beta quantiles, SciPy)
    f = sqrt((N - n) / (N - 1))
    L_fpc = p_hat - f * (p_hat - L),   U_fpc = p_hat + f * (U - p_hat)

Edge cases (one rule each):

* ``k = 0``: ``L = 0`` (so ``L_fpc = 0``); ``k = n``: ``U = 1`` (so ``U_fpc = 1``).
* ``n = N`` (a census): ``f = 0``, the corrected interval is the point ``[p_hat, p_hat]``.
* ``N = 1``: then ``n = 1 = N`` and ``f = 0`` by the census rule (the formula's 0/0).
* no population given: no correction; ``ci_fpc`` is ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

__all__ = [
    "ErrorRateResult",
    "PairedBootstrapResult",
    "PosteriorErrorRate",
    "bootstrap_ci",
    "clopper_pearson",
    "error_rate_interval",
    "fpc_factor",
    "fpc_interval",
    "paired_bootstrap",
    "percentile_test",
    "posterior_error_rate",
    "proportion_bootstrap_ci",
]


def clopper_pearson(k: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) two-sided interval for a binomial proportion ``k / n``.

    Computed with ``scipy.stats.binomtest(k, n).proportion_ci(method="exact")``, i.e. the
    Beta quantiles ``B(alpha/2; k, n-k+1)`` and ``B(1-alpha/2; k+1, n-k)``; ``L = 0`` when
    ``k = 0`` and ``U = 1`` when ``k = n``.

    >>> lo, hi = clopper_pearson(12, 200)
    >>> round(lo, 4), round(hi, 4)
    (0.0314, 0.1025)
    >>> clopper_pearson(0, 10)[0]
    0.0
    """
    _check_counts(k, n)
    _check_confidence(confidence)
    ci = _st.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="exact")
    return float(ci.low), float(ci.high)


def fpc_factor(n: int, population: int) -> float:
    """Finite population correction ``sqrt((N - n) / (N - 1))``; 0 for a census (``n = N``).

    >>> fpc_factor(200, 5000) == math.sqrt(4800 / 4999)
    True
    >>> fpc_factor(5, 5)
    0.0
    """
    if n < 1:
        raise ValueError(f"sample size must be >= 1, got {n}")
    if population < n:
        raise ValueError(f"population ({population}) must be >= sample size ({n})")
    if population == n:
        return 0.0
    return math.sqrt((population - n) / (population - 1))


def fpc_interval(
    estimate: float, ci: tuple[float, float], n: int, population: int
) -> tuple[float, float]:
    """Shrink each bound's distance from ``estimate`` by :func:`fpc_factor`.

    >>> fpc_interval(0.5, (0.3, 0.8), 10, 10)
    (0.5, 0.5)
    """
    f = fpc_factor(n, population)
    low, high = ci
    return (estimate - f * (estimate - low), estimate + f * (high - estimate))


@dataclass(frozen=True)
class ErrorRateResult:
    """Sample error rate with its plain and finite-population-corrected intervals.

    ``ci_fpc`` and the population lower bounds are ``None`` when no population is known.
    ``lower_bound`` is the corrected interval's lower end (the error rate of the whole
    dataset is at least this, at the stated confidence); ``population_errors_lower`` is the
    matching count, ``max(errors, ceil(lower_bound * population))``.
    """

    errors: int
    sample: int
    population: int | None
    error_rate: float
    ci: tuple[float, float]
    ci_fpc: tuple[float, float] | None
    confidence: float
    fpc: float | None
    lower_bound: float | None
    population_errors_lower: int | None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping with the documented keys."""
        return {
            "errors": self.errors,
            "sample": self.sample,
            "population": self.population,
            "error_rate": self.error_rate,
            "ci": list(self.ci),
            "ci_fpc": None if self.ci_fpc is None else list(self.ci_fpc),
            "confidence": self.confidence,
            "fpc": self.fpc,
            "lower_bound": self.lower_bound,
            "population_errors_lower": self.population_errors_lower,
        }


def error_rate_interval(
    errors: int, sample: int, population: int | None = None, *, confidence: float = 0.95
) -> ErrorRateResult:
    """Error rate ``errors / sample`` with Clopper–Pearson and corrected intervals.

    See the module docstring for the formula and the edge-case rules.

    >>> r = error_rate_interval(12, 200, 5000)
    >>> r.error_rate, [round(x, 4) for x in r.ci_fpc]
    (0.06, [0.032, 0.1016])
    >>> error_rate_interval(3, 3, 3).ci_fpc
    (1.0, 1.0)
    """
    low, high = clopper_pearson(errors, sample, confidence=confidence)
    rate = errors / sample
    if population is None:
        return ErrorRateResult(
            errors, sample, None, rate, (low, high), None, confidence, None, None, None
        )
    if population < sample:
        raise ValueError(f"population ({population}) must be >= sample ({sample})")
    f = fpc_factor(sample, population)
    lo_f, hi_f = fpc_interval(rate, (low, high), sample, population)
    lo_f, hi_f = max(0.0, lo_f), min(1.0, hi_f)
    count = max(errors, math.ceil(lo_f * population - 1e-9))
    return ErrorRateResult(
        errors, sample, population, rate, (low, high), (lo_f, hi_f), confidence, f, lo_f, count
    )


@dataclass(frozen=True)
class PosteriorErrorRate:
    r"""Error rate when each example's error is a probability (a crowd model's posterior).

    ``expected_errors`` = :math:`\sum_i p_i`; ``sd_errors`` its Poisson-binomial standard
    deviation :math:`\sqrt{\sum_i p_i (1 - p_i)}`; ``ci`` the mixed Clopper–Pearson
    interval of :func:`posterior_error_rate`, ``ci_fpc`` the same with the finite population
    correction around ``error_rate`` = expected errors / sample.
    """

    expected_errors: float
    sd_errors: float
    sample: int
    population: int | None
    error_rate: float
    ci: tuple[float, float]
    ci_fpc: tuple[float, float] | None
    confidence: float

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "expected_errors": self.expected_errors,
            "sd_errors": self.sd_errors,
            "sample": self.sample,
            "population": self.population,
            "error_rate": self.error_rate,
            "ci": list(self.ci),
            "ci_fpc": None if self.ci_fpc is None else list(self.ci_fpc),
            "confidence": self.confidence,
        }


def posterior_error_rate(
    p_error: Sequence[float], population: int | None = None, *, confidence: float = 0.95
) -> PosteriorErrorRate:
    r"""Error rate of a sample whose errors are probabilities, with an exact-style interval.

    The error count :math:`K = \sum_i E_i`, :math:`E_i \sim \text{Bernoulli}(p_i)`
    independent, follows the Poisson-binomial law (its pmf by the exact convolution over
    the uncertain examples). The Clopper–Pearson bounds are the quantiles of
    :math:`\text{Beta}(k, n-k+1)` (lower) and :math:`\text{Beta}(k+1, n-k)` (upper); with
    :math:`k` uncertain each Beta is mixed over :math:`P(K = k)`:

    .. math:: L = F^{-1}_{\sum_k P(K=k) \text{Beta}(k, n-k+1)}(\alpha/2), \quad
              U = F^{-1}_{\sum_k P(K=k) \text{Beta}(k+1, n-k)}(1 - \alpha/2)

    (``Beta(0, ·)`` is the point mass at 0, ``Beta(·, 0)`` at 1). Every :math:`p_i \in
    \{0, 1\}` gives Clopper–Pearson exactly; the finite population correction is
    :func:`fpc_interval`'s, around the expected rate. Written here: SciPy has the Beta law
    but no mixture quantile.

    >>> r = posterior_error_rate([1, 1, 0, 0, 0, 0, 0, 0, 0, 0])
    >>> [round(x, 12) for x in r.ci] == [round(x, 12) for x in clopper_pearson(2, 10)]
    True
    >>> posterior_error_rate([0.5, 0.5]).expected_errors
    1.0
    """
    _check_confidence(confidence)
    p = np.clip(np.asarray(p_error, dtype=float), 0.0, 1.0)
    n = len(p)
    if n == 0:
        raise ValueError("the sample is empty")
    sure = int(np.sum(p >= 1.0))
    unsure = p[(p > 0.0) & (p < 1.0)]
    pmf = np.array([1.0])
    for q in unsure:  # exact Poisson-binomial convolution
        pmf = np.concatenate([pmf * (1 - q), [0.0]]) + np.concatenate([[0.0], pmf * q])
    ks = np.arange(len(pmf)) + sure
    alpha = 1 - confidence

    def mixed_cdf(x: float, upper: bool) -> float:
        a = ks + (1 if upper else 0)
        b = n - ks + (0 if upper else 1)
        cdf = np.where(
            a <= 0,
            1.0,
            np.where(b <= 0, 0.0, _st.beta.cdf(x, np.maximum(a, 1e-300), np.maximum(b, 1e-300))),
        )
        return float(np.dot(pmf, cdf))

    from scipy.optimize import brentq

    def quantile(level: float, upper: bool) -> float:
        if mixed_cdf(0.0, upper) >= level:
            return 0.0
        if mixed_cdf(1.0 - 1e-15, upper) < level:
            return 1.0
        return float(brentq(lambda x: mixed_cdf(x, upper) - level, 0.0, 1.0, xtol=1e-14))

    low, high = quantile(alpha / 2, False), quantile(1 - alpha / 2, True)
    expected = float(np.sum(p))
    rate = expected / n
    ci_fpc = None
    if population is not None:
        if population < n:
            raise ValueError(f"population ({population}) must be >= sample ({n})")
        lo_f, hi_f = fpc_interval(rate, (low, high), n, population)
        ci_fpc = (max(0.0, lo_f), min(1.0, hi_f))
    return PosteriorErrorRate(
        expected_errors=expected,
        sd_errors=float(np.sqrt(np.sum(p * (1 - p)))),
        sample=n,
        population=population,
        error_rate=rate,
        ci=(low, high),
        ci_fpc=ci_fpc,
        confidence=confidence,
    )


def bootstrap_ci(
    data: Sequence[float] | np.ndarray,
    statistic: Callable[..., float] = np.mean,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    method: str = "percentile",
) -> tuple[float, float]:
    """Bootstrap interval of ``statistic`` over one sample, via ``scipy.stats.bootstrap``.

    Seeded through ``rng=numpy.random.default_rng(seed)``; the same seed gives the same
    interval. A constant sample returns ``(v, v)``; an empty one ``(nan, nan)``.

    >>> bootstrap_ci([1, 1, 1]) == (1.0, 1.0)
    True
    """
    arr = np.asarray(data, dtype=float)
    _check_confidence(confidence)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if arr.size == 0:
        return (math.nan, math.nan)
    if np.all(arr == arr[0]):
        v = float(statistic(arr))
        return (v, v)
    res = _st.bootstrap(
        (arr,),
        statistic,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method=method,
        vectorized=False,
        rng=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def proportion_bootstrap_ci(
    successes: Sequence[bool] | np.ndarray,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of a share of 0/1 outcomes (``scipy.stats.bootstrap``).

    >>> lo, hi = proportion_bootstrap_ci([1, 0, 1, 1, 0, 1, 1, 1], seed=0)
    >>> 0.0 <= lo <= 0.75 <= hi <= 1.0
    True
    """
    return bootstrap_ci(successes, n_resamples=n_resamples, confidence=confidence, seed=seed)


@dataclass(frozen=True)
class PairedBootstrapResult:
    """Paired bootstrap of ``metric(a) - metric(b)`` on the same resampled items.

    ``p_value`` is two-sided, ``min(1, 2 * min(P(d <= 0), P(d >= 0)))`` over the resamples
    (the percentile-bootstrap test of "no difference"); ``skipped`` counts resamples on
    which a metric was undefined (e.g. ROC AUC with one class), left out of both.
    """

    difference: float
    ci: tuple[float, float]
    p_value: float
    n_resamples: int
    skipped: int


def paired_bootstrap(
    y_true: Sequence[object] | np.ndarray,
    pred_a: Sequence[object] | np.ndarray,
    pred_b: Sequence[object] | np.ndarray,
    metric: Callable[[np.ndarray, np.ndarray], float],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> PairedBootstrapResult:
    """Seeded percentile paired bootstrap of the difference of one metric between two systems.

    Each resample draws ``n`` item indices with replacement
    (``numpy.random.default_rng(seed)``) and scores both systems on the same items, so the
    interval accounts for the pairing (scipy's ``bootstrap(paired=True)`` cannot pass the
    shared truth to a two-system metric, hence this helper). ``progress(done, total)`` is
    called with the resamples done (at the start, every 50, at the end).

    >>> y = [0, 1, 1, 0, 1, 0, 1, 1]
    >>> acc = lambda t, p: float((t == p).mean())
    >>> r = paired_bootstrap(y, y, [1 - v for v in y], acc, n_resamples=200, seed=0)
    >>> r.difference, r.ci, r.p_value
    (1.0, (1.0, 1.0), 0.0)
    """
    t = np.asarray(y_true)
    a = np.asarray(pred_a)
    b = np.asarray(pred_b)
    if not (len(t) == len(a) == len(b)):
        raise ValueError(f"lengths differ: truth {len(t)}, a {len(a)}, b {len(b)}")
    if len(t) == 0:
        raise ValueError("no items to bootstrap")
    _check_confidence(confidence)
    point = float(metric(t, a)) - float(metric(t, b))
    rng = np.random.default_rng(seed)
    diffs: list[float] = []
    skipped = 0
    n = len(t)
    if progress is not None:
        progress(0, n_resamples)
    for k in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        d = float(metric(t[idx], a[idx])) - float(metric(t[idx], b[idx]))
        if progress is not None and ((k + 1) % 50 == 0 or k + 1 == n_resamples):
            progress(k + 1, n_resamples)
        if math.isnan(d):
            skipped += 1
            continue
        diffs.append(d)
    if not diffs:
        return PairedBootstrapResult(point, (math.nan, math.nan), math.nan, n_resamples, skipped)
    ci, p = percentile_test(np.asarray(diffs), confidence)
    return PairedBootstrapResult(point, ci, p, n_resamples, skipped)


def percentile_test(
    diffs: np.ndarray, confidence: float = 0.95
) -> tuple[tuple[float, float], float]:
    """Percentile interval and two-sided p-value of bootstrap differences ``d``.

    ``ci = (q(alpha/2), q(1 - alpha/2))`` of ``d``, ``alpha = 1 - confidence``;
    ``p = min(1, 2 * min(P(d <= 0), P(d >= 0)))`` (the percentile-bootstrap test of
    "no difference").

    >>> percentile_test(np.array([0.1, 0.2, 0.3, -0.1]), 0.5)
    ((0.05, 0.225), 0.5)
    """
    alpha = 1 - confidence
    low, high = np.quantile(diffs, [alpha / 2, 1 - alpha / 2])
    p = min(1.0, 2 * min(float(np.mean(diffs <= 0)), float(np.mean(diffs >= 0))))
    return (float(low), float(high)), p


def _check_counts(k: int, n: int) -> None:
    if int(n) != n or n < 1:
        raise ValueError(f"sample size must be a positive integer, got {n}")
    if int(k) != k or k < 0 or k > n:
        raise ValueError(f"errors must be an integer in [0, {n}], got {k}")


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
