"""``benchcheck audit``: parse the options, run :func:`benchcheck.audit.run_audit`, write.

The analyses live in :mod:`benchcheck.audit` and the report folder's writer in
:func:`benchcheck.report.folder.write_report`; this module turns the options into
:class:`~benchcheck.audit.AuditInputs`, calls both and prints a summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._common import ForceOpt, JsonOpt, parse_assignments, write_json
from benchcheck.cli.stats_cmds import DataArg, SchemeOpt, SplitOpt, StrictOpt
from benchcheck.errors import UsageError


@app.command("audit")
def audit(
    data: DataArg = None,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Report folder (results.json and more).")
    ] = Path("report"),
    split: SplitOpt = None,
    scheme: SchemeOpt = None,
    strict: StrictOpt = False,
    scores: Annotated[
        str | None, typer.Option("--scores", help="NER: comma-separated model scores (Eq. 7).")
    ] = None,
    predictions: Annotated[
        list[str] | None,
        typer.Option(
            "--predictions",
            help="NAME=FILE: NER test predictions (CoNLL), or a model's predictions on a "
            "diagnostic suite.",
        ),
    ] = None,
    compare: Annotated[
        list[str] | None,
        typer.Option("--compare", help="NAME=PATH: another NER dataset, shown side by side."),
    ] = None,
    text: Annotated[str | None, typer.Option("--text", help="Classification: text column.")] = None,
    text_a: Annotated[
        str | None, typer.Option("--text-a", help="Pair: first text (premise, grounding).")
    ] = None,
    text_b: Annotated[
        str | None, typer.Option("--text-b", help="Pair: second text (hypothesis, claim).")
    ] = None,
    label: Annotated[
        str | None, typer.Option("--label", help="Label column (default: label).")
    ] = None,
    id_col: Annotated[
        str | None, typer.Option("--id", help="Id column (default: row number).")
    ] = None,
    judge: Annotated[
        str,
        typer.Option(
            "--judge",
            help="Judge for label-error flags: backend[:model] "
            "(default: the embedded llama.cpp model).",
        ),
    ] = "llama-cpp",
    no_judge: Annotated[bool, typer.Option("--no-judge", help="Skip label-error flags.")] = False,
    prompts: Annotated[
        str | None,
        typer.Option(
            "--prompts",
            help="Prompt framings: 'all' or names, e.g. nli,document "
            "(default: the judges' audit set, two framings, to keep audit fast).",
        ),
    ] = None,
    threshold: Annotated[
        float, typer.Option("--threshold", help="Minimum confidence of a flag.")
    ] = 0.5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every bootstrap.")] = 0,
    matrix: Annotated[
        str | None,
        typer.Option(
            "--matrix", help="Score matrix (id + one 0/1 column per model): item analysis."
        ),
    ] = None,
    gold: Annotated[
        str | None,
        typer.Option("--gold", help="Gold labels (review import): the leaderboard under noise."),
    ] = None,
    precision: Annotated[
        str | None,
        typer.Option("--precision", help="Per-bin precision of flags: a number or bins --json."),
    ] = None,
    error_rate: Annotated[
        str | None,
        typer.Option("--error-rate", help="Error rate of unflagged items: rate or ERRORS/SAMPLE."),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option("--baseline", help="An earlier results.json: add the diff against it."),
    ] = None,
    fail_on: Annotated[
        str | None,
        typer.Option("--fail-on", help="Exit 1 when any holds, e.g. 'leakage_ratio>0.01'."),
    ] = None,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Run every analysis that applies to a dataset and write a report folder.

    With no DATA, audits the bundled samples: NER statistics, label-error flags on the pair
    sample with the embedded judge, and the diagnostic suite with a baseline's predictions
    (offline, no server, no API key). The folder gets results.json, report.html, report.md
    and flagged.csv/.jsonl.

    With --predictions NAME=FILE on a classification/pair file (or --matrix), the audit adds
    the item analysis and, with two or more models and --gold/--precision/--error-rate or
    the judge's flags, the leaderboard under label noise; --baseline adds the diff against
    an earlier results.json, and --fail-on exits 1 when a gate holds.

    Example: benchcheck audit data/mnbm.jsonl --text-a grounding --text-b generated_text -o report/
    """
    from benchcheck.audit import AuditInputs, run_audit
    from benchcheck.cli.stats_cmds import _scores
    from benchcheck.io.diagnostic import looks_like_suite
    from benchcheck.io.output import Outputs
    from benchcheck.report.folder import REPORT_FILES, write_report

    common: dict[str, Any] = {
        "scheme": scheme,
        "strict": strict,
        "seed": seed,
        "judge": None if no_judge else judge,
        "prompts": prompts,
        "threshold": threshold,
        "compare": parse_assignments(compare, "--compare"),
        "item_matrix": matrix,
        "gold": gold,
        "precision": precision,
        "error_rate": error_rate,
        "baseline": baseline,
    }
    named = parse_assignments(predictions, "--predictions")
    if data is None and not split:
        from benchcheck.diagnostics import sample_predictions_path
        from benchcheck.sample_data import DIAGNOSTIC_SAMPLE, NER_SAMPLE, PAIR_SAMPLE

        if text or text_a or text_b or predictions:
            raise UsageError("name the data file these options apply to (DATA)")
        inp = AuditInputs(
            **common,
            ner=str(NER_SAMPLE),
            table=str(PAIR_SAMPLE),
            text_a="grounding",
            text_b="generated_text",
            suite=str(DIAGNOSTIC_SAMPLE),
            suite_predictions={"overlap-baseline": str(sample_predictions_path())},
        )
    elif text or text_a or text_b:
        if data is None:
            raise UsageError("--text/--text-a/--text-b need a DATA file")
        if (text_a is None) != (text_b is None):
            raise UsageError("give both --text-a and --text-b for pair data")
        inp = AuditInputs(
            **common,
            table=data,
            text=text,
            text_a=text_a,
            text_b=text_b,
            label=label,
            id=id_col,
            item_predictions=named,
        )
    elif data is not None and looks_like_suite(data):
        inp = AuditInputs(**common, suite=data, suite_predictions=named)
    else:
        inp = AuditInputs(
            **common,
            ner=data,
            ner_splits=parse_assignments(split, "--split"),
            scores=_scores(scores),
            ner_predictions=named,
        )

    if fail_on:
        from benchcheck.items.diff import parse_gates

        parse_gates(fail_on)  # a bad expression fails before the (long) audit
    outputs = Outputs(inp.paths(), force=force)  # checked before the (long) audit
    outputs.folder(output, param="output", names=REPORT_FILES)
    outputs.file(json_out, param="json")
    from benchcheck.cli._progress import progress_bar

    with progress_bar(transient=True) as bar:
        report = run_audit(inp, progress=bar)
    results = report.results
    written = write_report(report, output, force=force)
    write_json(results, json_out)
    if json_out != "-":
        from benchcheck.report.terminal import stats_table

        if "stats" in results:
            console.print(stats_table(results["stats"]))
        for a in results["analyses"]:
            mark = "[green]ok[/]" if a["status"] == "ok" else "[dim]skipped[/]"
            console.print(f"{mark} {a['name']}: {a['detail']}", highlight=False)
        if report.judge_seconds is not None:
            console.print(
                f"[dim]judge time (model load + scoring, cached results free): "
                f"{report.judge_seconds:.1f} s[/]",
                highlight=False,
            )
        console.print("wrote " + ", ".join(str(p) for p in written), highlight=False)
    for a in results["analyses"]:
        if a["status"] == "skipped" and "unavailable" in a["detail"]:
            console_err.print(f"[yellow]warning:[/] {a['name']}: {a['detail']}")
    if fail_on:
        import json

        from benchcheck.report.canonical import dumps
        from benchcheck.runs.diff import GATE_FAILED, run_gates

        canonical = json.loads(dumps(results))
        failed = False
        for g in run_gates(fail_on, canonical):
            failed |= g.failed
            mark = "[red]FAIL[/]" if g.failed else "[green]pass[/]"
            console_err.print(f"{mark} {g.gate.text} ({g.path}): {g.reason}", highlight=False)
        if failed:
            raise typer.Exit(code=GATE_FAILED)
