"""``benchcheck report``: re-render a report from its canonical ``results.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchcheck.cli._common import claim, command, emit
from benchcheck.cli._options import Arg
from benchcheck.errors import UsageError
from benchcheck.io.output import atomic_write


@command("report")
def report(
    results: Annotated[Path, Arg()],
    output: Annotated[Path, "Output file: .html (default) or .md."] = Path("report.html"),
) -> None:
    """Render the HTML (or Markdown) report from results.json; same JSON, same bytes.

    Example: benchcheck report report/results.json -o report.html
    """
    from benchcheck.io.canonical import read_results
    from benchcheck.report.html import render_html
    from benchcheck.report.markdown import render_markdown

    claim([results], output=output)
    data = read_results(results)
    suffix = output.suffix.lower()
    if suffix in (".html", ".htm"):
        text = render_html(data)
    elif suffix in (".md", ".markdown"):
        text = render_markdown(data)
    else:
        raise UsageError(f"{{output}} must end in .html or .md, got {output}")
    atomic_write(output, text)
    emit(data, lambda _: [f"wrote {output}"], highlight=False)
