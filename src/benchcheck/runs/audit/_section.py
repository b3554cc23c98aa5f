"""What a section of the audit is (:class:`Section`), and what running one gives (:class:`Ran`).

A section is one analysis, whole: when it applies (:meth:`Section.skip`), its run (a
:mod:`benchcheck.runs` call) giving a typed result (a frozen
:class:`~benchcheck.io.typed.JsonResult`, whose fields are its keys in ``results.json``),
its HTML, Markdown and terminal renderings of that result, and its card (what it measures,
how to read it, its references). The audit is the declared list of sections
(:data:`benchcheck.runs.audit.sections.SECTIONS`).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from benchcheck._progress import Progress
from benchcheck.io.typed import JsonResult, from_json

if TYPE_CHECKING:
    import polars as pl

    from benchcheck.runs.audit._inputs import AuditInputs

__all__ = ["EVERY_EARLIER", "Card", "Progress", "Ran", "Section", "Skip"]

R = TypeVar("R", bound=JsonResult)


#: ``Section.needs`` of a section that reads every section run before it (the diff).
EVERY_EARLIER = ("*",)


class Skip(Exception):
    """A section does not apply, or cannot run here: the reason, and whether it is a warning.

    ``unavailable`` marks a section that applies but could not run (a missing optional
    package, a judge that cannot be built): ``benchcheck audit`` warns about those.
    """

    def __init__(self, reason: str, *, unavailable: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unavailable = unavailable


@dataclass(frozen=True)
class Card:
    """A section's card: what it measures, how to read it, and its references."""

    measures: str
    reading: str
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ran(Generic[R]):
    """What a section's run gives: its typed result and the one-line detail of the summary.

    ``flagged`` holds every flagged example (the label-error section; the report's flagged
    files), ``seconds`` the judge's wall time, ``frames`` tables a later section may read
    (the label-error section's ``judgments``), ``files`` tables the report folder writes
    as JSON lines beside ``results.json``, by file name (one of
    :data:`benchcheck.runs.audit._folder.SECTION_FILES`).
    """

    result: R
    detail: str
    flagged: pl.DataFrame | None = None
    seconds: float | None = None
    frames: Mapping[str, pl.DataFrame] = field(default_factory=dict)
    files: Mapping[str, pl.DataFrame] = field(default_factory=dict)


class Section(ABC, Generic[R]):
    """One analysis of the audit (subclass it, fill the class attributes, define the methods).

    ``name`` is the analysis in ``results.json["analyses"]``; ``title`` and ``anchor`` the
    report's heading and its HTML id; ``result`` the typed result, whose fields are the
    section's top-level keys in ``results.json`` and whose schema is published
    (``docs/results.schema.json``) under the section's ``version``; ``needs`` the names of
    the sections whose :class:`Ran` its :meth:`run` reads (they run before it).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    anchor: ClassVar[str]
    result: ClassVar[type[Any]]
    card: ClassVar[Card]
    version: ClassVar[str] = "1.0"
    needs: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def skip(self, inputs: AuditInputs) -> str | None:
        """Say why the section does not apply to ``inputs`` (``None``: it applies)."""

    @abstractmethod
    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[R]:
        """Run the analysis (it applies); raise :class:`Skip` when it cannot run here."""

    @abstractmethod
    def html(self, result: R) -> str:
        """Render the section's HTML body (built with :mod:`benchcheck.report.html`)."""

    @abstractmethod
    def markdown(self, result: R) -> list[str]:
        """Render the section's lines of ``report.md``, its heading first."""

    def terminal(self, result: R) -> list[Any]:
        """Render what ``benchcheck audit`` prints of the section besides its one-line detail."""
        return []

    def notes(self, result: R) -> list[str]:
        """Return the notes the report lists at its end (what is not defined, and why)."""
        return []

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """Return the section's top-level keys in ``results.json`` (its result's fields)."""
        return tuple(f.name for f in dataclasses.fields(cls.result))

    def read(self, results: Mapping[str, Any], *, strict: bool = False) -> R | None:
        """Return the section's typed result in a ``results.json`` object (``None``: absent).

        Raises :class:`benchcheck.io.typed.ShapeError` naming the first key that does not
        have its declared shape (``$.stats.metrics.leakage_ratio``).
        """
        part = {k: results[k] for k in self.keys() if k in results}
        if not part:
            return None
        read: R = from_json(self.result, part, strict=strict)
        return read
