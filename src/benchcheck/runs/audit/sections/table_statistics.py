"""Section ``table statistics``: statistics of the classification or pair file.

Key in ``results.json``: ``table_stats`` (``benchcheck stats --json`` of the file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchcheck.io.typed import JsonResult
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section
from benchcheck.runs.audit.sections._stats import Stats, html_stats, markdown_stats

__all__ = ["TableStatistics", "TableStatisticsResult"]


@dataclass(frozen=True)
class TableStatisticsResult(JsonResult):
    """The ``table statistics`` section."""

    table_stats: Stats


class TableStatistics(Section[TableStatisticsResult]):
    """Statistical dataset evaluation of the labelled examples (classification or pairs)."""

    name = "table statistics"
    title = "Statistics of the labelled examples"
    anchor = "table-statistics"
    version = "1.1"  # 1.1: the statistics keep split_lists (--split-by-list)
    result = TableStatisticsResult
    card = Card(
        measures="Duplicates, label conflicts, label imbalance and text lengths of a "
        "classification or pair file.",
        reading="Each metric says which direction is better (↑/↓); a label conflict is one "
        "input carrying two labels.",
        references=("Statistical Dataset Evaluation (NLE 2024)",),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a classification or pair file."""
        return None if inputs.table is not None else "no classification or pair file given"

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[TableStatisticsResult]:
        """:func:`benchcheck.runs.stats.run_stats` on the file."""
        from benchcheck.io.canonical import jsonable
        from benchcheck.io.source import DataSource
        from benchcheck.runs.stats import run_stats

        table = inputs.table
        assert table is not None
        run = run_stats(DataSource(table.path, task=table.kind, columns=table.read_columns))
        dataset = run.dataset
        assert dataset is not None
        result = TableStatisticsResult.from_json(jsonable({"table_stats": run.to_json()}))
        n = sum(s.n for s in dataset)
        return Ran(result, f"{table.kind}, {len(dataset.split_names)} split(s), {n} examples")

    def html(self, result: TableStatisticsResult) -> str:
        """Render splits, profile and metric table."""
        return html_stats(result.table_stats, self.anchor)

    def markdown(self, result: TableStatisticsResult) -> list[str]:
        """Render the metric table."""
        return markdown_stats(result.table_stats, self.title)

    def notes(self, result: TableStatisticsResult) -> list[str]:
        """Return what is not defined for this file, and why."""
        return list(result.table_stats.notes)
