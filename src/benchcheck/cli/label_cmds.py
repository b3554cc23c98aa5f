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
from benchcheck.cli._common import parse_assignments, write_json
from benchcheck.errors import BenchcheckError, InputError, UsageError
from benchcheck.report._numbers import num

JsonOpt = Annotated[
    str | None, typer.Option("--json", help="Write the canonical JSON here ('-' for stdout).")
]
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


def _read_data(
    path: str,
    *,
    text: str | None,
    text_a: str | None,
    text_b: str | None,
    label: str,
    id_col: str | None,
) -> pl.DataFrame:
    from benchcheck.io.tables import read_rows, read_table

    if text is None and text_a is None:
        cols = read_rows(path).columns
        if "text" in cols:
            text = "text"
        elif "text_a" in cols and "text_b" in cols:
            text_a, text_b = "text_a", "text_b"
        else:
            raise InputError(
                "name the text column (--text) or the pair columns (--text-a/--text-b)", path=path
            )
    return read_table(path, text=text, text_a=text_a, text_b=text_b, label=label, id=id_col)


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
    from benchcheck.labels.ensemble import ensemble, judgment_labels, read_judgments
    from benchcheck.labels.flags import flag_examples

    j = read_judgments(judgments)
    labels = judgment_labels(j)
    ens = ensemble(j, judges=_csv(judges), prompts=_csv(prompts))
    return flag_examples(
        data, ens, threshold=threshold, bins=bins, labels=labels, source=source
    ), labels


def _read_pred_probs(path: str, ids: list[str], labels: tuple[str, ...]) -> Any:
    import numpy as np

    from benchcheck.io.tables import read_rows

    if path.endswith(".npy"):
        try:
            arr = np.load(path)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read a NumPy array: {exc}", path=path) from None
        if arr.ndim != 2 or arr.shape[0] != len(ids):
            raise InputError(
                f"expected an array of shape ({len(ids)}, {len(labels)}) in data order",
                path=path,
                got=arr.shape,
            )
        return arr
    frame = read_rows(path)
    cols = [f"p_{lab}" for lab in labels]
    missing = [c for c in ["id", *cols] if c not in frame.columns]
    if missing:
        raise InputError(f"predicted probabilities lack column(s) {missing}", path=path)
    frame = frame.with_columns(pl.col("id").cast(pl.String))
    index = {i: k for k, i in enumerate(frame["id"].to_list())}
    absent = [i for i in ids if i not in index]
    if absent:
        raise InputError("no predicted probabilities for id", path=path, got=absent[0])
    arr = frame.select(cols).to_numpy().astype(float)
    return arr[[index[i] for i in ids]]


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
) -> None:
    """Flag examples whose ensemble label disagrees with the original label.

    The ensemble probability is the mean over judges × prompts; a flag is a disagreement
    whose confidence (probability of the LLM label) is at least --threshold.

    Example: benchcheck flag judgments.parquet --data data.jsonl --threshold 0.5 -o flags.jsonl
    """
    from benchcheck.io.tables import write_rows
    from benchcheck.labels.flags import (
        confident_learning_flags,
        detector_overlap,
        parse_bins,
        summarize_flags,
    )

    edges = parse_bins(bins)
    frame = _read_data(data, text=text, text_a=text_a, text_b=text_b, label=label, id_col=id_col)
    flags, labels = _flags_from_judgments(
        judgments,
        frame,
        source=data,
        threshold=threshold,
        judges=judges,
        prompts=prompts,
        bins=edges,
    )
    payload: dict[str, Any] = {"judgments": judgments, "data": data}
    summary = summarize_flags(flags, threshold=threshold, bins=edges)
    payload["summary"] = summary.to_dict()
    if pred_probs is not None:
        probs = _read_pred_probs(pred_probs, flags["id"].to_list(), labels)
        cl = confident_learning_flags(flags["label"].to_list(), probs, labels)
        flags = flags.with_columns(pl.Series("cleanlab_issue", cl))
        ov = detector_overlap(
            flags.filter(pl.col("flagged"))["id"].to_list(),
            flags.filter(pl.col("cleanlab_issue"))["id"].to_list(),
        )
        payload["confident_learning"] = ov.to_dict()
    if output is not None:
        if Path(output).resolve() == Path(data).resolve():
            raise UsageError("refusing to overwrite the data file with the flags")
        write_rows(flags, output)
        payload["output"] = output
    cols = ["rank", "id", "label", "llm_label", "confidence", "bin"]
    payload["top"] = flags.filter(pl.col("flagged")).sort("rank").head(top).select(cols).to_dicts()
    write_json(payload, json_out)
    if json_out == "-":
        return
    s = payload["summary"]
    console.print(
        _kv_table(
            "Flags",
            {
                "examples": s["n"],
                "judged": s["judged"],
                "disagreements": s["disagreements"],
                f"flagged (confidence ≥ {threshold:g})": s["flagged"],
                "flag rate": s["flag_rate"],
            },
        )
    )
    t = Table(title="Flags per confidence bin")
    t.add_column("bin")
    t.add_column("flags", justify="right")
    for b, n in s["flagged_by_bin"].items():
        t.add_row(b, str(n))
    console.print(t)
    if payload["top"]:
        t = Table(title=f"Top {len(payload['top'])} flags")
        for c in cols:
            t.add_column(c)
        for row in payload["top"]:
            t.add_row(*[_fmt(row[c]) for c in cols])
        console.print(t)
    if "confident_learning" in payload:
        console.print(_kv_table("LLM flags vs confident learning", payload["confident_learning"]))


# ----------------------------------------------------------------------------- review

ForceOpt_ = Annotated[
    bool, typer.Option("--force", help="Overwrite outputs that exist (never an input).")
]


def _claim_outputs(
    outputs: dict[str, str | None], inputs: list[str | None], *, force: bool
) -> None:
    """Refuse an output that is an input, or that exists without ``force``, before any work."""
    import os

    seen: dict[Path, str] = {}
    for param, out in outputs.items():
        if out is None or out == "-":
            continue
        target = Path(out).resolve()
        if target.is_dir():
            raise UsageError(f"{{{param}}}: {out} is a folder; expected a file path")
        if target in seen:
            raise UsageError(f"{{{param}}} and {{{seen[target]}}} name the same path {out}")
        seen[target] = param
        for src in inputs:
            if src is None:
                continue
            s = Path(src)
            same = s.resolve() == target or (
                s.exists() and target.exists() and os.path.samefile(s, target)
            )
            if same:
                raise UsageError(
                    f"{{{param}}}: refusing to write {out}: it is an input of this command"
                )
        if target.exists() and not force:
            raise UsageError(f"{{{param}}}: {out} exists; pass {{force}} to overwrite it")


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
    force: ForceOpt_ = False,
) -> None:
    """Export flagged examples for blind expert review: shuffled, no original or LLM label.

    Writes expert_a.csv, expert_b.csv, … (formula-like cells prefixed with '), Label Studio
    tasks.json + label_config.xml, Argilla 2.x argilla/settings.json + records.json, and the
    private key.jsonl (never give it to the experts). A folder that already holds a review
    (a key, expert files) is refused unless --force.

    Example: benchcheck review export flags.jsonl --experts 2 --audit-sample 100 --seed 1 -o review/
    """
    from benchcheck.runs.review import export_review

    _claim_outputs({"json_out": json_out}, [flags], force=force)
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
    write_json(res.to_json(), json_out)
    for name in res.replaced:
        console_err.print(
            f"[yellow]warning:[/] replaced {Path(res.out_dir) / name.split(' (')[0]}"
            f" ({name.partition(' (')[2].rstrip(')') or 'it existed'})"
        )
    if json_out == "-":
        return
    p = res.package
    console.print(
        _kv_table(
            "Review export",
            {
                "flagged": p.n_flagged,
                "flags exported": p.n_disputed,
                "audit sample (undisputed)": p.n_audit,
                "items per expert": p.n_items,
                "experts": ", ".join(p.experts),
                "seed": p.seed,
                "folder": res.out_dir,
            },
        )
    )
    console.print("Keep key.jsonl away from the experts.")


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
    force: ForceOpt_ = False,
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
    from benchcheck.runs.review import import_review

    key_file = key if key is not None else str(Path(experts[0]).parent / KEY_NAME)
    inputs: list[str | None] = [*experts, key_file, reconciled]
    _claim_outputs({"output": output, "json_out": json_out}, inputs, force=force)
    run = import_review(experts, key_path=key, reconciled=reconciled)
    summary = run.summary
    write_rows(run.gold, output)
    write_json(run.to_json(output=output), json_out)
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
    rows: dict[str, Any] = {f"changed {k}": v for k, v in summary.changes.items()}
    rows.update(
        {
            "sided with LLM": summary.sided_with_llm,
            "sided with original": summary.sided_with_original,
        }
    )
    if summary.audited:
        rows["audited (undisputed)"] = summary.audited
        rows["errors found by the audit"] = summary.audit_errors
    console.print(_kv_table("Reviewed items", rows))
    for w in summary.warnings:
        console_err.print(f"[yellow]warning:[/] {w}")
    if summary.unresolved_ids:
        shown = ", ".join(summary.unresolved_ids[:10])
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
    force: ForceOpt_ = False,
) -> None:
    """Error rate: the paper's lower bound and, with an audit sample, the whole dataset's.

    Lower bound: exact Clopper–Pearson interval with the finite population correction over
    the reviewed flags and the examples the LLM agrees with. With an audit sample
    (review export --audit-sample), a stratified estimate of the whole dataset's error rate
    (exact per-stratum intervals, MOVER combination) and the flags' recall.

    Example: benchcheck error-rate gold.jsonl --population 2500 --plan 0.02
    """
    from benchcheck.runs.error_rate import error_rate as run_error_rate

    _claim_outputs({"json_out": json_out}, [gold], force=force)
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
    write_json(run.to_json(), json_out)
    if json_out == "-":
        return
    res = run.lower_bound
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
    for k, v in run.excluded.items():
        rows[f"excluded: {k}"] = v
    console.print(_kv_table("Error rate of the reviewed sample (a lower bound)", rows))
    st = run.stratified
    if st is not None:
        t = Table(title=f"Strata ({pct} intervals)")
        for c in ("stratum", "examples", "reviewed", "errors", "error rate", "exact", "mid-p"):
            t.add_column(c, justify="right")
        for s in st.strata:
            t.add_row(
                s.name,
                str(s.population),
                str(s.reviewed),
                str(s.errors),
                _fmt(s.error_rate, 4),
                _fmt(list(s.ci_exact), 4),
                _fmt(list(s.ci_midp), 4),
            )
        console.print(t)
        console.print(
            _kv_table(
                "Whole dataset (stratified estimate)",
                {
                    "error rate": st.error_rate,
                    f"{pct} interval ({st.method} per stratum, MOVER)": list(st.ci),
                    "errors, estimated": st.errors_estimate,
                    f"errors, {pct} interval": list(st.errors_ci),
                    "recall of the flags": st.recall,
                    f"recall, {pct} interval": None if st.recall_ci is None else list(st.recall_ci),
                },
            )
        )
        if run.strata is not None and any(run.strata.unresolved):
            console_err.print(
                "[yellow]warning:[/] unresolved reviews left out of the strata: "
                + ", ".join(
                    f"{n} {u}"
                    for n, u in zip(("disputed", "undisputed"), run.strata.unresolved, strict=True)
                )
            )
    elif run.stratified_note is not None:
        console_err.print(f"note: no stratified estimate: {run.stratified_note}")
    if run.plan is not None:
        t = Table(
            title=f"Plan: reviews for a {pct} interval at most {run.plan.target_width:g} wide "
            f"(expected width {run.plan.expected_width:.4f})"
        )
        for c in ("stratum", "examples", "anticipated rate", "reviewed", "planned", "to do"):
            t.add_column(c, justify="right")
        for sp in run.plan.strata:
            t.add_row(
                sp.name,
                str(sp.population),
                _fmt(sp.anticipated_rate, 4),
                str(sp.reviewed),
                str(sp.planned),
                str(sp.additional),
            )
        console.print(t)


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
) -> None:
    """Per confidence bin: share of reviewed flags where experts sided with the LLM vs original.

    Example: benchcheck bins gold.jsonl --bins 0.5,0.6,0.7,0.8,0.9,0.95,1 --bootstrap 1000 --seed 0
    """
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.analysis import bin_agreement
    from benchcheck.labels.flags import parse_bins

    edges = parse_bins(bins)
    with _in_file(gold):
        stats = bin_agreement(
            read_rows(gold), bins=edges, n_resamples=bootstrap, seed=seed, min_bin=min_bin
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
) -> None:
    """Filter or flip flagged training examples, plus a random ablation of the same size.

    Writes cleaned.<ext> and ablation_random.<ext>; never modifies the input.

    Example: benchcheck remedy train.jsonl --judgments j.parquet --threshold 0.9 --mode flip -o out/
    """
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.remedies import apply_remedy, write_remedy

    if ablation != "random":
        raise UsageError(f"--ablation supports 'random', got {ablation!r}")
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
    )
    res = write_remedy(splits, output, source=data, mode=mode, threshold=threshold, seed=seed)
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
) -> None:
    """Score models on original and gold labels; rank change; paired bootstrap of differences.

    Example: benchcheck rerank --gold gold.jsonl --scores gpt4=a.jsonl --scores deberta=b.jsonl
    """
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.remedies import read_model_scores, rerank

    files = parse_assignments(scores, "--scores")
    if not files:
        raise UsageError("give at least one --scores NAME=FILE")
    g = read_rows(gold)
    for c in ("id", "label", "gold"):
        if c not in g.columns:
            raise InputError(f"the gold file has no {c!r} column", path=gold)
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
    from benchcheck.io.tables import read_rows

    path, _, column = spec.partition("#")
    frame = read_rows(path)
    if not column:
        for guess in (name, f"{name}_label", "label"):
            if guess in frame.columns:
                column = guess
                break
        else:
            column = "label"
    for c in ("id", column):
        if c not in frame.columns:
            shown = [x for x in frame.columns if x != "__line__"]
            raise InputError(
                f"source {name!r}: no column {c!r} (use NAME=FILE#COLUMN); the file has {shown}",
                path=path,
            )
    out: dict[str, str] = {}
    for i, v in frame.select(
        pl.col("id").cast(pl.String), pl.col(column).cast(pl.String)
    ).iter_rows():
        if v is not None and v != "":
            out[i] = v
    return out


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
) -> None:
    """Compare label sources: weighted-F1 matrix (rows = truth), Fleiss' kappa, crowd votes.

    Example: benchcheck agreement --source orig=g.jsonl#label --source gold=g.jsonl --crowd c.tsv
    """
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.analysis import agreement_report
    from benchcheck.labels.ensemble import read_judgments

    specs = parse_assignments(source, "--source")
    if not specs and crowd is None:
        raise UsageError("give at least one --source NAME=FILE or --crowd")
    sources = {n: _read_source(n, s) for n, s in specs.items()}
    groups = {n: _csv(v) or [] for n, v in parse_assignments(group, "--group").items()}
    pair = _csv(disagreement) or []
    if len(pair) != 2:
        raise UsageError(f"--disagreement expects two source names, got {disagreement!r}")
    crowd_frame = None
    if crowd is not None:
        crowd_frame = read_rows(crowd)
        missing = [c for c in ("id", "annotator", "label") if c not in crowd_frame.columns]
        if missing:
            raise InputError(f"the crowd file lacks column(s) {missing}", path=crowd)
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
) -> None:
    """ROC AUC against gold and error-detection F1 as the ensemble grows.

    Example: benchcheck ensemble-curve judgments.parquet --gold gold.jsonl --repeats 50
    """
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.analysis import ensemble_curve
    from benchcheck.labels.ensemble import read_judgments

    g = read_rows(gold)
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
