"""Small writers shared by the labels modules (JSONL / CSV / Parquet by extension)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl

from benchcheck.errors import UsageError


def _json_value(v: object) -> object:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def write_table(frame: pl.DataFrame, path: str | Path) -> Path:
    """Write ``frame`` as JSONL (``.jsonl``/``.json``), CSV, TSV or Parquet by extension.

    JSONL is one object per line in column order, UTF-8, ``NaN`` as null: byte-stable.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = frame.drop([c for c in ("__line__",) if c in frame.columns])
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        with path.open("w", encoding="utf-8") as fh:
            for row in frame.iter_rows(named=True):
                clean = {k: _json_value(v) for k, v in row.items()}
                fh.write(json.dumps(clean, ensure_ascii=False) + "\n")
    elif suffix == ".csv":
        frame.write_csv(path)
    elif suffix == ".tsv":
        frame.write_csv(path, separator="\t")
    elif suffix == ".parquet":
        frame.write_parquet(path)
    else:
        raise UsageError(f"cannot write {path}: use .jsonl, .csv, .tsv or .parquet")
    return path
