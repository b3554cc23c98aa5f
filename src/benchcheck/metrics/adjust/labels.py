"""Selection for a metric that is the spread of the label shares (:class:`LabelSpread`).

Label counts from the family p_l ∝ c_l**t (t = 0 uniform, 1 the source distribution, larger
more skewed; c_l the source counts) with t found by bisection, capped by the instances
available per label; each label's rows drawn stratified by length.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from benchcheck.data.model import Split
from benchcheck.metrics.adjust.subsets import draw


def imbalance_counts(counts: np.ndarray, target: float, size: int) -> np.ndarray:
    """Label counts summing to ``size`` whose share std is closest to ``target`` in the family."""

    def alloc(t: float) -> np.ndarray:
        w = counts.astype(np.float64) ** t
        n = np.zeros(counts.size)
        free = np.ones(counts.size, dtype=bool)
        left = float(size)
        for _ in range(counts.size):
            share = w * free / (w * free).sum()
            n = np.where(free, np.minimum(share * left + n, counts), n)
            capped = free & (n >= counts)
            left = size - n.sum()
            if not capped.any() or left <= 1e-9:
                break
            free &= ~capped
            if not free.any():
                break
        out = np.floor(n).astype(np.int64)
        frac = n - out
        for i in np.argsort(-frac)[: size - int(out.sum())]:
            if out[i] < counts[i]:
                out[i] += 1
        # Keep every label present (the metric runs over the labels that occur, so a label
        # dropped to zero would make the shares less, not more, imbalanced).
        for i in np.flatnonzero(out == 0):
            j = int(np.argmax(out))
            if out[j] > 1 and size >= counts.size:
                out[j] -= 1
                out[i] = 1
        return out

    def std(n: np.ndarray) -> float:
        n = n[n > 0]
        return float(np.std(n / n.sum(), ddof=0))

    lo, hi = 0.0, 60.0
    best = alloc(0.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        n = alloc(mid)
        if abs(std(n) - target) < abs(std(best) - target):
            best = n
        if std(n) < target:
            lo = mid
        else:
            hi = mid
    for t in (hi, 60.0):
        n = alloc(t)
        if abs(std(n) - target) < abs(std(best) - target):
            best = n
    return best


def select_label_counts(
    split: Split,
    target: float,
    size: int,
    bins: np.ndarray,
    share: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Rows of ``split`` whose label counts are :func:`imbalance_counts` for ``target``."""
    labels = split.table.get_column("label")
    names = sorted(set(labels.to_list()))
    codes = labels.cast(pl.Enum(names)).to_physical().to_numpy()
    counts = np.bincount(codes, minlength=len(names))
    want = imbalance_counts(counts, target, size)
    return np.sort(
        np.concatenate(
            [draw(np.flatnonzero(codes == k), int(w), bins, share, rng) for k, w in enumerate(want)]
        )
    )
