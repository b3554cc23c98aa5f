"""Terminal tables rendered from canonical JSON (never from live objects)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

ARROW = {"higher": "↑", "lower": "↓"}


def fmt(value: Any) -> str:
    """Format a metric value for a table cell."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def stats_table(result: Mapping[str, Any], *, title: str | None = None) -> Table:
    """One row per metric, grouped by dimension; a column for the dataset value and each split."""
    splits = list(result.get("splits", {}))
    table = Table(
        title=title or f"{result.get('dataset', 'dataset')} ({result.get('task')})",
        title_justify="left",
    )
    table.add_column("dimension", style="bold")
    table.add_column(
        "metric", no_wrap=True, min_width=max(map(len, result["dimensions"]), default=10)
    )
    table.add_column("", justify="center")
    table.add_column("dataset", justify="right", style="bold")
    for name in splits:
        table.add_column(name, justify="right")
    current = None
    for key, spec in result["dimensions"].items():
        if key not in result["metrics"]:
            continue
        dim = spec["dimension"]
        if dim != current and current is not None:
            table.add_section()
        label = dim if dim != current else ""
        current = dim
        cells = [
            fmt(result["splits"][s].get(key)) if key in result["splits"][s] else "" for s in splits
        ]
        table.add_row(label, key, ARROW[spec["better"]], fmt(result["metrics"][key]), *cells)
    table.add_section()
    table.add_row(
        "", "n_instances", "", "", *[fmt(result["splits"][s]["n_instances"]) for s in splits]
    )
    if result.get("task") == "ner":
        table.add_row(
            "",
            "tag_repairs",
            "",
            "",
            *[fmt(result["splits"][s].get("tag_repairs")) for s in splits],
        )
    return table


def compare_table(results: Mapping[str, Mapping[str, Any]]) -> Table:
    """Several datasets side by side: one row per metric, one column per dataset."""
    names = list(results)
    table = Table(title="comparison", title_justify="left")
    table.add_column("dimension", style="bold")
    table.add_column("metric", no_wrap=True)
    table.add_column("", justify="center")
    for name in names:
        table.add_column(name, justify="right")
    first = next(iter(results.values()))
    current = None
    for key, spec in first["dimensions"].items():
        if not any(key in r["metrics"] for r in results.values()):
            continue
        dim = spec["dimension"]
        if dim != current and current is not None:
            table.add_section()
        table.add_row(
            dim if dim != current else "",
            key,
            ARROW[spec["better"]],
            *[fmt(results[n]["metrics"].get(key)) for n in names],
        )
        current = dim
    return table
