"""Section ``comparison``: several NER datasets side by side, as the paper's comparison table.

Key in ``results.json``: ``comparison`` (``datasets``: each dataset's statistics by name, the
audited dataset first).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchcheck.io.typed import JsonResult
from benchcheck.report.html import esc, num_cell, show_text
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section
from benchcheck.runs.audit.sections._stats import Stats, html_profile

__all__ = ["Comparison", "ComparisonResult", "Datasets"]


@dataclass(frozen=True)
class Datasets(JsonResult):
    """The statistics of each dataset by name."""

    datasets: dict[str, Stats]

    def rows(self) -> list[tuple[str, Any]]:
        """Return the metrics some dataset has, in the first dataset's dimension order."""
        first = next(iter(self.datasets.values()))
        return [
            (key, spec)
            for key, spec in first.dimensions.items()
            if any(key in d.metrics for d in self.datasets.values())
        ]


@dataclass(frozen=True)
class ComparisonResult(JsonResult):
    """The ``comparison`` section."""

    comparison: Datasets


class Comparison(Section[ComparisonResult]):
    """The audited NER dataset beside the ``compare`` datasets, metric by metric."""

    name = "comparison"
    title = "Datasets compared"
    anchor = "comparison"
    version = "1.2"  # 1.1: split_lists (--split-by-list); 1.2: a split's empty_records
    result = ComparisonResult
    needs = ("statistics",)
    card = Card(
        measures="Every statistic of several datasets of one task, side by side.",
        reading="Compare a row across datasets; each metric says which direction is better.",
        references=("Statistical Dataset Evaluation (NLE 2024), Table 5",),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without datasets to compare."""
        return (
            None if inputs.ner is not None and inputs.ner.compare else "no --compare datasets given"
        )

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[ComparisonResult]:
        """:func:`benchcheck.runs.stats.run_compare` on the others; the audited dataset first."""
        from benchcheck.io.canonical import jsonable
        from benchcheck.runs.audit.sections.statistics import ner_source
        from benchcheck.runs.stats import run_compare

        ner = inputs.ner
        assert ner is not None
        datasets: dict[str, Any] = {}
        main = needs.get("statistics")
        if main is not None:
            stats = main.result.stats
            datasets[stats.dataset or "dataset"] = stats.to_json()
        others = run_compare({name: ner_source(ner, path) for name, path in ner.compare.items()})
        datasets.update(others.to_json()["datasets"])
        result = ComparisonResult.from_json(jsonable({"comparison": {"datasets": datasets}}))
        return Ran(result, f"{len(datasets)} datasets")

    def html(self, result: ComparisonResult) -> str:
        """Render the comparison table and each dataset's profile."""
        datasets = result.comparison.datasets
        head = "".join(f'<th class="n">{show_text(n)}</th>' for n in datasets)
        rows = []
        for key, spec in result.comparison.rows():
            tip = spec.tip(key)
            cells = "".join(
                num_cell(d.metrics.get(key), f"{tip} — {n}", 4) for n, d in datasets.items()
            )
            rows.append(
                f"<tr><td>{esc(spec.dimension)}</td>"
                f'<td><abbr title="{esc(tip)}">{esc(spec.title)}</abbr></td>'
                f'<td class="arrow">{spec.arrow}</td>{cells}</tr>'
            )
        body = [
            "<p>Several datasets side by side, as the paper's comparison table.</p>",
            '<div class="tablewrap"><table id="comparison-table" class="sortable"><thead><tr>'
            f"<th>dimension</th><th>metric</th><th>better</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>",
        ]
        for name, stats in datasets.items():
            body.append(
                f"<h3>Profile: {show_text(name)}</h3>{html_profile(stats, prefix=f'{name} ')}"
            )
        return "".join(body)

    def markdown(self, result: ComparisonResult) -> list[str]:
        """Render the comparison table."""
        datasets = result.comparison.datasets
        return [
            f"## {self.title}\n",
            md_table(
                ["metric", "better", *[md_text(n) for n in datasets]],
                [
                    [
                        md_text(spec.title),
                        spec.arrow,
                        *[md_num(d.metrics.get(k)) for d in datasets.values()],
                    ]
                    for k, spec in result.comparison.rows()
                ],
                right=range(2, 2 + len(datasets)),
            ),
        ]
