"""The statistics object (``benchcheck stats --json``) as a type, and its renderings.

Shared by the three sections that show dataset statistics: ``statistics`` (the NER
dataset), ``table statistics`` and ``comparison``. Statistical dataset evaluation (NLE
2024): reliability, difficulty and validity after Classical Test Theory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from benchcheck.io.typed import ABSENT, REST, AbsentType, JsonResult
from benchcheck.report.glyphs import ARROW
from benchcheck.report.html import esc, num_cell, show_text
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.report.numbers import num
from benchcheck.report.svg import hbars

__all__ = [
    "MetricSpec",
    "SplitLists",
    "SplitStats",
    "Stats",
    "html_profile",
    "html_stats",
    "markdown_stats",
]

DIMENSIONS = ("reliability", "difficulty", "validity")
DIMENSION_TEXT = {
    "reliability": "can the dataset be trusted: duplicates, annotation errors, test leakage",
    "difficulty": "does it challenge and separate models",
    "validity": "does it measure the ability the task is about",
}


@dataclass(frozen=True)
class MetricSpec(JsonResult):
    """What a metric is: its dimension, which direction is better, its title and definition."""

    dimension: str
    better: Literal["higher", "lower"]
    title: str
    definition: str

    def tip(self, name: str) -> str:
        """Return the metric's tooltip: title, definition, which direction is better."""
        return f"{self.title} — {self.definition} ({ARROW[self.better]} {self.better} is better)"

    @property
    def arrow(self) -> str:
        """↑ or ↓."""
        return ARROW[self.better]


@dataclass(frozen=True)
class LengthStats(JsonResult):
    """Lengths of one text column in words."""

    min: float
    mean: float | None
    median: float | None
    p95: float | None
    max: float


@dataclass(frozen=True)
class SplitStats(JsonResult):
    """One split: its source and counts, then every split-level metric by name."""

    source: str
    n_instances: int
    scheme: str | None | AbsentType = ABSENT
    tag_repairs: int | AbsentType = ABSENT
    n_tokens: int | AbsentType = ABSENT
    n_entities: int | AbsentType = ABSENT
    #: NER: records of the file holding no token, so no instance (present when any were)
    empty_records: int | AbsentType = ABSENT
    reading: dict[str, Any] | AbsentType = ABSENT
    labels: dict[str, float] | AbsentType = ABSENT
    length: dict[str, LengthStats] | AbsentType = ABSENT
    values: Annotated[dict[str, float | None], REST] = field(default_factory=dict)

    def count(self, name: str) -> int | None:
        """Return a count of the split (``n_instances``, ``n_tokens``, ...), or ``None``."""
        value = getattr(self, name, ABSENT)
        return None if value is ABSENT else value


@dataclass(frozen=True)
class SplitLists(JsonResult):
    """A file split by lists of document ids (``--split-by-list``) and what no list names."""

    lists: dict[str, str]
    unassigned_documents: int


@dataclass(frozen=True)
class Stats(JsonResult):
    """The statistics of one dataset (``benchcheck stats --json``)."""

    task: str
    dataset: str | None
    dimensions: dict[str, MetricSpec]
    metrics: dict[str, float | None]
    splits: dict[str, SplitStats]
    model_scores: dict[str, float] | AbsentType = ABSENT
    types_only_in: dict[str, tuple[str, ...]] | AbsentType = ABSENT
    type_map: dict[str, Any] | AbsentType = ABSENT
    skipped_splits: tuple[str, ...] | AbsentType = ABSENT
    split_lists: SplitLists | AbsentType = ABSENT
    notes: tuple[str, ...] = ()
    buckets: dict[str, dict[str, Any]] | AbsentType = ABSENT
    near_duplicates: dict[str, Any] | AbsentType = ABSENT
    semantic_duplicates: dict[str, Any] | AbsentType = ABSENT

    def shown(self) -> list[tuple[str, MetricSpec]]:
        """Return the metrics with a value, in dimension order."""
        return [(k, spec) for k, spec in self.dimensions.items() if k in self.metrics]


# ----------------------------------------------------------------------------- HTML


def html_profile(stats: Stats, *, prefix: str = "") -> str:
    """Draw the paper's per-dataset chart: one bar panel per dimension."""
    figs = []
    for dim in DIMENSIONS:
        items = [
            (
                f"{spec.title} {spec.arrow}",
                stats.metrics[key],
                spec.tip(key) + f": {num(stats.metrics[key], 4)}",
            )
            for key, spec in stats.shown()
            if spec.dimension == dim
        ]
        if not items:
            continue
        svg = hbars(
            items,
            label=f"{prefix}{dim} profile",
            cls=f"s{DIMENSIONS.index(dim)}",
            width=330,
            label_width=182,
        )
        figs.append(
            f'<figure class="panel"><h3>{esc(dim.capitalize())}</h3>{svg}<figcaption>'
            f"{esc(DIMENSION_TEXT[dim])}.</figcaption></figure>"
        )
    return (
        f'<div class="charts">{"".join(figs)}</div><p class="sub">Profile: each metric\'s '
        "value for the whole dataset (split-level metrics averaged over the splits, as the "
        "paper reports them); ↑/↓: which direction is better. Bars share one scale per panel "
        "(0 to the larger of 1 and the panel's largest value).</p>"
    )


def _metric_table(stats: Stats, table_id: str) -> str:
    head = "".join(f'<th class="n">{esc(s)}</th>' for s in stats.splits)
    rows = []
    for key, spec in stats.shown():
        tip = spec.tip(key)
        cells = "".join(
            num_cell(split.values[key], f"{tip} — split {name}")
            if key in split.values
            else "<td></td>"
            for name, split in stats.splits.items()
        )
        rows.append(
            f"<tr><td>{esc(spec.dimension)}</td>"
            f'<td><abbr title="{esc(tip)}">{esc(spec.title)}</abbr> '
            f'<code class="muted">{esc(key)}</code></td>'
            f'<td class="arrow" title="{esc(spec.better)} is better">{spec.arrow}</td>'
            f"{num_cell(stats.metrics[key], tip, 4)}{cells}</tr>"
        )
    for extra in ("n_instances", "n_tokens", "n_entities", "tag_repairs", "empty_records"):
        counts = [s.count(extra) for s in stats.splits.values()]
        if any(c is not None for c in counts):
            cells = "".join(num_cell(c, extra) for c in counts)
            rows.append(f"<tr><td></td><td>{esc(extra)}</td><td></td><td></td>{cells}</tr>")
    return (
        f'<div class="tablewrap"><table id="{esc(table_id)}" class="sortable"><thead><tr>'
        f'<th>dimension</th><th>metric</th><th>better</th><th class="n">dataset</th>{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def html_stats(stats: Stats, anchor: str) -> str:
    """Render the dataset's splits, profile chart, metric table and the models' scores."""
    parts = [
        f"<p>Dataset <b>{show_text(stats.dataset)}</b> (task {esc(stats.task)}), splits: "
        + ", ".join(
            f"{esc(name)} ({esc(num(s.n_instances))} instances, <code>{show_text(s.source)}</code>)"
            for name, s in stats.splits.items()
        )
        + ". Statistical dataset evaluation (NLE 2024): reliability, difficulty and validity, "
        "after Classical Test Theory. Hover a number for its definition.</p>",
        html_profile(stats),
        _metric_table(stats, f"{anchor}-table"),
    ]
    if stats.model_scores is not ABSENT and stats.model_scores:
        rows = "".join(
            f"<tr><td>{show_text(k)}</td>{num_cell(v, 'model score', 4)}</tr>"
            for k, v in stats.model_scores.items()
        )
        parts.append(
            "<h3>Model scores behind Model Differentiation</h3><table><thead><tr><th>model</th>"
            f'<th class="n">score</th></tr></thead><tbody>{rows}</tbody></table>'
        )
    return "".join(parts)


# ----------------------------------------------------------------------------- Markdown


def markdown_stats(stats: Stats, title: str) -> list[str]:
    """Render the heading, the splits and the metric table (value, each split, definition)."""
    out = [
        f"## {title}\n",
        f"Dataset **{md_text(stats.dataset)}** (task {md_text(stats.task)}); "
        + ", ".join(
            f"{md_text(n)}: {md_num(s.n_instances)} instances" for n, s in stats.splits.items()
        )
        + ".\n",
    ]
    rows = [
        [
            md_text(spec.dimension),
            f"{md_text(spec.title)} (`{key}`)",
            spec.arrow,
            md_num(stats.metrics[key]),
            *[md_num(s.values[key]) if key in s.values else "" for s in stats.splits.values()],
            md_text(spec.definition),
        ]
        for key, spec in stats.shown()
    ]
    head = ["dimension", "metric", "better", "dataset", *[md_text(s) for s in stats.splits]]
    out.append(md_table([*head, "definition"], rows, right=range(3, 4 + len(stats.splits))))
    if stats.model_scores is not ABSENT and stats.model_scores:
        scores = [[md_text(k), md_num(v)] for k, v in stats.model_scores.items()]
        out.append(md_table(["model", "score"], scores, right=[1]))
    return out
