"""Tabular readers (JSONL, CSV, TSV, Parquet) for classification and pair datasets.

:func:`read_table` returns a normalised polars frame with the columns ``id``, ``text`` (or
``text_a`` and ``text_b``) and ``label`` (when a label column is named), every value kept as
written: labels are strings, so ``0`` and ``"0"`` read the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from benchcheck.errors import InputError

TABLE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet")


def read_rows(path: str | Path) -> pl.DataFrame:
    """Read a JSONL / CSV / TSV / Parquet file into a frame of strings and numbers, as written.

    Errors name the file and line (JSONL) and what was expected.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return _read_jsonl(path)
    if suffix in (".csv", ".tsv"):
        sep = "\t" if suffix == ".tsv" else ","
        try:
            return pl.read_csv(
                path, separator=sep, infer_schema=False, quote_char='"' if sep == "," else None
            )
        except (pl.exceptions.ComputeError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read as {suffix[1:].upper()}: {exc}", path=path) from None
    if suffix == ".parquet":
        try:
            return pl.read_parquet(path)
        except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
            raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    raise InputError(
        f"unknown table format; expected one of {', '.join(TABLE_SUFFIXES)}", path=path
    )


def _read_jsonl(path: Path) -> pl.DataFrame:
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raw = path.read_bytes()
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError("undecodable bytes; expected UTF-8", path=path, line=line) from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg})", path=path, line=number) from None
        if not isinstance(row, dict):
            raise InputError("expected one JSON object per line", path=path, line=number)
        row.setdefault("__line__", number)
        rows.append(row)
    if not rows:
        raise InputError("empty file: expected one JSON object per line", path=path)
    try:
        return pl.DataFrame(rows, infer_schema_length=None)
    except Exception as exc:  # noqa: BLE001 - mixed types across rows
        raise InputError(f"rows do not share one schema: {exc}", path=path) from None


def read_table(
    path: str | Path,
    *,
    text: str | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    id: str | None = None,  # noqa: A002 - mirrors the --id option
) -> pl.DataFrame:
    """Read a classification (``text``) or pair (``text_a`` + ``text_b``) table.

    Returns columns ``id`` (the ``id`` column, else the 0-based row number as a string),
    ``text`` or ``text_a``/``text_b``, and ``label`` as strings when ``label`` is given.
    Missing columns raise :class:`InputError` naming the columns that exist.
    """
    frame = read_rows(path)
    if (text is None) == (text_a is None):
        if text is None and text_a is None and "text" in frame.columns:
            text = "text"
        elif text_a is None and text is None:
            raise InputError(
                "name the text column (--text) or the two pair columns (--text-a/--text-b)",
                path=path,
            )
    if text_a is not None and text_b is None:
        raise InputError("--text-a needs --text-b", path=path)
    wanted = {"text": text, "text_a": text_a, "text_b": text_b, "label": label}
    columns: dict[str, pl.Series] = {}
    if id is not None:
        _need(frame, id, path)
        columns["id"] = frame[id].cast(pl.String)
    elif "id" in frame.columns:
        columns["id"] = frame["id"].cast(pl.String)
    else:
        columns["id"] = pl.Series("id", [str(i) for i in range(frame.height)])
    for new, old in wanted.items():
        if old is None:
            continue
        _need(frame, old, path)
        columns[new] = frame[old].cast(pl.String)
    out = pl.DataFrame(columns)
    if "__line__" in frame.columns:
        out = out.with_columns(frame["__line__"].alias("line"))
    for name in ("text", "text_a", "text_b", "label"):
        if name in out.columns and out[name].null_count():
            first = out.with_row_index("_r").filter(pl.col(name).is_null())["_r"][0]
            line = int(out["line"][first]) if "line" in out.columns else None
            raise InputError(f"missing value in column {wanted[name]!r}", path=path, line=line)
    dup = out["id"].is_duplicated()
    if dup.any():
        raise InputError("ids must be unique", path=path, got=out["id"].filter(dup)[0])
    return out


def _need(frame: pl.DataFrame, column: str, path: str | Path) -> None:
    if column not in frame.columns:
        shown = [c for c in frame.columns if c != "__line__"]
        raise InputError(f"no column {column!r}; the file has {shown}", path=path)
