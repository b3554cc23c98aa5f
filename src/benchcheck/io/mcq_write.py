"""Write a multiple-choice benchmark back in its own format with corrected keys.

:func:`write_corrected_mcq` rewrites the file that :func:`benchcheck.io.mcq.read_mcq_split`
read: each changed question's key takes the new option in the old key's own form (an index
stays an index, a letter a letter in its case, an ARC label a label, an option's text the
new option's text), removed questions are left out, and every other cell is kept as read.
MMLU's headerless CSV stays headerless; CSV/TSV are rewritten with the same header and
delimiter; JSONL keeps each object's fields (re-serialised); Parquet keeps its columns and
their types. Other inputs (a saved Hugging Face dataset) are refused.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from benchcheck.data.mcq import LETTERS, McqColumns
from benchcheck.errors import InputError
from benchcheck.io._decoded import read_parquet_bounded
from benchcheck.io._text import read_text_file
from benchcheck.io.mcq import McqRoles, delimited_records, mcq_roles, parse_options
from benchcheck.io.tables import json_lines

__all__ = ["WRITABLE", "key_like", "write_corrected_mcq"]

#: Suffixes :func:`write_corrected_mcq` writes.
WRITABLE = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet")


def key_like(raw: Any, index: int, options: list[str], labels: list[str] | None) -> Any:
    """Return option ``index`` written as the key ``raw`` was: index, label, letter or text.

    >>> opts = ["Paris", "Rome", "Oslo"]
    >>> key_like(0, 2, opts, None), key_like("0", 2, opts, None), key_like("a", 2, opts, None)
    (2, '2', 'c')
    >>> key_like("B", 0, opts, None), key_like("Rome", 2, opts, None)
    ('A', 'Oslo')
    >>> key_like("2", 0, opts, ["1", "2", "3"]), key_like(1.0, 0, opts, None)
    ('1', 0.0)
    """
    if isinstance(raw, bool):
        raise TypeError("a boolean is not a key")
    if isinstance(raw, int):
        return index
    if isinstance(raw, float):
        return float(index)
    text = str(raw).strip()
    if labels is not None and text in labels:
        return labels[index]
    if text.isdigit():
        return str(index)
    if len(text) == 1 and text.upper() in LETTERS:
        return LETTERS[index] if text.isupper() else LETTERS[index].lower()
    return options[index]


def _options(
    row: Mapping[str, Any], roles: McqRoles, source: str, line: int
) -> tuple[list[str], Any]:
    if roles.option_columns:
        found = [str(row.get(c) or "") for c in roles.option_columns]
        while found and found[-1] == "":
            found.pop()
        return found, None
    assert roles.options is not None  # mcq_roles names one or the other
    return parse_options(row.get(roles.options), source, line)


def _rewrite(row: dict[str, Any], roles: Any, new: int, source: str, line: int) -> dict[str, Any]:
    options, labels = _options(row, roles, source, line)
    return {**row, roles.key: key_like(row[roles.key], new, options, labels)}


def write_corrected_mcq(
    source: str | Path,
    output: str | Path,
    changes: Mapping[int, int | None],
    *,
    columns: McqColumns | None = None,
) -> int:
    """Write ``source`` to ``output`` with ``changes`` (line → new key index, ``None`` = remove).

    ``changes`` are keyed by the line each question starts on (the reader's ``line``).
    Returns the questions written.
    """
    src = Path(source)
    cols = columns or McqColumns()
    suffix = src.suffix.lower()
    if suffix not in WRITABLE:
        raise InputError(
            "a corrected benchmark is written as CSV, TSV, JSONL or Parquet; save this one "
            "in one of those first",
            path=src,
        )
    written = 0
    if suffix in (".csv", ".tsv"):
        header, records, headerless = delimited_records(src)
        roles = mcq_roles(header, cols, str(src))
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="\t" if suffix == ".tsv" else ",", lineterminator="\n")
        if not headerless:
            writer.writerow(header)
        for line, record in records:
            if line in changes and changes[line] is None:
                continue
            row = dict(zip(header, record, strict=True))
            new = changes.get(line)
            if new is not None:
                row = _rewrite(row, roles, new, str(src), line)
            writer.writerow([row[c] for c in header])
            written += 1
        Path(output).write_text(buf.getvalue(), encoding="utf-8")
        return written
    if suffix in (".jsonl", ".ndjson", ".json"):
        out: list[str] = []
        found: McqRoles | None = None
        for line, row in json_lines(read_text_file(src), src):
            if not isinstance(row, dict):
                raise InputError("expected one JSON object per line", path=src, line=line)
            if found is None:
                found = mcq_roles(list(row), cols, str(src))
            if line in changes and changes[line] is None:
                continue
            new = changes.get(line)
            if new is not None:
                row = _rewrite(row, found, new, str(src), line)
            out.append(json.dumps(row, ensure_ascii=False) + "\n")
            written += 1
        Path(output).write_text("".join(out), encoding="utf-8")
        return written
    frame = pl.from_arrow(read_parquet_bounded(src))  # nested option lists bounded too
    assert isinstance(frame, pl.DataFrame)
    roles = mcq_roles(frame.columns, cols, str(src))
    rows = frame.to_dicts()
    keep, keys = [], []
    for i, row in enumerate(rows):
        line = i + 1
        if line in changes and changes[line] is None:
            continue
        new = changes.get(line)
        if new is not None:
            row = _rewrite(row, roles, new, str(src), line)
        keys.append(row[roles.key])
        keep.append(i)
    dtype = frame.schema[roles.key]
    result = frame[keep].with_columns(pl.Series(roles.key, keys, dtype=dtype))
    result.write_parquet(output)
    return result.height
