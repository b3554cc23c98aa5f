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
from rich.table import Table

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._common import ForceOpt, JsonOpt, parse_assignments, write_json
from benchcheck.data.columns import Columns
from benchcheck.errors import BenchcheckError, InputError, UsageError
from benchcheck.io.output import Outputs
from benchcheck.report._numbers import num

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


def _fmt(v: Any, digits: int = 3) -> str:
    """:func:`~benchcheck.report._numbers.num`, element-wise inside lists."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x, digits) for x in v) + "]"
    return num(v, digits)


def _kv_table(title: str, rows: dict[str, Any]) -> Table:
    t = Table(title=title, show_header=False)
    t.add_column("")
    t.add_column("", justify="right")
    for k, v in rows.items():
        t.add_row(k, _fmt(v, 4))
    return t


def _flags_from_judgments(
    judgments: str,
    data: pl.DataFrame,
    *,
    source: str,
    threshold: float,
    judges: str | None,
    prompts: str | None,
    bins: tuple[float, ...],
) -> tuple[pl.DataFrame, tuple[str, ...]]:
    from benchcheck.io.judgments import read_judgments
    from benchcheck.runs.flag import FlagOptions, flag_frames

    options = FlagOptions(threshold, bins, _names(judges), _names(prompts))
    run = flag_frames(read_judgments(judgments), data, options=options, source=source)
    return run.flags, run.labels


def _names(value: str | None) -> tuple[str, ...] | None:
    names = _csv(value)
    return tuple(names) if names else None


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
    from benchcheck.report.terminal import flag_renderables
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
        for renderable in flag_renderables(payload):
            console.print(renderable)


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
    labels: Annotated[
        str | None,
        typer.Option("--labels", help="Comma-separated choices for the experts (default: seen)."),
    ] = None,
    json_out: JsonOpt = None,
) -> None:
    """Export flagged examples for blind expert review: shuffled, no original or LLM label.

    Writes expert_a.csv, expert_b.csv, … , Label Studio tasks.json + label_config.xml, and
    the private key.jsonl (never give it to the experts).

    Example: benchcheck review export flags.jsonl --experts 2 --seed 1 -o review/
    """
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.review import export_review

    frame = read_rows(flags)
    with _in_file(flags):
        res = export_review(
            frame, output, experts=experts, seed=seed, sample=sample, labels=_csv(labels)
        )
    payload = res.to_dict()
    write_json(payload, json_out)
    if json_out != "-":
        console.print(
            _kv_table(
                "Review export",
                {
                    "flagged": res.n_flagged,
                    "exported": res.n_items,
                    "experts": ", ".join(res.experts),
                    "seed": res.seed,
                    "folder": res.out_dir,
                },
            )
        )
        console.print("Keep key.jsonl away from the experts.")


@review_app.command("import")
@_guard
def review_import(
    experts: Annotated[list[str], typer.Argument(help="Expert label files (CSV or LS JSON).")],
    output: Annotated[str, typer.Option("-o", "--output", help="Write the gold table here.")],
    reconciled: Annotated[
        str | None, typer.Option("--reconciled", help="Reconciled labels (review_id,label).")
    ] = None,
    key: Annotated[
        str | None, typer.Option("--key", help="Review key (default: key.jsonl beside them).")
    ] = None,
    json_out: JsonOpt = None,
) -> None:
    """Import expert labels, reconcile, and write gold labels.

    Gold = original where the LLM agrees; else the reconciled label; else the experts'
    label where they agree; unresolved disagreements are reported, never guessed.

    Example: benchcheck review import r/expert_a.csv r/expert_b.csv --reconciled r/r.csv -o g.jsonl
    """
    from benchcheck.io.tables import write_rows
    from benchcheck.labels.review import import_review

    gold, summary = import_review(experts, key_path=key, reconciled=reconciled)
    write_rows(gold, output)
    payload = {"output": output, **summary.to_dict()}
    write_json(payload, json_out)
    if json_out == "-":
        return
    t = Table(title="Expert agreement")
    t.add_column("")
    t.add_column("before reconciliation", justify="right")
    t.add_column("after", justify="right")
    for k in summary.agreement_before:
        t.add_row(k, _fmt(summary.agreement_before[k]), _fmt(summary.agreement_after.get(k)))
    console.print(t)
    console.print(_kv_table("Gold labels", {**summary.status_counts}))
    rows = {f"changed {k}": v for k, v in summary.changes.items()}
    rows.update(
        {
            "sided with LLM": summary.sided_with_llm,
            "sided with original": summary.sided_with_original,
        }
    )
    console.print(_kv_table("Reviewed flags", rows))
    for w in summary.warnings:
        console_err.print(f"[yellow]warning:[/] {w}")
    if summary.unresolved_ids:
        shown = ", ".join(summary.unresolved_ids[:10])
        console_err.print(
            f"[yellow]{len(summary.unresolved_ids)} unresolved disagreement(s)[/] (no gold label): "
            f"{shown}{' …' if len(summary.unresolved_ids) > 10 else ''}"
        )


# ----------------------------------------------------------------------------- error-rate


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
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Error rate with an exact Clopper–Pearson interval and the finite population correction.

    Example: benchcheck error-rate --errors 12 --sample 200 --population 5000
    """
    from benchcheck.io.label_files import read_gold
    from benchcheck.labels.analysis import gold_error_rate
    from benchcheck.stats.intervals import error_rate_interval

    Outputs([gold], force=force).file(json_out, param="json")
    left: dict[str, int] = {}
    if gold is not None:
        if errors is not None or sample is not None:
            raise UsageError("give either a gold file or --errors/--sample, not both")
        with _in_file(gold):
            res, left = gold_error_rate(
                read_gold(gold), population=population, confidence=confidence
            )
    else:
        if errors is None or sample is None:
            raise UsageError("give a gold file, or both --errors and --sample")
        res = error_rate_interval(errors, sample, population, confidence=confidence)
    payload: dict[str, Any] = res.to_dict()
    if left:
        payload["excluded"] = left
    write_json(payload, json_out)
    if json_out == "-":
        return
    pct = f"{confidence:.0%}"
    rows: dict[str, Any] = {
        "errors": res.errors,
        "sample": res.sample,
        "population": res.population,
        "error rate": res.error_rate,
        f"{pct} Clopper–Pearson": list(res.ci),
    }
    if res.ci_fpc is not None:
        rows[f"{pct} with finite population correction"] = list(res.ci_fpc)
        rows["errors in the whole dataset, at least"] = res.population_errors_lower
    for k, v in left.items():
        rows[f"excluded: {k}"] = v
    console.print(_kv_table("Error rate", rows))


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
    from benchcheck.io.label_files import read_gold
    from benchcheck.labels.analysis import bin_agreement
    from benchcheck.labels.flags import parse_bins

    Outputs([gold], force=force).file(json_out, param="json")
    edges = parse_bins(bins)
    with _in_file(gold):
        stats = bin_agreement(
            read_gold(gold, need=("label", "llm_label", "confidence", "gold")),
            bins=edges,
            n_resamples=bootstrap,
            seed=seed,
            min_bin=min_bin,
        )
    payload = {"bootstrap": bootstrap, "seed": seed, "bins": [s.to_dict() for s in stats]}
    write_json(payload, json_out)
    if json_out == "-":
        return
    t = Table(title="Expert agreement per confidence bin (bootstrap 95% CI)")
    for c in ("bin", "n", "with LLM", "with original"):
        t.add_column(c, justify="right")
    for s in stats:
        t.add_row(
            s.bin,
            str(s.n),
            f"{_fmt(s.with_llm)} {_fmt(list(s.with_llm_ci))}",
            f"{_fmt(s.with_original)} {_fmt(list(s.with_original_ci))}",
        )
    console.print(t)
    for s in stats:
        if s.warning:
            console_err.print(f"[yellow]warning:[/] bin {s.bin}: {s.warning}")


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
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.remedies import apply_remedy, remedy_file_names, write_remedy

    if ablation != "random":
        raise UsageError(f"--ablation supports 'random', got {ablation!r}")
    outputs = Outputs([data, judgments, flags], force=force)
    outputs.folder(output, param="output", names=remedy_file_names(data))
    outputs.file(json_out, param="json")
    if (judgments is None) == (flags is None):
        raise UsageError("give exactly one of --judgments or --flags")
    rows = read_rows(data)
    if label not in rows.columns:
        shown = [c for c in rows.columns if c != "__line__"]
        raise InputError(f"no label column {label!r}; the file has {shown}", path=data)
    if id_col is not None and id_col not in rows.columns:
        raise InputError(f"no id column {id_col!r}", path=data)
    idc = id_col or ("id" if "id" in rows.columns else None)
    ids = (
        rows[idc].cast(pl.String) if idc else pl.Series("id", [str(i) for i in range(rows.height)])
    )
    frame = pl.DataFrame({"id": ids, "label": rows[label].cast(pl.String)})
    if "__line__" in rows.columns:
        frame = frame.with_columns(rows["__line__"].alias("line"))
    labels: tuple[str, ...] | None = None
    if judgments is not None:
        flagged, labels = _flags_from_judgments(
            judgments,
            frame,
            source=data,
            threshold=0.0,
            judges=judges,
            prompts=prompts,
            bins=(0.0, 1.0),
        )
    else:
        from benchcheck.labels.flags import normalise_flags

        flagged = normalise_flags(
            read_rows(flags).with_columns(pl.col("id").cast(pl.String)),  # type: ignore[arg-type]
            source=flags,
        )
        need = {"id", "llm_label", "confidence", "disagree"}
        if not need <= set(flagged.columns):
            raise InputError(f"not a flags file: needs columns {sorted(need)}", path=flags)
    splits = apply_remedy(
        rows,
        flagged,
        label_col=label,
        id_col=idc,
        mode=mode,
        threshold=threshold,
        seed=seed,
        labels=labels,
        source=data,
        flags_source=flags,
    )
    res = write_remedy(
        splits, output, source=data, mode=mode, threshold=threshold, seed=seed, force=force
    )
    write_json(res.to_dict(), json_out)
    if json_out != "-":
        console.print(
            _kv_table(
                f"Remedy: {mode} above {threshold:g}",
                {
                    "examples": res.n,
                    f"{'filtered' if mode == 'filter' else 'flipped'}": res.n_selected,
                    "random ablation (same size)": len(res.ablation_ids),
                    "cleaned": res.files["cleaned"],
                    "ablation": res.files["ablation_random"],
                },
            )
        )


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
    from benchcheck.io.label_files import read_gold
    from benchcheck.io.model_scores import read_model_scores
    from benchcheck.labels.remedies import rerank

    files = parse_assignments(scores, "--scores")
    Outputs([gold, *files.values()], force=force).file(json_out, param="json")
    if not files:
        raise UsageError("give at least one --scores NAME=FILE")
    g = read_gold(gold, need=("id", "label", "gold"))
    g = g.filter(pl.col("gold").is_not_null())
    if g.height == 0:
        raise InputError("the gold file has no example with a gold label", path=gold)
    models = [read_model_scores(n, p) for n, p in files.items()]
    res = rerank(
        g["id"].cast(pl.String).to_list(),
        g["label"].cast(pl.String).to_list(),
        g["gold"].cast(pl.String).to_list(),
        models,
        positive=positive,
        threshold=threshold,
        n_resamples=bootstrap,
        seed=seed,
        source=gold,
    )
    write_json(res.to_dict(), json_out)
    if json_out == "-":
        return
    t = Table(title=f"Models on original vs gold labels (n = {res.n})")
    for c in ("model", "metric", "original", "rank", "gold", "rank ", "change"):
        t.add_column(c, justify="right")
    for name, metrics in res.models.items():
        for metric, v in metrics.items():
            r = res.ranks[name][metric]
            change = r["change"]
            t.add_row(
                name,
                metric,
                _fmt(v["original"]),
                str(r["original"]),
                _fmt(v["gold"]),
                str(r["gold"]),
                f"{change:+d}" if change else "0",
            )
    console.print(t)
    if res.pairwise:
        t = Table(title="Paired bootstrap on gold labels (a − b)")
        for c in ("metric", "a", "b", "difference", "95% CI", "p"):
            t.add_column(c, justify="right")
        for p in res.pairwise:
            t.add_row(
                str(p["metric"]),
                str(p["a"]),
                str(p["b"]),
                _fmt(p["difference"]),
                _fmt(p["ci"]),
                _fmt(p["p_value"]),
            )
        console.print(t)


# ----------------------------------------------------------------------------- agreement


def _read_source(name: str, spec: str) -> dict[str, str]:
    from benchcheck.io.label_files import read_label_source

    path, _, column = spec.partition("#")
    return read_label_source(name, path, column or None)


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
    from benchcheck.io.judgments import read_judgments
    from benchcheck.io.label_files import read_crowd
    from benchcheck.labels.analysis import agreement_report

    specs = parse_assignments(source, "--source")
    used = [s.partition("#")[0] for s in specs.values()]
    Outputs([*used, crowd, judgments], force=force).file(json_out, param="json")
    if not specs and crowd is None:
        raise UsageError("give at least one --source NAME=FILE or --crowd")
    sources = {n: _read_source(n, s) for n, s in specs.items()}
    groups = {n: _csv(v) or [] for n, v in parse_assignments(group, "--group").items()}
    pair = _csv(disagreement) or []
    if len(pair) != 2:
        raise UsageError(f"--disagreement expects two source names, got {disagreement!r}")
    crowd_frame = None
    if crowd is not None:
        crowd_frame = read_crowd(crowd)
    report = agreement_report(
        sources,
        crowd=crowd_frame,
        groups=groups,
        judgments=read_judgments(judgments) if judgments else None,
        truth=truth,
        disagreement=(pair[0], pair[1]),
        negative=negative,
    )
    write_json(report, json_out)
    if json_out == "-":
        return
    f1 = report["weighted_f1"]["f1"]  # type: ignore[index]
    names = report["sources"]
    t = Table(title="Weighted F1 (row = truth)")
    t.add_column("truth \\ other")
    for n in names:  # type: ignore[union-attr]
        t.add_column(n, justify="right")
    for a in names:  # type: ignore[union-attr]
        t.add_row(a, *[_fmt(f1[a][b]) for b in names])  # type: ignore[union-attr]
    console.print(t)
    if report["fleiss"]:
        t = Table(title="Fleiss' kappa per group")
        for c in ("group", "kappa", "items", "kappa (LLM ≠ original)", "items "):
            t.add_column(c, justify="right")
        for g, v in report["fleiss"].items():  # type: ignore[union-attr]
            d = v.get("disagreement") or {}
            t.add_row(
                g,
                _fmt(v["all"]["kappa"]),
                str(v["all"]["n_items"]),
                _fmt(d.get("kappa")),
                _fmt(d.get("n_items")),
            )
        console.print(t)
    if report["per_annotator"]:
        t = Table(title=f"Crowd annotators vs {truth}")
        for c in ("annotator", "items", "with truth", "agreement", "kappa"):
            t.add_column(c, justify="right")
        for r in report["per_annotator"]:  # type: ignore[union-attr]
            t.add_row(
                r["annotator"],
                str(r["n_items"]),
                str(r["n_with_truth"]),
                _fmt(r["agreement"]),
                _fmt(r["cohen_kappa"]),
            )
        console.print(t)


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
    from benchcheck.io.judgments import read_judgments
    from benchcheck.io.label_files import read_gold
    from benchcheck.labels.analysis import ensemble_curve

    Outputs([judgments, gold], force=force).file(json_out, param="json")
    g = read_gold(gold, need=("id", "label", "gold"))
    with _in_file(gold):
        points, members = ensemble_curve(
            read_judgments(judgments), g, unit=unit, repeats=repeats, seed=seed, positive=positive
        )
    payload = {
        "unit": unit,
        "repeats": repeats,
        "seed": seed,
        "members": members,
        "points": [p.to_dict() for p in points],
    }
    write_json(payload, json_out)
    if json_out == "-":
        return
    t = Table(title=f"Ensemble size curve ({len(members)} {unit}s)")
    for c in ("size", "subsets", "ROC AUC", "range", "error F1", "range "):
        t.add_column(c, justify="right")
    for p in points:
        t.add_row(
            str(p.size),
            str(p.n_subsets),
            _fmt(p.roc_auc_mean),
            _fmt(list(p.roc_auc_ci)),
            _fmt(p.f1_mean),
            _fmt(list(p.f1_ci)),
        )
    console.print(t)


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
    from benchcheck.io.conll import read_conll
    from benchcheck.io.tables import read_rows, write_rows
    from benchcheck.labels.ner_flags import (
        compare_spans,
        parse_label_map,
        spacy_spans,
        span_review_frame,
        spans_from_split,
    )

    if (predictions is None) == (spacy_model is None):
        raise UsageError("give exactly one of --predictions or --spacy")
    outputs = Outputs([gold, predictions], force=force)
    outputs.file(output, param="output")
    outputs.file(json_out, param="json")
    split = read_conll(gold, scheme=scheme.upper() if scheme else None)
    if split.tokens is None:
        raise InputError("not an NER file", path=gold)
    if spacy_model is not None:
        pred = spacy_spans(split.tokens, spacy_model, label_map=parse_label_map(label_map))
    elif Path(predictions).suffix.lower() in (".jsonl", ".csv", ".tsv", ".parquet"):  # type: ignore[arg-type]
        pred = read_rows(predictions)  # type: ignore[arg-type]
        missing = [c for c in ("sentence", "start", "end", "type") if c not in pred.columns]
        if missing:
            raise InputError(f"predicted spans lack column(s) {missing}", path=predictions)
    else:
        other = read_conll(predictions, scheme=scheme.upper() if scheme else None)  # type: ignore[arg-type]
        _same_tokens(split, other, predictions)  # type: ignore[arg-type]
        pred = spans_from_split(other)
        mapping = parse_label_map(label_map)
        if mapping:
            pred = pred.with_columns(pl.col("type").replace(mapping))
    flags = compare_spans(spans_from_split(split), pred)
    frame = span_review_frame(split.tokens, flags)
    counts = {
        k: int((flags["kind"] == k).sum()) for k in ("type", "boundary", "spurious", "missing")
    }
    payload: dict[str, Any] = {
        "gold": gold,
        "n_gold_spans": int(split.spans.height) if split.spans is not None else 0,
        "n_pred_spans": int(pred.height),
        "flags": int(flags.height),
        "by_kind": counts,
        "top": frame.head(top)
        .select("rank", "id", "label", "llm_label", "kind", "text")
        .to_dicts(),
    }
    if output is not None:
        write_rows(frame, output)
        payload["output"] = output
    write_json(payload, json_out)
    if json_out == "-":
        return
    console.print(
        _kv_table(
            "Span flags",
            {
                "gold spans": payload["n_gold_spans"],
                "model spans": payload["n_pred_spans"],
                **counts,
            },
        )
    )
    if payload["top"]:
        t = Table(title=f"Top {len(payload['top'])} span flags")
        for c in ("rank", "kind", "gold", "model", "text"):
            t.add_column(c)
        for r in payload["top"]:
            t.add_row(str(r["rank"]), r["kind"], r["label"], r["llm_label"], r["text"])
        console.print(t)


def _same_tokens(gold: Any, other: Any, path: str) -> None:
    a, b = gold.tokens, other.tokens
    if a.height != b.height or gold.n != other.n:
        raise InputError(
            f"predictions have {other.n} sentences / {b.height} tokens; the gold file has "
            f"{gold.n} / {a.height}",
            path=path,
        )
    diff = (a["token"] != b["token"]) | (a["sentence"] != b["sentence"])
    if diff.any():
        k = int(diff.arg_true()[0])
        s = int(b["sentence"][k])
        line = int(other.table["line"][s]) + int(b["position"][k])
        raise InputError(
            "token differs from the gold file", path=path, line=line, got=b["token"][k]
        )
