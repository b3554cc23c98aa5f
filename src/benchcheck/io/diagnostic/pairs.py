"""Pair files for the partial-input audit: premises, hypotheses and labels of a split."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from benchcheck.data.model import SPLIT_ALIASES
from benchcheck.errors import InputError, UsageError
from benchcheck.io.diagnostic.suite import _norm_label, looks_like_suite, read_diagnostic

_PAIR_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet")


@dataclass(frozen=True)
class PairTexts:
    """Premises, hypotheses and labels of a pair file (a suite or a plain pair table)."""

    premises: list[str]
    hypotheses: list[str]
    labels: list[str]
    source: str
    kind: str  # "suite" or "table"
    n_skipped: int = 0


def find_pair_splits(folder: str | Path) -> tuple[Path, Path]:
    """Find the train file and the evaluation file (test, else dev) of a pair dataset folder.

    A file's split is the first word of its name found in
    :data:`~benchcheck.data.model.SPLIT_ALIASES` (the loader's split words).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder; give {{train}} and {{eval_path}} for files")
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in _PAIR_SUFFIXES:
            continue
        words = re.split(r"[._\-\s]+", path.stem.casefold())
        split = next((SPLIT_ALIASES[w] for w in words if w in SPLIT_ALIASES), None)
        if split is not None:
            found.setdefault(split, []).append(path)
    train = found.get("train", [])
    evals = found.get("test") or found.get("dev") or []
    if len(train) != 1 or len(evals) != 1:
        names = {k: [p.name for p in v] for k, v in found.items()}
        raise UsageError(
            f"{folder}: expected one train file and one test (or dev) file, found {names}; "
            "give {train} and {eval_path} instead"
        )
    return train[0], evals[0]


def read_pairs(
    path: str | Path,
    *,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    skip_labels: Sequence[str] = ("-", ""),
) -> PairTexts:
    """Read premise/hypothesis/label triples from a diagnostic suite or a pair table.

    A GLUE diagnostic TSV or a benchcheck JSONL suite is recognised from its first line and
    read with both directions. Any other JSONL/CSV/TSV/Parquet file is read with
    :func:`benchcheck.io.tables.read_table`; the columns default to ``premise``/
    ``hypothesis`` or ``sentence1``/``sentence2``, and ``label`` or ``gold_label`` (SNLI).
    Rows whose label is in ``skip_labels`` (SNLI's ``-``: no annotator majority) are dropped
    and counted.
    """
    from benchcheck.io.tables import read_rows, read_table

    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    if text_a is None and text_b is None and label is None and looks_like_suite(path):
        tab = read_diagnostic(path)["diagnostic"].table
        return PairTexts(
            tab["text_a"].to_list(),
            tab["text_b"].to_list(),
            tab["label"].to_list(),
            str(path),
            "suite",
        )
    columns = read_rows(path).columns
    if text_a is None or text_b is None:
        for a, b in (("premise", "hypothesis"), ("sentence1", "sentence2"), ("text_a", "text_b")):
            if a in columns and b in columns:
                text_a, text_b = text_a or a, text_b or b
                break
        else:
            raise InputError(
                f"name the pair columns ({{text_a}}/{{text_b}}); the file has "
                f"{[c for c in columns if c != '__line__']}",
                path=path,
            )
    if label is None:
        label = next((c for c in ("label", "gold_label") if c in columns), None)
        if label is None:
            raise InputError(
                f"name the label column ({{label}}); the file has {columns}", path=path
            )
    frame = read_table(path, text_a=text_a, text_b=text_b, label=label)
    skip = {s.strip() for s in skip_labels}
    keep = [lab.strip() not in skip for lab in frame["label"].to_list()]
    kept = frame.filter(pl.Series(keep))
    return PairTexts(
        kept["text_a"].to_list(),
        kept["text_b"].to_list(),
        [_norm_label(x) for x in kept["label"].to_list()],
        str(path),
        "table",
        n_skipped=frame.height - kept.height,
    )
