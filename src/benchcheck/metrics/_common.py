"""Small shared pieces of the metric modules."""

from __future__ import annotations

import numpy as np
import polars as pl

from benchcheck._hashset import member, unique_sorted, value_counts
from benchcheck.data.model import Dataset, Split


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


def reference_splits(dataset: Dataset, split: str = "test") -> list[Split]:
    """Return the train and dev splits the dataset has, other than ``split``."""
    return [dataset[name] for name in ("train", "dev") if name in dataset and name != split]


def leaked_test_mask(dataset: Dataset, column: str) -> np.ndarray | None:
    """Per test instance: does its ``column`` value occur in train or dev.

    ``None`` (undefined) when there is no test split, no train or dev split, or the test split
    is empty.
    """
    if "test" not in dataset:
        return None
    refs = reference_splits(dataset)
    if not refs or dataset["test"].n == 0:
        return None
    return occurs_in(dataset["test"], refs, column)


def occurs_in(split: Split, refs: list[Split], column: str) -> np.ndarray:
    """Per instance of ``split``: does its ``column`` value occur in one of ``refs``."""
    reference = np.concatenate([r.table.get_column(column).to_numpy() for r in refs])
    return member(split.table.get_column(column).to_numpy(), reference)


def leak_share(dataset: Dataset, column: str) -> float | None:
    """Share of test instances (with multiplicity) whose ``column`` occurs in train or dev."""
    hit = leaked_test_mask(dataset, column)
    return None if hit is None else float(hit.mean())
