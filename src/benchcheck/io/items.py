"""Readers of the test-theory commands: score matrices, predictions, flags, precisions.

* :func:`read_matrix` — a CSV/TSV/JSONL/Parquet table with an ``id`` column and one column
  per model holding 1 (correct), 0 or a partial credit in [0, 1] (the ``--matrix`` format
  of ``benchcheck items``); other non-numeric columns (``dataset``, ``label``) are
  refused unless named in ``ignore``.
* :func:`read_predictions` — one model's answers: ``id`` and ``pred`` (a label), or a
  ``score`` (P(positive)) turned into a label as ``rerank`` does.
* :func:`read_flags` — a ``benchcheck flag`` output: flagged ids with the LLM label and the
  confidence bin.
* :func:`read_precision` / :func:`read_residual` — what the review measured per bin (the
  ``bins --json`` output) and the residual error rate (``error-rate --json``), or numbers.

Errors are :class:`~benchcheck.errors.InputError` naming the file and the line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from benchcheck.errors import InputError, UsageError
from benchcheck.io._text import loads_json, read_text_file
from benchcheck.io.tables import read_rows
from benchcheck.items.matrix import ItemMatrix, item_matrix
from benchcheck.items.noise import BinPrecision

__all__ = [
    "read_flags",
    "read_matrix",
    "read_precision",
    "read_predictions",
    "read_residual",
]


def _line(frame: pl.DataFrame, row: int, header: int) -> int:
    if "__line__" in frame.columns:
        return int(frame["__line__"][row])
    return row + 1 + header


def header_of(path: str | Path) -> int:
    """1 for a file with a header line (CSV, TSV), else 0."""
    return 1 if Path(path).suffix.lower() in (".csv", ".tsv") else 0


def read_matrix(
    path: str | Path, *, id_col: str = "id", ignore: Sequence[str] = ("dataset", "label")
) -> ItemMatrix:
    """Read a score matrix: ``id`` plus one numeric column per model (rows = items)."""
    frame = read_rows(path)
    if id_col not in frame.columns:
        shown = [c for c in frame.columns if c != "__line__"]
        raise InputError(f"the matrix has no {id_col!r} column; it has {shown}", path=path)
    skip = {id_col, "__line__", *ignore}
    models = [c for c in frame.columns if c not in skip]
    if not models:
        raise InputError("the matrix has no model column (one column per model)", path=path)
    unnamed = [k for k, c in enumerate(frame.columns) if c in models and not c.strip()]
    if unnamed:  # a trailing comma in the header: a model named ""
        raise InputError(
            f"column {unnamed[0] + 1} of the header has no name (a trailing comma?); "
            "expected a model name for each column",
            path=path,
            line=1 if header_of(path) else None,
        )
    header = header_of(path)
    ids = frame[id_col].cast(pl.String).to_list()
    for k, v in enumerate(ids):
        if v is None or not str(v).strip():
            raise InputError("missing item id", path=path, line=_line(frame, k, header))
    seen: dict[str, int] = {}
    for k, v in enumerate(ids):
        if v in seen:
            raise InputError("item id given twice", path=path, line=_line(frame, k, header), got=v)
        seen[v] = k
    columns = []
    for name in models:
        col = frame[name]
        if col.dtype == pl.String:
            text = col.str.strip_chars()
            col = text.cast(pl.Float64, strict=False)
            bad = col.is_null() & text.is_not_null() & (text != "")
            col = col.fill_nan(None) if col.dtype == pl.Float64 else col
        else:
            try:
                col = col.cast(pl.Float64)
            except pl.exceptions.PolarsError:
                raise InputError(f"column {name!r} must hold numbers", path=path) from None
            bad = pl.Series([False] * frame.height)
        if bad.any():
            k = int(bad.arg_true()[0])
            raise InputError(
                f"model {name!r}: a score must be a number in [0, 1]",
                path=path,
                line=_line(frame, k, header),
                got=frame[name][k],
            )
        if col.null_count():
            k = int(col.is_null().arg_true()[0])
            raise InputError(
                f"model {name!r} has no score for this item (missing prediction)",
                path=path,
                line=_line(frame, k, header),
            )
        vals = col.to_numpy()
        out = (vals < 0) | (vals > 1) | ~(vals == vals)
        if out.any():
            k = int(out.nonzero()[0][0])
            raise InputError(
                f"model {name!r}: a score must be in [0, 1] (1 correct, 0 wrong, or a "
                "partial credit)",
                path=path,
                line=_line(frame, k, header),
                got=float(vals[k]),
            )
        columns.append(vals)
    import numpy as np

    return item_matrix(ids, models, np.column_stack(columns), source=str(path))


def read_predictions(
    name: str,
    path: str | Path,
    *,
    positive: str | None = None,
    labels: Sequence[str] | None = None,
    threshold: float = 0.5,
) -> dict[str, str]:
    """One model's answers by item id, from ``id`` + ``pred`` (or ``score`` for binary labels).

    ``score > threshold`` predicts ``positive``, else the other of the two ``labels`` (the
    rule of ``rerank``). Missing or duplicate ids and missing answers raise
    :class:`InputError` with the line.
    """
    frame = read_rows(path)
    header = header_of(path)
    if "id" not in frame.columns:
        raise InputError(f"predictions of {name!r} need an 'id' column", path=path)
    if "pred" not in frame.columns and "score" not in frame.columns:
        raise InputError(f"predictions of {name!r} need a 'pred' or a 'score' column", path=path)
    ids = frame["id"].cast(pl.String).to_list()
    if "pred" in frame.columns:
        values = frame["pred"].cast(pl.String).to_list()
    else:
        if positive is None or labels is None or len(labels) != 2:
            raise UsageError(
                f"predictions of {name!r} hold a score only: a label is derived for binary "
                "data, with {positive} one of the two labels"
            )
        negative = next(lab for lab in labels if lab != positive)
        try:
            scores = frame["score"].cast(pl.Float64).to_list()
        except pl.exceptions.PolarsError:
            raise InputError("column 'score' must hold numbers", path=path) from None
        values = [None if s is None else (positive if s > threshold else negative) for s in scores]
    out: dict[str, str] = {}
    for k, (i, v) in enumerate(zip(ids, values, strict=True)):
        line = _line(frame, k, header)
        if i is None or not i.strip():
            raise InputError("missing id", path=path, line=line)
        if v is None or (isinstance(v, str) and not v.strip()):
            raise InputError(
                f"model {name!r} has no prediction for item {i!r}", path=path, line=line
            )
        if i in out:
            raise InputError("id given twice", path=path, line=line, got=i)
        out[i] = str(v)
    if not out:
        raise InputError(f"predictions of {name!r}: no row", path=path)
    return out


def read_flags(path: str | Path) -> dict[str, tuple[str, str | None]]:
    """Read the flagged ids of a ``benchcheck flag`` output: ``id → (llm_label, bin)``."""
    from benchcheck.labels.flags import normalise_flags

    frame = read_rows(path)
    need = ["id", "llm_label", "flagged"]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise InputError(
            f"not a flags file (benchcheck flag -o): it lacks column(s) {missing}", path=path
        )
    frame = normalise_flags(frame, source=path)
    out: dict[str, tuple[str, str | None]] = {}
    bins = (
        frame["bin"].cast(pl.String).to_list() if "bin" in frame.columns else [None] * frame.height
    )
    for i, llm, flagged, b in zip(
        frame["id"].cast(pl.String).to_list(),
        frame["llm_label"].cast(pl.String).to_list(),
        frame["flagged"].to_list(),
        bins,
        strict=True,
    ):
        if flagged:
            if llm is None:
                raise InputError("a flagged row without llm_label", path=path, got=i)
            out[str(i)] = (str(llm), b)
    return out


def read_precision(spec: str) -> dict[str, BinPrecision]:
    """Per-bin precision: a number (one prior for every bin), ``BIN=P,...``, or a JSON file.

    A number ``q`` means P(the LLM label is right) = ``q`` and P(the original) = ``1 - q``
    in every bin (``{"*": ...}``). A JSON file is the ``benchcheck bins --json`` output:
    each bin's reviewed count ``n`` and shares ``with_llm``, ``with_original`` become counts
    (a Dirichlet posterior is drawn from them).

    >>> read_precision("0.7")["*"]
    BinPrecision(with_llm=0.7, with_original=0.30000000000000004, other=0.0, fixed=True)
    """
    try:
        q = float(spec)
    except ValueError:
        q = math.nan
    if math.isfinite(q):
        if not 0 <= q <= 1:
            raise UsageError(f"{{precision}} must be in [0, 1], got {q}")
        return {"*": BinPrecision(q, 1 - q, fixed=True)}
    path = Path(spec)
    if not path.exists():
        raise InputError(
            "file not found (expected a number or the JSON of benchcheck bins)", path=path
        )
    data: Any = loads_json(read_text_file(path), path)
    bins = data.get("bins") if isinstance(data, dict) else None
    if not isinstance(bins, list):
        raise InputError("expected the JSON of benchcheck bins (a 'bins' list)", path=path)
    out: dict[str, BinPrecision] = {}
    for b in bins:
        try:
            n = int(b["n"])
            llm = 0.0 if b["with_llm"] is None else float(b["with_llm"])
            orig = 0.0 if b["with_original"] is None else float(b["with_original"])
        except (KeyError, TypeError, ValueError):
            raise InputError(
                "each bin needs 'bin', 'n', 'with_llm', 'with_original'", path=path
            ) from None
        k_llm, k_orig = round(llm * n), round(orig * n)
        out[str(b["bin"])] = BinPrecision(k_llm, k_orig, max(0, n - k_llm - k_orig))
    return out


def read_residual(spec: str) -> tuple[int, int] | float:
    """Read the residual error rate: a number, ``ERRORS/SAMPLE``, or an ``error-rate --json``.

    >>> read_residual("0.02"), read_residual("3/150")
    (0.02, (3, 150))
    """
    if "/" in spec and not Path(spec).exists():
        k, _, n = spec.partition("/")
        try:
            errors, sample = int(k), int(n)
        except ValueError:
            raise UsageError(f"{{error_rate}}: expected ERRORS/SAMPLE, got {spec!r}") from None
        if not 0 <= errors <= sample or sample < 1:
            raise UsageError(
                f"{{error_rate}}: need 0 <= errors <= sample, sample >= 1, got {spec!r}"
            )
        return errors, sample
    try:
        rate = float(spec)
    except ValueError:
        rate = math.nan
    if math.isfinite(rate):
        if not 0 <= rate <= 1:
            raise UsageError(f"{{error_rate}} must be in [0, 1], got {rate}")
        return rate
    path = Path(spec)
    if not path.exists():
        raise InputError(
            "file not found (expected a rate, ERRORS/SAMPLE or an error-rate JSON)", path=path
        )
    data = loads_json(read_text_file(path), path)
    try:
        return int(data["errors"]), int(data["sample"])
    except (KeyError, TypeError, ValueError, OverflowError):
        raise InputError(
            "expected the JSON of benchcheck error-rate (errors, sample)", path=path
        ) from None
