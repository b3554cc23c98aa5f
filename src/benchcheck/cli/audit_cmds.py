"""``benchcheck audit``: every analysis that applies to a dataset, written as a report folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli._app import app, console
from benchcheck.cli._common import SCHEMA_VERSION, dumps, write_json
from benchcheck.cli.stats_cmds import DataArg, JsonOpt, SchemeOpt, SplitOpt, StrictOpt, run_stats


@app.command("audit")
def audit(
    data: DataArg = None,
    output: Annotated[Path, typer.Option("-o", "--output", help="Report folder (results.json and more).")] = Path("report"),
    split: SplitOpt = None,
    scheme: SchemeOpt = None,
    strict: StrictOpt = False,
    json_out: JsonOpt = None,
) -> None:
    """Run every analysis that applies to a dataset and write a report folder.

    With no DATA, audits the bundled sample data (offline, no server, no API key).

    Example: benchcheck audit data/conll2003/ -o report/
    """
    from benchcheck.report.terminal import stats_table
    from benchcheck.sample_data import NER_SAMPLE

    source = data if (data is not None or split) else str(NER_SAMPLE)
    stats_json = run_stats(source, split=split, scheme=scheme, strict=strict)
    results = {"schema_version": SCHEMA_VERSION, "stats": stats_json}
    output.mkdir(parents=True, exist_ok=True)
    (output / "results.json").write_text(dumps(results), encoding="utf-8")
    write_json(results, json_out)
    if json_out != "-":
        console.print(stats_table(stats_json))
        console.print(f"wrote {output / 'results.json'}")
