r"""The typer application and the consoles every command module shares.

Both consoles show data, never run it: control characters that reach them from the data
(an ESC that would start a colour, an OSC that retitles the terminal, a CSI that moves the
cursor) are printed as visible ``\x1b`` escapes (:class:`PlainText`), while rich's own
styling is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import typer
from rich.console import Console, ConsoleOptions, RenderHook
from rich.segment import Segment

from benchcheck.report.glyphs import shown_as_codepoint

__all__ = ["PlainText", "app", "console", "console_err", "visible"]

#: C0 controls but tab and newline, DEL, and C1 controls (8-bit CSI and OSC among them).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: what may need a mark: the controls above, and any character outside ASCII
_SUSPECT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|[^\x00-\x7f]")


def _mark(m: re.Match[str]) -> str:
    ch = m.group()
    if _CONTROL.match(ch):
        return f"\\x{ord(ch):02x}"
    return f"U+{ord(ch):04X}" if shown_as_codepoint(ch) else ch


def visible(text: str) -> str:
    r"""Show each control character of ``text`` as its escape (``\x1b``), so none acts.

    Other characters the report marks (:func:`benchcheck.report.glyphs.shown_as_codepoint`:
    bidirectional overrides, zero-width and other invisible ones) show as ``U+XXXX``, as
    in the report, so that U+202E cannot reverse what the terminal shows after it.

    >>> visible("ok\x1b[31m red \x9b2J")
    'ok\\x1b[31m red \\x9b2J'
    >>> visible("abc\u202edef \u00e9\u4e2d") == "abcU+202Edef \u00e9\u4e2d"
    True
    """
    return _SUSPECT.sub(_mark, text)


class _Visible:
    """A renderable drawn as ``inner`` is, with control characters in its text made visible."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        for seg in console.render(self.inner, options):
            if seg.control or not _SUSPECT.search(seg.text):
                yield seg
            else:
                yield Segment(visible(seg.text), seg.style)


class PlainText(RenderHook):
    """The render hook of both consoles: every printed renderable goes through :func:`visible`."""

    def process_renderables(self, renderables: list[Any]) -> list[Any]:
        """Wrap each renderable (rich's control renderables pass as they are)."""
        return [_Visible(r) for r in renderables]


def _console(**kw: Any) -> Console:
    made = Console(**kw)
    made.push_render_hook(PlainText())
    return made


app = typer.Typer(
    name="benchcheck",
    help="Audit NLP datasets and benchmarks before you trust them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = _console()
console_err = _console(stderr=True)
