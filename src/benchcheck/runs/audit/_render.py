"""The whole audit rendered: the HTML page, ``report.md`` and the terminal summary.

Each is the head (inputs, what ran) followed by every present section's own rendering of
its typed result, then the notes: pure functions of the document, so the same
``results.json`` gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from benchcheck.report.html import esc, render_page, show_text
from benchcheck.report.markdown import md_table, md_text
from benchcheck.runs.audit._document import AuditDocument, Head
from benchcheck.runs.audit._section import Card, Section

if TYPE_CHECKING:
    from benchcheck.runs.audit._report import AuditReport

__all__ = ["render_html", "render_markdown", "terminal_summary"]


def _overview(head: Head) -> str:
    parts = []
    if head.inputs:
        items = "".join(
            f"<li><b>{esc(k)}</b>: <code>{show_text(v)}</code></li>" for k, v in head.inputs.items()
        )
        parts.append(f"<h3>Inputs</h3><ul>{items}</ul>")
    if head.analyses:
        rows = "".join(
            f"<tr><td>{esc(a.name)}</td>"
            f'<td class="status-{esc(a.status)}">{esc(a.status)}</td>'
            f"<td>{show_text(a.detail)}</td></tr>"
            for a in head.analyses
        )
        parts.append(
            "<h3>Analyses</h3><table><thead><tr><th>analysis</th><th>status</th><th>detail</th>"
            f"</tr></thead><tbody>{rows}</tbody></table>"
        )
    return "".join(parts)


def _card(card: Card) -> str:
    refs = "; ".join(card.references)
    body = f"<p><b>What it measures.</b> {esc(card.measures)}</p>"
    body += f"<p><b>How to read it.</b> {esc(card.reading)}</p>"
    if refs:
        body += f"<p><b>References.</b> {esc(refs)}</p>"
    return f'<details class="about"><summary>About this section</summary>{body}</details>'


def _notes(document: AuditDocument) -> list[str]:
    return [n for section, result in document.parts for n in section.notes(result)]


def render_html(document: AuditDocument) -> str:
    """Render the document as one self-contained HTML page (deterministic)."""
    parts: list[tuple[str, str, str]] = []
    overview = _overview(document.head)
    if overview:
        parts.append(("overview", "Overview", overview))
    for section, result in document.parts:
        parts.append((section.anchor, section.title, section.html(result) + _card(section.card)))
    notes = _notes(document)
    if notes:
        items = "".join(f"<li>{show_text(n)}</li>" for n in notes)
        parts.append(("notes", "Notes", f"<ul>{items}</ul>"))
    return render_page(document.head.title, document.head.schema_version, parts)


def render_markdown(document: AuditDocument) -> str:
    """Render the document as Markdown (deterministic)."""
    head = document.head
    out: list[str] = [
        f"# {md_text(head.title)}\n",
        f"Rendered from results.json (schema {md_text(head.schema_version)}). "
        "↑ higher is better, ↓ lower is better; — not defined for this input.\n",
    ]
    if head.inputs:
        out.append("## Inputs\n")
        out += [f"- **{md_text(k)}**: {md_text(v)}" for k, v in head.inputs.items()]
        out.append("")
    if head.analyses:
        out.append("## Analyses\n")
        rows = [[md_text(a.name), md_text(a.status), md_text(a.detail)] for a in head.analyses]
        out.append(md_table(["analysis", "status", "detail"], rows))
    for section, result in document.parts:
        out += section.markdown(result)
    notes = _notes(document)
    if notes:
        out.append("## Notes\n")
        out += [f"- {md_text(n)}" for n in notes]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def terminal_summary(
    report: AuditReport, sections: Sequence[Section[Any]] | None = None
) -> list[Any]:
    """Render what ``benchcheck audit`` prints: each section's block, what ran, time, files."""
    from benchcheck.report.terminal.audit import audit_summary

    if sections is None:
        from benchcheck.runs.audit.sections import SECTIONS

        sections = SECTIONS
    blocks = [
        renderable
        for section in sections
        if section.name in report.sections
        for renderable in section.terminal(report.sections[section.name])
    ]
    lines = [(a["name"], a["status"] == "ok", a["detail"]) for a in report.results["analyses"]]
    return audit_summary(blocks, lines, report.judge_seconds, report.written)
