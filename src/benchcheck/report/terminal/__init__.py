"""Terminal tables rendered from canonical JSON (never from live objects)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.markup import escape
from rich.table import Table

from benchcheck.report.glyphs import ARROW
from benchcheck.report.numbers import num


def fmt(value: Any) -> str:
    """Format a value for a table cell: :func:`~benchcheck.report.numbers.num`, 4 decimals."""
    return num(value, 4)


def _grouped(dimensions: Mapping[str, Mapping[str, str]], present) -> list[tuple[str, list[str]]]:  # type: ignore[no-untyped-def]
    """Metrics that ``present(key)`` accepts, grouped by dimension in the given order."""
    groups: dict[str, list[str]] = {}
    for key, spec in dimensions.items():
        if present(key):
            groups.setdefault(spec["dimension"], []).append(key)
    return list(groups.items())


def stats_table(result: Mapping[str, Any], *, title: str | None = None) -> Table:
    """One row per metric under a heading row per dimension; the dataset value and each split.

    Dimensions head their group of rows rather than fill a column of their own, so that the
    table fits 80 columns without truncating a name.
    """
    splits = list(result["splits"])
    dims = result["dimensions"]
    # Dataset and split names come from the user: escaped, so "[...]" is not read as markup.
    table = Table(
        title=title or escape(f"{result['dataset']} ({result['task']})"),
        title_justify="left",
    )
    table.add_column("metric", no_wrap=True, min_width=2 + max(map(len, dims), default=10))
    table.add_column("", justify="center", no_wrap=True)
    table.add_column("dataset", justify="right", style="bold", no_wrap=True)
    for name in splits:
        table.add_column(escape(name), justify="right", no_wrap=True)
    for dim, keys in _grouped(dims, lambda k: k in result["metrics"]):
        table.add_row(f"[bold]{dim}[/]")
        for key in keys:
            cells = [
                fmt(result["splits"][s][key]) if key in result["splits"][s] else "" for s in splits
            ]
            arrow = ARROW[dims[key]["better"]]
            table.add_row(f"  {key}", arrow, fmt(result["metrics"][key]), *cells)
        table.add_section()
    table.add_row("n_instances", "", "", *[fmt(result["splits"][s]["n_instances"]) for s in splits])
    if result["task"] == "ner":
        repairs = [fmt(result["splits"][s]["tag_repairs"]) for s in splits]
        table.add_row("tag_repairs", "", "", *repairs)
    return table


def compare_table(results: Mapping[str, Mapping[str, Any]]) -> Table:
    """Several datasets side by side: one row per metric under its dimension's heading row."""
    names = list(results)
    table = Table(title="comparison", title_justify="left")
    table.add_column("metric", no_wrap=True)
    table.add_column("", justify="center", no_wrap=True)
    for name in names:
        table.add_column(escape(name), justify="right")
    dims = next(iter(results.values()))["dimensions"]
    groups = _grouped(dims, lambda k: any(k in r["metrics"] for r in results.values()))
    for k, (dim, keys) in enumerate(groups):
        if k:
            table.add_section()
        table.add_row(f"[bold]{dim}[/]")
        for key in keys:
            values = [fmt(results[n]["metrics"].get(key)) for n in names]
            table.add_row(f"  {key}", ARROW[dims[key]["better"]], *values)
    return table


def stats_renderables(result: Mapping[str, Any]) -> list[Any]:
    """Render ``benchcheck stats``: the metric table, near-duplicate lines, notes."""
    out: list[Any] = [stats_table(result)]
    for block in ("near_duplicates", "semantic_duplicates"):
        if block in result:
            values = result[block]["metrics"]
            out.append(
                escape(
                    block.replace("_", "-")
                    + ": "
                    + ", ".join(f"{k} {num(v, 4)}" for k, v in values.items())
                )
            )
    if "reviewed_accuracy" in result:
        out.append(reviewed_table(result["reviewed_accuracy"]))
    out += [f"[dim]note:[/] {escape(note)}" for note in result["notes"]]
    return out


def reviewed_table(block: Mapping[str, Any]) -> Table:
    """Render ``stats --reviewed``: Eq. 2 accuracy per split from a span review."""
    audit = block["sample"] == "audit"
    title = (
        "Accuracy (Eq. 2) from the audit sample ↑"
        if audit
        else "Accuracy (Eq. 2) from flagged sentences only: a lower bound ↑"
    )
    table = Table(title=title, title_justify="left")
    for col in ("split", "n reviewed", "n changed", "accuracy", "95% CI (Clopper-Pearson)"):
        table.add_column(col, justify="left" if col == "split" else "right")
    for name, s in block["splits"].items():
        ci = s["ci"]
        table.add_row(
            escape(name),
            str(s["n_reviewed"]),
            str(s["n_changed"]),
            fmt(s["accuracy"]),
            "—" if ci is None else f"[{fmt(ci[0])}, {fmt(ci[1])}]",
        )
    return table


def accuracy_table(payload: Mapping[str, Any]) -> Table:
    """Render ``benchcheck accuracy``: accuracy and mean pairwise kappa per split, and mean."""
    table = Table(title="Accuracy (Eq. 2) ↑", title_justify="left")
    cols = ("split", "n", "accuracy", "mean pairwise kappa", "Krippendorff's α [95% CI]")
    for col in (*cols, "annotators"):
        table.add_column(col, justify="left" if col in ("split", "annotators") else "right")
    for name, s in payload["splits"].items():
        table.add_row(
            escape(name),
            str(s["n"]),
            fmt(s["accuracy"]),
            fmt(s["kappa_mean"]),
            alpha_cell(s.get("krippendorff_alpha"), s.get("krippendorff_alpha_ci")),
            escape(", ".join(s["annotators"])),
        )
    table.add_section()
    m = payload["metrics"]
    alpha = alpha_cell(m.get("krippendorff_alpha"), m.get("krippendorff_alpha_ci"))
    table.add_row("mean (α: all)", "", fmt(m["accuracy"]), fmt(m["kappa_mean"]), alpha, "")
    return table


def alpha_cell(alpha: float | None, ci: Sequence[float] | None) -> str:
    """Krippendorff's alpha with its interval, ``—`` where undefined.

    >>> alpha_cell(0.5, [0.25, 0.75])
    '0.5000 [0.2500, 0.7500]'
    """
    if alpha is None:
        return "—"
    return fmt(alpha) + ("" if ci is None else f" [{fmt(ci[0])}, {fmt(ci[1])}]")


from benchcheck.report.terminal.labels import (  # noqa: E402 - re-exported
    default_judge_renderables,
    flag_renderables,
    key_value_table,
)

__all__ = [
    "accuracy_table",
    "compare_table",
    "default_judge_renderables",
    "flag_renderables",
    "fmt",
    "key_value_table",
    "reading_notes",
    "stats_renderables",
    "stats_table",
]


def reading_notes(result: Mapping[str, Any]) -> list[str]:
    """Return what reading noticed (warnings): entity types of one split, skipped files."""
    notes = [
        f"entity types seen only in split {name}: " + ", ".join(types)
        for name, types in (result.get("types_only_in") or {}).items()
    ]
    notes += [
        f"skipped {file}: it holds no annotation" for file in result.get("skipped_splits") or []
    ]
    for name, row in (result.get("splits") or {}).items():
        notes += [f"split {name}: {note}" for note in _document_notes(row.get("reading") or {})]
    return notes


def _document_notes(reading: Mapping[str, Any]) -> list[str]:
    """Say what a document format's reading changed, one note per policy that acted."""
    notes = []
    if reading.get("multi_type_mentions") and reading.get("multi_type") == "first":
        notes.append(
            f"{reading['multi_type_mentions']} mentions with several types kept the first "
            "(--multi-type)"
        )
    if reading.get("discontinuous_spans") and reading.get("discontinuous") in ("merge", "drop"):
        verb = "merged" if reading["discontinuous"] == "merge" else "dropped"
        notes.append(f"{reading['discontinuous_spans']} discontinuous spans {verb}")
    if reading.get("offset_mismatches"):
        notes.append(
            f"{reading['offset_mismatches']} mentions whose text differs from the text at their "
            "offsets were kept as given (--offset-check)"
        )
    kept = [r for r in reading.get("rejected") or [] if r.get("kept")]
    if kept:
        notes.append(
            f"{len(kept)} annotations a reviewer rejected are kept (listed under reading."
            "rejected; --medcat-keep correct leaves them out)"
        )
    return notes
