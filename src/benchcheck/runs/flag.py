"""``benchcheck flag``: where the judge ensemble disputes the original label.

:func:`flag_frames` is the analysis on tables already read (the audit calls it on the
judgments it has just made); :func:`run_flag` reads the judgments, the data and the optional
predicted probabilities, then calls it. Both return a :class:`FlagRun`.

The flags table keeps every row of the data with the data's own columns under their own
names, followed by benchcheck's: the normalised ``id``, text and ``label`` columns where the
data's names differ (what ``review export`` and ``remedy`` read), ``line`` (the example's
line in its file), then ``llm_label``, the
``p_<label>`` means, ``confidence``, ``n_members``, ``disagree``, ``flagged``, ``bin`` and
``rank``. A data column whose name clashes with one of benchcheck's is kept as
``data_<name>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from benchcheck.data.columns import Columns
from benchcheck.labels.flags import DEFAULT_BINS, FlagSummary, Overlap

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FlagOptions", "FlagRun", "flag_frames", "run_flag", "TOP_COLUMNS"]

#: Columns of the most confident flags shown in the JSON and the terminal.
TOP_COLUMNS = ("rank", "id", "label", "llm_label", "confidence", "bin")
#: Columns benchcheck computes for every example of the flags table.
_COMPUTED = ("llm_label", "confidence", "n_members", "disagree", "flagged", "bin", "rank")
_NORMALISED = ("id", "text", "text_a", "text_b", "label")


@dataclass(frozen=True)
class FlagOptions:
    """How to flag: minimum confidence, confidence bins, and which judges × prompts to average.

    ``judges``/``prompts`` ``None`` keep every member of the judgments.
    """

    threshold: float = 0.5
    bins: tuple[float, ...] = DEFAULT_BINS
    judges: tuple[str, ...] | None = None
    prompts: tuple[str, ...] | None = None


@dataclass(frozen=True)
class FlagRun:
    """The flags of one dataset: every example with its ensemble columns, and the counts."""

    flags: pl.DataFrame
    summary: FlagSummary
    labels: tuple[str, ...]
    options: FlagOptions = field(default_factory=FlagOptions)
    confident_learning: Overlap | None = None
    judgments: str | None = None
    data: str | None = None

    def flagged(self) -> pl.DataFrame:
        """Return the flagged examples, most confident first."""
        return self.flags.filter(pl.col("flagged")).sort("rank")

    def to_json(self, *, top: int = 10, output: str | None = None) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck flag --json`` (``top`` flags listed)."""
        out: dict[str, Any] = {"judgments": self.judgments, "data": self.data}
        out["summary"] = self.summary.to_dict()
        if self.confident_learning is not None:
            out["confident_learning"] = self.confident_learning.to_dict()
        if output is not None:
            out["output"] = output
        out["top"] = self.flagged().head(top).select(TOP_COLUMNS).to_dicts()
        return out


def flag_frames(
    judgments: pl.DataFrame,
    data: pl.DataFrame,
    *,
    options: FlagOptions | None = None,
    pred_probs: np.ndarray | None = None,
    rows: pl.DataFrame | None = None,
    source: str | None = None,
    judgments_source: str | None = None,
) -> FlagRun:
    """Average the judgments per example, flag disagreements, count them.

    ``data`` is a normalised table (``id``, ``label``, text columns, optionally ``line``:
    :func:`benchcheck.io.tables.read_table`); ``rows`` are the same rows as written (the
    data's own columns, carried into the flags table). ``pred_probs`` (n × labels, in data
    order) add cleanlab's confident-learning flags and their overlap with the LLM's.
    ``source`` names the data file in errors.
    """
    from benchcheck.labels.ensemble import ensemble, judgment_labels
    from benchcheck.labels.flags import (
        confident_learning_flags,
        detector_overlap,
        flag_examples,
        summarize_flags,
    )

    options = options or FlagOptions()
    labels = judgment_labels(judgments)
    ens = ensemble(judgments, judges=options.judges, prompts=options.prompts)
    flags = flag_examples(
        data,
        ens,
        threshold=options.threshold,
        bins=options.bins,
        labels=labels,
        source=source,
        judgments_source=judgments_source,
    )
    summary = summarize_flags(flags, threshold=options.threshold, bins=options.bins)
    overlap = None
    if pred_probs is not None:
        issues = confident_learning_flags(flags["label"].to_list(), pred_probs, labels)
        flags = flags.with_columns(pl.Series("cleanlab_issue", issues))
        overlap = detector_overlap(
            flags.filter(pl.col("flagged"))["id"].to_list(),
            flags.filter(pl.col("cleanlab_issue"))["id"].to_list(),
        )
    if rows is not None:
        flags = with_data_columns(flags, rows)
    return FlagRun(
        flags=flags,
        summary=summary,
        labels=labels,
        options=options,
        confident_learning=overlap,
        data=source,
    )


def with_data_columns(flags: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """Put the data's own columns (as written, same row order) before benchcheck's.

    A data column that benchcheck read under its own name (``id``, ``label``, …) keeps its
    place with the normalised values (strings); any other data column clashing with one of
    benchcheck's becomes ``data_<name>``.

    >>> rows = pl.DataFrame({"uid": ["a"], "premise": ["p"], "hypothesis": ["h"],
    ...                      "label": ["1"], "flagged": ["yes"]})
    >>> flags = pl.DataFrame({"id": ["a"], "text_a": ["p"], "text_b": ["h"], "label": ["1"],
    ...                       "line": [1], "llm_label": ["0"], "flagged": [True]})
    >>> print(*with_data_columns(flags, rows).columns)
    uid premise hypothesis label data_flagged id text_a text_b line llm_label flagged
    """
    own = rows.drop("__line__", strict=False)
    taken = set(flags.columns) - set(_NORMALISED)
    own = own.rename({c: f"data_{c}" for c in own.columns if c in taken})
    keep = []
    for c in flags.columns:
        if c in _NORMALISED and c in own.columns:
            if own[c].cast(pl.String).equals(flags[c]):
                # the data's own column under benchcheck's name: its normalised values
                # (labels and ids as strings), in its place
                own = own.with_columns(flags[c])
                continue
            own = own.rename({c: f"data_{c}"})
        keep.append(c)
    return pl.concat([own, flags.select(keep)], how="horizontal")


def run_flag(
    judgments: str | Path,
    data: str | Path,
    *,
    columns: Columns | None = None,
    options: FlagOptions | None = None,
    pred_probs: str | Path | None = None,
) -> FlagRun:
    """Read the judgments and the data (and predicted probabilities), then :func:`flag_frames`.

    ``pred_probs`` is a ``.npy`` array in data order, or a table with ``id`` and one
    ``p_<label>`` column per label.
    """
    from benchcheck.io.judgments import read_judgments, read_pred_probs
    from benchcheck.io.tables import read_rows, table_from_rows
    from benchcheck.labels.ensemble import judgment_labels

    judged = read_judgments(judgments)
    rows = read_rows(data)
    frame = table_from_rows(rows, data, columns or Columns())
    probs = None
    if pred_probs is not None:
        probs = read_pred_probs(pred_probs, frame["id"].to_list(), judgment_labels(judged))
    run = flag_frames(
        judged,
        frame,
        options=options,
        pred_probs=probs,
        rows=rows,
        source=str(data),
        judgments_source=str(judgments),
    )
    return FlagRun(
        flags=run.flags,
        summary=run.summary,
        labels=run.labels,
        options=run.options,
        confident_learning=run.confident_learning,
        judgments=str(judgments),
        data=str(data),
    )
