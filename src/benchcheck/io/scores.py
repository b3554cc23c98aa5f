"""Reader of a model's outputs for ``benchcheck rerank``: ``id`` + ``score`` and/or ``pred``.

``score`` is P(positive label), a number in [0, 1]; ``pred`` a label. Both are single
values (:func:`benchcheck.io.tables.scalar_strings`); ids are unique. Errors name the file
and the line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from benchcheck.data.ids import refuse_duplicates
from benchcheck.data.scores import ModelScores
from benchcheck.errors import InputError
from benchcheck.io.tables import read_rows, scalar_strings

__all__ = ["read_model_scores"]


def read_model_scores(name: str, path: str | Path) -> ModelScores:
    """Read ``id`` plus ``score`` (P(positive)) and/or ``pred`` (a label) from a table file."""
    frame = read_rows(path)
    if "id" not in frame.columns:
        raise InputError(f"scores of {name!r} need an 'id' column", path=path)
    if "score" not in frame.columns and "pred" not in frame.columns:
        raise InputError(f"scores of {name!r} need a 'score' or a 'pred' column", path=path)
    lines = (
        frame["__line__"].cast(pl.Int64).to_list()
        if "__line__" in frame.columns
        else list(range(1, frame.height + 1))
    )
    ids_col = scalar_strings(frame, "id", path=path)
    if ids_col.null_count():
        k = int(ids_col.is_null().arg_true()[0])
        raise InputError("missing id", path=path, line=lines[k])
    ids = tuple(ids_col.to_list())
    refuse_duplicates(ids, path=path, lines=lines)
    score = pred = None
    if "score" in frame.columns:
        raw = scalar_strings(frame, "score", path=path)
        col = raw.str.strip_chars().cast(pl.Float64, strict=False)
        bad = (col.is_null() & raw.is_not_null()).arg_true()
        if bad.len():
            k = int(bad[0])
            raise InputError(
                "a score must be a number in [0, 1]", path=path, line=lines[k], got=raw[k]
            )
        if col.null_count():
            k = int(col.is_null().arg_true()[0])
            raise InputError("missing score", path=path, line=lines[k])
        values = col.to_numpy().astype(np.float64)
        outside = ~np.isfinite(values) | (values < 0) | (values > 1)
        if outside.any():
            k = int(np.argmax(outside))
            raise InputError(
                "a score is P(positive), a number in [0, 1]",
                path=path,
                line=lines[k],
                got=float(values[k]),
            )
        score = tuple(values.tolist())
    if "pred" in frame.columns:
        col = scalar_strings(frame, "pred", path=path, what="label")
        if col.null_count():
            k = int(col.is_null().arg_true()[0])
            raise InputError("missing prediction", path=path, line=lines[k])
        pred = tuple(col.to_list())
    return ModelScores(name, ids, score, pred, source=str(path), lines=tuple(lines))
