"""Small shared pieces of the metric modules."""

from __future__ import annotations

import numpy as np
import polars as pl

from benchcheck.data.model import Dataset, Split


def pairs_over_n(hashes: pl.Series) -> float | None:
    """Count identical pairs i<j, divided by n (Eq. 1); ``None`` when n = 0."""
    n = hashes.len()
    if n == 0:
        return None
    counts = hashes.value_counts(name="c")["c"].to_numpy().astype(np.int64)
    return float((counts * (counts - 1) // 2).sum()) / n


def duplicates_over_n(hashes: pl.Series) -> float | None:
    """(n − number of distinct values) / n; ``None`` when n = 0."""
    n = hashes.len()
    return None if n == 0 else (n - hashes.n_unique()) / n


def reference_splits(dataset: Dataset, names: tuple[str, ...]) -> list[Split]:
    """Return the splits among ``names`` that the dataset has."""
    return [dataset[name] for name in names if name in dataset]


def share_in(values: pl.Series, reference: pl.Series) -> float | None:
    """Share of ``values`` (with multiplicity) that occur in ``reference``; None when empty."""
    if values.len() == 0:
        return None
    # implode(): membership in the whole reference (a same-type Series is deprecated there).
    return float(values.is_in(reference.unique().implode()).mean())  # type: ignore[arg-type]
