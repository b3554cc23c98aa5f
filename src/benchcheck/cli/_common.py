"""Helpers every command module shares: JSON output, options, parsing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from benchcheck.cli._app import console
from benchcheck.errors import UsageError
from benchcheck.io.output import atomic_write
from benchcheck.report.canonical import dumps

JsonOpt = Annotated[
    str | None, typer.Option("--json", help="Write the canonical JSON here ('-' for stdout).")
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Overwrite outputs that exist (never an input).")
]


def write_json(payload: dict[str, Any], path: str | Path | None) -> None:
    """Write canonical JSON to ``path`` (``-`` is standard output); no-op when ``path`` is None.

    The file is written atomically; claim it first with :class:`benchcheck.io.output.Outputs`.
    """
    if path is None:
        return
    text = dumps(payload)
    if str(path) == "-":
        console.out(text, end="", highlight=False)
        return
    atomic_write(Path(path), text)


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
