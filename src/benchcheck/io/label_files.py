"""Readers of label files: gold (``review import -o``), label sources and crowd labels.

One rule for every label a command reads (:func:`benchcheck.io.tables.scalar_strings`):
a label is one value, a string or a finite number; a list, an object or NaN is an error
naming its line. Labels come back as strings, so ``1`` and ``"1"`` are the same label.
Example ids are unique (:func:`benchcheck.data.ids.refuse_duplicates`); in a crowd file
each (id, annotator) pair is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from benchcheck.data.ids import refuse_duplicates
from benchcheck.errors import InputError
from benchcheck.io.tables import read_rows, scalar_strings

__all__ = ["read_crowd", "read_gold", "read_label_source", "read_labelled"]

#: Columns of a gold file that hold labels.
GOLD_LABELS = ("label", "gold", "llm_label", "reconciled")


def _lines(frame: pl.DataFrame) -> list[int]:
    if "__line__" in frame.columns:
        return frame["__line__"].cast(pl.Int64).to_list()
    return list(range(1, frame.height + 1))


def _need(frame: pl.DataFrame, columns: Sequence[str], what: str, path: str | Path) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        shown = [c for c in frame.columns if c != "__line__"]
        raise InputError(f"{what} lacks column(s) {missing}; it has {shown}", path=path)


def read_gold(
    path: str | Path,
    *,
    need: Sequence[str] = ("label", "gold"),
    filled: Sequence[str] = (),
) -> pl.DataFrame:
    """Read a gold file: label columns as strings, ``confidence`` as a number, unique ids.

    ``need`` lists the columns the command uses (an error names the missing ones);
    ``filled`` those of them that every row must give a value (``gold`` may be empty on
    a row nobody reviewed, the original ``label`` or the ``id`` may not): the first row
    without one is refused with its line.
    """
    frame = read_rows(path)
    _need(frame, need, "the gold file", path)
    for column in filled:
        empty = frame[column].is_null().arg_true()
        if empty.len():
            line = _lines(frame)[int(empty[0])]
            raise InputError(f"the gold file's row has no {column!r}", path=path, line=line)
    casts = [
        scalar_strings(frame, c, path=path, what="label").alias(c)
        for c in GOLD_LABELS
        if c in frame.columns
    ]
    if "id" in frame.columns:
        ids = scalar_strings(frame, "id", path=path).alias("id")
        refuse_duplicates(ids.to_list(), path=path, lines=_lines(frame))
        casts.append(ids)
    if "confidence" in frame.columns and frame["confidence"].dtype == pl.String:
        raw = frame["confidence"].str.strip_chars()
        number = pl.when(raw == "").then(None).otherwise(raw).cast(pl.Float64, strict=False)
        conf = frame.select(number.alias("confidence"))["confidence"]
        bad = (conf.is_null() & raw.is_not_null() & (raw != "")).arg_true()
        if bad.len():
            k = int(bad[0])
            raise InputError(
                "confidence must be a number", path=path, line=_lines(frame)[k], got=raw[k]
            )
        casts.append(conf)
    return frame.with_columns(casts)


def read_labelled(
    path: str | Path, *, label: str = "label", id_col: str | None = None
) -> tuple[pl.DataFrame, list[str], list[str]]:
    """Read a dataset's rows, ids and labels by the one rule: ``(rows, ids, labels)``.

    Ids come from ``id_col``, else ``id``, else the 0-based row number, and are unique;
    every label is one value (a string or a finite number, as a string), none missing.
    Errors name the file and the line.
    """
    frame = read_rows(path)
    if label not in frame.columns:
        shown = [c for c in frame.columns if c != "__line__"]
        raise InputError(
            f"the data has no label column {label!r} ({{label}}); it has {shown}", path=path
        )
    key = id_col or ("id" if "id" in frame.columns else None)
    if key is not None and key not in frame.columns:
        raise InputError(f"the data has no id column {key!r} ({{id}})", path=path)
    lines = _lines(frame)
    if key is None:
        ids = [str(i) for i in range(frame.height)]
    else:
        ids_col = scalar_strings(frame, key, path=path)
        if ids_col.null_count():
            k = int(ids_col.is_null().arg_true()[0])
            raise InputError(f"missing value in column {key!r}", path=path, line=lines[k])
        ids = ids_col.to_list()
        refuse_duplicates(ids, path=path, lines=lines)
    labels = scalar_strings(frame, label, path=path, what="label")
    if labels.null_count():
        k = int(labels.is_null().arg_true()[0])
        raise InputError(f"missing value in column {label!r}", path=path, line=lines[k])
    return frame, ids, labels.to_list()


def read_label_source(name: str, path: str | Path, column: str | None = None) -> dict[str, str]:
    """``{id: label}`` of one label source (``agreement --source NAME=FILE[#COLUMN]``).

    The column is ``column``, else the first of ``NAME``, ``NAME_label``, ``label``; empty
    labels are left out; ids must be unique.
    """
    frame = read_rows(path)
    if not column:
        column = next((g for g in (name, f"{name}_label", "label") if g in frame.columns), "label")
    for c in ("id", column):
        if c not in frame.columns:
            shown = [x for x in frame.columns if x != "__line__"]
            raise InputError(
                f"source {name!r}: no column {c!r} (use NAME=FILE#COLUMN); the file has {shown}",
                path=path,
            )
    ids = scalar_strings(frame, "id", path=path)
    refuse_duplicates(ids.to_list(), path=path, lines=_lines(frame))
    labels = scalar_strings(frame, column, path=path, what="label")
    return {
        i: v
        for i, v in zip(ids.to_list(), labels.to_list(), strict=True)
        if i is not None and v is not None and v != ""
    }


def read_crowd(path: str | Path) -> pl.DataFrame:
    """Read a long crowd file (``id``, ``annotator``, ``label``) as strings; each pair once."""
    frame = read_rows(path)
    _need(frame, ("id", "annotator", "label"), "the crowd file", path)
    out = frame.select(
        scalar_strings(frame, "id", path=path).alias("id"),
        scalar_strings(frame, "annotator", path=path).alias("annotator"),
        scalar_strings(frame, "label", path=path, what="label").alias("label"),
        pl.Series("__line__", _lines(frame)),
    )
    for col in ("id", "annotator", "label"):
        if out[col].null_count():
            k = int(out[col].is_null().arg_true()[0])
            raise InputError(f"missing value in column {col!r}", path=path, line=_lines(frame)[k])
    pairs = [f"{i}\x1f{a}" for i, a in out.select("id", "annotator").iter_rows()]
    try:
        refuse_duplicates(pairs, path=path, lines=_lines(frame), what="(id, annotator) pair")
    except InputError as exc:
        raise InputError(
            exc.message + ": an annotator rates each example once",
            path=path,
            line=exc.line,
            got=tuple(str(exc.got).split("\x1f")),
        ) from None
    return out
