"""A model's outputs on a test set: ``id`` and ``score`` (P(positive)) and/or ``pred``."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from benchcheck.data.scores import ModelScores
from benchcheck.errors import InputError
from benchcheck.io.tables import read_rows

__all__ = ["read_model_scores"]


def read_model_scores(name: str, path: str | Path) -> ModelScores:
    """Read ``id`` plus ``score`` (P(positive)) and/or ``pred`` (a label) from a table file."""
    frame = read_rows(path)
    if "id" not in frame.columns:
        raise InputError(f"scores of {name!r} need an 'id' column", path=path)
    if "score" not in frame.columns and "pred" not in frame.columns:
        raise InputError(f"scores of {name!r} need a 'score' or a 'pred' column", path=path)
    ids = tuple(frame["id"].cast(pl.String).to_list())
    score = pred = None
    if "score" in frame.columns:
        try:
            col = frame["score"].cast(pl.Float64)
        except pl.exceptions.PolarsError:
            raise InputError("column 'score' must hold numbers", path=path) from None
        if col.null_count():
            line = _line_of(frame, col.is_null())
            raise InputError("missing score", path=path, line=line)
        score = tuple(col.to_list())
    if "pred" in frame.columns:
        pred = tuple(frame["pred"].cast(pl.String).to_list())
    if len(set(ids)) != len(ids):
        raise InputError("ids must be unique", path=path)
    return ModelScores(name, ids, score, pred)


def _line_of(frame: pl.DataFrame, mask: pl.Series) -> int | None:
    if "__line__" in frame.columns:
        return int(frame.filter(mask)["__line__"][0])
    return None
