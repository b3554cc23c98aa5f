r"""The pieces every section's Markdown (``report.md``) is built from.

Tables carry the value, ↑/↓ (which direction is better) and the definition. Dataset text is
untrusted: HTML-escaped (Markdown viewers render raw HTML), table pipes escaped, newlines
and invisible characters made visible. Deterministic: same input, same bytes.

>>> print(md_table(["name", "value"], [[md_text("a|b <i>"), md_num(0.25)]], right=[1]), end="")
| name | value |
| --- | ---: |
| a\|b &lt;i&gt; | 0.2500 |
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from benchcheck.report.glyphs import shown_as_codepoint
from benchcheck.report.numbers import num

__all__ = ["md_num", "md_table", "md_text"]


def md_text(value: object, *, limit: int | None = None) -> str:
    r"""Escape text for a Markdown table cell.

    >>> md_text("x|y\n<script>\u200b")
    'x\\|y ⏎ &lt;script&gt;⟨U+200B⟩'
    """
    if value is None:
        return "—"
    out = []
    for ch in str(value):
        if ch == "\n":
            out.append(" ⏎ ")
        elif ch == "\t":
            out.append(" ")
        elif shown_as_codepoint(ch):
            out.append(f"⟨U+{ord(ch):04X}⟩")
        else:
            out.append(ch)
    text = "".join(out)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    text = html.escape(text, quote=False)
    for c in "\\|`*_[]":
        text = text.replace(c, "\\" + c)
    return text


def md_num(value: object, digits: int = 4) -> str:
    """Numbers as the HTML page shows them (:func:`num`); anything else as escaped text."""
    if value is None or isinstance(value, int | float):
        return num(value, digits)
    return md_text(value)


def md_table(head: Sequence[str], rows: Sequence[Sequence[str]], right: Iterable[int] = ()) -> str:
    """Render a Markdown table; columns in ``right`` are right-aligned (numbers)."""
    shown = set(right)
    align = ["---:" if i in shown else "---" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"
