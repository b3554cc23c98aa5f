"""Small shared pieces of the metric modules."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from benchcheck._hashset import member, unique_sorted, value_counts
from benchcheck.data.model import Split


def pairs_over_n(hashes: pl.Series) -> float | None:
    """Count identical pairs i<j, divided by n (Eq. 1); ``None`` when n = 0."""
    n = hashes.len()
    if n == 0:
        return None
    counts = value_counts(hashes.to_numpy())
    return float((counts * (counts - 1) // 2).sum()) / n


def duplicates_over_n(hashes: pl.Series) -> float | None:
    """(n − number of distinct values) / n; ``None`` when n = 0."""
    n = hashes.len()
    return None if n == 0 else (n - unique_sorted(hashes.to_numpy()).size) / n


def share_std(values: pl.Series) -> float:
    """Return the population std (ddof = 0) of each distinct value's share (Eq. 8's form).

    The counts are sorted first: ``value_counts`` comes in hash order, and the float sums
    (hence the last bit of the result) must not change from run to run.
    """
    counts = np.sort(values.value_counts(name="c")["c"].to_numpy())
    return float(np.std(counts / counts.sum(), ddof=0))


def occurs_in(split: Split, references: Sequence[Split], column: str) -> np.ndarray:
    """Per instance of ``split``: does its ``column`` value occur in one of ``references``."""
    reference = np.concatenate([r.table.get_column(column).to_numpy() for r in references])
    return member(split.table.get_column(column).to_numpy(), reference)


def leaked_mask(target: Split, references: Sequence[Split], column: str) -> np.ndarray | None:
    """Per instance of ``target``: does its ``column`` value occur in one of ``references``.

    ``None`` (undefined) when there is no reference split or the target split is empty.
    """
    if not references or target.n == 0:
        return None
    return occurs_in(target, references, column)


def leak_share(target: Split, references: Sequence[Split], column: str) -> float | None:
    """Share of ``target``'s instances (with multiplicity) whose ``column`` is in a reference."""
    hit = leaked_mask(target, references, column)
    return None if hit is None else float(hit.mean())
