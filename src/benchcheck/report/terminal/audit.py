"""Terminal summary of ``benchcheck audit``: the sections' blocks, what ran, time, files."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape

from benchcheck.report.numbers import num

__all__ = ["audit_summary"]


def audit_summary(
    blocks: Sequence[Any],
    analyses: Iterable[tuple[str, bool, str]],
    judge_seconds: float | None,
    written: Iterable[str | Path],
) -> list[Any]:
    r"""Render the sections' blocks, one line per analysis (ok or skipped), time and files.

    >>> audit_summary([], [("diff", False, "no baseline [x]")], None, ["r/results.json"])
    ['[dim]skipped[/] diff: no baseline \\[x]', 'wrote r/results.json']
    """
    out: list[Any] = list(blocks)
    for name, ok, detail in analyses:
        mark = "[green]ok[/]" if ok else "[dim]skipped[/]"
        out.append(f"{mark} {escape(name)}: {escape(detail)}")
    if judge_seconds is not None:
        out.append(
            "[dim]judge time (model load + scoring, cached results free): "
            f"{num(judge_seconds, 1)} s[/]"
        )
    shown = [escape(str(p)) for p in written]
    if shown:
        out.append("wrote " + ", ".join(shown))
    return out
