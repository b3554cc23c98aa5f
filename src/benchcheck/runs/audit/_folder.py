"""The report folder: ``results.json`` and every rendering of it, written in one call.

The folder holds ``results.json`` (canonical, schema-versioned), ``report.html``,
``report.md`` and, when examples were flagged, ``flagged.csv`` / ``flagged.jsonl``; when NER
spans were flagged, ``ner_flags.jsonl`` (every one, in ``flag-spans -o``'s review format). The HTML
and Markdown are rendered from the written JSON text read back, never from live objects, so
``benchcheck report`` re-renders them byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchcheck.runs.audit._report import AuditReport
    from benchcheck.runs.audit._section import Section

__all__ = ["REPORT_FILES", "render_results", "write_report"]

FLAGGED_FILES = ("flagged.csv", "flagged.jsonl")
#: Every NER span flag of the audit (``ner_flags`` in ``results.json`` names it).
NER_FLAGS_FILE = "ner_flags.jsonl"
#: Tables a section writes beside the report (:attr:`benchcheck.runs.audit.Ran.files`).
SECTION_FILES = ("mcq_flags.jsonl",)
#: Every file a report folder may hold (what an existing folder is checked for).
REPORT_FILES = (
    "results.json",
    "report.html",
    "report.md",
    *FLAGGED_FILES,
    NER_FLAGS_FILE,
    *SECTION_FILES,
)


def write_report(
    report: AuditReport,
    folder: str | Path,
    *,
    force: bool = False,
    inputs: Iterable[str | Path] = (),
    sections: Sequence[Section[Any]] | None = None,
) -> list[Path]:
    """Write an audit's report folder and return the paths written, in order.

    Parameters
    ----------
    report
        What :func:`benchcheck.run_audit` returned.
    folder
        The report folder; created when missing. A folder that already holds any of the
        report's files is refused unless ``force`` (files of other names are never
        touched, and none of ``inputs`` is ever written). Flagged-example files of an
        earlier report are removed when this one flagged nothing, if that report's
        ``results.json`` lists them.
    force
        Replace the report files of an earlier run.
    inputs
        Further paths never to write (the audit's own inputs, ``report.sources``, always
        are).
    sections
        The sections that render it (default: the audit's,
        :data:`benchcheck.runs.audit.sections.SECTIONS`).

    Every file is staged and moved into place complete (:mod:`benchcheck.io.output`).

    Examples
    --------
    >>> import tempfile
    >>> import benchcheck as bc
    >>> from benchcheck.runs.audit import NerInput
    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> report = bc.run_audit(bc.AuditInputs(ner=NerInput(str(NER_SAMPLE)), judge=None))
    >>> with tempfile.TemporaryDirectory() as out:
    ...     [p.name for p in bc.write_report(report, out)]
    ['results.json', 'report.html', 'report.md', 'ner_flags.jsonl']

    """
    from benchcheck.io.canonical import dumps
    from benchcheck.io.output import Outputs
    from benchcheck.io.tables import write_rows

    outputs = Outputs([*report.sources, *inputs], force=force)
    target = outputs.folder(folder, param="output", names=REPORT_FILES)
    stale = _listed_flag_files(Path(folder))
    text = dumps(report.results)
    html, markdown = render_results(json.loads(text), sections)
    flagged = report.flagged
    with target:
        # results.json last: a folder whose results.json is new holds a complete report.
        target.write("report.html", html)
        target.write("report.md", markdown)
        if flagged is not None and flagged.height:
            for name in FLAGGED_FILES:  # the CSV is for spreadsheets: no live formulas
                write_rows(flagged, target.stage(name), spreadsheet_safe=True)
        else:
            for name in stale:
                if name in FLAGGED_FILES:
                    target.remove(name)
        if report.ner_flags is not None and report.ner_flags.height:
            write_rows(report.ner_flags, target.stage(NER_FLAGS_FILE))
        elif NER_FLAGS_FILE in stale:
            target.remove(NER_FLAGS_FILE)
        for name, frame in report.files.items():
            if name not in SECTION_FILES:
                raise ValueError(f"{name!r} is not a report file (SECTION_FILES)")
            write_rows(frame, target.stage(name))
        for name in stale:
            if name in SECTION_FILES and name not in report.files:
                target.remove(name)
        target.write("results.json", text)
    first = ["results.json", "report.html", "report.md"]
    names = first + [p.name for p in target.written if p.name not in first]
    return [Path(folder) / n for n in names]


def render_results(
    results: dict[str, Any], sections: Sequence[Section[Any]] | None = None
) -> tuple[str, str]:
    """Return the HTML page and the Markdown of a canonical ``results.json`` object.

    Raises :class:`benchcheck.io.typed.ShapeError` at the first key that does not have its
    section's declared shape.
    """
    from benchcheck.runs.audit._document import read_document
    from benchcheck.runs.audit._render import render_html, render_markdown

    if sections is None:
        from benchcheck.runs.audit.sections import SECTIONS

        sections = SECTIONS
    document = read_document(results, sections)
    return render_html(document), render_markdown(document)


def _listed_flag_files(folder: Path) -> list[str]:
    """Flagged-example files an earlier report in ``folder`` says it wrote."""
    try:
        earlier = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(earlier, dict):
        return []
    found: list[str] = []
    listed = (earlier.get("label_errors") or {}).get("files")
    if isinstance(listed, list):
        found += [n for n in listed if n in FLAGGED_FILES]
    ner = earlier.get("ner_label_errors") or {}
    if isinstance(ner, dict) and ner.get("flags_file") == NER_FLAGS_FILE:
        found.append(NER_FLAGS_FILE)
    try:
        name = earlier["mcq"]["answers"]["flags_file"]
        found += [name] if name in SECTION_FILES else []
    except (KeyError, TypeError):
        pass
    return found
