"""Compute every metric of the table that applies to a dataset: the ``stats`` result.

The JSON form (:meth:`StatsResult.to_json`) is the contract: split-level metrics under
``splits.<name>`` and their mean over the splits present under ``metrics``; cross-split
metrics (the ``test`` split against the spec's references present) and pooled metrics
under ``metrics``; ``dimensions`` says which dimension each metric belongs to and whether
higher is better. What is computed, in which order, comes from
:mod:`benchcheck.metrics.table`; this module knows no metric by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchcheck.data.model import Dataset, Split, TaskKind
from benchcheck.metrics.spec import DIMENSIONS, MetricSpec, Preparation
from benchcheck.metrics.table import stats_specs
from benchcheck.metrics.text import label_shares, length_stats

#: The split stats compare with the spec's references (the paper's test split).
TARGET = "test"


@dataclass(frozen=True)
class StatsResult:
    """The statistics of one dataset (frozen, JSON-serialisable through :meth:`to_json`)."""

    task: str
    dataset: str
    splits: Mapping[str, Mapping[str, Any]]
    metrics: Mapping[str, float | None]
    model_scores: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    #: NER: entity types seen in one split only (split → sorted types); empty when the
    #: splits share their types or there is one split.
    types_only_in: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: NER: how entity types were renamed while reading (``map``, ``coarse_types`` and the
    #: ``renamed`` types); empty when they were not.
    type_map: Mapping[str, Any] = field(default_factory=dict)
    #: Split files skipped as holding no annotation (CLUENER's test.json).
    skipped_splits: tuple[str, ...] = ()
    #: NER documents divided into splits by id lists: ``lists`` (split → id file) and
    #: ``unassigned_documents`` (in no list, left out); empty when not.
    split_lists: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        """One line: the dataset, its splits and how many metrics (``to_json()`` has them)."""
        known = sum(v is not None for v in self.metrics.values())
        return (
            f"<StatsResult {self.dataset!r} ({self.task}): {len(self.splits)} splits, "
            f"{known} metrics; .metrics, .to_json()>"
        )

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON object (without ``schema_version``, added by the writer)."""
        out: dict[str, Any] = {
            "task": self.task,
            "dataset": self.dataset,
            "dimensions": dimensions(self.task),
            "metrics": dict(self.metrics),
            "splits": {k: dict(v) for k, v in self.splits.items()},
        }
        if self.model_scores:
            out["model_scores"] = dict(self.model_scores)
        if self.types_only_in:
            out["types_only_in"] = {k: list(v) for k, v in self.types_only_in.items()}
        if self.type_map:
            out["type_map"] = dict(self.type_map)
        if self.skipped_splits:
            out["skipped_splits"] = list(self.skipped_splits)
        if self.split_lists:
            out["split_lists"] = dict(self.split_lists)
        out["notes"] = list(self.notes)
        return out


def dimensions(task: str) -> dict[str, dict[str, str]]:
    """Metric → {dimension, better, title, definition}, in dimension order."""
    specs = sorted(stats_specs(task), key=lambda s: DIMENSIONS.index(s.dimension))
    return {
        s.name: {
            "dimension": s.dimension,
            "better": s.better,
            "title": s.title,
            "definition": s.definition,
        }
        for s in specs
    }


def display_source(source: str) -> str:
    """Show a split's source as results do: bundled sample files by package path."""
    from benchcheck.sample_data import HERE

    marker = str(HERE)
    return "benchcheck:sample_data" + source[len(marker) :] if source.startswith(marker) else source


def _ner_summary(split: Split) -> dict[str, Any]:
    return {
        "scheme": split.scheme,
        "tag_repairs": split.tag_repairs,
        "n_tokens": int(split.table.get_column("n_tokens").sum()),
        "n_entities": split.spans.height if split.spans is not None else 0,
        # records of the file with no token (no instance), where the reader met any
        **({"empty_records": split.empty_records} if split.empty_records else {}),
        **({"reading": split.reading.to_json()} if split.reading is not None else {}),
    }


def _text_summary(split: Split) -> dict[str, Any]:
    return {"labels": label_shares(split), "length": length_stats(split)}


#: What each split's row says about it before the metrics, by task kind.
SUMMARIES: Mapping[TaskKind, Callable[[Split], dict[str, Any]]] = {
    "ner": _ner_summary,
    "classification": _text_summary,
    "pair": _text_summary,
    "mcq": _text_summary,
}


def split_value(spec: MetricSpec, split: Split, prepared: dict[Preparation, Any]) -> float | None:
    """Compute a split-level metric, its preparations taken from (or put in) ``prepared``.

    ``prepared`` is the caller's store for one split, so a value several metrics need (e*)
    is computed once per split.
    """
    kwargs = {}
    for prep in spec.prepared:
        if prep not in prepared:
            prepared[prep] = prep.function(split)
        kwargs[prep.name] = prepared[prep]
    return spec.function(split, **kwargs)


def dataset_value(spec: MetricSpec, dataset: Dataset, *, target: str = TARGET) -> float | None:
    """Compute a dataset-level metric as stats reports it.

    ``cross``: ``target`` against the spec's references the dataset has (``None`` when the
    dataset has no ``target`` split); ``pooled``: all splits together.
    """
    if spec.scope == "pooled":
        return spec.function(list(dataset))
    if spec.scope != "cross":
        raise ValueError(f"{spec.name} is not a dataset-level metric")
    if target not in dataset:
        return None
    return spec.function(dataset[target], spec.references_in(dataset, target))


def compute_stats(
    dataset: Dataset,
    *,
    scores: Mapping[str, float] | None = None,
) -> StatsResult:
    """Compute every metric the table lists for the dataset's task.

    ``scores`` (model name → score) add the ``scores`` metrics (Model Differentiation,
    Eq. 7). A dataset-level metric that is not defined (``None``) gets a note saying what
    it needs.
    """
    specs = stats_specs(dataset.task)
    split_specs = [s for s in specs if s.scope == "split"]
    per_split: dict[str, dict[str, Any]] = {}
    for split in dataset:
        row: dict[str, Any] = {"source": display_source(split.source), "n_instances": split.n}
        row.update(SUMMARIES[dataset.task](split))
        prepared: dict[Preparation, Any] = {}
        for spec in split_specs:
            row[spec.name] = split_value(spec, split, prepared)
        per_split[split.name] = row
    metrics: dict[str, float | None] = {}
    notes: list[str] = []
    for spec in split_specs:
        values = [r[spec.name] for r in per_split.values() if r[spec.name] is not None]
        metrics[spec.name] = float(np.mean(values)) if values else None
    for spec in specs:
        if spec.scope in ("cross", "pooled"):
            metrics[spec.name] = dataset_value(spec, dataset)
            if metrics[spec.name] is None:
                notes.append(f"{spec.name}: not defined here ({spec.needs})")
    model_scores = dict(scores or {})
    if model_scores:
        for spec in specs:
            if spec.scope == "scores":
                metrics[spec.name] = spec.function(list(model_scores.values()))
    repairs = sum(s.tag_repairs for s in dataset)
    if repairs:
        notes.append(f"{repairs} invalid tag transitions were repaired the way seqeval reads them")
    type_map: dict[str, Any] = {}
    given = dataset.meta.get("type_map")
    if isinstance(given, Mapping):
        renamed: dict[str, str] = {}
        for split in dataset:
            renamed.update(split.type_map)
        type_map = {**given, "renamed": dict(sorted(renamed.items()))}
    skipped = dataset.meta.get("skipped_splits") or ()
    lists = dataset.meta.get("split_lists")
    split_lists: dict[str, Any] = {}
    if isinstance(lists, Mapping):
        left = dataset.meta.get("unassigned_documents", 0)
        split_lists = {"lists": dict(lists), "unassigned_documents": left}
        if left:
            notes.append(f"{left} documents are in no split list and were left out")
    return StatsResult(
        task=dataset.task,
        dataset=dataset.name,
        splits=per_split,
        metrics=metrics,
        model_scores=model_scores,
        notes=tuple(notes),
        types_only_in=types_only_in(dataset) if dataset.task == "ner" else {},
        type_map=type_map,
        skipped_splits=tuple(str(s) for s in skipped),  # type: ignore[attr-defined]
        split_lists=split_lists,
    )


def types_only_in(dataset: Dataset) -> dict[str, tuple[str, ...]]:
    """Entity types that occur in one split only, by split (NER; two or more splits).

    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> from benchcheck.io.load import load
    >>> types_only_in(load(NER_SAMPLE))
    {}
    """
    seen: dict[str, set[str]] = {}
    for split in dataset:
        if split.spans is not None:
            seen[split.name] = {str(t) for t in split.spans.get_column("type").unique().to_list()}
    if len(seen) < 2:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for name, types in seen.items():
        others = set().union(*(t for n, t in seen.items() if n != name))
        only = sorted(types - others)
        if only:
            out[name] = tuple(only)
    return out
