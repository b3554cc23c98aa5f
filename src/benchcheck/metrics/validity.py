"""Validity metrics (Statistical dataset evaluation, Sec. 4.3): does it measure the task."""

from __future__ import annotations

import numpy as np

from benchcheck.data.model import Split
from benchcheck.metrics._common import share_std


def entity_imbalance_degree(split: Split) -> float | None:
    """Entity Imbalance Degree, Eq. 8: std (ddof = 0) of P(c_1), …, P(c_v).

    P(c) is the share of the split's entity mentions whose type is c (O excluded), over the
    types that occur in the split. Edge rule: ``None`` when the split has no entity.
    """
    if split.spans is None or split.spans.height == 0:
        return None
    return share_std(split.spans.get_column("type"))


def entity_null_rate(split: Split) -> float | None:
    """Entity-Null Rate, Eq. 9: the share of instances with no entity.

    Edge rule: ``None`` for n = 0.
    """
    if split.n == 0:
        return None
    return float((split.table.get_column("n_entities") == 0).mean())  # type: ignore[arg-type]


def entity_free(split: Split) -> np.ndarray:
    """Per instance: does it have no entity (the indicator whose mean is Eq. 9)."""
    return (split.table.get_column("n_entities") == 0).to_numpy()
