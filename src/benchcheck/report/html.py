"""The self-contained HTML page and the pieces every section's HTML is built from.

One file: CSS, the small sorting/filtering script and every chart (inline SVG generated
here) are inside it; it loads nothing from the network and opens from disk. A Content
Security Policy forbids every source except inline styles, the one inline script (pinned by
its sha256) and ``data:`` images. Dataset text is untrusted: it is HTML-escaped everywhere,
invisible and direction-changing characters are shown as visible ``U+XXXX`` marks, and the
script never builds HTML from data (it only reorders and hides rows).

Each section of the audit (:mod:`benchcheck.runs.audit.sections`) renders its body with
these functions; :func:`render_page` puts the bodies on one page. The output is a pure
function of its input: the same parts give the same bytes.

>>> page = render_page("t", "1.0", [("notes", "Notes", show_text("<b>x</b>"))])
>>> "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
True
"""

from __future__ import annotations

import base64
import hashlib
import unicodedata
from collections.abc import Sequence
from importlib import resources

from benchcheck.report.glossary import html_footer, link_terms
from benchcheck.report.glyphs import shown_as_codepoint
from benchcheck.report.numbers import num, thousands
from benchcheck.report.svg import esc

__all__ = [
    "card",
    "cards",
    "esc",
    "figure",
    "long_text",
    "num_cell",
    "render_page",
    "show_text",
]

#: Characters of a long text shown in its cell; more behind an expander.
PREVIEW_CHARS = 500
#: Characters of a text the page holds at most (preview and expander); the files hold all.
MAX_TEXT_CHARS = 10_000


def _asset(name: str) -> str:
    return (resources.files("benchcheck.report") / "assets" / name).read_text(encoding="utf-8")


def _script_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _csp(script: str) -> str:
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src '{_script_hash(script)}'; img-src data:; base-uri 'none'; "
        "form-action 'none'"
    )


def show_text(text: object) -> str:
    r"""Escape untrusted text and make invisible/format characters visible.

    Control characters (other than newline and tab), bidirectional overrides, zero-width
    characters and other format characters become a visible ``U+XXXX`` mark; the whole is
    wrapped in ``<bdi>`` so right-to-left text cannot reorder the page around it.

    >>> show_text("a<b>\u202e")
    '<bdi>a&lt;b&gt;<span class="cp" title="RIGHT-TO-LEFT OVERRIDE">U+202E</span></bdi>'
    """
    if text is None:
        return '<span class="muted">—</span>'
    value = str(text)
    # Every marked character is unprintable (str.isprintable is False for categories C*
    # and Z* but the space): a printable text is escaped whole, without the loop below.
    if value.replace("\n", "").replace("\t", "").isprintable():
        return "<bdi>" + esc(value) + "</bdi>"
    out: list[str] = []
    for ch in value:
        if shown_as_codepoint(ch):
            name = unicodedata.name(ch, "control character")
            out.append(f'<span class="cp" title="{esc(name)}">U+{ord(ch):04X}</span>')
        else:
            out.append(esc(ch))
    return "<bdi>" + "".join(out) + "</bdi>"


def long_text(text: object, *, preview: int = PREVIEW_CHARS, limit: int = MAX_TEXT_CHARS) -> str:
    """Show a long untrusted text as a preview and an expander (``<details>``), capped.

    Up to ``preview`` characters (and a text at most a fifth longer) are shown whole; a
    longer one shows its first ``preview`` characters, then a closed ``<details>`` holding
    the rest up to ``limit`` characters in all; past ``limit`` a note says how many
    characters are left out (the flagged-example files hold every text whole). Each part
    goes through :func:`show_text`. A page of 40 pairs of 100,000 characters holds 800,000
    characters, not 8 million.

    >>> long_text("short")
    '<bdi>short</bdi>'
    >>> html = long_text("x" * 30, preview=10, limit=20)
    >>> "<details><summary>show more" in html and "10 more characters" in html
    True
    """
    if text is None:
        return show_text(None)
    value = str(text)
    if len(value) <= preview + preview // 5:
        return show_text(value)
    head, rest = value[:preview], value[preview:limit]
    left = len(value) - len(head) - len(rest)
    more = thousands(len(value) - preview)
    note = (
        f'<span class="muted"> … {thousands(left)} more characters (the flagged-example files '
        "hold the whole text)</span>"
        if left > 0
        else ""
    )
    return (
        f"{show_text(head)}<details><summary>show more ({more} characters)</summary>"
        f"{show_text(rest)}{note}</details>"
    )


def num_cell(value: object, tip: str, digits: int = 3) -> str:
    """Render a right-aligned cell showing :func:`num` of ``value``, sortable by it."""
    sort = "" if value is None else f' data-sort="{esc(value)}"'
    return f'<td class="n" title="{esc(tip)}"{sort}>{esc(num(value, digits))}</td>'


def card(key: str, value: object, tip: str, digits: int = 3) -> str:
    """Render a headline number: its name above :func:`num` of the value."""
    return (
        f'<div class="card" title="{esc(tip)}"><div class="k">{esc(key)}</div>'
        f'<div class="v">{esc(num(value, digits))}</div></div>'
    )


def cards(items: Sequence[str]) -> str:
    """Render a row of :func:`card` blocks."""
    return f'<div class="cards">{"".join(items)}</div>'


def figure(svg: str, caption: str) -> str:
    """Render a chart with its caption."""
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


# --------------------------------------------------------------------------- page


def render_page(title: str, schema_version: str, parts: Sequence[tuple[str, str, str]]) -> str:
    """One self-contained page: a heading, the contents, each ``(anchor, title, body)`` part.

    Deterministic: the same parts give the same bytes. ``body`` is HTML the caller built
    with this module's functions (every untrusted text through :func:`show_text`). The
    footer is the glossary of the words the page uses, each word's first use linked to its
    entry (:func:`benchcheck.report.glossary.link_terms`; the data's own text is no use).
    """
    script = _asset("report.js")
    sections = [
        f'<section id="{esc(anchor)}"><h2>{esc(heading)}</h2>{body}</section>'
        for anchor, heading, body in parts
    ]
    toc = "".join(f'<li><a href="#{esc(a)}">{esc(t)}</a></li>' for a, t, _ in parts)
    body = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(_csp(script))}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{esc(title)}</title>\n"
        f"<style>\n{_asset('report.css')}</style>\n"
        "</head><body>\n"
        f"<header><h1>{esc(title)}</h1>"
        f'<p class="sub">Rendered from results.json (schema '
        f"{esc(schema_version)}). Every number has a tooltip with its "
        "definition; ↑ higher is better, ↓ lower is better; an underlined word is explained "
        "in the glossary at the foot of the page.</p></header>\n"
        f'<nav class="toc" aria-label="contents"><b>Contents</b><ol>{toc}</ol></nav>\n'
        + "\n".join(sections)
    )
    body, used = link_terms(body)
    return (
        body + f"\n<footer>{html_footer(used)}<p>benchcheck: statistical dataset evaluation, "
        "label-error detection, diagnostic evaluation. This file is self-contained and "
        "loads nothing from the network.</p></footer>\n"
        f"<script>{script}</script>\n</body></html>\n"
    )
