"""A corpus too large for memory: Parquet files streamed record batch by record batch."""

from __future__ import annotations

import glob
from collections.abc import Iterator, Sequence
from pathlib import Path

import polars as pl

from benchcheck.errors import InputError

__all__ = ["corpus_batches", "corpus_files"]


def corpus_files(patterns: str | Path | Sequence[str | Path]) -> list[Path]:
    """Expand glob patterns, files and folders (every ``*.parquet`` below) into sorted paths."""
    if isinstance(patterns, (str, Path)):
        patterns = [patterns]
    found: set[Path] = set()
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            found.update(path.rglob("*.parquet"))
        elif path.is_file():
            found.add(path)
        else:
            found.update(Path(p) for p in glob.glob(str(pattern), recursive=True))
    files = sorted(p for p in found if p.is_file())
    if not files:
        raise InputError("no corpus files match", path=", ".join(str(p) for p in patterns))
    return files


def corpus_batches(files: Sequence[Path], column: str, batch_rows: int) -> Iterator[pl.Series]:
    """Stream the text column of every file, one record batch at a time (nulls dropped)."""
    import pyarrow.parquet as pq

    for path in files:
        try:
            handle = pq.ParquetFile(path)
        except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
            raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
        names = handle.schema_arrow.names
        if column not in names:
            raise InputError(
                f"no column {column!r}; the file has {', '.join(names)} (choose {{text_column}})",
                path=path,
            )
        batches = handle.iter_batches(batch_size=batch_rows, columns=[column])
        while True:
            try:
                batch = next(batches, None)
            except Exception as exc:  # noqa: BLE001 - a damaged page: a bad file, named
                message = " ".join(str(exc).split())
                raise InputError(f"cannot read as Parquet: {message}", path=path) from None
            if batch is None:
                break
            texts = pl.Series("text", batch.column(0))
            if texts.dtype != pl.String:
                raise InputError(f"column {column!r} holds {texts.dtype}, expected text", path=path)
            yield texts.drop_nulls()
