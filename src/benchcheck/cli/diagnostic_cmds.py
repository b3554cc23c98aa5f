"""Commands of diagnostic evaluation: diagnose, artifacts, human, check-suite."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from benchcheck.cli._app import app, console
from benchcheck.cli._common import ForceOpt, JsonOpt, parse_assignments, write_json
from benchcheck.cli._progress import progress_bar
from benchcheck.errors import BenchcheckError
from benchcheck.io.output import Outputs

TaxonomyOpt = Annotated[
    str | None,
    typer.Option("--taxonomy", help="TOML/JSON taxonomy replacing the GLUE one (coarse → tags)."),
]
LabelMapOpt = Annotated[
    str | None,
    typer.Option(
        "--label-map",
        help="Raw value → label, e.g. '0=entailment,1=neutral,2=contradiction'. Without it, "
        "integers are indices into the suite's label order.",
    ),
]


class SuiteWarned(BenchcheckError):
    """``check-suite --strict`` found warnings (exit code 1)."""

    exit_code = 1


SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the bootstrap (and the model).")]
ResamplesOpt = Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")]


def _label_map(value: str | None) -> dict[str, str] | None:
    if not value:
        return None
    return parse_assignments([v.strip() for v in value.split(",") if v.strip()], "--label-map")


def _show(renderables: list[Any]) -> None:
    for r in renderables:
        console.print(r, highlight=False)


@app.command("diagnose")
def diagnose(
    suite: Annotated[str, typer.Option("--suite", help="GLUE diagnostic TSV or JSONL suite.")],
    predictions: Annotated[
        list[str] | None,
        typer.Option("--predictions", help="NAME=FILE (TSV/CSV/JSONL); repeat per model."),
    ] = None,
    taxonomy: TaxonomyOpt = None,
    label_map: LabelMapOpt = None,
    label_column: Annotated[
        str | None, typer.Option("--label-column", help="Column holding the predicted label.")
    ] = None,
    seed: SeedOpt = 0,
    resamples: ResamplesOpt = 1000,
    fine: Annotated[bool, typer.Option("--fine/--no-fine", help="Show fine tags.")] = True,
    judge: Annotated[
        list[str] | None,
        typer.Option("--judge", help="Diagnose an LLM directly: BACKEND:MODEL (as in "
                     "'benchcheck judge'); repeatable."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible server for --judge.")
    ] = None,
    cache: Annotated[
        str | None, typer.Option("--cache", help="Judge cache (default: the user cache dir).")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not cache judgements.")] = False,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """R_K per phenomenon (overall, coarse, fine) with intervals and paired tests; see docs.

    Ids: GLUE TSV row index, or '<id>:forward'/'<id>:backward' for JSONL suites, or row order.
    Compare models within a category, never categories with each other.

    Example: benchcheck diagnose --suite diagnostic-full.tsv --predictions bert=bert.tsv
    Example: benchcheck diagnose --suite suite.jsonl --judge llama-cpp:qwen2.5-coder-1.5b-instruct
    """
    from benchcheck.report.terminal.diagnostics import diagnose_renderables
    from benchcheck.runs.diagnose import JudgeSetup, run_diagnose

    files = parse_assignments(predictions, "--predictions")
    Outputs([suite, *files.values(), cache], force=force).file(json_out, param="json")
    setup = None
    if judge:
        setup = JudgeSetup(tuple(judge), base_url=base_url, cache=cache, use_cache=not no_cache)
    with progress_bar(transient=True) as bar:
        result = run_diagnose(suite, files, taxonomy=taxonomy, label_map=_label_map(label_map),
                              label_column=label_column, seed=seed, resamples=resamples,
                              judges=setup, progress=bar)
    payload = result.to_json()
    if json_out != "-":
        _show(diagnose_renderables(payload, fine=fine))
    write_json(payload, json_out)


@app.command("artifacts")
def artifacts(
    data: Annotated[
        str | None, typer.Argument(help="Folder of a pair dataset (train → test/dev files).")
    ] = None,
    train: Annotated[str | None, typer.Option("--train", help="Training pair file.")] = None,
    eval_path: Annotated[
        str | None, typer.Option("--eval", help="Evaluation pair file or diagnostic suite.")
    ] = None,
    text_a: Annotated[str | None, typer.Option("--text-a", help="Premise column.")] = None,
    text_b: Annotated[str | None, typer.Option("--text-b", help="Hypothesis column.")] = None,
    label: Annotated[str | None, typer.Option("--label", help="Label column.")] = None,
    side: Annotated[
        str, typer.Option("--input", help="Which side the baseline sees: hypothesis or premise.")
    ] = "hypothesis",
    seed: SeedOpt = 0,
    top: Annotated[int, typer.Option("--top", help="Cue n-grams listed per label.")] = 10,
    resamples: ResamplesOpt = 1000,
    max_train: Annotated[
        int | None, typer.Option("--max-train", help="Train on a seeded subset of this size.")
    ] = None,
    label_map: Annotated[
        str | None,
        typer.Option("--label-map", help="Rename labels in both splits, e.g. "
                     "'0=entailment,1=neutral,2=contradiction' (HF MNLI/SNLI)."),
    ] = None,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Hypothesis-only (partial-input) baseline: how much of the task needs no premise.

    Columns default to premise/hypothesis or sentence1/sentence2 and label or gold_label.
    No universal threshold: read the numbers against datasets you trust.

    Example: benchcheck artifacts --train snli_train.jsonl --eval diagnostic-full.tsv
    Example: benchcheck artifacts data/nli/ --json artifacts.json
    """
    Outputs([data, train, eval_path], force=force).file(json_out, param="json")
    from benchcheck.report.terminal.diagnostics import artifacts_renderables
    from benchcheck.runs.diagnose import run_artifacts

    payload = run_artifacts(data, train=train, eval_path=eval_path, text_a=text_a,
                            text_b=text_b, label=label, side=side, seed=seed, top=top,
                            resamples=resamples, max_train=max_train,
                            label_map=_label_map(label_map)).to_json()
    if json_out != "-":
        _show(artifacts_renderables(payload))
    write_json(payload, json_out)


@app.command("human")
def human(
    suite: Annotated[str, typer.Option("--suite", help="GLUE diagnostic TSV or JSONL suite.")],
    annotations: Annotated[
        str,
        typer.Option("--annotations",
                     help="CSV/TSV/JSONL: id,annotator,label rows, or id + one column per "
                     "annotator."),
    ],
    taxonomy: TaxonomyOpt = None,
    label_map: LabelMapOpt = None,
    seed: SeedOpt = 0,
    resamples: ResamplesOpt = 1000,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Human baseline: Fleiss' kappa over annotators and each annotator's R_K against gold.

    Example: benchcheck human --suite suite.jsonl --annotations ann.csv
    """
    Outputs([suite, annotations], force=force).file(json_out, param="json")
    from benchcheck.report.terminal.diagnostics import human_renderables
    from benchcheck.runs.diagnose import run_human

    payload = run_human(suite, annotations, taxonomy=taxonomy, label_map=_label_map(label_map),
                        seed=seed, resamples=resamples).to_json()
    if json_out != "-":
        _show(human_renderables(payload))
    write_json(payload, json_out)


@app.command("check-suite")
def check_suite_cmd(
    suite: Annotated[str, typer.Argument(help="GLUE diagnostic TSV or JSONL suite.")],
    taxonomy: TaxonomyOpt = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit with code 1 when a check warns.")
    ] = False,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Check how a diagnostic suite is built: categories, directions, tags, duplicates.

    Example: benchcheck check-suite suite.jsonl --json checks.json
    """
    Outputs([suite, taxonomy], force=force).file(json_out, param="json")
    from benchcheck.report.terminal.diagnostics import check_suite_renderables
    from benchcheck.runs.diagnose import run_check_suite

    payload = run_check_suite(suite, taxonomy=taxonomy).to_json()
    if json_out != "-":
        _show(check_suite_renderables(payload))
    write_json(payload, json_out)
    warned = [f for f in payload["findings"] if f["level"] == "warning"]
    if strict and warned:
        raise SuiteWarned(f"--strict: {len(warned)} check(s) warned")
