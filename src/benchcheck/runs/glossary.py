"""``benchcheck glossary``: the entries of the words the output and the report use.

The entries are :data:`benchcheck.report.glossary.ENTRIES` (the one source of
``docs/glossary.md`` and of the report's footer); a term asked for that has no entry is a
:class:`~benchcheck.errors.UsageError` listing the entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchcheck.errors import UsageError
from benchcheck.report.glossary import ENTRIES, Entry, find, plain

__all__ = ["GlossaryRun", "run_glossary"]


@dataclass(frozen=True)
class GlossaryRun:
    """The entries asked for (all of them when none was named), in the order asked."""

    entries: tuple[Entry, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"entries": [{"term", "meaning"}, ...]}``, the meanings without code marks."""
        return {"entries": [{"term": e.term, "meaning": plain(e.meaning)} for e in self.entries]}


def run_glossary(terms: Sequence[str] = ()) -> GlossaryRun:
    """Return the glossary entries of ``terms`` (any case), or every entry.

    >>> [e["term"] for e in run_glossary(["mid-p", "mover"]).to_json()["entries"]]
    ['mid-p', 'MOVER']
    """
    if not terms:
        return GlossaryRun(tuple(ENTRIES))
    found = [find(t) for t in terms]
    unknown = [t for t, e in zip(terms, found, strict=True) if e is None]
    if unknown:
        known = ", ".join(e.term for e in ENTRIES)
        raise UsageError(
            f"no glossary entry for {', '.join(map(repr, unknown))} (entries: {known})"
        )
    return GlossaryRun(tuple(e for e in found if e is not None))
