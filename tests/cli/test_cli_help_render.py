"""``--help`` of every command, rendered at 80 and 120 columns: no orphan lines, nothing cut.

An orphan is a line that ends before it had to: the next line's first word would have fit
(a hand-wrapped docstring re-wrapped by the help renderer). A cut is rich's ellipsis at the
end of a cell (``--price-per-1k-toke…``). Both are read off the rendered text, outside the
panels and inside each option's help cell.
"""

from __future__ import annotations

import re

import pytest
import typer
from rich.cells import cell_len

from benchcheck.cli import app, main
from benchcheck.io.formats import FORMATS

#: Lines that start a new line of their own in a help text (not continuations).
_NAMES = "|".join(map(re.escape, FORMATS))
_OWN_LINE = re.compile(rf"^(Example:|\[default|\[required|- |\* |Formats |({_NAMES}): )")
_CUT = re.compile(r"\S…")


def _paths(command, prefix: tuple[str, ...] = ()):
    yield prefix
    if hasattr(command, "commands"):
        for name, sub in sorted(command.commands.items()):
            yield from _paths(sub, (*prefix, name))


PATHS = list(_paths(typer.main.get_command(app)))


def _render(capsys, monkeypatch, path: tuple[str, ...], width: int) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.delenv("TERMINAL_WIDTH", raising=False)
    assert main([*path, "--help"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(cell_len(line) for line in lines) <= width
    return lines


def _first_word(text: str) -> str:
    return text.split()[0] if text.split() else ""


def _prose_orphans(lines: list[str], width: int) -> list[str]:
    """Lines outside panels that end though the next line's first word fits after them."""
    found = []
    for line, nxt in zip(lines, lines[1:], strict=False):
        if line[:1] in "│╭╰" or nxt[:1] in "│╭╰" or not line.strip() or not nxt.strip():
            continue
        following = nxt.strip()
        if _OWN_LINE.match(following):
            continue
        # (typer indents the help text by one column and leaves the last one free)
        if cell_len(line.rstrip()) + 1 + cell_len(_first_word(following)) <= width - 1:
            found.append(f"{line.strip()!r} / {following!r}")
    return found


def _panels(lines: list[str]) -> list[list[str]]:
    """The inner lines of each panel (between its borders)."""
    panels: list[list[str]] = []
    for line in lines:
        if line.startswith("╭"):
            panels.append([])
        elif line.startswith("│") and panels:
            panels[-1].append(line[1 : line.rindex("│")])
    return panels


def _start(text: str) -> int:
    return len(text) - len(text.lstrip())


def _cell_orphans(lines: list[str]) -> list[str]:
    """Inside a panel: a help cell's line that ends though its next line's first word fits.

    A continuation line has text only in the help column, which starts well right of the
    rows' first column; the line above it must have its help text at that same column.
    """
    found = []
    for inner in _panels(lines):
        rows = min(_start(t) for t in inner if t.strip())
        for line, nxt in zip(inner, inner[1:], strict=False):
            at = _start(nxt)
            if not nxt.strip() or at <= rows + 8 or line[at - 1 : at] != " ":
                continue
            text = line[at:].rstrip()
            following = nxt.strip()
            if not text or text[0] == " " or _OWN_LINE.match(following):
                continue
            # (the cell keeps one column of padding before the border)
            if at + cell_len(text) + 1 + cell_len(_first_word(following)) <= cell_len(nxt) - 1:
                found.append(f"{text!r} / {following!r}")
    return found


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "benchcheck")
def test_help_renders_without_orphans_or_cuts(capsys, monkeypatch, path, width):
    lines = _render(capsys, monkeypatch, path, width)
    cut = [line for line in lines if _CUT.search(line)]
    assert not cut, "cut names or values:\n" + "\n".join(cut)
    orphans = _prose_orphans(lines, width) + _cell_orphans(lines)
    assert not orphans, "orphan lines:\n" + "\n".join(orphans)


def test_the_orphan_check_finds_a_hand_wrapped_line():
    lines = [" The first line of a paragraph was", " wrapped by hand here."]
    assert _prose_orphans(lines, 80)
    assert not _prose_orphans([" Short.", " Example: benchcheck x"], 80)
    assert _CUT.search("│ --price-per-1k-toke…    <float>  Price │")


def test_audit_lists_its_options_in_panels(capsys, monkeypatch):
    lines = _render(capsys, monkeypatch, ("audit",), 120)
    titles = [line.split("─ ")[1].split(" ─")[0] for line in lines if line.startswith("╭─ ")]
    assert titles == [
        "Arguments",
        "Options",  # typer's own: --help alone
        "Inputs",
        "Reading (NER)",
        "Multiple choice",
        "Label errors",
        "Judges",
        "Contamination",
        "Gates",
        "Output",
    ]
    options = _panels(lines)[1]
    assert [line.split()[0] for line in options if line.strip()] == ["--help"]
