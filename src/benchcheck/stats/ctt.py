"""Classical Test Theory item and test statistics over a score matrix (items × examinees).

Arrays in, numbers out: this module imports nothing from benchcheck. ``x`` has one row per
item and one column per examinee (for a benchmark, the examinees are models); a cell is 1
(correct) or 0, or a partial credit in [0, 1]. References: Crocker & Algina,
*Introduction to Classical and Modern Test Theory* (1986), ch. 7 (reliability) and ch. 14
(item analysis); Lord & Novick, *Statistical Theories of Mental Test Scores* (1968).

With ``k`` items, examinee totals ``T_j = sum_i x_ij`` and *population* variances (divide
by the number of examinees ``m``, as the issue's contract defines ``sigma^2_T``):

* difficulty ``p_i = mean_j x_ij`` (CTT's "p-value": higher = easier);
* corrected item–total correlation ``r_i = corr_j(x_ij, T_j - x_ij)`` (Pearson; for 0/1
  items the corrected point-biserial), and the uncorrected ``corr_j(x_ij, T_j)`` beside it;
* upper–lower index ``D_i = p_i(upper) - p_i(lower)`` over the top and bottom 27% of
  examinees by total (Kelley 1939);
* KR-20 ``= k/(k-1) * (1 - sum_i p_i (1 - p_i) / sigma^2_T)`` (Kuder & Richardson 1937,
  Eq. 20), for 0/1 items; Cronbach's alpha ``= k/(k-1) * (1 - sum_i sigma^2_i / sigma^2_T)``
  (Cronbach 1951) for any scores (on 0/1 items it equals KR-20);
* SEM ``= sigma_T * sqrt(1 - reliability)``.

Edge rule (one for all): a statistic whose formula divides by zero (an item every examinee
gets right or wrong, totals that are all equal, fewer than two items) is NaN — ``null`` in
JSON — never 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ReliabilityInterval",
    "alpha_if_deleted",
    "corrected_item_total",
    "cronbach_alpha",
    "difficulty",
    "is_dichotomous",
    "item_total",
    "kr20",
    "reliability_bootstrap",
    "sem",
    "upper_lower_index",
]


def _matrix(x: np.ndarray) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"scores must be a 2-D items × examinees array, got shape {arr.shape}")
    if arr.size and (np.isnan(arr).any() or arr.min() < 0 or arr.max() > 1):
        raise ValueError("scores must lie in [0, 1] with no missing value")
    return arr


def is_dichotomous(x: np.ndarray) -> bool:
    """Whether every score is 0 or 1.

    >>> is_dichotomous(np.array([[1, 0], [0, 1]])), is_dichotomous(np.array([[0.5, 1]]))
    (True, False)
    """
    arr = np.asarray(x, dtype=float)
    return bool(np.all((arr == 0) | (arr == 1)))


def difficulty(x: np.ndarray) -> np.ndarray:
    """Item difficulty ``p_i``: the mean score of each item over the examinees.

    >>> difficulty(np.array([[1, 1, 0, 0], [1, 1, 1, 1]])).tolist()
    [0.5, 1.0]
    """
    return _matrix(x).mean(axis=1)


def _row_corr(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson correlation of each row of ``a`` with the same row of ``b``; NaN if constant."""
    ac = a - a.mean(axis=1, keepdims=True)
    bc = b - b.mean(axis=1, keepdims=True)
    num = (ac * bc).sum(axis=1)
    den = np.sqrt((ac * ac).sum(axis=1) * (bc * bc).sum(axis=1))
    out = np.full(a.shape[0], np.nan)
    # a constant row has a centred sum of squares of (numerically) zero
    ok = den > 1e-12 * max(1.0, float(a.shape[1]))
    out[ok] = num[ok] / den[ok]
    return np.clip(out, -1.0, 1.0)


def corrected_item_total(x: np.ndarray) -> np.ndarray:
    """Corrected item–total correlation ``corr_j(x_ij, T_j - x_ij)`` of each item.

    The item is left out of the total it is correlated with (Crocker & Algina 1986,
    section 14.4), so an item cannot correlate with itself. NaN where the item or the rest
    score is constant over the examinees.

    >>> x = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 1, 1]])
    >>> np.round(corrected_item_total(x), 4).tolist()
    [0.0, 0.3333, 0.3333, -0.8944]
    """
    arr = _matrix(x)
    rest = arr.sum(axis=0, keepdims=True) - arr
    return _row_corr(arr, rest)


def item_total(x: np.ndarray) -> np.ndarray:
    """Uncorrected item–total correlation ``corr_j(x_ij, T_j)`` (the item inside the total).

    >>> np.round(item_total(np.array([[1, 1, 0, 0], [1, 0, 1, 0]])), 4).tolist()
    [0.7071, 0.7071]
    """
    arr = _matrix(x)
    total = np.broadcast_to(arr.sum(axis=0), arr.shape)
    return _row_corr(arr, total)


def upper_lower_index(x: np.ndarray, *, fraction: float = 0.27) -> np.ndarray:
    """Upper–lower discrimination index ``D_i = p_i(upper) - p_i(lower)`` (Kelley 1939).

    The groups are the ``g = max(1, round(fraction * m))`` examinees with the highest and
    the lowest totals ``T_j``. Ties at a group's boundary are all taken in (every examinee
    whose total is at least the g-th highest total is in the upper group, and likewise for
    the lower group), so the result does not depend on the order of the examinees. NaN when
    the two groups overlap (fewer than two distinct totals cannot separate anyone).

    >>> x = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0]])  # totals 3, 2, 1, 0
    >>> upper_lower_index(x, fraction=0.5).tolist()
    [1.0, 0.5, 0.5]
    >>> upper_lower_index(np.array([[1, 0], [1, 0]]) * 0 + 1).tolist()  # equal totals
    [nan, nan]
    """
    if not 0 < fraction <= 0.5:
        raise ValueError(f"fraction must be in (0, 0.5], got {fraction}")
    arr = _matrix(x)
    m = arr.shape[1]
    if m < 2:
        return np.full(arr.shape[0], np.nan)
    total = arr.sum(axis=0)
    g = max(1, int(round(fraction * m)))
    order = np.sort(total)
    upper = total >= order[m - g]
    lower = total <= order[g - 1]
    if (upper & lower).any():
        return np.full(arr.shape[0], np.nan)
    return arr[:, upper].mean(axis=1) - arr[:, lower].mean(axis=1)


def _alpha_parts(arr: np.ndarray) -> tuple[int, float, float]:
    k = arr.shape[0]
    var_t = float(arr.sum(axis=0).var())
    return k, float(arr.var(axis=1).sum()), var_t


def _alpha_from(k: int, sum_item_var: float, var_total: float) -> float:
    if k < 2 or not var_total > 0:
        return math.nan
    return k / (k - 1) * (1 - sum_item_var / var_total)


def cronbach_alpha(x: np.ndarray) -> float:
    """Cronbach's alpha ``k/(k-1) (1 - sum_i var_i / var_T)`` (population variances).

    NaN with fewer than two items or when the totals do not vary.

    >>> round(cronbach_alpha(np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0]])), 4)
    0.75
    """
    return _alpha_from(*_alpha_parts(_matrix(x)))


def kr20(x: np.ndarray) -> float:
    """KR-20 ``k/(k-1) (1 - sum_i p_i (1 - p_i) / var_T)`` of 0/1 items (Kuder–Richardson Eq. 20).

    Raises :class:`ValueError` on partial credit (KR-20 is defined for 0/1 items; use
    :func:`cronbach_alpha`). NaN with fewer than two items or when the totals do not vary.

    >>> round(kr20(np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0]])), 4)
    0.75
    """
    arr = _matrix(x)
    if not is_dichotomous(arr):
        raise ValueError("KR-20 needs 0/1 scores; use Cronbach's alpha for partial credit")
    p = arr.mean(axis=1)
    return _alpha_from(arr.shape[0], float((p * (1 - p)).sum()), float(arr.sum(axis=0).var()))


def alpha_if_deleted(x: np.ndarray) -> np.ndarray:
    """Cronbach's alpha of the test without each item (the classic "alpha if item deleted").

    ``var(T - x_i) = var_T + var_i - 2 cov(x_i, T)``; NaN where fewer than two items would
    remain or the remaining totals do not vary.

    >>> x = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0]])
    >>> np.round(alpha_if_deleted(x), 4).tolist()
    [0.5, 0.7273, 0.7273]
    """
    arr = _matrix(x)
    k = arr.shape[0]
    total = arr.sum(axis=0)
    var_i = arr.var(axis=1)
    cov = ((arr - arr.mean(axis=1, keepdims=True)) * (total - total.mean())).mean(axis=1)
    var_rest = total.var() + var_i - 2 * cov
    out = np.full(k, np.nan)
    if k < 3:
        return out
    ok = var_rest > 1e-12
    out[ok] = (k - 1) / (k - 2) * (1 - (var_i.sum() - var_i[ok]) / var_rest[ok])
    return out


def sem(x: np.ndarray, reliability: float) -> float:
    """Compute the standard error of measurement ``sigma_T sqrt(1 - reliability)`` of the totals.

    NaN when the reliability is NaN; 0 for a reliability of 1. A negative reliability (a
    test whose items disagree) gives ``sigma_T sqrt(1 - r) > sigma_T``, as the formula says.

    >>> sem(np.array([[1, 0], [1, 0]]), 0.75)
    0.5
    """
    if math.isnan(reliability):
        return math.nan
    return float(_matrix(x).sum(axis=0).std()) * math.sqrt(max(0.0, 1 - reliability))


@dataclass(frozen=True)
class ReliabilityInterval:
    """A percentile bootstrap interval of Cronbach's alpha (= KR-20 on 0/1 items) over items.

    ``n_undefined`` counts resamples whose totals did not vary (alpha undefined), left out.
    """

    low: float
    high: float
    n_resamples: int
    n_undefined: int
    confidence: float
    seed: int


def reliability_bootstrap(
    x: np.ndarray,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    chunk: int = 100,
) -> ReliabilityInterval:
    """Percentile bootstrap interval of Cronbach's alpha, resampling *items* with replacement.

    Each resample draws ``k`` item indices (``numpy.random.default_rng(seed).integers``) and
    computes alpha on those rows. Computed through the resample's item counts ``w`` (how
    often each item was drawn): totals ``w @ x`` and ``sum_i var_i = w @ var``, which is the
    same number as stacking the drawn rows, for 10,000 items in a fraction of the time.
    The interval is the ``alpha/2`` and ``1 - alpha/2`` quantiles of the defined resamples.

    >>> x = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 0, 1]])
    >>> r = reliability_bootstrap(x, n_resamples=200, seed=0)
    >>> r.low <= cronbach_alpha(x) <= r.high
    True
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    arr = _matrix(x)
    k = arr.shape[0]
    if k < 2 or arr.shape[1] < 2:
        return ReliabilityInterval(math.nan, math.nan, n_resamples, n_resamples, confidence, seed)
    var_i = arr.var(axis=1)
    rng = np.random.default_rng(seed)
    alphas = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        b = min(chunk, n_resamples - start)
        idx = rng.integers(0, k, size=(b, k))
        # the counts of each item in each resample (bincount: np.add.at is ~10x slower)
        flat = (np.arange(b)[:, None] * k + idx).ravel()
        w = np.bincount(flat, minlength=b * k).reshape(b, k).astype(float)
        totals = w @ arr
        var_t = totals.var(axis=1)
        s = w @ var_i
        with np.errstate(divide="ignore", invalid="ignore"):
            a = k / (k - 1) * (1 - s / var_t)
        a[~(var_t > 1e-12)] = np.nan
        alphas[start : start + b] = a
    ok = alphas[np.isfinite(alphas)]
    undefined = n_resamples - ok.size
    if ok.size == 0:
        return ReliabilityInterval(math.nan, math.nan, n_resamples, undefined, confidence, seed)
    q = (1 - confidence) / 2
    low, high = np.quantile(ok, [q, 1 - q])
    return ReliabilityInterval(float(low), float(high), n_resamples, undefined, confidence, seed)
