"""Terminal summary of ``benchcheck audit``: each analysis, the judge's time, the files."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from benchcheck.report.terminal import stats_table

__all__ = ["audit_renderables", "audit_warnings"]


def audit_renderables(
    results: Mapping[str, Any], judge_seconds: float | None, written: Iterable[str | Path]
) -> list[Any]:
    """Render the statistics table, one line per analysis (ok or skipped), time and files.

    Where the flags come from the embedded default judge, its measured quality follows.
    """
    out: list[Any] = [stats_table(results["stats"])] if "stats" in results else []
    for a in results["analyses"]:
        mark = "[green]ok[/]" if a["status"] == "ok" else "[dim]skipped[/]"
        out.append(f"{mark} {a['name']}: {a['detail']}")
    note = (results.get("label_errors") or {}).get("default_judge")
    if note:  # the flags come from the embedded default judge: say how good it measured
        from benchcheck.report.terminal.labels import default_judge_renderables

        out.extend(default_judge_renderables(note))
    if judge_seconds is not None:
        out.append(
            f"[dim]judge time (model load + scoring, cached results free): {judge_seconds:.1f} s[/]"
        )
    out.append("wrote " + ", ".join(str(p) for p in written))
    return out


def audit_warnings(results: Mapping[str, Any]) -> list[str]:
    """Return the warnings of analyses skipped because something is unavailable."""
    return [
        f"{a['name']}: {a['detail']}"
        for a in results["analyses"]
        if a["status"] == "skipped" and "unavailable" in a["detail"]
    ]
