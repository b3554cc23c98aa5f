"""``benchcheck report``: check a ``results.json`` against its schema and render it again.

:func:`run_report` reads the file (:func:`benchcheck.io.canonical.read_results`), checks
every section against its type (the published schema, ``docs/results.schema.json``) and
renders the HTML page or the Markdown; a mismatch is one :class:`~benchcheck.errors.InputError`
naming the file, the JSON path and what was expected. Same JSON, same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.errors import InputError, UsageError

if TYPE_CHECKING:
    from benchcheck.runs.audit import Section

__all__ = ["FORMATS", "ReportRun", "check_results", "run_report"]

#: Output file suffix → rendering.
FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}


@dataclass(frozen=True)
class ReportRun:
    """A re-rendered report: the results read, the file written and its format."""

    results: dict[str, Any]
    output: str
    format: str

    def to_json(self) -> dict[str, Any]:
        """Return the results read (``benchcheck report --json`` writes them, canonical)."""
        return self.results


class _Repr:
    """A value shown by a repr already made short (an error's ``got``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def check_results(
    path: str | Path, sections: Sequence[Section[Any]] | None = None
) -> tuple[dict[str, Any], str, str]:
    """Read ``path`` and check it; return the results, the HTML page and the Markdown.

    Raises :class:`InputError` naming the file and the first JSON path whose value does
    not have its declared shape.
    """
    from benchcheck.io.canonical import read_results
    from benchcheck.io.typed import ShapeError, short_repr
    from benchcheck.runs.audit import render_results

    data = read_results(path)
    try:
        html, markdown = render_results(data, sections)
    except ShapeError as exc:
        got = None if exc.missing else _Repr(short_repr(exc.got))
        missing = ", missing" if exc.missing else ""
        raise InputError(
            f"{exc.path}: expected {exc.expected}{missing}", path=path, got=got
        ) from None
    return data, html, markdown


def run_report(
    results: str | Path,
    output: str | Path,
    *,
    sections: Sequence[Section[Any]] | None = None,
) -> ReportRun:
    """Render ``results`` (a ``results.json``) as HTML or Markdown, by ``output``'s suffix.

    The file is written atomically (:mod:`benchcheck.io.output`); claim it first.
    """
    from benchcheck.io.output import atomic_write

    out = Path(output)
    kind = FORMATS.get(out.suffix.lower())
    if kind is None:
        raise UsageError(f"{{output}} must end in .html or .md, got {output}")
    data, html, markdown = check_results(results, sections)
    atomic_write(out, html if kind == "html" else markdown)
    return ReportRun(data, str(out), kind)
