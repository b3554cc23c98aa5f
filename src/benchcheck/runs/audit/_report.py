"""What an audit gives back: :class:`AuditReport`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.report.numbers import thousands
from benchcheck.runs.gates import GATE_FAILED, Gated

if TYPE_CHECKING:
    import polars as pl

    from benchcheck.items.diff import GateResult

__all__ = ["GATE_FAILED", "AuditReport"]


@dataclass(frozen=True)
class AuditReport(Gated):
    """The outcome of an audit.

    Attributes
    ----------
    results
        The ``results.json`` object (without ``schema_version``, added by the writer):
        ``title``, ``inputs``, ``analyses`` (name, status ``ok``/``skipped``, detail), then
        the keys of each section that ran.
    sections
        Each section that ran by name: its typed result (``results`` holds its
        ``to_json()``).
    flagged
        Every flagged example, highest error score first (``results`` keeps the first
        :data:`benchcheck.runs.label_errors.MAX_FLAGS_IN_JSON`); ``None`` when label errors
        did not run.
    ner_flags
        Every NER span flag in ``flag-spans -o``'s review format, highest ``error_logit``
        first (``results`` keeps the first
        :data:`benchcheck.runs.audit.sections.ner_label_errors.MAX_ROWS`); ``None`` when the
        NER label-error section flagged nothing or did not run.
    judge_seconds
        Wall time of loading the judge and scoring (cached judgements are free), or ``None``.
    sources
        The paths the audit read (:meth:`AuditInputs.paths`): a report never overwrites them.
    unavailable
        ``name: reason`` of each section that applies but could not run here (a missing
        optional package, a judge that cannot be built).
    gates
        The ``fail_on`` gates evaluated on the results.
    files
        Tables a section writes beside the report by file name (the MCQ section's
        ``mcq_flags.jsonl``).
    written
        The report folder's files, when the run wrote one.

    """

    results: dict[str, Any]
    sections: Mapping[str, Any] = field(default_factory=dict)
    flagged: pl.DataFrame | None = None
    ner_flags: pl.DataFrame | None = None
    judge_seconds: float | None = None
    sources: tuple[str, ...] = ()
    unavailable: tuple[str, ...] = ()
    gates: tuple[GateResult, ...] = ()
    files: Mapping[str, pl.DataFrame] = field(default_factory=dict)
    written: tuple[Path, ...] = ()

    def __repr__(self) -> str:
        """One line: the sections that ran and were skipped, and the flags."""
        ran = [a["name"] for a in self.results.get("analyses", ()) if a.get("status") == "ok"]
        skipped = len(self.results.get("analyses", ())) - len(ran)
        flags = "" if self.flagged is None else f", {thousands(self.flagged.height)} flagged"
        return (
            f"<AuditReport: ran {', '.join(ran) or 'nothing'}; {skipped} skipped{flags}; "
            ".sections, .to_json()>"
        )

    def to_json(self) -> dict[str, Any]:
        """Return the ``results.json`` object (what ``benchcheck audit --json`` writes)."""
        return self.results
