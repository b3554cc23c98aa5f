"""``benchcheck stats`` and ``benchcheck compare``: the statistical dataset evaluation.

:func:`run_stats` loads a dataset, scores model predictions when given, computes every
registered metric, and adds the optional analyses (F1 by bucket, near-duplicates, semantic
duplicates); :func:`run_compare` does it for several datasets. The statistics section of
``benchcheck audit`` is the same :func:`run_stats` call, so both give the same JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from benchcheck._progress import Progress, step
from benchcheck.errors import UsageError
from benchcheck.io.source import DataSource

if TYPE_CHECKING:
    from benchcheck.data.model import Dataset, Split
    from benchcheck.labels.span_corrections import Corrections, ReviewedAccuracy
    from benchcheck.metrics.compute import StatsResult
    from benchcheck.metrics.neardup import NearDuplicates, SemanticDuplicates

__all__ = [
    "CompareRun",
    "EngineOptions",
    "NearDuplicateOptions",
    "SemanticOptions",
    "StatsRun",
    "run_compare",
    "run_stats",
]


@dataclass(frozen=True)
class NearDuplicateOptions:
    """Normalised and MinHash-LSH near-duplicates: Jaccard ``threshold``, MinHash ``seed``."""

    threshold: float = 0.8
    seed: int = 1


@dataclass(frozen=True)
class SemanticOptions:
    """Embedding near-duplicates: cosine ``threshold``."""

    threshold: float = 0.9


@dataclass(frozen=True)
class EngineOptions:
    """Where the dataset is read: ``embedded`` or ``ray`` (a shard folder), and Ray's cluster."""

    name: str = "embedded"
    address: str | None = None
    cpus: int | None = None


@dataclass(frozen=True)
class StatsRun:
    """The statistics of one dataset and the optional analyses that ran on it."""

    stats: StatsResult
    buckets: Mapping[str, Any] | None = None
    near_duplicates: NearDuplicates | None = None
    semantic_duplicates: SemanticDuplicates | None = None
    #: Eq. 2 accuracy per split from a span review's corrected spans (``--reviewed``).
    reviewed: tuple[ReviewedAccuracy, ...] | None = None
    reviewed_file: str | None = None
    #: The dataset read (for callers that go on with it, e.g. the audit); not in the JSON.
    dataset: Dataset | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON object of ``benchcheck stats --json``."""
        out = self.stats.to_json()
        if self.buckets is not None:
            out["buckets"] = {k: dict(v) for k, v in self.buckets.items()}
        if self.near_duplicates is not None:
            out["near_duplicates"] = self.near_duplicates.to_json()
        if self.semantic_duplicates is not None:
            out["semantic_duplicates"] = self.semantic_duplicates.to_json()
        if self.reviewed is not None:
            out["reviewed_accuracy"] = {
                "file": self.reviewed_file,
                "sample": self.reviewed[0].sample if self.reviewed else None,
                "splits": {r.split: r.to_json() for r in self.reviewed},
            }
        return out


def run_stats(
    source: DataSource,
    *,
    scores: Mapping[str, float] | None = None,
    predictions: Mapping[str, str] | None = None,
    near_duplicates: NearDuplicateOptions | None = None,
    semantic_duplicates: SemanticOptions | None = None,
    engine: EngineOptions | None = None,
    reviewed: str | Path | None = None,
    progress: Progress | None = None,
) -> StatsRun:
    """Load ``source``, score ``predictions`` if given, compute every metric that applies.

    ``scores`` (model name → published score) add Model Differentiation (Eq. 7);
    ``predictions`` (model name → NER prediction file on the test split) are scored with
    seqeval micro F1 instead, and add F1 by bucket. ``reviewed`` (corrected spans of a span
    review, ``review import -o``) adds the Eq. 2 accuracy estimated from the reviewed
    sentences (:func:`benchcheck.labels.span_corrections.reviewed_accuracy`). Without
    predictions or near-duplicates the dataset is read without its token table, in bounded
    memory. ``progress`` is told each step (reading, scoring, duplicates, metrics).

    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> run = run_stats(DataSource(str(NER_SAMPLE)))
    >>> run.to_json()["metrics"]["leakage_ratio"]
    0.25
    """
    from benchcheck.metrics.compute import compute_stats

    model_scores = dict(scores or {})
    files = dict(predictions or {})
    if files and model_scores:
        raise UsageError("give either {scores} or {predictions}, not both (their units differ)")
    keep_tokens = bool(files) or near_duplicates is not None or semantic_duplicates is not None
    corrections = None
    if reviewed is not None:
        from benchcheck.io.tables import read_rows
        from benchcheck.labels.span_corrections import corrected_spans

        corrections = corrected_spans(read_rows(reviewed), source=reviewed)
    step(progress, f"reading {source.path or 'the splits'}")
    dataset = _load(source, engine, keep_tokens=keep_tokens)
    review = None
    if corrections is not None:
        review = _reviewed(dataset, corrections, corpus=source.path or "the corpus")
    buckets = None
    if files:
        from benchcheck.io.load import read_predictions
        from benchcheck.metrics.buckets import bucket_predictions
        from benchcheck.metrics.predictions import score_test_predictions, test_split

        test_split(dataset)  # before reading the predictions: no test split, no scoring
        step(progress, "scoring the predictions")
        predicted = read_predictions(files, scheme=source.scheme)
        model_scores = score_test_predictions(dataset, predicted)
        buckets = bucket_predictions(dataset, predicted)
    near = semantic = None
    if near_duplicates is not None:
        from benchcheck.metrics.neardup import near_duplicates as find_near

        step(progress, "near-duplicates (MinHash-LSH)")
        near = find_near(dataset, threshold=near_duplicates.threshold, seed=near_duplicates.seed)
    if semantic_duplicates is not None:
        from benchcheck.metrics.neardup import semantic_duplicates as find_semantic

        step(progress, "semantic duplicates (embeddings)")
        semantic = find_semantic(dataset, threshold=semantic_duplicates.threshold)
    step(progress, "metrics of the three dimensions")
    return StatsRun(
        stats=compute_stats(dataset, scores=model_scores),
        buckets=MappingProxyType(buckets) if buckets is not None else None,
        near_duplicates=near,
        semantic_duplicates=semantic,
        reviewed=review,
        reviewed_file=None if reviewed is None else str(reviewed),
        dataset=dataset,
    )


def _reviewed(
    dataset: Dataset, corrections: Corrections, *, corpus: str
) -> tuple[ReviewedAccuracy, ...]:
    """Check the corrected spans against the NER ``dataset``; Eq. 2 accuracy per split."""
    from benchcheck.labels.span_corrections import check_corrections, reviewed_accuracy

    splits = [dataset[name] for name in dataset.split_names]
    if any(s.spans is None for s in splits):
        raise UsageError("{reviewed} is for NER data (corrected spans of a span review)")
    check_corrections(
        corrections,
        {s.name: s.table["n_tokens"].to_numpy() for s in splits},
        corpus=corpus,
    )
    gold = {s.name: sentence_spans(s) for s in splits}
    return reviewed_accuracy(corrections, gold)


def sentence_spans(split: Split) -> dict[int, frozenset[tuple[int, int, str]]]:
    """Return the gold spans of an NER split per sentence index (none: sentence absent)."""
    import polars as pl

    assert split.spans is not None
    out: dict[int, set[tuple[int, int, str]]] = {}
    for sentence, a, b, t in split.spans.select(
        "sentence", "start", "end", pl.col("type").cast(pl.String)
    ).iter_rows():
        out.setdefault(int(sentence), set()).add((int(a), int(b), str(t)))
    return {k: frozenset(v) for k, v in out.items()}


def _load(source: DataSource, engine: EngineOptions | None, *, keep_tokens: bool) -> Dataset:
    if engine is None or engine.name == "embedded":
        return source.load(keep_tokens=keep_tokens)
    from benchcheck.engine import load_with_engine

    splits = [f"{k}={v}" for k, v in source.splits.items()] or None
    return load_with_engine(  # type: ignore[no-any-return]
        engine.name,
        source.path,
        split=splits,
        scheme=source.scheme,
        strict=source.strict,
        task=source.task,
        keep_tokens=keep_tokens,
        address=engine.address,
        num_cpus=engine.cpus,
    )


@dataclass(frozen=True)
class CompareRun:
    """Several datasets' statistics side by side, by name (the paper's comparison table)."""

    datasets: Mapping[str, StatsRun]

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON object of ``benchcheck compare --json``."""
        return {"datasets": {name: run.to_json() for name, run in self.datasets.items()}}


def run_compare(
    sources: Mapping[str, DataSource], *, progress: Progress | None = None
) -> CompareRun:
    """:func:`run_stats` on each named dataset (``progress`` is told each one's steps)."""
    if not sources:
        raise UsageError("give at least one dataset to compare")
    runs = {}
    for name, src in sources.items():
        step(progress, f"dataset {name}")
        runs[name] = run_stats(src, progress=progress)
    return CompareRun(runs)
