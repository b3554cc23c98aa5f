"""Read multiple-choice question files into ``mcq`` splits (see :mod:`benchcheck.data.mcq`).

Shapes read:

* CSV / TSV with a header, or MMLU's headerless CSV (``question,A,B,C,D,answer``: no
  known column name in the first row and a last field that is one letter);
* JSONL and Parquet;
* a saved Hugging Face dataset (``save_to_disk``): cais/mmlu (``question``, ``choices``,
  ``answer`` as an index), ARC and CommonsenseQA (``choices`` = ``{label, text}``,
  ``answerKey``), HellaSwag (``ctx``, ``endings``, ``label``), OpenBookQA (``question_stem``).

The options come from one column (a list; ``{"label": [...], "text": [...]}``; a list of
``{label, text}`` objects; a letter → text mapping; a Python-literal list in a CSV cell)
or from one column per option (``A``, ``B``, …; trailing empty cells drop options, so
questions may have different numbers of options). The key is normalised by
:func:`benchcheck.data.mcq.key_index`; a key that names no option, a row with fewer than
two options or a missing option between two present ones is an :class:`InputError` naming
the row's line.
"""

from __future__ import annotations

import ast
import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.hashing import mix64, string_hash
from benchcheck.data.mcq import (
    GROUP_DEFAULTS,
    KEY_DEFAULTS,
    LETTERS,
    OPTIONS_DEFAULTS,
    QUESTION_DEFAULTS,
    McqColumns,
    key_index,
)
from benchcheck.data.model import Split
from benchcheck.errors import InputError
from benchcheck.io._text import check_readable, read_text_file
from benchcheck.io._tokens import whitespace_token_counts
from benchcheck.io.hf import arrow_table, saved_hf_parts
from benchcheck.io.tables import json_lines, labelled_hash, read_rows

__all__ = [
    "build_mcq_split",
    "delimited_records",
    "McqRoles",
    "mcq_roles",
    "parse_options",
    "read_hf_mcq",
    "read_mcq_split",
]

_KNOWN = {c.lower() for c in (*QUESTION_DEFAULTS, *OPTIONS_DEFAULTS, *KEY_DEFAULTS, "id")}


def _delimited_rows(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """CSV/TSV rows as dicts with each record's first line; MMLU's headerless CSV named."""
    header, records, _ = delimited_records(path)
    rows, lines = [], []
    for line, record in records:
        rows.append(dict(zip(header, record, strict=True)))
        lines.append(line)
    return rows, lines


def delimited_records(path: Path) -> tuple[list[str], list[tuple[int, list[str]]], bool]:
    """Return a CSV/TSV file's header, its records with their first lines, and whether it had none.

    MMLU's headerless CSV gets the header ``question, A, B, …, answer``; a record with
    another number of fields is an :class:`InputError` naming its line.
    """
    text = read_text_file(path).removeprefix("\ufeff")
    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    records: list[tuple[int, list[str]]] = []
    start = 1
    for record in reader:
        if record:
            records.append((start, record))
        start = reader.line_num + 1
    if not records:
        raise InputError("empty file: expected rows of questions", path=path)
    first = records[0][1]
    headerless = (
        len(first) >= 4
        and not any(f.strip().lower() in _KNOWN for f in first)
        and len(first[-1].strip()) == 1
        and first[-1].strip().upper() in LETTERS
    )
    if headerless:
        header = ["question", *LETTERS[: len(first) - 2], "answer"]
    else:
        header, records = first, records[1:]
        if not records:
            raise InputError("a header and no rows; expected at least one row", path=path)
    for line, record in records:
        if len(record) != len(header):
            raise InputError(
                f"expected {len(header)} fields, got {len(record)}", path=path, line=line
            )
    return header, records, headerless


def _pick(have: Sequence[str], named: str | None, defaults: Sequence[str]) -> str | None:
    if named is not None:
        return named
    lower = {c.lower(): c for c in have}
    return next((lower[d.lower()] for d in defaults if d.lower() in lower), None)


def parse_options(value: Any, source: str, line: int) -> tuple[list[str], list[str] | None]:
    """One cell's options (and their labels, where the data gives them); errors name the line."""
    if isinstance(value, str) and value.lstrip().startswith(("[", "{")):
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            raise InputError(
                "cannot read the options cell as a list", path=source, line=line, got=value[:80]
            ) from None
    if isinstance(value, pl.Series):
        value = value.to_list()
    if isinstance(value, Mapping):
        if "text" in value:
            texts, labels = value["text"], value.get("label")
            if isinstance(texts, pl.Series):
                texts = texts.to_list()
            if isinstance(labels, pl.Series):
                labels = labels.to_list()
            return _texts(texts, source, line), None if labels is None else [str(x) for x in labels]
        items = sorted(value.items(), key=lambda kv: str(kv[0]))
        return _texts([v for _, v in items], source, line), [str(k) for k, _ in items]
    if isinstance(value, list | tuple) and value and all(isinstance(v, Mapping) for v in value):
        texts = [v.get("text") for v in value]
        labels = [str(v["label"]) for v in value] if all("label" in v for v in value) else None
        return _texts(texts, source, line), labels
    if isinstance(value, list | tuple):
        return _texts(list(value), source, line), None
    raise InputError(
        "the options must be a list, a {label, text} object or a mapping",
        path=source,
        line=line,
        got=value,
    )


def _texts(values: Any, source: str, line: int) -> list[str]:
    if not isinstance(values, list | tuple):
        raise InputError("the options' text must be a list", path=source, line=line, got=values)
    out = []
    for i, v in enumerate(values):
        if v is None:
            raise InputError(f"option {LETTERS[i]} is missing", path=source, line=line)
        if isinstance(v, list | tuple | Mapping):
            raise InputError(
                f"option {LETTERS[i]} must be text, not a list or object", path=source, line=line
            )
        out.append(str(v))
    return out


def _column_options(
    row: Mapping[str, Any], names: Sequence[str], source: str, line: int
) -> list[str]:
    values = [row.get(n) for n in names]
    present = [v is not None and str(v) != "" for v in values]
    n = len(present) - present[::-1].index(True) if any(present) else 0
    for i in range(n):
        if not present[i]:
            raise InputError(
                f"option {names[i]!r} is empty before option {names[n - 1]!r}",
                path=source,
                line=line,
            )
    return [str(v) for v in values[:n]]


@dataclass(frozen=True)
class McqRoles:
    """The columns a file gives each role (``options`` or ``option_columns``, never both)."""

    question: str
    key: str
    group: str | None
    id: str | None
    options: str | None
    option_columns: tuple[str, ...] | None


def mcq_roles(have: Sequence[str], columns: McqColumns, source: str) -> McqRoles:
    """Name the columns of each role among ``have`` (``columns`` first, then the defaults)."""
    shown = [c for c in have if c != "__line__"]
    question = _pick(have, columns.question, QUESTION_DEFAULTS)
    key = _pick(have, columns.key, KEY_DEFAULTS)
    group = _pick(have, columns.group, GROUP_DEFAULTS)
    id_col = columns.id or ("id" if "id" in have else None)
    option_cols = columns.option_columns
    options = columns.options
    if options is None and option_cols is None:
        options = _pick(have, None, OPTIONS_DEFAULTS)
        if options is None:
            letters = [c for c in LETTERS if c in have]
            if len(letters) >= 2 and letters == list(LETTERS[: len(letters)]):
                option_cols = tuple(letters)
    for role, col in (("question", question), ("key", key), ("options", options)):
        if col is None and not (role == "options" and option_cols):
            raise InputError(f"no {role} column found; the file has {shown}", path=source)
    for col in (question, key, options, group, id_col, *(option_cols or ())):
        if col is not None and col not in have:
            raise InputError(f"no column {col!r}; the file has {shown}", path=source)
    assert question is not None and key is not None
    return McqRoles(question, key, group, id_col, options, option_cols)


def build_mcq_split(
    rows: Sequence[Mapping[str, Any]],
    lines: Sequence[int],
    *,
    columns: McqColumns,
    name: str,
    source: str,
) -> Split:
    """Turn rows (dicts as read) into an ``mcq`` split; errors name the row's line."""
    if not rows:
        raise InputError("empty split: expected at least one question", path=source)
    roles = mcq_roles(list(rows[0]), columns, source)
    question, key, group, id_col = roles.question, roles.key, roles.group, roles.id
    options, option_cols = roles.options, roles.option_columns
    assert question is not None and key is not None
    ids, texts, opts, keys, groups = [], [], [], [], []
    seen: dict[str, int] = {}
    for k, (row, line) in enumerate(zip(rows, lines, strict=True)):
        text = row.get(question)
        if text is None:
            raise InputError("the question is missing", path=source, line=line)
        if option_cols:
            found, labels = _column_options(row, option_cols, source, line), None
        else:
            found, labels = parse_options(row.get(options), source, line)  # type: ignore[arg-type]
        if len(found) < 2:
            raise InputError(
                f"a question needs at least two options, got {len(found)}", path=source, line=line
            )
        raw_key = row.get(key)
        index = key_index(raw_key, found, labels)
        if index is None:
            raise InputError(
                f"the key names no option (the question has {len(found)} options)",
                path=source,
                line=line,
                got=raw_key,
            )
        item_id = _item_id(row, id_col, k, source, line)
        if item_id in seen:
            raise InputError(
                f"ids must be unique (first on line {seen[item_id]})",
                path=source,
                line=line,
                got=item_id,
            )
        seen[item_id] = line
        ids.append(item_id)
        texts.append(str(text))
        opts.append(found)
        keys.append(index)
        groups.append(None if group is None or row.get(group) is None else str(row[group]))
    text_s = pl.Series("text", texts, dtype=pl.String)
    options_s = pl.Series("options", opts, dtype=pl.List(pl.String))
    joined = options_s.list.join("\x1f")
    x_hash = mix64(string_hash(text_s) ^ mix64(string_hash(joined)))
    label = pl.Series("label", [LETTERS[i] for i in keys], dtype=pl.String)
    table = pl.DataFrame(
        {
            "id": pl.Series(ids, dtype=pl.String),
            "text": text_s,
            "options": options_s,
            "key": pl.Series(keys, dtype=pl.Int32),
            "label": label,
            "group": pl.Series(groups, dtype=pl.String),
            "line": pl.Series(list(lines), dtype=pl.Int64),
            "n_tokens": whitespace_token_counts(text_s),
            "x_hash": x_hash,
            "xy_hash": labelled_hash(x_hash, label),
        }
    )
    return Split(name=name, source=source, table=table)


def _item_id(row: Mapping[str, Any], id_col: str | None, k: int, source: str, line: int) -> str:
    """Return the row's id (without an id column its 0-based position); missing: an error."""
    if id_col is None:
        return str(k)
    value = row.get(id_col)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError("missing id", path=source, line=line)
    return str(value)


def read_mcq_split(
    path: str | Path, *, name: str | None = None, columns: McqColumns | None = None
) -> Split:
    """Read one CSV / TSV / JSONL / Parquet file of multiple-choice questions."""
    path = Path(path)
    check_readable(path)
    if not path.is_file():
        raise InputError("file not found" if not path.exists() else "expected a file", path=path)
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        rows, lines = _delimited_rows(path)
    elif suffix in (".jsonl", ".ndjson", ".json"):
        # as parsed, not through a frame: option objects keep their own keys per row
        rows, lines = [], []
        for line, row in json_lines(read_text_file(path), path):
            if not isinstance(row, dict):
                raise InputError("expected one JSON object per line", path=path, line=line)
            rows.append(row)
            lines.append(line)
    else:
        frame = read_rows(path)
        if "__line__" in frame.columns:
            lines = frame.get_column("__line__").cast(pl.Int64).to_list()
        else:
            lines = list(range(1, frame.height + 1))
        rows = frame.drop("__line__", strict=False).to_dicts()
    return build_mcq_split(
        rows, lines, columns=columns or McqColumns(), name=name or path.stem, source=str(path)
    )


def read_hf_mcq(path: str | Path, *, columns: McqColumns | None = None) -> dict[str, Split]:
    """Read a saved Hugging Face dataset of multiple-choice questions (needs the ``hf`` extra)."""
    out: dict[str, Split] = {}
    for name, source, part in saved_hf_parts(Path(path)):
        frame = pl.from_arrow(arrow_table(part))
        assert isinstance(frame, pl.DataFrame)
        rows = frame.to_dicts()
        out[name] = build_mcq_split(
            rows,
            list(np.arange(1, len(rows) + 1)),
            columns=columns or McqColumns(),
            name=name,
            source=source,
        )
    return out
