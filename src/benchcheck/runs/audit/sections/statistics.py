"""Section ``statistics``: the NER dataset's statistics, leakage per split, entity types.

Keys in ``results.json``: ``stats`` (``benchcheck stats --json``), ``split_overlap`` (each
evaluation split against the splits before it) and ``entity_types`` (mentions per type and
split).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from benchcheck._progress import step
from benchcheck.io.typed import ABSENT, REST, AbsentType, JsonResult
from benchcheck.report.html import figure
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.report.numbers import OVERLAP_METRICS, num
from benchcheck.report.svg import grouped_hbars
from benchcheck.runs.audit._inputs import AuditInputs, NerInput
from benchcheck.runs.audit._section import Card, Progress, Ran, Section
from benchcheck.runs.audit.sections._stats import Stats, html_stats, markdown_stats

__all__ = ["EntityTypes", "OverlapRow", "SplitOverlap", "Statistics", "StatisticsResult"]


@dataclass(frozen=True)
class OverlapRow(JsonResult):
    """One evaluation split against the splits before it: each cross-split metric by name."""

    split: str
    against: tuple[str, ...]
    values: Annotated[dict[str, float | None], REST] = field(default_factory=dict)


@dataclass(frozen=True)
class SplitOverlap(JsonResult):
    """Leakage and unseen-entity ratios per evaluation split (dev: train; test: train+dev)."""

    rows: tuple[OverlapRow, ...]


@dataclass(frozen=True)
class TypeCounts(JsonResult):
    """Entity mentions of one split per type: counts, shares of the split's ``n`` mentions."""

    counts: dict[str, int]
    shares: dict[str, float]
    n: int


@dataclass(frozen=True)
class EntityTypes(JsonResult):
    """Entity types by mentions over all splits (most frequent first), and per split."""

    types: tuple[str, ...]
    splits: dict[str, TypeCounts]


@dataclass(frozen=True)
class StatisticsResult(JsonResult):
    """The ``statistics`` section: the statistics and, for NER, overlap and entity types."""

    stats: Stats
    split_overlap: SplitOverlap | AbsentType = ABSENT
    entity_types: EntityTypes | AbsentType = ABSENT


def ner_source(ner: NerInput, path: str | None = None) -> Any:
    """Return the :class:`~benchcheck.io.source.DataSource` of the dataset (or of ``path``).

    Every dataset of the audit is read with the same reading options (``ner.reading``).
    """
    from benchcheck.io.source import DataSource

    return DataSource(
        path if path is not None else ner.path,
        splits={} if path is not None else dict(ner.splits),
        scheme=ner.scheme,
        strict=ner.strict,
        ner=ner.reading,
    )


class Statistics(Section[StatisticsResult]):
    """Statistical dataset evaluation of the NER dataset (NLE 2024), per split and overall."""

    name = "statistics"
    title = "Dataset statistics"
    anchor = "statistics"
    version = "1.2"  # 1.1: split_lists (--split-by-list); 1.2: a split's empty_records
    result = StatisticsResult
    card = Card(
        measures="Reliability (duplicates, leakage), difficulty (ambiguity, unseen entities, "
        "model differentiation) and validity (entity imbalance, entity-null rate) of a NER "
        "dataset, per split and overall.",
        reading="Each metric says which direction is better (↑/↓); compare datasets of one "
        "task, not metrics with each other. Leakage is the share of test instances that also "
        "occur in train or dev.",
        references=("Statistical Dataset Evaluation (NLE 2024), Eq. 1-9",),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a NER dataset."""
        return None if inputs.ner is not None and inputs.ner.given else "no NER dataset given"

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[StatisticsResult]:
        """:func:`benchcheck.runs.stats.run_stats`, then the per-split overlap and types."""
        from benchcheck.io.canonical import jsonable
        from benchcheck.metrics.splits import entity_types, split_overlap
        from benchcheck.runs.stats import run_stats

        ner = inputs.ner
        assert ner is not None
        run = run_stats(
            ner_source(ner),
            scores=dict(ner.scores) if not ner.predictions else None,
            predictions=dict(ner.predictions),
            progress=progress,
        )
        dataset = run.dataset
        assert dataset is not None
        stats = run.to_json()
        part: dict[str, Any] = {"stats": stats}
        if dataset.task == "ner":
            step(progress, "overlap between splits and entity types")
            part["split_overlap"] = split_overlap(dataset, test_metrics=stats["metrics"])
            part["entity_types"] = entity_types(dataset)
        n = sum(s.n for s in dataset)
        detail = f"{dataset.task}, {len(dataset.split_names)} splits, {n} instances"
        return Ran(StatisticsResult.from_json(jsonable(part)), detail)

    def html(self, result: StatisticsResult) -> str:
        """Render splits, profile, metric table, leakage per split and entity-type shares."""
        stats = result.stats
        parts = [html_stats(stats, self.anchor)]
        overlap = result.split_overlap
        if overlap is not ABSENT and overlap.rows:
            keys = [k for k in OVERLAP_METRICS if any(k in r.values for r in overlap.rows)]
            groups = [f"{r.split} vs {'+'.join(r.against)}" for r in overlap.rows]
            specs = {k: stats.dimensions.get(k) for k in keys}
            series = [
                (
                    f"{spec.title} {spec.arrow}" if spec else k,
                    [r.values.get(k) for r in overlap.rows],
                )
                for k, spec in specs.items()
            ]
            tips = [
                [
                    f"{spec.tip(k) if spec else k} — {g}: {num(r.values.get(k), 4)}"
                    for g, r in zip(groups, overlap.rows, strict=True)
                ]
                for k, spec in specs.items()
            ]
            parts.append("<h3>Leakage and unseen entities per split</h3>")
            parts.append(
                figure(
                    grouped_hbars(
                        groups,
                        series,
                        tips=tips,
                        vmax=1.0,
                        label="leakage per split",
                        label_width=150,
                    ),
                    "Each evaluation split against the splits before it (test: train+dev, as "
                    "Eq. 3; dev: train). Leakage ↓ better; unseen-entity ratio ↑ better "
                    "(harder).",
                )
            )
        types = result.entity_types
        if types is not ABSENT and types.types:
            names = list(types.types)
            split_names = list(types.splits)
            tsplits = types.splits
            type_series = [(s, [tsplits[s].shares.get(t) for t in names]) for s in split_names]
            type_tips = [
                [
                    f"{t} in {s}: {tsplits[s].counts.get(t, 0)} mentions "
                    f"({num(tsplits[s].shares.get(t), 3)} of the split's mentions)"
                    for t in names
                ]
                for s in split_names
            ]
            parts.append("<h3>Entity-type distribution</h3>")
            parts.append(
                figure(
                    grouped_hbars(
                        names,
                        type_series,
                        tips=type_tips,
                        label="entity types per split",
                        label_width=110,
                    ),
                    "Share of entity mentions per type in each split; Entity Imbalance Degree "
                    "(Eq. 8, ↓ better) is the standard deviation of these shares.",
                )
            )
        return "".join(parts)

    def markdown(self, result: StatisticsResult) -> list[str]:
        """Render the metric table, leakage per split and entity-type counts."""
        out = markdown_stats(result.stats, self.title)
        overlap = result.split_overlap
        if overlap is not ABSENT and overlap.rows:
            keys = [k for k in OVERLAP_METRICS if any(k in r.values for r in overlap.rows)]
            dims = result.stats.dimensions
            out.append("### Leakage and unseen entities per split\n")
            out.append(
                md_table(
                    [
                        "split",
                        "against",
                        *[f"{k} {dims[k].arrow if k in dims else ''}" for k in keys],
                    ],
                    [
                        [
                            md_text(r.split),
                            md_text("+".join(r.against)),
                            *[md_num(r.values.get(k)) for k in keys],
                        ]
                        for r in overlap.rows
                    ],
                    right=range(2, 2 + len(keys)),
                )
            )
        types = result.entity_types
        if types is not ABSENT and types.types:
            sp = types.splits
            out.append("### Entity-type distribution (mentions)\n")
            out.append(
                md_table(
                    ["type", *[md_text(s) for s in sp]],
                    [
                        [
                            md_text(t),
                            *[
                                f"{sp[s].counts.get(t, 0)} ({md_num(sp[s].shares.get(t, 0.0), 3)})"
                                for s in sp
                            ],
                        ]
                        for t in types.types
                    ],
                    right=range(1, 1 + len(sp)),
                )
            )
        return out

    def terminal(self, result: StatisticsResult) -> list[Any]:
        """Render the metric table, as ``benchcheck stats`` prints it."""
        from benchcheck.report.terminal import stats_table

        return [stats_table(result.stats.to_json())]

    def notes(self, result: StatisticsResult) -> list[str]:
        """Return what is not defined for this dataset, and why."""
        return list(result.stats.notes)
