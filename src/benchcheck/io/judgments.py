"""Readers of probability files: judgments (``benchcheck judge``) and predicted probabilities.

Both are validated here, at the boundary, so nothing downstream (the ensemble, cleanlab)
ever sees an impossible probability. One rule, :func:`check_probabilities`, for both:

- every value is a number (or missing, for a judgments row whose judge failed: all of a
  row's probabilities missing, or those of another prompt's label set);
- finite (no NaN, no ±inf) and within [0, 1];
- the values a row gives sum to 1 within :data:`SUM_TOLERANCE` (1e-6): a row of
  rounded or unnormalised scores is refused, not renormalised behind the user's back.

Each error names the file, the line and the value.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from benchcheck.data.columns import Columns
from benchcheck.data.ids import check_join, refuse_duplicates
from benchcheck.errors import InputError, UsageError
from benchcheck.io.tables import read_rows
from benchcheck.labels.ensemble import is_content_free, judgment_labels

__all__ = [
    "REQUIRED",
    "SUM_TOLERANCE",
    "check_probabilities",
    "judged_columns",
    "read_judgments",
    "read_pred_probs",
    "with_data_columns",
]

#: Column of a judgments file naming the data columns it was judged with (JSON object).
DATA_COLUMNS = "data_columns"

#: Columns every judgments file has (besides one ``p_<label>`` column per label).
REQUIRED = ("id", "judge", "prompt")
#: How far a row's probabilities may sum from 1.
SUM_TOLERANCE = 1e-6


def _p_columns(frame: pl.DataFrame) -> list[str]:
    return [f"p_{lab}" for lab in judgment_labels(frame)]


def _lines(frame: pl.DataFrame) -> np.ndarray:
    if "__line__" in frame.columns:
        return frame["__line__"].cast(pl.Int64).to_numpy()
    return np.arange(1, frame.height + 1)


def _as_float(frame: pl.DataFrame, col: str, path: str | Path, lines: np.ndarray) -> np.ndarray:
    """Return the column as float64 (missing values as NaN); refuse values that are not numbers."""
    series = frame[col]
    if series.dtype == pl.Boolean or isinstance(series.dtype, pl.List | pl.Struct | pl.Array):
        bad = series.is_not_null().arg_true()
        if bad.len():
            k = int(bad[0])
            raise InputError(
                f"{col} must be a number (a probability)",
                path=path,
                line=int(lines[k]),
                got=series[k] if series.dtype == pl.Boolean else str(series[k]),
            )
    text = series.cast(pl.String) if series.dtype != pl.String else series
    if series.dtype == pl.String:
        text = text.str.strip_chars()
    numbers = text.cast(pl.Float64, strict=False)
    bad = (numbers.is_null() & series.is_not_null()).arg_true()
    if bad.len():
        k = int(bad[0])
        raise InputError(
            f"{col} must be a number (a probability)", path=path, line=int(lines[k]), got=series[k]
        )
    return numbers.to_numpy().astype(np.float64)


def check_probabilities(
    frame: pl.DataFrame,
    columns: Sequence[str],
    *,
    path: str | Path,
    allow_missing: bool = True,
) -> np.ndarray:
    """Validate probability columns (see the module docstring); return them as an n × k array.

    Missing values come back as NaN; ``allow_missing=False`` refuses them. A row whose
    values are all missing is a failed judge and is accepted when missing values are.

    >>> f = pl.DataFrame({"p_0": [0.25, 0.5], "p_1": [0.75, 0.6], "__line__": [1, 2]})
    >>> check_probabilities(f, ["p_0", "p_1"], path="j.jsonl")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: j.jsonl:2: probabilities must sum to 1 ... (got 1.1)
    """
    lines = _lines(frame)
    missing = np.column_stack(
        [frame[c].is_null().to_numpy() for c in columns] or [np.zeros(frame.height, bool)]
    )
    arr = np.column_stack(
        [_as_float(frame, c, path, lines) for c in columns] or [np.zeros(frame.height)]
    )
    for j, col in enumerate(columns):
        values = arr[:, j]
        given = ~missing[:, j]
        nan = given & np.isnan(values)
        if nan.any():
            k = int(np.argmax(nan))
            raise InputError(
                f"{col} is NaN: a probability must be a number in [0, 1] (leave it empty when "
                "the judge gave none)",
                path=path,
                line=int(lines[k]),
            )
        inf = given & np.isinf(values)
        outside = given & ~np.isnan(values) & ((values < 0) | (values > 1))
        bad = inf | outside
        if bad.any():
            k = int(np.argmax(bad))
            raise InputError(
                f"{col} must be a probability in [0, 1]",
                path=path,
                line=int(lines[k]),
                got=float(values[k]),
            )
    if not allow_missing and missing.any():
        k = int(np.argmax(missing.any(axis=1)))
        col = columns[int(np.argmax(missing[k]))]
        raise InputError(f"missing value in column {col!r}", path=path, line=int(lines[k]))
    some = ~missing.all(axis=1)
    sums = np.where(missing, 0.0, arr).sum(axis=1)
    off = some & (np.abs(sums - 1.0) > SUM_TOLERANCE)
    if off.any():
        k = int(np.argmax(off))
        named = [c for c, m in zip(columns, missing[k], strict=True) if not m]
        raise InputError(
            f"probabilities must sum to 1 (within {SUM_TOLERANCE:g}) over the labels "
            f"{', '.join(named)}",
            path=path,
            line=int(lines[k]),
            got=round(float(sums[k]), 9),
        )
    return arr


def with_data_columns(judgments: pl.DataFrame, columns: Columns) -> pl.DataFrame:
    """Add the ``data_columns`` column: the data columns given to the judge, as JSON.

    >>> j = pl.DataFrame({"id": ["a"]})
    >>> with_data_columns(j, Columns(text_a="premise", text_b="hypothesis"))["data_columns"][0]
    '{"text_a": "premise", "text_b": "hypothesis"}'
    """
    return judgments.with_columns(pl.lit(json.dumps(columns.given())).alias(DATA_COLUMNS))


def judged_columns(judgments: pl.DataFrame, *, path: str | Path | None = None) -> Columns:
    """Return the data columns the judgments were made with (empty when they do not say).

    Judgments of one file made with different columns say nothing one can trust: refused.

    >>> j = pl.DataFrame({"data_columns": ['{"text": "review", "label": "stars"}'] * 2})
    >>> judged_columns(j)
    Columns(text='review', text_a=None, text_b=None, label='stars', id=None)
    """
    if DATA_COLUMNS not in judgments.columns:
        return Columns()
    found = judgments[DATA_COLUMNS].drop_nulls().cast(pl.String).unique().to_list()
    if not found:
        return Columns()
    if len(found) > 1:
        raise InputError(
            f"the judgments were made with different data columns ({DATA_COLUMNS}: "
            f"{', '.join(sorted(found))}); name the columns to read the data with",
            path=path,
        )
    try:
        given = json.loads(found[0])
        if not isinstance(given, dict) or not all(
            k in Columns.__dataclass_fields__ and isinstance(v, str) for k, v in given.items()
        ):
            raise ValueError
        return Columns(**given)
    except (ValueError, TypeError, UsageError):
        raise InputError(
            f"{DATA_COLUMNS} must be a JSON object of column names", path=path, got=found[0]
        ) from None


def read_judgments(path: str | Path, *, content_free: bool = False) -> pl.DataFrame:
    """Read and validate a judgments file; ids, judges and prompts become strings.

    The content-free rows (:func:`benchcheck.labels.ensemble.is_content_free`) are dropped
    unless ``content_free`` is true (contextual calibration reads them; no other analysis
    should).

    Errors (:class:`InputError`) name the file, the line where known, and what was expected:
    missing columns, fewer than two ``p_`` columns, a missing id, judge or prompt,
    probabilities that are not numbers, NaN, infinite, outside [0, 1] or whose row does not
    sum to 1 (:func:`check_probabilities`), duplicate (id, judge, prompt) rows.
    """
    frame = read_rows(path)
    missing = [c for c in REQUIRED if c not in frame.columns]
    shown = [c for c in frame.columns if c != "__line__"]
    if missing:
        raise InputError(
            f"judgments file lacks column(s) {missing}; expected id, judge, prompt and p_<label>"
            f" columns; the file has {shown}",
            path=path,
        )
    pcols = _p_columns(frame)
    if len(pcols) < 2:
        raise InputError(
            f"judgments need one p_<label> column per label (at least two); the file has {shown}",
            path=path,
        )
    if "__line__" not in frame.columns:
        frame = frame.with_columns(pl.int_range(1, frame.height + 1).alias("__line__"))
    lines = _lines(frame)
    for col in REQUIRED:
        series = frame[col]
        if isinstance(series.dtype, pl.List | pl.Struct | pl.Array):
            k = int(series.is_not_null().arg_true()[0])
            raise InputError(
                f"{col!r} must be a single value, not a list or an object",
                path=path,
                line=int(lines[k]),
                got=str(series[k]),
            )
        if series.null_count():
            k = int(series.is_null().arg_true()[0])
            raise InputError(f"missing value in column {col!r}", path=path, line=int(lines[k]))
    arr = check_probabilities(frame, pcols, path=path)
    frame = frame.with_columns(
        [pl.col(c).cast(pl.String) for c in REQUIRED]
        + [pl.Series(c, arr[:, j]).fill_nan(None) for j, c in enumerate(pcols)]
    )
    dup = frame.select(REQUIRED).is_duplicated()
    if dup.any():
        rows = frame.filter(dup)
        first = rows.row(0, named=True)
        same = rows.filter(
            (pl.col("id") == first["id"])
            & (pl.col("judge") == first["judge"])
            & (pl.col("prompt") == first["prompt"])
        )
        raise InputError(
            f"duplicate (id, judge, prompt) row (first on line {int(same['__line__'][0])})",
            path=path,
            line=int(same["__line__"][1]),
            got=(first["id"], first["judge"], first["prompt"]),
        )
    if not content_free and "content_free" in frame.columns:
        frame = frame.filter(~is_content_free(frame))
    return frame


def read_pred_probs(path: str | Path, ids: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """Predicted probabilities in data order: a ``.npy`` array, or a table by ``id``.

    The array must be ``len(ids) × len(labels)`` (columns in the order of ``labels``); a
    table needs ``id`` and exactly the columns ``p_<label>`` of ``labels``, each data id
    once. Values pass :func:`check_probabilities` with no value missing.
    """
    path = Path(path)
    if path.suffix.lower() == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise InputError(f"cannot read a NumPy array: {exc}", path=path) from None
        if arr.ndim != 2 or arr.shape != (len(ids), len(labels)):
            raise InputError(
                f"expected an array of shape ({len(ids)}, {len(labels)}): one row per example "
                f"in data order, one column per label {list(labels)}",
                path=path,
                got=arr.shape,
            )
        if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
            raise InputError("expected an array of numbers", path=path, got=str(arr.dtype))
        cols = [f"p_{lab}" for lab in labels]
        frame = pl.DataFrame({c: arr[:, j].astype(np.float64) for j, c in enumerate(cols)})
        # the row of an array is "line" k + 1: the example's position in data order
        return check_probabilities(frame, cols, path=path, allow_missing=False)
    frame = read_rows(path)
    cols = [f"p_{lab}" for lab in labels]
    missing = [c for c in ["id", *cols] if c not in frame.columns]
    if missing:
        raise InputError(
            f"predicted probabilities lack column(s) {missing}; expected id and one p_<label> "
            f"column per label {list(labels)}",
            path=path,
        )
    extra = [c for c in _p_columns(frame) if c not in cols]
    if extra:
        raise InputError(
            f"predicted probabilities have column(s) {extra} for labels the judgments do not "
            f"score; expected exactly {cols}",
            path=path,
        )
    frame = frame.with_columns(pl.col("id").cast(pl.String))
    own = frame["id"].to_list()
    refuse_duplicates(own, path=path, lines=_lines(frame).tolist())
    check_join(
        ids,
        own,
        left_name="the data",
        right_name="the predicted probabilities",
        path=path,
        left_unmatched=0.0,
    )
    arr = check_probabilities(frame, cols, path=path, allow_missing=False)
    index = {i: k for k, i in enumerate(own)}
    return np.asarray(arr[[index[i] for i in ids]])
