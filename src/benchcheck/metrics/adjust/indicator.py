"""Selection for a metric that is a share of marked instances (:class:`IndicatorShare`).

The subset takes round(target · size) marked instances and the rest unmarked, each group
drawn stratified by length; the achieved value is within 1/(2·size) of the target.
"""

from __future__ import annotations

import numpy as np

from benchcheck.errors import UsageError
from benchcheck.metrics.adjust.subsets import draw


def select_indicator(
    flag: np.ndarray,
    target: float,
    size: int,
    bins: np.ndarray,
    share: np.ndarray,
    rng: np.random.Generator,
    what: str,
) -> np.ndarray:
    """Rows with round(target · size) marked (``flag``) instances; refuses when out of reach."""
    k = int(round(target * size))
    pos, neg = np.flatnonzero(flag), np.flatnonzero(~flag)
    if k > pos.size or size - k > neg.size:
        hi = pos.size / size if size else 0.0
        lo = 1 - neg.size / size if size else 0.0
        raise UsageError(
            f"target {target} is out of reach at size {size}: it needs {k} {what} instances "
            f"and {size - k} others; the split has {pos.size} and {neg.size}, so at this size "
            f"the value can only lie in [{max(lo, 0.0):.4f}, {min(hi, 1.0):.4f}]"
        )
    return np.sort(
        np.concatenate([draw(pos, k, bins, share, rng), draw(neg, size - k, bins, share, rng)])
    )
