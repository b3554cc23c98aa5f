"""Write a subset of a split in the split's own format, copying its original lines."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchcheck.data.model import Split
from benchcheck.io.output import atomic_write

__all__ = ["write_subset"]


def write_subset(split: Split, rows: Sequence[int], path: str | Path) -> None:
    """Write the chosen instances in the source's own format, copying their original lines.

    CoNLL: each chosen sentence's lines, sentences separated by one blank line. JSONL (NER
    or tables): the chosen lines. CSV / TSV / Parquet: the chosen rows of the file. A saved
    HuggingFace split is written as JSONL rows.
    """
    from benchcheck.io.tables import read_rows, write_rows

    path = Path(path)
    source = Path(split.source)
    rows = sorted(rows)
    suffix = source.suffix.lower()
    line = split.table.get_column("line").to_numpy()
    if source.is_file() and suffix in (".jsonl", ".ndjson", ".json"):
        lines = source.read_bytes().split(b"\n")
        atomic_write(path, b"".join(lines[line[r] - 1].rstrip(b"\r") + b"\n" for r in rows))
    elif source.is_file() and "sentence" in split.table.columns:  # CoNLL
        n_tok = split.table.get_column("n_tokens").to_numpy()
        lines = source.read_bytes().split(b"\n")
        blocks = [
            b"\n".join(x.rstrip(b"\r") for x in lines[line[r] - 1 : line[r] - 1 + n_tok[r]])
            for r in rows
        ]
        atomic_write(path, b"\n\n".join(blocks) + b"\n")
    elif source.is_file():
        frame = read_rows(source)
        write_rows(frame[np.asarray(rows, dtype=np.int64)], path, like=source)
    else:
        cols = [c for c in ("id", "text", "text_a", "text_b", "label") if c in split.table.columns]
        chosen = split.table[np.asarray(rows, dtype=np.int64)].select(cols)
        write_rows(chosen, path.with_suffix(".jsonl"))
