"""Run every analysis of an audit and assemble the results object."""

from __future__ import annotations

from typing import Any

from benchcheck.audit._analyses import ANALYSES, shown
from benchcheck.audit._inputs import AuditInputs, AuditReport, Progress, Skip


def run_audit(inputs: AuditInputs, *, progress: Progress | None = None) -> AuditReport:
    """Run every analysis that applies to ``inputs``; the results object and flagged examples.

    Each analysis of :data:`benchcheck.audit.ANALYSES` either adds its section to the
    results or is listed as skipped with the reason (input not given, optional package
    missing, judge unavailable); ``progress(done, total)`` is called while the judge scores.
    Errors in the inputs themselves (a bad file, an impossible
    request) raise a :class:`benchcheck.errors.BenchcheckError`. The same inputs give the
    same results, byte for byte once written (bootstraps use ``inputs.seed``).

    >>> from benchcheck.audit import AuditInputs, run_audit
    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> report = run_audit(AuditInputs(ner=str(NER_SAMPLE)))
    >>> report.results["inputs"]
    {'dataset': 'benchcheck:sample_data/ner'}
    >>> [(a["name"], a["status"]) for a in report.results["analyses"]][:2]
    [('statistics', 'ok'), ('comparison', 'skipped')]
    >>> report.results["stats"]["metrics"]["leakage_ratio"]
    0.25
    """
    out: dict[str, Any] = {"title": "benchcheck audit report"}
    given = {}
    if inputs.ner:
        given["dataset"] = shown(inputs.ner)
    for name, path in inputs.ner_splits.items():
        given[f"split {name}"] = shown(path)
    if inputs.table:
        given["examples"] = shown(inputs.table)
    if inputs.suite:
        given["diagnostic suite"] = shown(inputs.suite)
    for name, path in inputs.suite_predictions.items():
        given[f"predictions {name}"] = shown(path)
    for name, path in inputs.item_predictions.items():
        given[f"predictions {name}"] = shown(path)
    for key, extra in (
        ("score matrix", inputs.item_matrix),
        ("gold labels", inputs.gold),
        ("baseline", inputs.baseline),
    ):
        if extra:
            given[key] = shown(extra)
    analyses = []
    for name, fn in ANALYSES:
        try:
            detail = fn(inputs, out, progress)
            analyses.append({"name": name, "status": "ok", "detail": detail})
        except Skip as why:
            analyses.append({"name": name, "status": "skipped", "detail": str(why)})
    frames = out.pop("_frames", {})
    timings = out.pop("_timings", {})
    results = {"title": out.pop("title"), "inputs": given, "analyses": analyses, **out}
    return AuditReport(
        results=results,
        flagged=frames.get("flagged"),
        judge_seconds=timings.get("judge_seconds"),
        sources=inputs.paths(),
    )
