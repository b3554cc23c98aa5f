"""Terminal tables never cut a word with "…": ids, model and group names fold instead."""

from __future__ import annotations

import re

from rich.console import Console, Group
from rich.table import Table

from benchcheck.cli._common import uncut
from benchcheck.report.terminal.labels import ByWidth

NAME = "meta_llama-3.2-90b-vision-instruct-turbo"


def _table() -> Table:
    table = Table()
    table.add_column("model")
    table.add_column("accuracy", justify="right")
    table.add_row(NAME, "75.0%")
    return table


def _render(renderable: object, width: int = 30) -> str:
    console = Console(width=width, color_system=None)
    with console.capture() as cap:
        console.print(renderable)
    return cap.get()


def _cells(out: str) -> str:
    """The first column's characters, line after line (the folded name joined again)."""
    return "".join(re.findall(r"^│ (\S+)", out, flags=re.M))


def test_rich_cuts_a_long_name_and_uncut_folds_it() -> None:
    assert "…" in _render(_table())  # what rich does by default at 30 columns
    out = _render(uncut(_table()))
    assert "…" not in out and _cells(out) == NAME


def test_tables_inside_groups_and_width_choices_are_uncut_too() -> None:
    nested = Group("title", ByWidth(_table(), _table(), at=100))
    out = _render(uncut(nested))
    assert "…" not in out and _cells(out) == NAME
