"""Commands of test theory for benchmarks (methods.md section 4): items, rank, diff.

Thin: parse the options, call :mod:`benchcheck.runs` (``items``, ``rank``, ``diff``),
write through :class:`benchcheck.io.output.Outputs`, render with
:mod:`benchcheck.report.terminal.items`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import polars as pl
import typer
from rich.markup import escape

from benchcheck.cli._app import app, console
from benchcheck.cli._common import ForceOpt, JsonOpt, parse_assignments, write_json
from benchcheck.errors import BenchcheckError, InputError, UsageError
from benchcheck.io.output import Outputs

SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed (same seed, same output).")]
PredOpt = Annotated[
    list[str] | None,
    typer.Option("--predictions", help="NAME=FILE: a model's answers (id and pred) on the data."),
]
LabelOpt = Annotated[str, typer.Option("--label", help="Label column of the data.")]
IdOpt = Annotated[str | None, typer.Option("--id", help="Id column (default: id, else row).")]


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Stray ValueErrors (bad option values reaching the statistics) become usage errors."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ValueError as exc:
            if isinstance(exc, BenchcheckError):
                raise
            raise UsageError(str(exc)) from None
        except pl.exceptions.PolarsError as exc:
            raise InputError(f"cannot process the input: {exc}") from None

    return wrapper


# ----------------------------------------------------------------------------- items


@app.command("items")
@_guard
def items_cmd(
    data: Annotated[
        str | None, typer.Argument(help="The dataset (id and label); omit with --matrix.")
    ] = None,
    matrix: Annotated[
        str | None,
        typer.Option(
            "--matrix", help="Score matrix: id + one column per model, 1/0 or partial credit."
        ),
    ] = None,
    predictions: PredOpt = None,
    scores: Annotated[
        str | None,
        typer.Option("--scores", help="Partial credits per item (id + one column per model)."),
    ] = None,
    label: LabelOpt = "label",
    id_col: IdOpt = None,
    positive: Annotated[
        str | None,
        typer.Option("--positive", help="Positive label (predictions with a score only)."),
    ] = None,
    intersect: Annotated[
        bool,
        typer.Option(
            "--intersect", help="Models answered different items: keep those all answered."
        ),
    ] = False,
    min_discrimination: Annotated[
        float,
        typer.Option("--min-discrimination", help="Flag items at or below this discrimination."),
    ] = 0.1,
    irt: Annotated[str, typer.Option("--irt", help="IRT model: 2pl, 1pl or none.")] = "2pl",
    confidence: Annotated[float, typer.Option("--confidence", help="Confidence level.")] = 0.95,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Bootstrap resamples over items (reliability CI).")
    ] = 1000,
    seed: SeedOpt = 0,
    output: Annotated[
        str | None, typer.Option("-o", "--output", help="Folder for items.json and items.csv.")
    ] = None,
    to_review: Annotated[
        str | None,
        typer.Option("--to-review", help="Folder: the suspect items as a blind review package."),
    ] = None,
    experts: Annotated[int, typer.Option("--experts", help="Expert files for --to-review.")] = 2,
    top: Annotated[int, typer.Option("--top", help="Suspect items shown in the terminal.")] = 15,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Item analysis of a benchmark: difficulty, discrimination, reliability, IRT abilities.

    Each model is an examinee; an item with negative or near-zero discrimination (strong
    models wrong, weak ones right) is a prime label-error suspect: --to-review writes them
    in the blind review format that `benchcheck review import` reads.

    Example: benchcheck items test.jsonl --predictions a=a.jsonl --predictions b=b.jsonl -o out/
    """
    from benchcheck.report.terminal.items import items_renderables
    from benchcheck.runs.items import ItemsOptions, run_items

    named = parse_assignments(predictions, "--predictions")
    outputs = Outputs([data, matrix, scores, *named.values()], force=force)
    folder = (
        outputs.folder(output, param="output", names=("items.json", "items.csv"))
        if output
        else None
    )
    if to_review:  # checked before the work; the review writer applies its own rule again
        outputs.folder(to_review, param="to_review", names=None)
    outputs.file(json_out, param="json")
    options = ItemsOptions(
        min_discrimination=min_discrimination,
        n_resamples=bootstrap,
        confidence=confidence,
        seed=seed,
        irt=None if irt == "none" else irt,
        intersect=intersect,
    )
    run = run_items(
        matrix=matrix,
        data=data,
        label=label,
        id_col=id_col,
        predictions=named,
        scores=scores,
        positive=positive,
        options=options,
    )
    frame = None
    if to_review is not None:
        frame = _review_frame(run, data, id_col=id_col)
    payload = run.to_json()
    if folder is not None:
        from benchcheck.io.tables import write_rows
        from benchcheck.report.canonical import dumps

        with folder as f:
            f.write("items.json", dumps(payload))
            flat = [{k: v for k, v in i.items() if k != "curve"} for i in payload["items"]]
            write_rows(pl.DataFrame(flat), f.stage("items.csv"))
    if to_review is not None and frame is not None:
        from benchcheck.runs.review import export_review

        res = export_review(frame, to_review, experts=experts, seed=seed, force=force)
        n = res.package.n_items
        console.print(f"wrote {n} suspect item(s) for blind review to {escape(str(to_review))}")
    write_json(payload, json_out)
    if json_out != "-":
        for r in items_renderables(payload, top=top):
            console.print(r)


def _review_frame(run: Any, data: str | None, *, id_col: str | None) -> pl.DataFrame:
    """Return the suspects as a flags table with the data's texts (``review export`` input)."""
    from benchcheck.io.tables import read_rows
    from benchcheck.items.analysis import review_frame

    if data is None:
        raise UsageError("{to_review} needs the dataset (its texts) and the models' predictions")
    rows = read_rows(data)
    key = id_col or ("id" if "id" in rows.columns else None)
    ids = rows[key].cast(pl.String).to_list() if key else [str(i) for i in range(rows.height)]
    index = {i: k for k, i in enumerate(ids)}
    text_cols = [c for c in ("text", "text_a", "text_b") if c in rows.columns]
    if not text_cols:
        raise InputError(
            "the data has no text column (text, or text_a and text_b) to show the reviewers",
            path=data,
        )
    order = [index[i] for i in run.matrix.item_ids]
    texts: dict[str, Sequence[str]] = {
        c: [rows[c].cast(pl.String)[k] for k in order] for c in text_cols
    }
    return pl.DataFrame(review_frame(run.analysis, run.matrix, texts))


# ----------------------------------------------------------------------------- rank


@app.command("rank")
@_guard
def rank_cmd(
    data: Annotated[str, typer.Argument(help="The dataset (id and label).")],
    predictions: PredOpt = None,
    flags: Annotated[
        str | None, typer.Option("--flags", help="Flags file from `benchcheck flag -o`.")
    ] = None,
    gold: Annotated[
        str | None, typer.Option("--gold", help="Gold labels from `benchcheck review import -o`.")
    ] = None,
    precision: Annotated[
        str | None,
        typer.Option(
            "--precision",
            help="P(the LLM label is right) of a flag: a number, or a `bins --json` file "
            "(default: measured from --gold).",
        ),
    ] = None,
    error_rate: Annotated[
        str | None,
        typer.Option(
            "--error-rate",
            help="Error rate of the items no flag covers: a rate, ERRORS/SAMPLE, or an "
            "`error-rate --json` file.",
        ),
    ] = None,
    label: LabelOpt = "label",
    id_col: IdOpt = None,
    metric: Annotated[str, typer.Option("--metric", help="accuracy or f1.")] = "accuracy",
    positive: Annotated[
        str | None, typer.Option("--positive", help="Positive label (F1; score-only predictions).")
    ] = None,
    resample_items: Annotated[
        bool, typer.Option("--resample-items", help="Also resample items (test sampling error).")
    ] = False,
    draws: Annotated[int, typer.Option("--draws", help="Plausible labelings drawn.")] = 2000,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
    swap_threshold: Annotated[
        float,
        typer.Option("--swap-threshold", help="'Could swap with' above this flip probability."),
    ] = 0.05,
    seed: SeedOpt = 0,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Leaderboard under label uncertainty: score intervals and pairwise flip probabilities.

    Plausible true labelings are drawn from the flags (their confidence bins and the per-bin
    precision the review measured, or --precision), the gold labels, and --error-rate;
    with gold labels only, this is `rerank`'s ranking on gold.

    Example: benchcheck rank test.jsonl --predictions a=a.jsonl --predictions b=b.csv --gold g.csv
    """
    from benchcheck.report.terminal.items import rank_renderables
    from benchcheck.runs.rank import RankOptions, run_rank

    named = parse_assignments(predictions, "--predictions")
    outputs = Outputs([data, flags, gold, *named.values()], force=force)
    outputs.file(json_out, param="json")
    options = RankOptions(
        metric=metric,
        positive=positive,
        n_resamples=draws,
        confidence=confidence,
        seed=seed,
        resample_items=resample_items,
        swap_threshold=swap_threshold,
        precision=precision,
        error_rate=error_rate,
    )
    run = run_rank(data, named, label=label, id_col=id_col, flags=flags, gold=gold, options=options)
    payload = run.to_json()
    write_json(payload, json_out)
    if json_out != "-":
        for r in rank_renderables(payload):
            console.print(r)


# ----------------------------------------------------------------------------- diff


@app.command("diff")
@_guard
def diff_cmd(
    old: Annotated[str, typer.Argument(help="The earlier results.json (or the only one).")],
    new: Annotated[
        str | None, typer.Argument(help="The later results.json (omit to gate OLD alone).")
    ] = None,
    fail_on: Annotated[
        str | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 when any holds: NAME OP NUMBER, comma-separated; NAME a value "
            "(leakage_ratio), change(NAME), new_flags or fixed_flags.",
        ),
    ] = None,
    all_values: Annotated[
        bool, typer.Option("--all", help="List unchanged values in the JSON too.")
    ] = False,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> int:
    """Compare two audits of one dataset; --fail-on turns them into a CI exit code.

    Every value's change, with Fisher's exact test on shares of instances and McNemar's on
    flags fixed/new where results.json holds the counts. Exit codes: 0 every gate passes,
    1 a gate failed, 2 bad input.

    Example: benchcheck diff old/results.json new/results.json --fail-on 'leakage_ratio>0.01'
    """
    from benchcheck.report.terminal.items import diff_renderables
    from benchcheck.runs.diff import run_diff

    outputs = Outputs([old, new], force=force)
    outputs.file(json_out, param="json")
    if new is None:
        run = run_diff(None, old, fail_on=fail_on, changed_only=not all_values)
    else:
        run = run_diff(old, new, fail_on=fail_on, changed_only=not all_values)
    payload = run.to_json()
    write_json(payload, json_out)
    if json_out != "-":
        for r in diff_renderables(payload):
            console.print(r)
    if run.failed:
        raise typer.Exit(code=run.exit_code)
    return 0
