"""``benchcheck audit``: every section that applies to a dataset, as one typed results object.

An audit is the declared list of sections (:data:`SECTIONS`, one module each under
:mod:`benchcheck.runs.audit.sections`). Each section looks at the :class:`AuditInputs`
and either adds its typed result to the results or says why it was skipped;
``results["analyses"]`` lists what ran. :func:`run_audit` returns an
:class:`AuditReport` (the ``results.json`` object, each section's typed result, the
flagged examples, the ``fail_on`` gates) and writes the report folder when given one
(``results.json``, ``report.html``, ``report.md``, ``flagged.csv``/``.jsonl``); every
rendering is a pure function of ``results.json``, whose schema
(:func:`results_schema`) is committed as ``docs/results.schema.json``.

Importing this package is cheap: each section imports what it needs when it runs.
"""

from __future__ import annotations

from benchcheck.runs.audit._document import (
    Analysis,
    AuditDocument,
    Head,
    read_document,
    results_schema,
)
from benchcheck.runs.audit._folder import REPORT_FILES, render_results, write_report
from benchcheck.runs.audit._inputs import (
    LABEL_ERROR_SECONDS,
    AuditInputs,
    ContaminationInput,
    JudgeInput,
    McqInput,
    NerInput,
    SuiteInput,
    TableInput,
    audit_inputs,
)
from benchcheck.runs.audit._render import render_html, render_markdown, terminal_summary
from benchcheck.runs.audit._report import GATE_FAILED, AuditReport
from benchcheck.runs.audit._run import run_audit
from benchcheck.runs.audit._section import EVERY_EARLIER, Card, Progress, Ran, Section, Skip
from benchcheck.runs.audit.sections import SECTIONS

__all__ = [
    "LABEL_ERROR_SECONDS",
    "EVERY_EARLIER",
    "GATE_FAILED",
    "REPORT_FILES",
    "SECTIONS",
    "Analysis",
    "AuditDocument",
    "AuditInputs",
    "AuditReport",
    "Card",
    "ContaminationInput",
    "Head",
    "JudgeInput",
    "McqInput",
    "NerInput",
    "Progress",
    "Ran",
    "Section",
    "Skip",
    "SuiteInput",
    "TableInput",
    "audit_inputs",
    "read_document",
    "render_html",
    "render_markdown",
    "render_results",
    "results_schema",
    "run_audit",
    "terminal_summary",
    "write_report",
]
