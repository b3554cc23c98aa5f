"""Run the sections of an audit in order; the results object, the flagged examples, the gates."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchcheck._progress import step
from benchcheck.runs.audit._document import TITLE
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._paths import shown
from benchcheck.runs.audit._report import AuditReport
from benchcheck.runs.audit._section import EVERY_EARLIER, Progress, Ran, Section, Skip

__all__ = ["check_order", "run_audit"]


def _needs(section: Section[Any], done: Mapping[str, Ran[Any]]) -> dict[str, Ran[Any]]:
    if section.needs == EVERY_EARLIER:
        return dict(done)
    return {name: done[name] for name in section.needs if name in done}


def check_order(sections: Sequence[Section[Any]]) -> None:
    """Refuse a list where a section needs one that does not run before it."""
    seen: set[str] = set()
    for section in sections:
        if section.needs != EVERY_EARLIER:
            missing = [n for n in section.needs if n not in seen]
            if missing:
                raise TypeError(f"section {section.name!r} needs {missing}, not run before it")
        if section.name in seen:
            raise TypeError(f"two sections are named {section.name!r}")
        seen.add(section.name)


def _inputs_shown(inputs: AuditInputs) -> dict[str, str]:
    given = {}
    if inputs.ner is not None:
        if inputs.ner.path:
            given["dataset"] = shown(inputs.ner.path)
        for name, path in inputs.ner.splits.items():
            given[f"split {name}"] = shown(path)
    if inputs.table is not None:
        given["examples"] = shown(inputs.table.path)
    if inputs.suite is not None:
        given["diagnostic suite"] = shown(inputs.suite.path)
        for name, path in inputs.suite.predictions.items():
            given[f"predictions {name}"] = shown(path)
    if inputs.table is not None:
        for name, path in inputs.table.predictions.items():
            given[f"predictions {name}"] = shown(path)
    gold = inputs.table.gold if inputs.table is not None else None
    if inputs.contamination is not None:
        given["corpus"] = ", ".join(shown(p) for p in inputs.contamination.corpus)
    for key, extra in (
        ("score matrix", inputs.matrix),
        ("gold labels", gold),
        ("baseline", inputs.baseline),
    ):
        if extra:
            given[key] = shown(extra)
    return given


def run_audit(
    inputs: AuditInputs,
    *,
    sections: Sequence[Section[Any]] | None = None,
    progress: Progress | None = None,
    output: str | Path | None = None,
    force: bool = False,
    fail_on: str | None = None,
) -> AuditReport:
    """Run every section that applies to ``inputs``; the results, and the report folder.

    Each section (:data:`benchcheck.runs.audit.sections.SECTIONS` unless given) either
    adds its keys to the results or is listed as skipped with the reason (input not given,
    optional package missing, judge unavailable); ``progress`` is told each section as it
    starts and the counts of its long work (:mod:`benchcheck._progress`). With ``output``
    the report folder is written there (never over an input; over an earlier report only
    with ``force``); ``fail_on`` gates (parsed before any work) are evaluated on the
    results. Errors in the inputs themselves (a bad file, an impossible request) raise a
    :class:`benchcheck.errors.BenchcheckError`. The same inputs give the same results, byte
    for byte once written (bootstraps use ``inputs.seed``).

    >>> from benchcheck.runs.audit import AuditInputs, NerInput, run_audit
    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> report = run_audit(AuditInputs(ner=NerInput(str(NER_SAMPLE))))
    >>> report.results["inputs"]
    {'dataset': 'benchcheck:sample_data/ner'}
    >>> [(a["name"], a["status"]) for a in report.results["analyses"]][:2]
    [('statistics', 'ok'), ('comparison', 'skipped')]
    >>> report.sections["statistics"].stats.metrics["leakage_ratio"]
    0.25
    """
    from benchcheck.items.diff import evaluate_gates, parse_gates

    if sections is None:
        from benchcheck.runs.audit.sections import SECTIONS

        sections = SECTIONS
    check_order(sections)
    gates = parse_gates(fail_on) if fail_on else ()  # a bad expression fails before the work
    done: dict[str, Ran[Any]] = {}
    analyses: list[dict[str, str]] = []
    unavailable: list[str] = []
    for section in sections:
        reason = section.skip(inputs)
        if reason is None:
            step(progress, section.title)
            try:
                done[section.name] = section.run(inputs, _needs(section, done), progress)
            except Skip as why:
                reason = why.reason
                if why.unavailable:
                    unavailable.append(f"{section.name}: {why.reason}")
        if reason is None:
            analyses.append(
                {"name": section.name, "status": "ok", "detail": done[section.name].detail}
            )
        else:
            analyses.append({"name": section.name, "status": "skipped", "detail": reason})
    results: dict[str, Any] = {
        "title": TITLE,
        "inputs": _inputs_shown(inputs),
        "analyses": analyses,
    }
    for ran in done.values():
        results.update(ran.result.to_json())
    label_errors = next((r for r in done.values() if r.flagged is not None), None)
    ner = [r.frames["ner_flags"] for r in done.values() if "ner_flags" in r.frames]
    ner_flags = ner[0] if ner else None
    report = AuditReport(
        results=results,
        sections={name: ran.result for name, ran in done.items()},
        flagged=None if label_errors is None else label_errors.flagged,
        ner_flags=ner_flags,
        judge_seconds=None if label_errors is None else label_errors.seconds,
        sources=inputs.paths(),
        unavailable=tuple(unavailable),
        files={name: frame for ran in done.values() for name, frame in ran.files.items()},
    )
    if gates:
        from benchcheck.io.canonical import dumps

        canonical = json.loads(dumps(results))
        baseline = None
        if inputs.baseline is not None:  # change(...), new_flags, fixed_flags: against it
            from benchcheck.io.canonical import read_results
            from benchcheck.items.diff import diff_results

            now = {k: v for k, v in canonical.items() if k not in ("analyses", "inputs", "diff")}
            baseline = diff_results(read_results(inputs.baseline), now)
        report = replace(report, gates=tuple(evaluate_gates(gates, canonical, baseline)))
    if output is not None:
        from benchcheck.runs.audit._folder import write_report

        step(progress, "writing the report")
        written = write_report(report, output, force=force, sections=sections)
        report = replace(report, written=tuple(written))
    return report
