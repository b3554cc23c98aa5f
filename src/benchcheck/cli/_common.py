"""Helpers every command module shares: JSON output, option parsing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchcheck.cli._app import console
from benchcheck.errors import UsageError
from benchcheck.report.canonical import dumps


def write_json(payload: dict[str, Any], path: str | None) -> None:
    """Write canonical JSON to ``path`` (``-`` is standard output); no-op when ``path`` is None."""
    if path is None:
        return
    text = dumps(payload)
    if path == "-":
        console.out(text, end="", highlight=False)
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def parse_assignments(values: list[str] | None, option: str) -> dict[str, str]:
    """Parse repeated ``NAME=VALUE`` options into an ordered dict; errors name the option."""
    out: dict[str, str] = {}
    for item in values or []:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise UsageError(f"{option} expects NAME=VALUE, got {item!r}")
        if name in out:
            raise UsageError(f"{option}: name {name!r} given twice")
        out[name] = value
    return out
