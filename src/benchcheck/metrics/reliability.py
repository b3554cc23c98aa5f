"""Reliability metrics (Statistical dataset evaluation, Sec. 4.1): can the dataset be trusted.

Accuracy (Eq. 2) needs human judgements; it lives in :mod:`benchcheck.metrics.accuracy`.
Cross-split metrics take a target split and its reference splits (stats: test against
train and dev, as :mod:`benchcheck.metrics.table` says).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from benchcheck.data.model import Split
from benchcheck.metrics._common import duplicates_over_n, leak_share, occurs_in, pairs_over_n


def instance_hash(split: Split) -> pl.Series:
    """Hash of each instance (x, y): tokens and tags for NER, text(s) and label otherwise."""
    return split.table.get_column("xy_hash")


def redundancy(split: Split) -> float | None:
    """Redundancy, Eq. 1: the number of pairs i < j with (x_i, y_i) = (x_j, y_j), divided by n.

    An instance that appears k times contributes k(k−1)/2 pairs. Edge rule: ``None`` for an
    empty split (n = 0). See :func:`duplicate_ratio` for the "instances appearing more than
    once" reading of the text.
    """
    return pairs_over_n(instance_hash(split))


def duplicate_ratio(split: Split) -> float | None:
    """Duplicate ratio (variant of Eq. 1 after the paper's text): (n − distinct (x, y)) / n.

    Equal to :func:`redundancy` when no instance occurs more than twice. Edge rule: ``None``
    for n = 0.
    """
    return duplicates_over_n(instance_hash(split))


def leaked_instances(target: Split, references: Sequence[Split]) -> np.ndarray:
    """Per instance of ``target``: does its (x, y) occur in a reference split (Eq. 3's count)."""
    return occurs_in(target, references, "xy_hash")


def leakage_ratio(target: Split, references: Sequence[Split]) -> float | None:
    """Leakage Ratio, Eq. 3: share of target instances whose (x, y) occurs in a reference split.

    The paper's test split against train and dev. Counted with multiplicity over the target.
    Edge rule: ``None`` when there is no reference split or the target split is empty.

    >>> t = pl.DataFrame({"xy_hash": [1, 2, 2, 3]})
    >>> leakage_ratio(Split("test", "-", t), [Split("train", "-", t[1:2])])
    0.5
    """
    return leak_share(target, references, "xy_hash")


def text_leakage_ratio(target: Split, references: Sequence[Split]) -> float | None:
    """Leakage on the input alone (variant of Eq. 3): share of target x found in a reference.

    A leaked text with a different label is a second problem (an annotation conflict), which
    is why this is reported beside :func:`leakage_ratio`. Edge rule as there.
    """
    return leak_share(target, references, "x_hash")
