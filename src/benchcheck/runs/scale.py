"""Data larger than memory: ``benchcheck convert`` (CoNLL → shards) and ``benchcheck leakage``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchcheck.errors import InputError

if TYPE_CHECKING:
    from benchcheck.io.shards import ShardFolder
    from benchcheck.metrics.contamination import LeakageResult

__all__ = ["run_convert", "run_leakage"]


def run_convert(
    data: str | Path | None,
    output: str | Path,
    *,
    splits: Mapping[str, str] | None = None,
    chunk_bytes: int | None = None,
) -> ShardFolder:
    """Convert CoNLL splits into a new folder of Parquet shards (never over an existing one)."""
    from benchcheck.io.convert import convert

    return convert(data, output, splits=dict(splits or {}) or None, chunk_bytes=chunk_bytes)


def run_leakage(
    test: str | Path,
    corpus: Sequence[str],
    *,
    text_column: str = "text",
    test_column: str | None = None,
    id_column: str | None = None,
    n: int = 13,
    batch_rows: int = 8192,
) -> LeakageResult:
    """Measure how far a corpus streamed in batches contaminates the test items."""
    import polars as pl

    from benchcheck.io.corpus import corpus_batches, corpus_files
    from benchcheck.io.tables import read_rows
    from benchcheck.metrics.contamination import contamination

    rows = read_rows(test)
    column = test_column or text_column
    if column not in rows.columns:
        raise InputError(
            f"no column {column!r}; the file has {', '.join(rows.columns)} (choose "
            "{test_column})",
            path=test,
        )
    texts = rows.get_column(column)
    if texts.dtype != pl.String or texts.null_count():
        raise InputError(f"column {column!r} must hold text in every row", path=test)
    id_name = id_column or ("id" if "id" in rows.columns else None)
    if id_name is not None and id_name not in rows.columns:
        raise InputError(
            f"no column {id_name!r}; the file has {', '.join(rows.columns)} (choose {{id_column}})",
            path=test,
        )
    ids = rows.get_column(id_name).cast(pl.String).to_list() if id_name else None
    files = corpus_files(list(corpus))
    return contamination(
        texts.to_list(),
        corpus_batches(files, text_column, batch_rows),
        ids=ids,
        n=n,
        n_files=len(files),
    )
