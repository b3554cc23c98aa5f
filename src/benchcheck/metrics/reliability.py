"""Reliability metrics (Statistical dataset evaluation, Sec. 4.1): can the dataset be trusted.

Accuracy (Eq. 2) needs human judgements; it lives in :mod:`benchcheck.metrics.accuracy`.
"""

from __future__ import annotations

import polars as pl

from benchcheck.data.model import Dataset, Split
from benchcheck.metrics._common import duplicates_over_n, leak_share, pairs_over_n
from benchcheck.metrics.registry import register

_ALL = ("ner", "classification", "pair")


def instance_hash(split: Split) -> pl.Series:
    """Hash of each instance (x, y): tokens and tags for NER, text(s) and label otherwise."""
    return split.table.get_column("xy_hash")


def input_hash(split: Split) -> pl.Series:
    """Hash of each input x alone (tokens for NER, text or text pair otherwise)."""
    return split.table.get_column("x_hash")


@register(
    dimension="reliability",
    better="lower",
    tasks=_ALL,
    scope="split",
    title="Redundancy",
    definition="Eq. 1: pairs i<j with identical (x, y), divided by n.",
)
def redundancy(split: Split) -> float | None:
    """Redundancy, Eq. 1: the number of pairs i < j with (x_i, y_i) = (x_j, y_j), divided by n.

    An instance that appears k times contributes k(k−1)/2 pairs. Edge rule: ``None`` for an
    empty split (n = 0). See :func:`duplicate_ratio` for the "instances appearing more than
    once" reading of the text.
    """
    return pairs_over_n(instance_hash(split))


@register(
    dimension="reliability",
    better="lower",
    tasks=_ALL,
    scope="split",
    title="Duplicate ratio",
    definition="(n − distinct instances) / n: the share of instances that repeat an earlier one.",
)
def duplicate_ratio(split: Split) -> float | None:
    """Duplicate ratio (variant of Eq. 1 after the paper's text): (n − distinct (x, y)) / n.

    Equal to :func:`redundancy` when no instance occurs more than twice. Edge rule: ``None``
    for n = 0.
    """
    return duplicates_over_n(instance_hash(split))


@register(
    dimension="reliability",
    better="lower",
    tasks=_ALL,
    scope="cross",
    title="Leakage ratio",
    definition="Eq. 3: share of test instances (x, y) that also occur in train or dev.",
)
def leakage_ratio(dataset: Dataset) -> float | None:
    """Leakage Ratio, Eq. 3: share of test instances whose (x, y) occurs in train or dev.

    Counted with multiplicity over test. Edge rule: ``None`` when there is no test split, no
    train or dev split, or the test split is empty.
    """
    return leak_share(dataset, "xy_hash")


@register(
    dimension="reliability",
    better="lower",
    tasks=_ALL,
    scope="cross",
    title="Text leakage ratio",
    definition="Share of test inputs x (labels ignored) that also occur in train or dev.",
)
def text_leakage_ratio(dataset: Dataset) -> float | None:
    """Leakage on the input alone (variant of Eq. 3): share of test x found in train or dev.

    A leaked text with a different label is a second problem (an annotation conflict), which
    is why this is reported beside :func:`leakage_ratio`. Edge rule as there.
    """
    return leak_share(dataset, "x_hash")
