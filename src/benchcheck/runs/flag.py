"""``benchcheck flag``: where the judge ensemble disputes the original label.

:func:`flag_frames` is the analysis on tables already read (the audit calls it on the
judgments it has just made); :func:`run_flag` reads the judgments, the data and the optional
predicted probabilities, then calls it. Both return a :class:`FlagRun`.

The detector (:func:`benchcheck.labels.detectors.detect`) is chosen by
:class:`FlagOptions`: ``llm`` (the judge ensemble, calibrated — ``prior`` by default),
``trained`` (a model cross-validated on the data itself, with cleanlab) or ``both``.

The flags table keeps every row of the data with the data's own columns under their own
names, followed by benchcheck's: the normalised ``id``, text and ``label`` columns where the
data's names differ (what ``review export`` and ``remedy`` read), ``line`` (the example's
line in its file), then ``llm_label`` (the detector's suggested label), the ``p_<label>``
probabilities of the chosen detector (calibrated; raw ones stay in the judgments file),
``confidence`` (the suggested label's probability), ``error_score`` (the posterior
probability that the original label is wrong, :mod:`benchcheck.labels.posterior`),
``detector_error_score`` (the detector's probability of another label, the error score before issue
24), ``n_members``, ``disagree``, ``flagged``, ``bin`` (of
``error_score``) and ``rank`` (by ``error_score``); with ``both``, ``llm_p_<label>`` and
``trained_p_<label>`` of the two parts (``trained`` alone: ``trained_p_<label>``). A data
column whose name clashes with one of benchcheck's is kept as ``data_<name>``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchcheck._progress import Progress, step
from benchcheck.data.columns import Columns
from benchcheck.errors import InputError, UsageError
from benchcheck.labels.detectors import (
    DEFAULT_CALIBRATION,
    DEFAULT_COMBINATION,
    DEFAULT_DETECTOR,
    DEFAULT_FEATURES,
    DEFAULT_FLAG_RULE,
    DEFAULT_THRESHOLD,
    Detection,
)
from benchcheck.labels.flags import DEFAULT_BINS, FlagSummary, Overlap
from benchcheck.labels.posterior import DEFAULT_POSTERIOR

__all__ = [
    "FlagOptions",
    "FlagRun",
    "flag_frames",
    "flag_rule_for",
    "parse_judge_error",
    "run_flag",
    "with_judged_columns",
    "TOP_COLUMNS",
]

#: Columns of the most confident flags shown in the JSON and the terminal.
TOP_COLUMNS = ("rank", "id", "label", "llm_label", "confidence", "error_score", "bin")
#: Columns of the disagreements the flags leave out (JSON and terminal).
UNFLAGGED_COLUMNS = ("id", "label", "llm_label", "confidence", "error_score")
#: Columns benchcheck computes for every example of the flags table.
_COMPUTED = (
    "llm_label",
    "confidence",
    "error_score",
    "detector_error_score",
    "n_members",
    "disagree",
    "flagged",
    "bin",
    "rank",
)
_NORMALISED = ("id", "text", "text_a", "text_b", "label")


@dataclass(frozen=True)
class FlagOptions:
    r"""How to flag: threshold, bins, which judges × prompts to average, and the detector.

    ``flag_rule`` ``precision`` (the default) flags, among the disagreements, the largest
    top set whose expected precision (mean error score) is at least
    :data:`~benchcheck.labels.detectors.DEFAULT_TARGET_PRECISION`, or, where the data are
    too few to fit the error rate, every disagreement (:mod:`benchcheck.labels.base_rate`);
    ``threshold`` and ``cleanlab`` use ``threshold``, the minimum error score of a flag (the
    probability, under the detector, that the original label is wrong); ``bins`` are
    error-score bin edges.

    ``posterior`` turns the detector's probabilities into the error score
    (:mod:`benchcheck.labels.posterior`; ``none``: the detector's :math:`1 - P(\tilde y)`);
    ``budget`` (the N highest error scores) or ``target_precision`` (the largest top set
    whose mean error score is at least P) replace the flag rule.

    ``judge_error`` (``bayes-platt`` only): a Beta(a, b) prior on the judge's
    confident-mistake rate, or ``"gold"`` to fit it on the reviewed gold labels
    (:func:`benchcheck.labels.base_rate.judge_error_prior`); ``None`` (the default) reads
    every disagreement as a possible flip (docs/labels.md, issue 34).

    ``judges``/``prompts`` ``None`` keep every member of the judgments. ``detector``,
    ``calibration``, ``features``, ``combination`` and ``flag_rule`` are those of
    :func:`benchcheck.labels.detectors.detect` (defaults chosen by
    ``benchmarks/detect_bench.py``; docs/labels.md).
    """

    threshold: float = DEFAULT_THRESHOLD
    bins: tuple[float, ...] = DEFAULT_BINS
    judges: tuple[str, ...] | None = None
    prompts: tuple[str, ...] | None = None
    detector: str = DEFAULT_DETECTOR
    calibration: str = DEFAULT_CALIBRATION
    features: str = DEFAULT_FEATURES
    combination: str = DEFAULT_COMBINATION
    flag_rule: str = DEFAULT_FLAG_RULE
    seed: int = 0
    posterior: str = DEFAULT_POSTERIOR
    budget: int | None = None
    target_precision: float | None = None
    judge_error: tuple[float, float] | str | None = None


def parse_judge_error(text: str | None) -> tuple[float, float] | str | None:
    """Read a judge-error prior: ``gold``, ``A,B`` (a Beta's a, b > 0) or nothing.

    >>> parse_judge_error("2.34,13.21"), parse_judge_error("gold"), parse_judge_error(None)
    ((2.34, 13.21), 'gold', None)
    """
    if text is None or text == "gold":
        return text
    parts = text.split(",")
    try:
        a, b = (float(v) for v in parts)
    except ValueError:
        a = b = math.nan
    if len(parts) != 2 or not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
        raise UsageError(
            f"{{judge_error}} is 'gold' or the Beta prior's 'a,b' (both > 0), got {text!r}"
        )
    return a, b


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
    detection: Detection | None = None
    output: str | None = None
    gold_check: Any = None

    def __repr__(self) -> str:
        """One line: the counts (the flags table is ``.flags``, the flagged ``.flagged()``)."""
        s = self.summary
        return (
            f"<FlagRun {self.data or 'data'!r}: {s.n:,} examples, {s.disagreements:,} "
            f"disagreements, {s.flagged:,} flagged; .flagged(), .to_json()>"
        )

    def flagged(self) -> pl.DataFrame:
        """Return the flagged examples, most confident first."""
        return self.flags.filter(pl.col("flagged")).sort("rank")

    def unflagged_disagreements(self) -> pl.DataFrame:
        """Return the disagreements the flags leave out, highest error score first."""
        return unflagged_disagreements(self.flags)

    def to_json(self, *, top: int = 10, output: str | None = None) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck flag --json`` (``top`` flags listed)."""
        output = output if output is not None else self.output
        out: dict[str, Any] = {"judgments": self.judgments, "data": self.data}
        out["summary"] = self.summary.to_dict()
        if self.detection is not None:
            found = self.detection.to_json()
            out["detector"] = found
            out["expected_errors"] = found["expected_errors"]
            out["operating_point"] = found["operating_point"]
        if self.gold_check is not None:
            out["calibration_vs_gold"] = self.gold_check.to_json()
        if self.confident_learning is not None:
            out["confident_learning"] = self.confident_learning.to_dict()
        if output is not None:
            out["output"] = output
        out["top"] = self.flagged().head(top).select(TOP_COLUMNS).to_dicts()
        left = self.unflagged_disagreements()
        out["disagreements_not_flagged"] = {
            "n": left.height,
            "top": left.head(top).select(UNFLAGGED_COLUMNS).to_dicts(),
        }
        return out


def unflagged_disagreements(flags: pl.DataFrame) -> pl.DataFrame:
    """Return the rows whose label the detector disputes but that are not flagged.

    Highest error score first (ties in data order).

    >>> f = pl.DataFrame({"id": ["a", "b", "c"], "disagree": [True, True, False],
    ...                   "flagged": [False, True, False], "error_score": [0.3, 0.9, 0.1]})
    >>> unflagged_disagreements(f)["id"].to_list()
    ['a']
    """
    left = flags.filter(pl.col("disagree") & ~pl.col("flagged"))
    return left.sort("error_score", descending=True, nulls_last=True, maintain_order=True)


def flag_rule_for(min_error_score: float | None, flag_rule: str | None) -> tuple[float, str]:
    """Return (threshold, flag rule): a minimum error score alone asks for the threshold rule.

    >>> flag_rule_for(None, None), flag_rule_for(0.7, None), flag_rule_for(0.7, "cleanlab")
    ((0.5, 'precision'), (0.7, 'threshold'), (0.7, 'cleanlab'))
    """
    threshold = DEFAULT_THRESHOLD if min_error_score is None else min_error_score
    if flag_rule is None:
        flag_rule = DEFAULT_FLAG_RULE if min_error_score is None else "threshold"
    return threshold, flag_rule


def flag_frames(
    judgments: pl.DataFrame | None,
    data: pl.DataFrame,
    *,
    options: FlagOptions | None = None,
    pred_probs: np.ndarray | None = None,
    rows: pl.DataFrame | None = None,
    source: str | None = None,
    gold: Mapping[str, str] | None = None,
    embed: Any = None,
    progress: Progress | None = None,
    judgments_source: str | None = None,
) -> FlagRun:
    """Score every example with the chosen detector, flag likely label errors, count them.

    ``data`` is a normalised table (``id``, ``label``, text columns, optionally ``line``:
    :func:`benchcheck.io.tables.read_table`); ``rows`` are the same rows as written (the
    data's own columns, carried into the flags table). ``judgments`` (with their
    content-free rows, if any) are needed by the ``llm`` and ``both`` detectors.
    ``pred_probs`` (n × labels, in data order) add cleanlab's confident-learning flags and
    their overlap with the detector's. ``gold`` (id → reviewed label) fits the ``platt`` and
    ``isotonic`` calibrations; ``embed`` embeds texts for the trained detector's
    ``embedding`` features (default: the offline MiniLM). ``source`` names the data file.
    ``progress`` is told the trained detector's steps (features, cross-validated model).
    """
    from benchcheck.labels.detectors import detect
    from benchcheck.labels.ensemble import ensemble, is_content_free, judgment_labels
    from benchcheck.labels.flags import (
        check_judged_labels,
        confident_learning_flags,
        detector_overlap,
        summarize_flags,
    )

    options = options or FlagOptions()
    uses_llm = options.detector in ("llm", "both")
    if uses_llm:
        if judgments is None:
            raise UsageError(f"the {options.detector!r} detector needs a judgments file")
        labels = judgment_labels(judgments)
        ensemble(  # validates the judge / prompt names against the judgments
            judgments.filter(~is_content_free(judgments)),
            judges=options.judges,
            prompts=options.prompts,
        )
        for name, chosen in (("judge", options.judges), ("prompt", options.prompts)):
            if chosen:
                judgments = judgments.filter(pl.col(name).cast(pl.String).is_in(list(chosen)))
    else:
        from benchcheck.labels.ensemble import label_sort_key

        labels = tuple(sorted({str(v) for v in data["label"].to_list()}, key=label_sort_key))
    check_judged_labels(data, labels, source=source)
    _check_ids(data, judgments if uses_llm else None, source, judgments_source)
    if embed is None and "embedding" in options.features and options.detector != "llm":
        from benchcheck.metrics.neardup import minilm_embedder

        embed = minilm_embedder()
    found = detect(
        data,
        judgments if uses_llm else None,
        labels=labels,
        detector=options.detector,
        calibration=options.calibration,
        gold=gold,
        features=options.features,
        combination=options.combination,
        embed=embed,
        threshold=options.threshold,
        flag_rule=options.flag_rule,
        bins=options.bins,
        seed=options.seed,
        posterior=options.posterior,
        budget=options.budget,
        target_precision=options.target_precision,
        progress=progress,
        judge_error=options.judge_error,
    )
    flags = _ordered(found.frame, data, labels, options.detector)
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
        detection=found,
    )


def _check_ids(
    data: pl.DataFrame,
    judgments: pl.DataFrame | None,
    source: str | None,
    judgments_source: str | None,
) -> None:
    """Refuse duplicate data ids; the judged ids (content-free rows aside) join the data's."""
    from benchcheck.labels.ensemble import is_content_free
    from benchcheck.labels.flags import check_judged_ids

    judged = None
    if judgments is not None:
        rows = judgments.filter(~is_content_free(judgments))
        judged = rows["id"].cast(pl.String).unique(maintain_order=True).to_list()
    check_judged_ids(data, judged, source=source, judgments_source=judgments_source)


def _ordered(
    frame: pl.DataFrame, data: pl.DataFrame, labels: Sequence[str], detector: str
) -> pl.DataFrame:
    """Put the data's columns first, then llm_label, p_*, confidence, error_score, …."""
    pcols = [f"p_{lab}" for lab in labels]
    head = [c for c in data.columns if c in frame.columns]
    tail = ["llm_label", *pcols, "confidence", "error_score", "detector_error_score", "n_members"]
    tail += ["disagree", "flagged", "bin", "rank"]
    if detector == "both":
        tail += [f"llm_p_{lab}" for lab in labels]
    if detector in ("both", "trained"):
        tail += [f"trained_p_{lab}" for lab in labels]
    if "n_members" not in frame.columns:
        frame = frame.with_columns(pl.lit(0, dtype=pl.Int64).alias("n_members"))
    return frame.select(head + [c for c in tail if c not in head])


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
    judgments: str | Path | None,
    data: str | Path,
    *,
    columns: Columns | Mapping[str, str | None] | None = None,
    options: FlagOptions | None = None,
    pred_probs: str | Path | None = None,
    gold: str | Path | None = None,
    output: str | Path | None = None,
    progress: Progress | None = None,
) -> FlagRun:
    """Read the judgments and the data (and predicted probabilities, gold), then flag.

    ``progress`` is told the steps: reading, then the trained detector's (:func:`flag_frames`).

    With ``output`` the flags table is written there (JSONL, CSV, TSV or Parquet by its
    suffix, atomically: :func:`benchcheck.io.tables.write_rows`); claim it first.

    Columns not named in ``columns`` are those the judgments were judged with
    (:func:`with_judged_columns`), so the text columns need not be named again.
    ``judgments`` may be None for the ``trained`` detector. ``pred_probs`` is a ``.npy``
    array in data order, or a table with ``id`` and one ``p_<label>`` column per label.
    ``gold`` is a reviewed gold file (``benchcheck review import -o``: ``id`` and ``gold``;
    rows without a gold label are ignored) for the ``platt`` and ``isotonic`` calibrations.
    """
    from benchcheck.io.judgments import judged_columns, read_judgments, read_pred_probs
    from benchcheck.io.tables import read_rows, table_from_rows
    from benchcheck.labels.ensemble import judgment_labels, label_sort_key

    step(progress, f"reading {data}")
    judged = read_judgments(judgments, content_free=True) if judgments is not None else None
    if judged is not None:
        columns = with_judged_columns(Columns.of(columns), judged_columns(judged, path=judgments))
    rows = read_rows(data)
    frame = table_from_rows(rows, data, Columns.of(columns))
    probs = None
    if pred_probs is not None:
        if judged is not None:
            labels = judgment_labels(judged)
        else:
            labels = tuple(sorted({str(v) for v in frame["label"]}, key=label_sort_key))
        probs = read_pred_probs(pred_probs, frame["id"].to_list(), labels)
    gold_map = read_gold_map(gold) if gold is not None else None
    run = flag_frames(
        judged,
        frame,
        options=options,
        pred_probs=probs,
        rows=rows,
        source=str(data),
        gold=gold_map,
        judgments_source=None if judgments is None else str(judgments),
        progress=progress,
    )
    if gold_map is not None:
        flagged = run.flagged()["id"].to_list()
        if flagged and not set(flagged) & set(gold_map):
            raise InputError(
                f"the gold file covers none of the {len(flagged)} flags (no flagged id has a "
                "gold label): review the flags of this data, or give its gold",
                path=gold,
            )
    if output is not None:
        from benchcheck.io.tables import write_rows

        write_rows(run.flags, output)
    return FlagRun(
        flags=run.flags,
        summary=run.summary,
        labels=run.labels,
        options=run.options,
        confident_learning=run.confident_learning,
        judgments=None if judgments is None else str(judgments),
        data=str(data),
        detection=run.detection,
        output=None if output is None else str(output),
        gold_check=None if gold_map is None else gold_calibration(run.flags, gold_map),
    )


def with_judged_columns(given: Columns | None, judged: Columns) -> Columns:
    """Fill the columns not given from those the judgments were made with.

    Text columns are taken together (``text`` or the pair), never mixed with given ones.

    >>> with_judged_columns(Columns(label="gold"), Columns(text_a="p", text_b="h", label="y"))
    Columns(text=None, text_a='p', text_b='h', label='gold', id=None)
    """
    given = given or Columns()
    texts = given if given.task is not None else judged
    return Columns(
        text=texts.text,
        text_a=texts.text_a,
        text_b=texts.text_b,
        label=given.label if given.label is not None else judged.label,
        id=given.id if given.id is not None else judged.id,
    )


def gold_calibration(flags: pl.DataFrame, gold: Mapping[str, str], *, bootstrap: int = 1000):
    """Return the reliability of ``error_score`` against reviewed gold (was the label wrong?).

    The event is "original label ≠ gold label", over the scored examples that have a gold
    label (:func:`benchcheck.labels.calibration.reliability`, ten bins, 90 % bootstrap band
    of the ECE). A review of the flags alone covers high scores only: an audit sample
    (``review export --audit-sample``) is what checks the low ones. With ``platt`` or
    ``isotonic`` calibration the same gold fitted the judge: the check is then in-sample.

    >>> f = pl.DataFrame({"id": ["a", "b"], "label": ["1", "0"], "error_score": [0.9, 0.2]})
    >>> r = gold_calibration(f, {"a": "0", "b": "0"}, bootstrap=0)
    >>> r.n, round(r.ece, 6)
    (2, 0.15)
    """
    from benchcheck.labels.calibration import reliability

    rows = flags.filter(pl.col("error_score").is_not_null()).select("id", "label", "error_score")
    keep = [i in gold for i in rows["id"].to_list()]
    rows = rows.filter(pl.Series(keep, dtype=pl.Boolean))
    if rows.height == 0:
        raise InputError("no gold label matches a scored example of the data")
    wrong = [str(gold[i]) != str(lab) for i, lab in zip(rows["id"], rows["label"], strict=True)]
    return reliability(
        rows["error_score"].to_numpy(), np.asarray(wrong, dtype=float), bootstrap=bootstrap
    )


def read_gold_map(path: str | Path) -> dict[str, str]:
    """Reviewed gold labels by id (``id`` and ``gold`` columns; empty gold cells skipped)."""
    from benchcheck.io.label_files import read_gold

    frame = read_gold(path, need=("id", "gold"))
    frame = frame.filter(pl.col("gold").is_not_null() & (pl.col("gold") != ""))
    if frame.height == 0:
        raise InputError("the gold file has no example with a gold label", path=path)
    return dict(zip(frame["id"].to_list(), frame["gold"].to_list(), strict=True))
