"""The inputs of ``benchcheck leakage`` besides the corpus: test items and model scores.

- :func:`read_test_items`: a JSONL / CSV / TSV / Parquet table with a text column, an
  optional id column (default ``id``, else the row number) and an optional gold label
  column; an empty text (nothing but whitespace) is refused with its line.
- :func:`split_items`: the instances of a NER split as test items (their tokens joined by
  spaces; the id is the instance's 0-based index in the split).
- :func:`read_item_scores`: one model's per-item scores, from a table with ``id`` and
  either ``correct`` (1/0 or a partial credit in [0, 1], e.g. exact match, F1) or ``pred``
  (a label compared with the gold label). Every test item needs a score.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from benchcheck.data.ids import refuse_duplicates
from benchcheck.data.model import Split
from benchcheck.errors import InputError, UsageError
from benchcheck.io.tables import read_rows, scalar_strings

__all__ = ["TestItems", "read_item_scores", "read_test_items", "split_items"]


@dataclass(frozen=True)
class TestItems:
    """Test items in file order: id, text and (when given) gold label."""

    path: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    labels: tuple[str, ...] | None


def _lines(frame: pl.DataFrame, path: str | Path) -> list[int]:
    if "__line__" in frame.columns:
        return [int(v) for v in frame["__line__"].to_list()]
    header = 1 if Path(path).suffix.lower() in (".csv", ".tsv") else 0
    return list(range(1 + header, frame.height + 1 + header))


def read_test_items(
    path: str | Path,
    *,
    text_column: str = "text",
    id_column: str | None = None,
    label_column: str | None = None,
) -> TestItems:
    """Read the test items; errors name the file and line."""
    rows = read_rows(path)
    shown = [c for c in rows.columns if c != "__line__"]
    for name, param in (
        (text_column, "test_column"),
        (id_column, "id_column"),
        (label_column, "label"),
    ):
        if name is not None and name not in rows.columns:
            raise InputError(
                f"no column {name!r}; the file has {', '.join(shown)} (choose {{{param}}})",
                path=path,
            )
    lines = _lines(rows, path)
    texts = rows.get_column(text_column)
    if texts.dtype != pl.String:
        raise InputError(f"column {text_column!r} must hold text", path=path, line=lines[0])
    empty = (texts.is_null() | (texts.str.strip_chars() == "")).arg_true()
    if empty.len():
        k = int(empty[0])
        raise InputError(
            f"empty text in column {text_column!r}: every test item needs a text",
            path=path,
            line=lines[k],
        )
    id_name = id_column or ("id" if "id" in rows.columns else None)
    if id_name:
        ids = scalar_strings(rows, id_name, path=path).to_list()
        missing = [k for k, v in enumerate(ids) if v is None or not str(v).strip()]
        if missing:
            raise InputError("missing id", path=path, line=lines[missing[0]])
        refuse_duplicates(ids, path=path, lines=lines)
    else:
        ids = [str(k) for k in range(rows.height)]
    labels = None
    label_name = label_column or ("label" if "label" in rows.columns else None)
    if label_name:
        labels = tuple(
            "" if v is None else str(v)
            for v in scalar_strings(rows, label_name, path=path, what="label").to_list()
        )
    return TestItems(str(path), tuple(str(i) for i in ids), tuple(texts.to_list()), labels)


def split_items(split: Split) -> TestItems:
    """Return a NER split's instances as test items: tokens joined by a space, in order.

    A space between tokens changes nothing the contamination tokens see (spaces are dropped,
    scripts written without spaces give a token per character either way). The id is the
    instance's 0-based index in the split; an instance without tokens is refused.

    >>> import polars as pl
    >>> from benchcheck.data.model import Split
    >>> tokens = pl.DataFrame({"sentence": [0, 0, 1], "position": [0, 1, 0],
    ...                        "token": ["New", "York", "Paris"]})
    >>> table = pl.DataFrame({"sentence": [0, 1], "line": [1, 4]})
    >>> split_items(Split("test", "t.conll", table, tokens)).texts
    ('New York', 'Paris')
    """
    if split.tokens is None:
        raise UsageError(f"split {split.name!r} keeps no tokens to check against a corpus")
    joined = (
        split.tokens.sort("sentence", "position")
        .group_by("sentence", maintain_order=True)
        .agg(pl.col("token").str.join(" "))
    )
    text = dict(zip(joined["sentence"].to_list(), joined["token"].to_list(), strict=True))
    sentences = split.table["sentence"].to_list()
    lines = (
        split.table["line"].to_list() if "line" in split.table.columns else [None] * len(sentences)
    )
    empty = [k for k, s in enumerate(sentences) if not str(text.get(s, "")).strip()]
    if empty:
        raise InputError(
            "an instance without tokens cannot be checked against a corpus",
            path=split.source,
            line=lines[empty[0]],
        )
    return TestItems(
        split.source,
        tuple(str(k) for k in range(len(sentences))),
        tuple(text[s] for s in sentences),
        None,
    )


def read_item_scores(name: str, path: str | Path, items: TestItems) -> np.ndarray:
    """One model's score on every test item, in the items' order (see the module doc)."""
    frame = read_rows(path)
    if "correct" not in frame.columns:
        if items.labels is None:
            raise UsageError(
                f"predictions of {name!r} hold labels ('pred'): the test file needs gold "
                "labels (choose {label}), or give a 'correct' column instead"
            )
        from benchcheck.io.items import read_predictions  # (imports scikit-learn: seconds)

        preds = read_predictions(name, path)
        missing = [i for i in items.ids if i not in preds]
        if missing:
            raise InputError(
                f"model {name!r} has no prediction for test item {missing[0]!r}", path=path
            )
        return np.array(
            [float(preds[i] == g) for i, g in zip(items.ids, items.labels, strict=True)]
        )
    if "id" not in frame.columns:
        raise InputError(f"scores of {name!r} need an 'id' column", path=path)
    lines = _lines(frame, path)
    ids = scalar_strings(frame, "id", path=path).to_list()
    refuse_duplicates(ids, path=path, lines=lines)
    raw = scalar_strings(frame, "correct", path=path)
    values = raw.str.strip_chars().cast(pl.Float64, strict=False).to_list()
    by_id: dict[str, float] = {}
    for k, (i, v) in enumerate(zip(ids, values, strict=True)):
        if v is None or not 0.0 <= v <= 1.0:
            raise InputError(
                "'correct' must be a number in [0, 1]", path=path, line=lines[k], got=raw[k]
            )
        by_id[str(i)] = v
    missing = [i for i in items.ids if i not in by_id]
    if missing:
        raise InputError(f"model {name!r} has no score for test item {missing[0]!r}", path=path)
    return np.array([by_id[i] for i in items.ids])
