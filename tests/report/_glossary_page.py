"""The report page as a reader sees it: its visible words, its glossary links and footer."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from benchcheck.report import glossary


class _Page(HTMLParser):
    """The page's visible text outside the footer, its term links and its footer's ids."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []
        self.links: list[tuple[str, str]] = []  # (href, word)
        self.ids: set[str] = set()
        self.footer_terms: list[str] = []
        self._href: str | None = None
        self._dt = False

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("class") == "term":
            self._href = a["href"]
        self._dt = tag == "dt" and "footer" in self.stack
        if tag not in ("meta", "br", "img"):
            self.stack.append(tag)

    def handle_endtag(self, tag):  # type: ignore[no-untyped-def]
        if tag in self.stack:
            del self.stack[len(self.stack) - 1 - self.stack[::-1].index(tag) :]

    def handle_data(self, data):  # type: ignore[no-untyped-def]
        if self._dt:
            self.footer_terms.append(data)
            self._dt = False
        if self._href is not None:
            self.links.append((self._href, data))
            self._href = None
        hidden = {"head", "script", "style", "title", "footer", "bdi"}
        if not hidden.intersection(self.stack):
            self.text.append(data)


def read_page(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    return parser


def used_words(parser: _Page) -> set[str]:
    """The entries whose word is in one of the page's text nodes (read independently)."""
    return {
        e.term for e in glossary.ENTRIES if any(re.search(e.pattern, node) for node in parser.text)
    }
