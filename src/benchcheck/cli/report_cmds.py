"""``benchcheck report``: re-render a report from its canonical ``results.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli._app import app, console
from benchcheck.errors import UsageError


@app.command("report")
def report(
    results: Annotated[Path, typer.Argument(help="The results.json written by benchcheck audit.")],
    output: Annotated[
        Path,
        typer.Option("-o", "--output", help="Output file: .html (default) or .md."),
    ] = Path("report.html"),
    json_out: Annotated[
        str | None,
        typer.Option("--json", help="Also write the (validated) results JSON here ('-': stdout)."),
    ] = None,
) -> None:
    """Render the HTML (or Markdown) report from results.json; same JSON, same bytes.

    Example: benchcheck report report/results.json -o report.html
    """
    from benchcheck.cli._common import write_json
    from benchcheck.report.canonical import read_results
    from benchcheck.report.html import render_html
    from benchcheck.report.markdown import render_markdown

    data = read_results(results)
    suffix = output.suffix.lower()
    if suffix in (".html", ".htm"):
        text = render_html(data)
    elif suffix in (".md", ".markdown"):
        text = render_markdown(data)
    else:
        raise UsageError(f"-o must end in .html or .md, got {output}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    write_json(data, json_out)
    if json_out != "-":
        console.print(f"wrote {output}", highlight=False)
