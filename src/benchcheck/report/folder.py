"""The report folder: ``results.json`` and every rendering of it, written in one call.

The folder holds ``results.json`` (canonical, schema-versioned), ``report.html``,
``report.md`` and, when examples were flagged, ``flagged.csv`` / ``flagged.jsonl``. The HTML
and Markdown are rendered from the written JSON text read back, never from live objects, so
``benchcheck report`` re-renders them byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchcheck.audit import AuditReport

__all__ = ["write_report"]

FLAGGED_FILES = ("flagged.csv", "flagged.jsonl")


def write_report(report: AuditReport, folder: str | Path) -> list[Path]:
    """Write an audit's report folder and return the paths written, in order.

    Parameters
    ----------
    report
        What :func:`benchcheck.run_audit` returned.
    folder
        The report folder; created when missing. Flagged-example files left there by an
        earlier audit are removed when this one flagged nothing.

    Examples
    --------
    >>> import tempfile
    >>> import benchcheck as bc
    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> report = bc.run_audit(bc.AuditInputs(ner=str(NER_SAMPLE), judge=None))
    >>> with tempfile.TemporaryDirectory() as out:
    ...     [p.name for p in bc.write_report(report, out)]
    ['results.json', 'report.html', 'report.md']

    """
    from benchcheck.io.tables import write_rows
    from benchcheck.report.canonical import dumps
    from benchcheck.report.html import render_html
    from benchcheck.report.markdown import render_markdown

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    text = dumps(report.results)
    canonical = json.loads(text)
    written = []
    for name, content in (
        ("results.json", text),
        ("report.html", render_html(canonical)),
        ("report.md", render_markdown(canonical)),
    ):
        (folder / name).write_text(content, encoding="utf-8")
        written.append(folder / name)
    flagged = report.flagged
    if flagged is not None and flagged.height:
        for name in FLAGGED_FILES:
            written.append(write_rows(flagged, folder / name))
    else:
        for stale in FLAGGED_FILES:
            (folder / stale).unlink(missing_ok=True)
    return written
