"""Commands of label-error detection (methods.md section 2).

flag, review export|import, error-rate, bins, remedy, rerank, agreement, ensemble-curve.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer
from rich.markup import escape

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._common import ForceOpt, JsonOpt, parse_assignments, write_json
from benchcheck.data.columns import Columns
from benchcheck.errors import BenchcheckError, InputError, UsageError
from benchcheck.io.output import Outputs

JudgesOpt = Annotated[
    str | None, typer.Option("--judges", help="Comma-separated judges to keep (default: all).")
]
PromptsOpt = Annotated[
    str | None, typer.Option("--prompts", help="Comma-separated prompts to keep (default: all).")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed (same seed, same output).")]

review_app = typer.Typer(
    help="Blind expert review of flagged examples.\n\nExample: benchcheck review export "
    "flags.jsonl --experts 2 --seed 1 -o review/",
    no_args_is_help=True,
)
app.add_typer(review_app, name="review")


def _guard(fn: Callable[..., None]) -> Callable[..., None]:
    """Turn stray ValueErrors (bad option values reaching the statistics) into usage errors."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except ValueError as exc:
            if isinstance(exc, BenchcheckError):
                raise
            raise UsageError(str(exc)) from None
        except pl.exceptions.PolarsError as exc:
            raise InputError(f"cannot process the input: {exc}") from None

    return wrapper


@contextlib.contextmanager
def _in_file(path: str) -> Iterator[None]:
    """Name ``path`` in an InputError raised without a file (e.g. a missing column)."""
    try:
        yield
    except InputError as exc:
        if exc.path is None:
            raise InputError(exc.message, path=path) from None
        raise


def _csv(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _names(value: str | None) -> tuple[str, ...] | None:
    names = _csv(value)
    return tuple(names) if names else None


def _show(renderables: list[Any]) -> None:
    for r in renderables:
        console.print(r)


# ----------------------------------------------------------------------------- flag


@app.command("flag")
@_guard
def flag(
    judgments: Annotated[str, typer.Argument(help="Judgments file (Parquet, JSONL or CSV).")],
    data: Annotated[str, typer.Option("--data", help="The dataset: id, text(s) and label.")],
    output: Annotated[
        str | None, typer.Option("-o", "--output", help="Write the flags table here.")
    ] = None,
    threshold: Annotated[
        float, typer.Option("--threshold", help="Minimum confidence for a flag.")
    ] = 0.5,
    judges: JudgesOpt = None,
    prompts: PromptsOpt = None,
    bins: Annotated[str, typer.Option("--bins", help="Confidence bin edges.")] = (
        "0.5,0.6,0.7,0.8,0.9,0.95,1"
    ),
    text: Annotated[str | None, typer.Option("--text", help="Text column.")] = None,
    text_a: Annotated[str | None, typer.Option("--text-a", help="First text column.")] = None,
    text_b: Annotated[str | None, typer.Option("--text-b", help="Second text column.")] = None,
    label: Annotated[str, typer.Option("--label", help="Label column.")] = "label",
    id_col: Annotated[str | None, typer.Option("--id", help="Id column.")] = None,
    pred_probs: Annotated[
        str | None,
        typer.Option(
            "--pred-probs",
            help="Your model's out-of-sample probabilities (.npy in data order, or a table "
            "with id and p_<label>): adds cleanlab's confident-learning flags and the overlap.",
        ),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="Flags to show in the terminal.")] = 10,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Flag examples whose ensemble label disagrees with the original label.

    The ensemble probability is the mean over judges × prompts; a flag is a disagreement
    whose confidence (probability of the LLM label) is at least --threshold. The flags
    table keeps the data's own columns.

    Example: benchcheck flag judgments.parquet --data data.jsonl --threshold 0.5 -o flags.jsonl
    """
    from benchcheck.io.tables import write_rows
    from benchcheck.labels.flags import parse_bins
    from benchcheck.report.terminal.labels import flag_renderables
    from benchcheck.runs.flag import FlagOptions, run_flag

    outputs = Outputs([judgments, data, pred_probs], force=force)
    outputs.file(output, param="output")
    outputs.file(json_out, param="json")
    options = FlagOptions(threshold, parse_bins(bins), _names(judges), _names(prompts))
    columns = Columns(text=text, text_a=text_a, text_b=text_b, label=label, id=id_col)
    run = run_flag(judgments, data, columns=columns, options=options, pred_probs=pred_probs)
    if output is not None:
        write_rows(run.flags, output)
    payload = run.to_json(top=top, output=output)
    write_json(payload, json_out)
    if json_out != "-":
        _show(flag_renderables(payload))


# ----------------------------------------------------------------------------- review


@review_app.command("export")
@_guard
def review_export(
    flags: Annotated[str, typer.Argument(help="Flags file written by `benchcheck flag -o`.")],
    output: Annotated[str, typer.Option("-o", "--output", help="Folder for the review package.")],
    experts: Annotated[int, typer.Option("--experts", help="Number of expert files.")] = 2,
    seed: SeedOpt = 1,
    sample: Annotated[
        int | None, typer.Option("--sample", help="Review a seeded random subset of the flags.")
    ] = None,
    audit_sample: Annotated[
        int,
        typer.Option(
            "--audit-sample",
            help="Mix this many seeded random undisputed (not flagged) examples into the "
            "review, indistinguishable from the flags: error-rate then estimates the whole "
            "dataset's error rate and the flags' recall.",
        ),
    ] = 0,
    labels: Annotated[
        str | None,
        typer.Option("--labels", help="Comma-separated choices for the experts (default: seen)."),
    ] = None,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Export flagged examples for blind expert review: shuffled, no original or LLM label.

    Writes expert_a.csv, expert_b.csv, … (formula-like cells prefixed with '), Label Studio
    tasks.json + label_config.xml, Argilla 2.x argilla/settings.json + records.json, and the
    private key.jsonl (never give it to the experts). A folder that already holds a review
    (a key, expert files) is refused unless --force.

    Example: benchcheck review export flags.jsonl --experts 2 --audit-sample 100 --seed 1 -o review/
    """
    from benchcheck.report.terminal.review import review_export_renderables
    from benchcheck.runs.review import export_review

    Outputs([flags], force=force).file(json_out, param="json")
    res = export_review(
        flags,
        output,
        experts=experts,
        seed=seed,
        sample=sample,
        audit_sample=audit_sample,
        labels=_csv(labels),
        force=force,
    )
    payload = res.to_json()
    write_json(payload, json_out)
    for what in res.replaced:
        console_err.print(f"[yellow]warning:[/] replaced {escape(what)} in {escape(res.out_dir)}")
    if json_out == "-":
        return
    _show(review_export_renderables(payload))


@review_app.command("import")
@_guard
def review_import(
    experts: Annotated[
        list[str], typer.Argument(help="Expert answer files (CSV, Label Studio or Argilla JSON).")
    ],
    output: Annotated[str, typer.Option("-o", "--output", help="Write the gold table here.")],
    reconciled: Annotated[
        str | None, typer.Option("--reconciled", help="Reconciled labels (review_id,label).")
    ] = None,
    key: Annotated[
        str | None, typer.Option("--key", help="Review key (default: key.jsonl beside them).")
    ] = None,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Import expert labels, reconcile, and write gold labels.

    Gold = original where the LLM agrees; else the reconciled label; else the experts'
    label where they agree; unresolved disagreements are reported, never guessed. Each
    answer file must belong to the key (its review ids and content hashes); a file given
    twice is refused.

    Example: benchcheck review import r/expert_a.csv r/expert_b.csv --reconciled r/r.csv -o g.jsonl
    """
    from benchcheck.io.tables import write_rows
    from benchcheck.labels.review import KEY_NAME
    from benchcheck.report.terminal.review import review_import_renderables
    from benchcheck.runs.review import import_review

    key_file = key if key is not None else str(Path(experts[0]).parent / KEY_NAME)
    inputs: list[str | None] = [*experts, key_file, reconciled]
    outs = Outputs(inputs, force=force)
    outs.file(output, param="output")
    outs.file(json_out, param="json")
    run = import_review(experts, key_path=key, reconciled=reconciled)
    summary = run.summary
    write_rows(run.gold, output)
    payload = run.to_json(output=output)
    write_json(payload, json_out)
    if json_out == "-":
        return
    _show(review_import_renderables(payload))
    for w in summary.warnings:
        console_err.print(f"[yellow]warning:[/] {escape(w)}")
    if summary.unresolved_ids:
        shown = escape(", ".join(summary.unresolved_ids[:10]))
        console_err.print(
            f"[yellow]{len(summary.unresolved_ids)} unresolved disagreement(s)[/] (no gold label): "
            f"{shown}{' …' if len(summary.unresolved_ids) > 10 else ''}"
        )


# ----------------------------------------------------------------------------- error-rate


def _rates(value: str | None) -> dict[str, float] | None:
    """Parse ``disputed=0.3,undisputed=0.02``."""
    if not value:
        return None
    out: dict[str, float] = {}
    for item in value.split(","):
        name, sep, rate = item.partition("=")
        try:
            out[name.strip()] = float(rate)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise UsageError(f"--anticipated expects STRATUM=RATE,…, got {value!r}")
    return out


@app.command("error-rate")
@_guard
def error_rate(
    gold: Annotated[
        str | None, typer.Argument(help="Gold file from `review import` (or give counts).")
    ] = None,
    errors: Annotated[int | None, typer.Option("--errors", help="Errors found.")] = None,
    sample: Annotated[int | None, typer.Option("--sample", help="Examples reviewed.")] = None,
    population: Annotated[
        int | None, typer.Option("--population", help="Size of the whole dataset.")
    ] = None,
    confidence: Annotated[float, typer.Option("--confidence", help="Confidence level.")] = 0.95,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="Per-stratum interval of the stratified estimate: midp (near nominal) or "
            "exact (never below nominal, wider).",
        ),
    ] = "midp",
    plan: Annotated[
        float | None,
        typer.Option(
            "--plan", help="Target width of the stratified interval: reviews per stratum needed."
        ),
    ] = None,
    anticipated: Annotated[
        str | None,
        typer.Option(
            "--anticipated",
            help="Anticipated error rates for --plan, e.g. disputed=0.3,undisputed=0.02 "
            "(default: from the reviews so far).",
        ),
    ] = None,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Error rate: the paper's lower bound and, with an audit sample, the whole dataset's.

    Lower bound: exact Clopper–Pearson interval with the finite population correction over
    the reviewed flags and the examples the LLM agrees with. With an audit sample
    (review export --audit-sample), a stratified estimate of the whole dataset's error rate
    (exact per-stratum intervals, MOVER combination) and the flags' recall.

    Example: benchcheck error-rate gold.jsonl --population 2500 --plan 0.02
    """
    from benchcheck.report.terminal.review import error_rate_renderables
    from benchcheck.runs.error_rate import error_rate as run_error_rate

    Outputs([gold], force=force).file(json_out, param="json")
    run = run_error_rate(
        gold,
        errors=errors,
        sample=sample,
        population=population,
        confidence=confidence,
        method=method,
        plan=plan,
        anticipated=_rates(anticipated),
    )
    payload = run.to_json()
    write_json(payload, json_out)
    if json_out == "-":
        return
    _show(error_rate_renderables(payload, confidence))
    if run.strata is not None and run.stratified is not None and any(run.strata.unresolved):
        unresolved = zip(("disputed", "undisputed"), run.strata.unresolved, strict=True)
        console_err.print(
            "[yellow]warning:[/] unresolved reviews left out of the strata: "
            + ", ".join(f"{n} {u}" for n, u in unresolved)
        )
    elif run.stratified is None and run.stratified_note is not None:
        console_err.print(f"note: no stratified estimate: {escape(run.stratified_note)}")


# ----------------------------------------------------------------------------- bins


@app.command("bins")
@_guard
def bins_cmd(
    gold: Annotated[str, typer.Argument(help="Gold file from `review import`.")],
    bins: Annotated[str, typer.Option("--bins", help="Confidence bin edges.")] = (
        "0.5,0.6,0.7,0.8,0.9,0.95,1"
    ),
    bootstrap: Annotated[int, typer.Option("--bootstrap", help="Bootstrap resamples.")] = 1000,
    seed: SeedOpt = 0,
    min_bin: Annotated[
        int, typer.Option("--min-bin", help="Warn on bins with fewer examples.")
    ] = 35,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Per confidence bin: share of reviewed flags where experts sided with the LLM vs original.

    Example: benchcheck bins gold.jsonl --bins 0.5,0.6,0.7,0.8,0.9,0.95,1 --bootstrap 1000 --seed 0
    """
    from benchcheck.labels.flags import parse_bins
    from benchcheck.report.terminal.labels import bins_renderables
    from benchcheck.runs.labels import run_bins

    Outputs([gold], force=force).file(json_out, param="json")
    run = run_bins(gold, bins=parse_bins(bins), bootstrap=bootstrap, seed=seed, min_bin=min_bin)
    payload = run.to_json()
    write_json(payload, json_out)
    if json_out == "-":
        return
    shown, warnings = bins_renderables(payload)
    _show(shown)
    for w in warnings:
        console_err.print(f"[yellow]warning:[/] {escape(w)}")


# ----------------------------------------------------------------------------- remedy


@app.command("remedy")
@_guard
def remedy(
    data: Annotated[str, typer.Argument(help="Training split (JSONL, CSV, TSV or Parquet).")],
    output: Annotated[str, typer.Option("-o", "--output", help="Folder for the new splits.")],
    judgments: Annotated[
        str | None, typer.Option("--judgments", help="Judgments file to flag with.")
    ] = None,
    flags: Annotated[
        str | None, typer.Option("--flags", help="Or a flags file from `benchcheck flag`.")
    ] = None,
    threshold: Annotated[
        float, typer.Option("--threshold", help="Minimum confidence to act on.")
    ] = 0.9,
    mode: Annotated[str, typer.Option("--mode", help="filter or flip.")] = "filter",
    ablation: Annotated[
        str, typer.Option("--ablation", help="Ablation: random (same number of examples).")
    ] = "random",
    seed: SeedOpt = 0,
    label: Annotated[str, typer.Option("--label", help="Label column.")] = "label",
    id_col: Annotated[str | None, typer.Option("--id", help="Id column.")] = None,
    judges: JudgesOpt = None,
    prompts: PromptsOpt = None,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Filter or flip flagged training examples, plus a random ablation of the same size.

    Writes cleaned.<ext> and ablation_random.<ext>; never modifies the input.

    Example: benchcheck remedy train.jsonl --judgments j.parquet --threshold 0.9 --mode flip -o out/
    """
    from benchcheck.labels.remedies import remedy_file_names
    from benchcheck.report.terminal.labels import remedy_renderables
    from benchcheck.runs.labels import run_remedy

    if ablation != "random":
        raise UsageError(f"{{ablation}} supports 'random', got {ablation!r}")
    outputs = Outputs([data, judgments, flags], force=force)
    outputs.folder(output, param="output", names=remedy_file_names(data))
    outputs.file(json_out, param="json")
    run = run_remedy(
        data,
        judgments=judgments,
        flags=flags,
        threshold=threshold,
        mode=mode,
        seed=seed,
        label=label,
        id_col=id_col,
        judges=_names(judges),
        prompts=_names(prompts),
    )
    payload = run.write(output, force=force).to_dict()
    write_json(payload, json_out)
    if json_out != "-":
        _show(remedy_renderables(payload))


# ----------------------------------------------------------------------------- rerank


@app.command("rerank")
@_guard
def rerank_cmd(
    gold: Annotated[str, typer.Option("--gold", help="Gold file from `review import`.")],
    scores: Annotated[
        list[str],
        typer.Option("--scores", help="NAME=FILE with id and score (P(positive)) and/or pred."),
    ],
    positive: Annotated[str, typer.Option("--positive", help="Positive label.")] = "1",
    threshold: Annotated[
        float, typer.Option("--threshold", help="score > threshold predicts positive.")
    ] = 0.5,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Paired bootstrap resamples.")
    ] = 1000,
    seed: SeedOpt = 0,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Score models on original and gold labels; rank change; paired bootstrap of differences.

    Example: benchcheck rerank --gold gold.jsonl --scores gpt4=a.jsonl --scores deberta=b.jsonl
    """
    from benchcheck.report.terminal.labels import rerank_renderables
    from benchcheck.runs.labels import run_rerank

    files = parse_assignments(scores, "--scores")
    Outputs([gold, *files.values()], force=force).file(json_out, param="json")
    res = run_rerank(
        gold, files, positive=positive, threshold=threshold, bootstrap=bootstrap, seed=seed
    )
    payload = res.to_dict()
    write_json(payload, json_out)
    if json_out != "-":
        _show(rerank_renderables(payload))


# ----------------------------------------------------------------------------- agreement


@app.command("agreement")
@_guard
def agreement(
    source: Annotated[
        list[str] | None,
        typer.Option("--source", help="NAME=FILE[#COLUMN]: a label source (id + label)."),
    ] = None,
    crowd: Annotated[
        str | None, typer.Option("--crowd", help="Crowd labels: id, annotator, label (long).")
    ] = None,
    group: Annotated[
        list[str] | None,
        typer.Option("--group", help="NAME=SRC1,SRC2,...: sources whose Fleiss' kappa to report."),
    ] = None,
    judgments: Annotated[
        str | None, typer.Option("--judgments", help="Judgments: kappa across prompts / judges.")
    ] = None,
    truth: Annotated[
        str, typer.Option("--truth", help="Source taken as truth for annotators.")
    ] = "gold",
    negative: Annotated[
        str, typer.Option("--negative", help="Label of 'inconsistent' (strict vote).")
    ] = "0",
    disagreement: Annotated[
        str, typer.Option("--disagreement", help="Two sources whose disagreement is the subset.")
    ] = "llm,original",
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Compare label sources: weighted-F1 matrix (rows = truth), Fleiss' kappa, crowd votes.

    Example: benchcheck agreement --source orig=g.jsonl#label --source gold=g.jsonl --crowd c.tsv
    """
    from benchcheck.report.terminal.labels import agreement_renderables
    from benchcheck.runs.labels import run_agreement

    specs = parse_assignments(source, "--source")
    used = [s.partition("#")[0] for s in specs.values()]
    Outputs([*used, crowd, judgments], force=force).file(json_out, param="json")
    pair = _csv(disagreement) or []
    if len(pair) != 2:
        raise UsageError(f"{{disagreement}} expects two source names, got {disagreement!r}")
    report = run_agreement(
        specs,
        crowd=crowd,
        groups={n: _csv(v) or [] for n, v in parse_assignments(group, "--group").items()},
        judgments=judgments,
        truth=truth,
        negative=negative,
        disagreement=(pair[0], pair[1]),
    )
    payload = report.to_json()
    write_json(payload, json_out)
    if json_out != "-":
        _show(agreement_renderables(payload, truth=truth))


# ----------------------------------------------------------------------------- ensemble-curve


@app.command("ensemble-curve")
@_guard
def ensemble_curve_cmd(
    judgments: Annotated[str, typer.Argument(help="Judgments file.")],
    gold: Annotated[str, typer.Option("--gold", help="Gold file from `review import`.")],
    repeats: Annotated[
        int, typer.Option("--repeats", help="Random subsets per ensemble size.")
    ] = 50,
    unit: Annotated[
        str, typer.Option("--unit", help="Grow by 'member' (judge×prompt) or 'judge'.")
    ] = "member",
    positive: Annotated[
        str | None, typer.Option("--positive", help="Positive label for ROC AUC.")
    ] = None,
    seed: SeedOpt = 0,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """ROC AUC against gold and error-detection F1 as the ensemble grows.

    Example: benchcheck ensemble-curve judgments.parquet --gold gold.jsonl --repeats 50
    """
    from benchcheck.report.terminal.labels import curve_renderables
    from benchcheck.runs.labels import run_ensemble_curve

    Outputs([judgments, gold], force=force).file(json_out, param="json")
    run = run_ensemble_curve(
        judgments, gold, unit=unit, repeats=repeats, seed=seed, positive=positive
    )
    payload = run.to_json()
    write_json(payload, json_out)
    if json_out != "-":
        _show(curve_renderables(payload))


# ----------------------------------------------------------------------------- flag-spans


@app.command("flag-spans")
@_guard
def flag_spans(
    gold: Annotated[str, typer.Argument(help="Gold NER file (CoNLL).")],
    output: Annotated[
        str | None, typer.Option("-o", "--output", help="Write the span flags here.")
    ] = None,
    predictions: Annotated[
        str | None,
        typer.Option(
            "--predictions",
            help="Model output: CoNLL with the same tokens, or a span table (sentence, start, "
            "end, type[, confidence]).",
        ),
    ] = None,
    spacy_model: Annotated[
        str | None, typer.Option("--spacy", help="Predict with this spaCy pipeline instead.")
    ] = None,
    label_map: Annotated[
        str | None,
        typer.Option("--label-map", help="MODEL=TYPE pairs, e.g. PERSON=PER,GPE=LOC,ORG=ORG."),
    ] = None,
    scheme: Annotated[
        str | None, typer.Option("--scheme", help="Force IOB1, IOB2 or BIOES.")
    ] = None,
    top: Annotated[int, typer.Option("--top", help="Flags to show in the terminal.")] = 10,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Flag entity spans where a model disagrees with the gold span or type.

    Kinds: type, boundary, spurious, missing; ranked by the model's confidence when given.
    The output feeds `benchcheck review export` unchanged.

    Example: benchcheck flag-spans test.conll --predictions pred.conll -o span_flags.jsonl
    """
    from benchcheck.io.tables import write_rows
    from benchcheck.report.terminal.labels import span_flag_renderables
    from benchcheck.runs.flag_spans import run_flag_spans

    if (predictions is None) == (spacy_model is None):
        raise UsageError("give exactly one of --predictions or --spacy")
    outputs = Outputs([gold, predictions], force=force)
    outputs.file(output, param="output")
    outputs.file(json_out, param="json")
    run = run_flag_spans(
        gold, predictions=predictions, spacy_model=spacy_model, label_map=label_map, scheme=scheme
    )
    if output is not None:
        write_rows(run.review, output)
    payload = run.to_json(top=top, output=output)
    write_json(payload, json_out)
    if json_out != "-":
        _show(span_flag_renderables(payload))
