"""Run every registered metric that applies to a dataset: the ``stats`` result.

The JSON form (:meth:`StatsResult.to_json`) is the contract: split-level metrics under
``splits.<name>`` and their mean over the splits present under ``metrics``; cross-split
metrics under ``metrics``; ``dimensions`` says which dimension each metric belongs to and
whether higher is better.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchcheck.data.model import Dataset
from benchcheck.metrics.registry import DIMENSIONS, specs_for


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
        out["notes"] = list(self.notes)
        return out


def dimensions(task: str) -> dict[str, dict[str, str]]:
    """Metric → {dimension, better, title, definition}, in dimension order."""
    specs = sorted(specs_for(task), key=lambda s: DIMENSIONS.index(s.dimension))
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


def compute_stats(
    dataset: Dataset,
    *,
    scores: Mapping[str, float] | None = None,
) -> StatsResult:
    """Compute every metric registered for the dataset's task.

    ``scores`` (model name → score) adds Model Differentiation (Eq. 7).
    """
    split_specs = specs_for(dataset.task, "split")
    per_split: dict[str, dict[str, Any]] = {}
    for split in dataset:
        row: dict[str, Any] = {"source": display_source(split.source), "n_instances": split.n}
        if dataset.task == "ner":
            row["scheme"] = split.scheme
            row["tag_repairs"] = split.tag_repairs
            row["n_tokens"] = int(split.table.get_column("n_tokens").sum())
            row["n_entities"] = split.spans.height if split.spans is not None else 0
            if split.reading is not None:
                row["reading"] = split.reading.to_json()
        else:
            from benchcheck.metrics.text import label_shares, length_stats

            row["labels"] = label_shares(split)
            row["length"] = length_stats(split)
        for spec in split_specs:
            row[spec.name] = spec.function(split)
        per_split[split.name] = row
    metrics: dict[str, float | None] = {}
    notes: list[str] = []
    for spec in split_specs:
        values = [r[spec.name] for r in per_split.values() if r[spec.name] is not None]
        metrics[spec.name] = float(np.mean(values)) if values else None
    for spec in specs_for(dataset.task, "cross"):
        metrics[spec.name] = spec.function(dataset)
        if metrics[spec.name] is None:
            notes.append(f"{spec.name}: not defined here (needs {_needs(spec.name)})")
    model_scores = dict(scores or {})
    if model_scores:
        from benchcheck.metrics.difficulty import model_differentiation

        metrics["model_differentiation"] = model_differentiation(list(model_scores.values()))
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
            seen[split.name] = set(split.spans.get_column("type").cast(str).unique().to_list())
    if len(seen) < 2:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for name, types in seen.items():
        others = set().union(*(t for n, t in seen.items() if n != name))
        only = sorted(types - others)
        if only:
            out[name] = tuple(only)
    return out


def _needs(name: str) -> str:
    if name.startswith("unseen"):
        return "a train and a test split, and test entities"
    return "a test split and a train or dev split"
