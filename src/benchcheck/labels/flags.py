"""Flags: what every flag rule shares (methods.md section 2, step 2).

The rule itself is :func:`benchcheck.labels.detectors.detect` (what ``benchcheck flag`` and
the audit run): an example is *flagged* when the detector's label differs from its original
label and its error score (the probability that the original label is wrong) is at least
the threshold; flags are ranked and binned by error score (the paper: over two thirds of
the flags above 0.95 were true errors). This module holds the bins, the join checks, the
counts (:func:`summarize_flags`) and reading flags tables back.

Confident learning is the alternative detector: given the user's out-of-sample predicted
probabilities, cleanlab's ``find_label_issues`` flags examples, and :func:`detector_overlap`
compares both detectors' sets.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from benchcheck.data.ids import MAX_UNMATCHED, check_join, refuse_duplicates
from benchcheck.errors import InputError, UsageError, require

__all__ = [
    "DEFAULT_BINS",
    "FlagSummary",
    "Overlap",
    "bin_label",
    "confident_learning_flags",
    "detector_overlap",
    "check_judged_ids",
    "check_judged_labels",
    "normalise_flags",
    "parse_bins",
    "summarize_flags",
]

#: Error-score bin edges used when none are given (the last bin is closed: [0.95, 1]).
DEFAULT_BINS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)


def parse_bins(text: str | Sequence[float]) -> tuple[float, ...]:
    """Parse ``"0.5,0.6,1"`` into increasing bin edges within [0, 1].

    >>> parse_bins("0.5,0.9,1")
    (0.5, 0.9, 1.0)
    """
    if isinstance(text, str):
        try:
            edges = tuple(float(v) for v in text.split(",") if v.strip())
        except ValueError:
            raise UsageError(f"{{bins}} expects comma-separated numbers, got {text!r}") from None
    else:
        edges = tuple(float(v) for v in text)
    if not all(math.isfinite(e) for e in edges):
        raise UsageError(f"{{bins}} edges must be finite numbers, got {edges}")
    if len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
        raise UsageError(f"{{bins}} needs at least two strictly increasing edges, got {edges}")
    if edges[0] < 0 or edges[-1] > 1:
        raise UsageError(f"{{bins}} edges must lie in [0, 1], got {edges}")
    return edges


def bin_label(confidence: float | None, edges: Sequence[float] = DEFAULT_BINS) -> str | None:
    """Name of the bin ``[a, b)`` holding ``confidence`` (the last bin is closed); None outside.

    >>> bin_label(0.93), bin_label(1.0), bin_label(0.2)
    ('[0.9, 0.95)', '[0.95, 1]', None)
    """
    if confidence is None or math.isnan(confidence):
        return None
    if confidence < edges[0] or confidence > edges[-1]:
        return None
    i = bisect.bisect_right(edges, confidence) - 1
    if i >= len(edges) - 1:
        i = len(edges) - 2
    closing = "]" if i == len(edges) - 2 else ")"
    return f"[{edges[i]:g}, {edges[i + 1]:g}{closing}"


def _bin_labels(conf: np.ndarray, edges: Sequence[float]) -> list[str | None]:
    """Vectorised :func:`bin_label` over an array (NaN / out of range → None)."""
    names = [bin_label(a, edges) for a in edges[:-1]]
    conf = np.asarray(conf, dtype=float)
    idx = np.searchsorted(np.asarray(edges), conf, side="right") - 1
    idx = np.where(conf == edges[-1], len(edges) - 2, idx)
    ok = ~np.isnan(conf) & (conf >= edges[0]) & (conf <= edges[-1])
    return [names[i] if k else None for i, k in zip(idx.tolist(), ok.tolist(), strict=True)]


def check_judged_labels(
    data: pl.DataFrame, labels: Sequence[str], *, source: str | None = None
) -> None:
    """Refuse data without ``id``/``label`` or with a label the judges do not score.

    The error names the data file (``source``) and the line of the first such label.
    """
    for col in ("id", "label"):
        if col not in data.columns:
            raise InputError(f"the data has no {col!r} column", path=source)
    bad = data.filter(~pl.col("label").cast(pl.String).is_in(list(labels)))
    if bad.height:
        line = int(bad["line"][0]) if "line" in bad.columns else None
        raise InputError(
            f"label not among the judged labels {list(labels)}",
            path=source,
            line=line,
            got=bad["label"][0],
        )


def check_judged_ids(
    data: pl.DataFrame,
    judged: Sequence[str] | None,
    *,
    source: str | None = None,
    judgments_source: str | None = None,
    max_unmatched: float = MAX_UNMATCHED,
) -> None:
    """Refuse duplicate data ids; check that the judged ids (if any) join the data's.

    :func:`benchcheck.data.ids.check_join`: some id in common, at most ``max_unmatched``
    (5 %) of either side unmatched; ``judgments_source`` names the judgments file.
    ``judged`` None (a detector without judgments): only the duplicates are checked.
    """
    data_ids = data["id"].cast(pl.String).to_list()
    lines = data["line"].to_list() if "line" in data.columns else None
    refuse_duplicates(data_ids, path=source, lines=lines)
    if judged is None:
        return
    check_join(
        data_ids,
        list(judged),
        left_name="the data",
        right_name="the judgments",
        right_file=judgments_source,
        path=source,
        left_unmatched=max_unmatched,
        right_unmatched=max_unmatched,
    )


@dataclass(frozen=True)
class FlagSummary:
    """Counts behind a flag run: examples, judged, disagreements, flags per error-score bin."""

    n: int
    judged: int
    disagreements: int
    flagged: int
    threshold: float
    flagged_by_bin: dict[str, int]
    labels: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "n": self.n,
            "judged": self.judged,
            "disagreements": self.disagreements,
            "flagged": self.flagged,
            "flag_rate": self.flagged / self.n if self.n else math.nan,
            "threshold": self.threshold,
            "flagged_by_bin": dict(self.flagged_by_bin),
            "labels": list(self.labels),
        }


def normalise_flags(flags: pl.DataFrame, *, source: object = None) -> pl.DataFrame:
    """Give a flags table read back from CSV its types: booleans, floats, integer ranks.

    >>> f = pl.DataFrame({"flagged": ["true", "False"], "confidence": ["0.9", ""]})
    >>> normalise_flags(f).rows()
    [(True, 0.9), (False, None)]
    """
    casts = []
    for col in ("flagged", "disagree"):
        if col in flags.columns and flags[col].dtype == pl.String:
            low = pl.col(col).str.strip_chars().str.to_lowercase()
            casts.append(
                pl.when(low.is_in(["true", "1"]))
                .then(True)
                .when(low.is_in(["false", "0", ""]) | low.is_null())
                .then(False)
                .otherwise(None)
                .alias(col)
            )
    for col, dtype in (("confidence", pl.Float64), ("rank", pl.Int64)):
        if col in flags.columns and flags[col].dtype == pl.String:
            casts.append(
                pl.when(pl.col(col).str.strip_chars() == "")
                .then(None)
                .otherwise(pl.col(col))
                .cast(dtype, strict=False)
                .alias(col)
            )
    out = flags.with_columns(casts) if casts else flags
    for col in ("flagged", "disagree"):
        if col in out.columns and out[col].null_count() > flags[col].null_count():
            raise InputError(f"column {col!r} must hold true/false", path=source)  # type: ignore[arg-type]
    return out


def summarize_flags(
    flags: pl.DataFrame, *, threshold: float, bins: Sequence[float] = DEFAULT_BINS
) -> FlagSummary:
    """Count a flags frame (:func:`benchcheck.labels.detectors.detect`), with flags per bin.

    Every bin is listed (zero where no flag falls in it), and the counts add up to the
    flags: flags whose error score lies below the first edge (a ``budget`` or
    ``target_precision`` rule, or a threshold under it) are counted under ``< edge``,
    listed first and only when there are some.

    >>> f = pl.DataFrame({"flagged": [True, True, False], "bin": [None, "[0.5, 0.75]", None],
    ...                   "llm_label": ["0", "0", "1"], "disagree": [True, True, False]})
    >>> summarize_flags(f, threshold=0.2, bins=(0.5, 0.75)).flagged_by_bin
    {'< 0.5': 1, '[0.5, 0.75]': 1}
    """
    names = [bin_label(a, bins) or "" for a in bins[:-1]]
    counts = {n: 0 for n in names}
    below = 0
    for b in flags.filter(pl.col("flagged"))["bin"].to_list():
        if b is not None:
            counts[b] = counts.get(b, 0) + 1
        else:
            below += 1
    if below:
        counts = {f"< {bins[0]:g}": below, **counts}
    labels = tuple(c[2:] for c in flags.columns if c.startswith("p_"))
    return FlagSummary(
        n=flags.height,
        judged=int(flags["llm_label"].is_not_null().sum()),
        disagreements=int(flags["disagree"].sum()),
        flagged=int(flags["flagged"].sum()),
        threshold=threshold,
        flagged_by_bin=counts,
        labels=labels,
    )


def confident_learning_flags(
    labels: Sequence[str], pred_probs: np.ndarray, label_order: Sequence[str]
) -> np.ndarray:
    """Boolean mask of label issues by cleanlab's ``find_label_issues`` (confident learning).

    ``pred_probs`` is n × K out-of-sample probabilities with columns in ``label_order``.
    Needs the ``cleanlab`` extra.
    """
    filt = require("cleanlab.filter", "cleanlab")
    code = {lab: i for i, lab in enumerate(label_order)}
    unknown = sorted({lab for lab in labels if lab not in code})
    if unknown:
        raise UsageError(f"labels {unknown} have no column in the predicted probabilities")
    probs = np.asarray(pred_probs, dtype=float)
    if probs.shape != (len(labels), len(label_order)):
        raise UsageError(
            f"predicted probabilities have shape {probs.shape}; expected "
            f"({len(labels)}, {len(label_order)})"
        )
    y = np.array([code[lab] for lab in labels])
    # n_jobs=1: cleanlab's default forks a process pool per call; a fork of a process that
    # holds threads (BLAS, a loaded judge) can deadlock — seen once in the labels suite
    # (the child waiting on a futex forever) — and the pool costs more than the work here
    return np.asarray(filt.find_label_issues(labels=y, pred_probs=probs, n_jobs=1), dtype=bool)


@dataclass(frozen=True)
class Overlap:
    """How two detectors' flagged sets overlap."""

    a: str
    b: str
    n_a: int
    n_b: int
    both: int
    only_a: int
    only_b: int
    jaccard: float

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return dict(self.__dict__)


def detector_overlap(
    ids_a: Sequence[str], ids_b: Sequence[str], *, a: str = "llm", b: str = "cleanlab"
) -> Overlap:
    """Overlap of two detectors' flagged ids: both, only one, Jaccard index.

    >>> detector_overlap(["1", "2", "3"], ["2", "3", "4"]).jaccard
    0.5
    """
    sa, sb = set(ids_a), set(ids_b)
    union = sa | sb
    return Overlap(
        a,
        b,
        len(sa),
        len(sb),
        len(sa & sb),
        len(sa - sb),
        len(sb - sa),
        len(sa & sb) / len(union) if union else math.nan,
    )
