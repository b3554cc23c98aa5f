"""Row readers shared by the diagnostic readers: delimited files, JSONL objects, cells."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchcheck.errors import InputError

_EMPTY = {"", "nan", "none", "null"}


#: Column names an id is read from, in order of preference.
_ID_KEYS = ("id", "index", "idx", "example_id")
#: Column names a predicted label is read from.
_PRED_KEYS = ("prediction", "predicted", "pred", "label", "predicted_label", "output")


def _read_delimited(path: Path, sep: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and ``(line number, cells)`` rows; TSV is read without quoting."""
    from benchcheck.io._text import read_text_file

    text = read_text_file(path)
    # Lines end at \n, \r or \r\n only, as the csv module asks (newline=""):
    # str.splitlines() also broke a cell at U+2028, U+0085 or a form feed.
    lines = io.StringIO(text, newline="")
    if sep == "\t":
        reader = csv.reader(lines, delimiter=sep, quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(lines, delimiter=sep, quoting=csv.QUOTE_MINIMAL)
    rows: list[tuple[int, list[str]]] = []
    header: list[str] | None = None
    try:
        for cells in reader:
            if not cells or all(not c.strip() for c in cells):
                continue
            if header is None:
                header = [c.strip() for c in cells]
                continue
            rows.append((reader.line_num, cells))
    except csv.Error as exc:
        raise InputError(
            f"cannot read as delimited text: {exc}", path=path, line=reader.line_num
        ) from None
    if header is None:
        raise InputError("empty file: expected a header row", path=path)
    return header, rows


def _read_jsonl_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line, by the one JSONL line rule."""
    from benchcheck.io._text import read_text_file
    from benchcheck.io.tables import json_lines

    text = read_text_file(path)
    out = []
    for number, obj in json_lines(text, path):
        if not isinstance(obj, dict):
            raise InputError("expected one JSON object per line", path=path, line=number)
        out.append((number, obj))
    if not out:
        raise InputError("empty file: expected one JSON object per line", path=path)
    return out


def _cell(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return None if text.casefold() in _EMPTY else text


def _split_tags(value: object) -> list[str]:
    text = _cell(value)
    if text is None:
        return []
    return [t.strip() for t in text.split(";") if t.strip()]


def _records(path: Path) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    """Columns and ``(line, record)`` rows of a JSONL, TSV or CSV file."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        records = _read_jsonl_objects(path)
        columns: list[str] = []
        for _, obj in records:
            columns.extend(k for k in obj if k not in columns)
        return columns, records
    if suffix in (".tsv", ".csv"):
        header, rows = _read_delimited(path, "\t" if suffix == ".tsv" else ",")
        out = []
        for line, cells in rows:
            if len(cells) != len(header):
                raise InputError(
                    f"expected {len(header)} columns, found {len(cells)}", path=path, line=line
                )
            out.append((line, dict(zip(header, cells, strict=True))))
        return header, out
    raise InputError("unknown format; expected .tsv, .csv or .jsonl", path=path)


def _pick(
    columns: Sequence[str], wanted: str | None, options: Sequence[str], what: str, path: Path
) -> str | None:
    lower = {c.casefold(): c for c in columns}
    if wanted is not None:
        if wanted not in columns and wanted.casefold() not in lower:
            raise InputError(
                f"no {what} column {wanted!r}; the file has {list(columns)}", path=path
            )
        return wanted if wanted in columns else lower[wanted.casefold()]
    for opt in options:
        if opt in lower:
            return lower[opt]
    return None


class _LabelConverter:
    """Turn a raw cell into a label name: mapping, then a name, then an index."""

    def __init__(
        self,
        path: Path,
        label_names: Sequence[str],
        label_map: Mapping[str, str] | None,
        column: str,
    ) -> None:
        self.path = path
        self.names = list(label_names)
        self.lookup = {n.casefold(): n for n in self.names}
        self.label_map = label_map
        self.column = column
        self.used_index = False

    def __call__(self, raw: object, line: int) -> str:
        value = _cell(raw)
        if value is None:
            raise InputError(f"empty value in column {self.column!r}", path=self.path, line=line)
        if self.label_map is not None and value in self.label_map:
            return self.label_map[value]
        if value.casefold() in self.lookup:
            return self.lookup[value.casefold()]
        if self.label_map is not None:
            raise InputError(
                f"label not in the label mapping {dict(self.label_map)} nor one of {self.names}",
                path=self.path,
                line=line,
                got=value,
            )
        try:
            as_int = int(float(value)) if float(value).is_integer() else None
        except ValueError:
            as_int = None
        if as_int is not None and 0 <= as_int < len(self.names):
            self.used_index = True
            return self.names[as_int]
        raise InputError(
            f"unknown label; expected one of {self.names} or an index 0..{len(self.names) - 1}",
            path=self.path,
            line=line,
            got=value,
        )
