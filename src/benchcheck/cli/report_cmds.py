"""``benchcheck report``: re-render a report from its canonical ``results.json``; ``glossary``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchcheck.cli._common import claim, command, emit, show
from benchcheck.cli._options import Arg


@command("report")
def report(
    results: Annotated[Path, Arg()],
    output: Annotated[Path, "Output file: .html (default) or .md."] = Path("report.html"),
) -> None:
    """Render the HTML (or Markdown) report from results.json; same JSON, same bytes.

    Example: benchcheck report report/results.json -o report.html
    """
    from benchcheck.runs.report import run_report

    claim([results], output=output)
    run = run_report(results, output)
    emit(run.to_json(), lambda _: [f"wrote {output}"], highlight=False)


@command("glossary", json=False, terms=False)
def glossary(
    terms: Annotated[list[str] | None, Arg()] = None,
) -> None:
    """Explain the words the output and the report use (MOVER, mid-p, AP, ...).

    A command's output ends with a line naming the ones it printed; the report's footer
    lists those of its page. Example: benchcheck glossary mid-p MOVER
    """
    from rich.markup import escape

    from benchcheck.errors import UsageError
    from benchcheck.report.glossary import ENTRIES, find, plain

    entries = list(ENTRIES) if not terms else [find(t) for t in terms]
    unknown = [t for t, e in zip(terms or [], entries, strict=False) if e is None]
    if unknown:
        known = ", ".join(e.term for e in ENTRIES)
        raise UsageError(
            f"no glossary entry for {', '.join(map(repr, unknown))} (entries: {known})"
        )
    show(
        (f"[bold]{escape(e.term)}[/]: {escape(plain(e.meaning))}" for e in entries if e),
        highlight=False,
    )
