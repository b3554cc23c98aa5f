"""Subsets of a split: restricting it to rows, and drawing rows stratified by length.

Inside each group adjust draws from, instances are drawn stratified by the length quartile
of the source, so lengths move as little as the constraint allows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from benchcheck.data.model import Split


def subset_split(split: Split, rows: Sequence[int] | np.ndarray) -> Split:
    """Restrict the split to ``rows`` (ascending), with NER sentence ids renumbered."""
    rows = np.asarray(sorted(rows), dtype=np.int64)
    table = split.table[rows]
    tokens, spans = split.tokens, split.spans
    if "sentence" in table.columns:
        remap = np.full(split.n, -1, dtype=np.int64)
        remap[rows] = np.arange(rows.size)
        table = table.with_columns(pl.Series("sentence", np.arange(rows.size, dtype=np.uint32)))

        def _re(frame: pl.DataFrame | None) -> pl.DataFrame | None:
            if frame is None:
                return None
            new = remap[frame.get_column("sentence").to_numpy().astype(np.int64)]
            return (
                frame.with_columns(pl.Series("sentence", new))
                .filter(pl.col("sentence") >= 0)
                .with_columns(pl.col("sentence").cast(pl.UInt32))
            )

        tokens, spans = _re(tokens), _re(spans)
    return Split(
        name=split.name,
        source=split.source,
        table=table,
        tokens=tokens,
        spans=spans,
        scheme=split.scheme,
        tag_repairs=split.tag_repairs,
    )


def instance_lengths(split: Split) -> np.ndarray:
    """Tokens per instance (both texts together for pairs)."""
    t = split.table
    if "n_tokens" in t.columns:
        return t.get_column("n_tokens").to_numpy().astype(np.int64)
    return (t.get_column("n_tokens_a") + t.get_column("n_tokens_b")).to_numpy().astype(np.int64)


def length_bins(lengths: np.ndarray) -> np.ndarray:
    """Length quartile (0..3) of each instance, cut at the source's quartiles."""
    if lengths.size == 0:
        return lengths
    edges = np.unique(np.quantile(lengths, [0.25, 0.5, 0.75]))
    return np.searchsorted(edges, lengths, side="right")


def draw(
    pool: np.ndarray, k: int, bins: np.ndarray, share: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Draw k rows from ``pool``, by length bin in the proportions ``share``, then at random."""
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k >= pool.size:
        return np.sort(pool)
    pool = rng.permutation(pool)
    chosen: list[np.ndarray] = []
    want = np.floor(share * k).astype(np.int64)
    taken = np.zeros(pool.size, dtype=bool)
    pb = bins[pool]
    for b, w in enumerate(want):
        idx = np.flatnonzero(pb == b)[:w]
        taken[idx] = True
        chosen.append(pool[idx])
    rest = k - int(taken.sum())
    if rest > 0:
        chosen.append(pool[~taken][:rest])
    return np.sort(np.concatenate(chosen))
