"""The audit: every analysis that applies to a dataset, as one results object.

An audit is a list of *analyses* (:data:`ANALYSES`). Each one looks at the
:class:`AuditInputs` and either adds its section to the results or says why it was skipped
(missing input, missing optional package, judge unavailable); ``results["analyses"]`` lists
what ran. :func:`run_audit` returns an :class:`AuditReport`: the ``results.json`` object and
the flagged examples. :func:`benchcheck.write_report` (what ``benchcheck audit`` calls)
writes it as a report folder (``results.json``, ``report.html``, ``report.md``,
``flagged.csv``/``.jsonl``); every rendering is a pure function of ``results.json`` (see
:mod:`benchcheck.report`).

Importing this package is cheap: each analysis imports what it needs when it runs.
"""

from __future__ import annotations

from benchcheck.audit._analyses import ANALYSES, MAX_FLAGS_IN_JSON
from benchcheck.audit._inputs import Analysis, AuditInputs, AuditReport, Skip
from benchcheck.audit._run import run_audit

__all__ = [
    "ANALYSES",
    "MAX_FLAGS_IN_JSON",
    "Analysis",
    "AuditInputs",
    "AuditReport",
    "Skip",
    "run_audit",
]
