"""``benchcheck report``: re-render a report from its canonical ``results.json``; ``glossary``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchcheck.cli._common import claim, command, emit
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


@command("glossary", terms=False)
def glossary(
    terms: Annotated[list[str] | None, Arg()] = None,
) -> None:
    """Explain the words the output and the report use (MOVER, mid-p, AP, ...).

    A command's output ends with a line naming the ones it printed; the report's footer
    lists those of its page. Example: benchcheck glossary mid-p MOVER
    """
    from rich.markup import escape

    from benchcheck.runs.glossary import run_glossary

    claim([])
    run = run_glossary(terms or [])
    emit(
        run.to_json(),
        lambda p: (f"[bold]{escape(e['term'])}[/]: {escape(e['meaning'])}" for e in p["entries"]),
        highlight=False,
    )
