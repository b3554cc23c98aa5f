"""Commands of diagnostic evaluation: diagnose, artifacts, human, check-suite."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._common import parse_assignments, write_json
from benchcheck.cli.stats_cmds import JsonOpt
from benchcheck.errors import BenchcheckError, UsageError
from benchcheck.report._numbers import num

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


#: Rows with fewer examples are dimmed in the table.
SMALL_N = 10


def _label_map(value: str | None) -> dict[str, str] | None:
    if not value:
        return None
    return parse_assignments([v.strip() for v in value.split(",") if v.strip()], "--label-map")


def _fmt(value: float | None, digits: int = 3) -> str:
    """Format as every rendering does (``report._numbers.num``: ``—`` for None and NaN)."""
    return num(value, digits)


def _fmt_cell(cell: dict[str, Any]) -> str:
    if cell["r_k"] is None:
        return "—"
    lo, hi = cell["ci"]
    return f"{cell['r_k']:.2f} [{_fmt(lo, 2)}, {_fmt(hi, 2)}]"


# --------------------------------------------------------------------------------- diagnose
def run_diagnose(
    suite_path: str,
    predictions: list[str],
    *,
    taxonomy: str | None = None,
    label_map: str | None = None,
    label_column: str | None = None,
    seed: int = 0,
    resamples: int = 1000,
    judges: list[str] | None = None,
    base_url: str | None = None,
    cache: str | None = None,
    no_cache: bool = False,
) -> dict[str, Any]:
    """Load the suite and every model's predictions, score them; return the JSON payload.

    ``judges`` are ``backend:model`` specs (see ``benchcheck judge``): each LLM answers the
    three-way NLI question on every example and is scored like a predictions file.
    """
    from benchcheck.diagnostics.score import diagnose_suite
    from benchcheck.diagnostics.suite import load_suite
    from benchcheck.io.diagnostic import read_model_predictions

    files = parse_assignments(predictions, "--predictions")
    if not files and not judges:
        raise UsageError("give at least one --predictions NAME=FILE or --judge BACKEND:MODEL")
    suite = load_suite(suite_path, taxonomy=taxonomy)
    preds, notes = read_model_predictions(files, ids=suite.ids, label_names=suite.label_names,
                                          label_map=_label_map(label_map), column=label_column)
    if judges:
        for name, labels in _judge(suite, judges, base_url, cache, no_cache).items():
            if name in preds:
                raise UsageError(f"model name {name!r} given twice")
            preds[name] = labels
            notes[name] = ["three-way NLI prompt 'nli3', most probable label"]
    result = diagnose_suite(suite, preds, seed=seed, n_resamples=resamples,
                            prediction_notes=notes)
    return result.to_json()


def _judge(suite: Any, specs: list[str], base_url: str | None, cache: str | None,
           no_cache: bool) -> dict[str, dict[str, str]]:
    from contextlib import ExitStack

    from benchcheck.diagnostics.judged import judge_predictions
    from benchcheck.judges.cache import JudgeCache, default_cache_path
    from benchcheck.judges.run import make_judge

    with ExitStack() as stack:
        store = None if no_cache else stack.enter_context(
            JudgeCache(cache or default_cache_path()))
        built = [stack.enter_context(make_judge(s, base_url=base_url)) for s in specs]
        from rich.progress import Progress

        with Progress(console=console_err, transient=True) as bar:
            task = bar.add_task("judging", total=None)
            return judge_predictions(
                suite, built, cache=store,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )


def render_diagnose(payload: dict[str, Any], *, fine: bool = True) -> None:
    """Print the per-category table, the direction and monotonicity checks, and the note."""
    models = list(payload["models"])
    first = payload["models"][models[0]]
    table = Table(title=f"R_K [95% CI] per phenomenon — {payload['suite']['source']}")
    table.add_column("category / tag")
    table.add_column("n", justify="right")
    # Long names (e.g. judges) make the table unreadable: show letters and a legend.
    short = len(models) > 1 and max(len(m) for m in models) > 12
    alias = {m: (chr(ord("A") + i) if short else m) for i, m in enumerate(models)}
    for m in models:
        table.add_column(alias[m], justify="right", overflow="fold")
    if len(models) > 1:
        table.add_column("ranking (> : paired p < 0.05)", overflow="fold")

    def ranking(group: str, key: str | None) -> str:
        rk = payload.get("rankings", {}).get(group, {})
        entry = rk if key is None else rk.get(key, {})
        if not entry:
            return ""
        order = entry["order"]
        tests = {(t["a"], t["b"]): t["p_value"] for t in entry["paired_tests"]}
        parts = [alias[order[0]]]
        for a, b in zip(order, order[1:], strict=False):
            p = tests.get((a, b))
            parts.append(f"{'>' if p is not None and p < 0.05 else '≈'} {alias[b]}")
        return " ".join(parts)

    def row(label: str, group: str, key: str | None, style: str = "") -> None:
        cells = [payload["models"][m][group] if key is None else payload["models"][m][group][key]
                 for m in models]
        extra = [ranking(group, key)] if len(models) > 1 else []
        if not style and cells[0]["n"] < SMALL_N:
            style = "dim"
        table.add_row(label, str(cells[0]["n"]), *[_fmt_cell(c) for c in cells], *extra,
                      style=style)

    row("overall", "overall", None, "bold")
    groups = payload["suite"].get("tag_groups", {})
    shown: set[str] = set()
    for coarse in first["coarse"]:
        row(coarse, "coarse", coarse, "bold")
        for tag in groups.get(coarse, []) if fine else []:
            if tag in first["fine"] and tag not in shown:
                shown.add(tag)
                row(f"  {tag}", "fine", tag)
    for tag in first["fine"] if fine else []:
        if tag not in shown:
            row(f"  {tag}", "fine", tag)
    console.print(table)
    if short:
        console.print("  ".join(f"{alias[m]} = {m}" for m in models), highlight=False)
    for m in models:
        d = payload["models"][m]["directions"]["overall"]
        mono = payload["models"][m]["monotonicity"]
        console.print(
            f"[bold]{m}[/]: forward accuracy {_fmt(d['forward']['accuracy'])} "
            f"(n={d['forward']['n']}), backward {_fmt(d['backward']['accuracy'])} "
            f"(n={d['backward']['n']})."
            + (f" Monotonicity: {mono['reading']}." if mono.get("applies") else ""),
            highlight=False,
        )
        for note in payload.get("prediction_notes", {}).get(m, []):
            console.print(f"  note: {note}", highlight=False)
    console.print(f"Dim rows have fewer than {SMALL_N} examples: their intervals are wide; "
                  "read them as indications.", highlight=False)
    console.print(f"[italic]{payload['note']}[/]", highlight=False)


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
) -> None:
    """R_K per phenomenon (overall, coarse, fine) with intervals and paired tests; see docs.

    Ids: GLUE TSV row index, or '<id>:forward'/'<id>:backward' for JSONL suites, or row order.
    Compare models within a category, never categories with each other.

    Example: benchcheck diagnose --suite diagnostic-full.tsv --predictions bert=bert.tsv
    Example: benchcheck diagnose --suite suite.jsonl --judge llama-cpp:qwen2.5-coder-1.5b-instruct
    """
    payload = run_diagnose(suite, predictions or [], taxonomy=taxonomy, label_map=label_map,
                           label_column=label_column, seed=seed, resamples=resamples,
                           judges=judge, base_url=base_url, cache=cache, no_cache=no_cache)
    if json_out != "-":
        render_diagnose(payload, fine=fine)
    write_json(payload, json_out)


# -------------------------------------------------------------------------------- artifacts
def run_artifacts(
    data: str | None,
    *,
    train: str | None = None,
    eval_path: str | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    side: str = "hypothesis",
    seed: int = 0,
    top: int = 10,
    resamples: int = 1000,
    max_train: int | None = None,
    label_map: str | None = None,
) -> dict[str, Any]:
    """Read the two splits, run the partial-input audit; return the JSON payload."""
    from benchcheck.diagnostics.artifacts import partial_input_audit
    from benchcheck.io.diagnostic import find_pair_splits, looks_like_suite, read_pairs

    if side not in ("hypothesis", "premise"):
        raise UsageError(f"--input must be 'hypothesis' or 'premise', got {side!r}")
    if data is not None:
        if train or eval_path:
            raise UsageError("give a data folder or --train/--eval, not both")
        train_file, eval_file = find_pair_splits(data)
    else:
        if not train or not eval_path:
            raise UsageError("give a data folder, or both --train and --eval")
        train_file, eval_file = Path(train), Path(eval_path)
    tr = read_pairs(train_file, text_a=text_a, text_b=text_b, label=label)
    if looks_like_suite(eval_file):  # a diagnostic suite keeps its own columns
        ev = read_pairs(eval_file)
    else:
        ev = read_pairs(eval_file, text_a=text_a, text_b=text_b, label=label)
    mapping = _label_map(label_map) or {}
    tr_labels = [mapping.get(x, x) for x in tr.labels]
    ev_labels = [mapping.get(x, x) for x in ev.labels]
    pick = (lambda p: p.hypotheses) if side == "hypothesis" else (lambda p: p.premises)
    result = partial_input_audit(
        pick(tr), tr_labels, pick(ev), ev_labels, seed=seed, top_k=top,
        n_resamples=resamples, input_name=side, max_train=max_train,
        meta={"train": str(train_file), "eval": str(eval_file),
              "train_skipped_rows": tr.n_skipped, "eval_skipped_rows": ev.n_skipped,
              "eval_kind": ev.kind},
    )
    return result.to_json()


def render_artifacts(payload: dict[str, Any]) -> None:
    """Print accuracy and baselines, the top cues per label, and the plain reading."""
    table = Table(title=f"{payload['input']}-only baseline: {payload['meta'].get('train')} → "
                        f"{payload['meta'].get('eval')}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    lo, hi = payload["accuracy_ci"]
    table.add_row("accuracy [95% CI]", f"{payload['accuracy']:.3f} [{lo:.3f}, {hi:.3f}]")
    table.add_row("R_K [95% CI]", _fmt_cell(payload["r_k"]))
    b = payload["baselines"]
    table.add_row(f"majority class ({b['majority_label']})", f"{b['majority_accuracy']:.3f}")
    table.add_row("chance", f"{b['chance_accuracy']:.3f}")
    table.add_row("n train / n eval", f"{payload['n_train']} / {payload['n_eval']}")
    console.print(table)
    cues = Table(title="Top cue n-grams per label (weight, train count, label share)")
    cues.add_column("label")
    cues.add_column("cues")
    for lab, items in payload["cues"].items():
        cues.add_row(lab, ", ".join(f"{c['feature']} ({c['weight']:.2f}, {c['train_count']}, "
                                    f"{c['label_share']:.0%})" for c in items[:5]) or "—")
    console.print(cues)
    console.print(payload["reading"], highlight=False)


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
) -> None:
    """Hypothesis-only (partial-input) baseline: how much of the task needs no premise.

    Columns default to premise/hypothesis or sentence1/sentence2 and label or gold_label.
    No universal threshold: read the numbers against datasets you trust.

    Example: benchcheck artifacts --train snli_train.jsonl --eval diagnostic-full.tsv
    Example: benchcheck artifacts data/nli/ --json artifacts.json
    """
    payload = run_artifacts(data, train=train, eval_path=eval_path, text_a=text_a,
                            text_b=text_b, label=label, side=side, seed=seed, top=top,
                            resamples=resamples, max_train=max_train, label_map=label_map)
    if json_out != "-":
        render_artifacts(payload)
    write_json(payload, json_out)


# ------------------------------------------------------------------------------------ human
def run_human(
    suite_path: str,
    annotations: str,
    *,
    taxonomy: str | None = None,
    label_map: str | None = None,
    seed: int = 0,
    resamples: int = 1000,
) -> dict[str, Any]:
    """Read the suite and the annotations, compute the human baseline; return the payload."""
    from benchcheck.diagnostics.human import human_baseline
    from benchcheck.diagnostics.suite import load_suite
    from benchcheck.io.diagnostic import read_annotations

    suite = load_suite(suite_path, taxonomy=taxonomy)
    ann = read_annotations(annotations, ids=suite.ids, label_names=suite.label_names,
                           label_map=_label_map(label_map))
    return human_baseline(suite, ann, seed=seed, n_resamples=resamples).to_json()


def render_human(payload: dict[str, Any]) -> None:
    """Print Fleiss' kappa and each annotator's R_K against gold."""
    table = Table(title="Human baseline: R_K against gold")
    table.add_column("annotator")
    table.add_column("n", justify="right")
    table.add_column("R_K [95% CI]", justify="right")
    table.add_column("accuracy", justify="right")
    for name, cell in payload["annotators"].items():
        table.add_row(name, str(cell["n"]), _fmt_cell(cell), _fmt(cell["accuracy"]))
    mv = payload["majority_vote"]
    table.add_row("majority vote", str(mv["n"]), _fmt_cell(mv), _fmt(mv["accuracy"]),
                  style="bold")
    console.print(table)
    undefined = payload["fleiss_kappa"] is None and payload["n_items_kappa"] > 0
    console.print(
        f"Fleiss' kappa {_fmt(payload['fleiss_kappa'])} over {payload['n_items_kappa']} "
        "examples labelled by every annotator"
        + (" (undefined: every rating is the same label)" if undefined else "")
        + f"; mean annotator R_K {_fmt(payload['mean_r_k'])}.",
        highlight=False,
    )


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
) -> None:
    """Human baseline: Fleiss' kappa over annotators and each annotator's R_K against gold.

    Example: benchcheck human --suite suite.jsonl --annotations ann.csv
    """
    payload = run_human(suite, annotations, taxonomy=taxonomy, label_map=label_map, seed=seed,
                        resamples=resamples)
    if json_out != "-":
        render_human(payload)
    write_json(payload, json_out)


# ------------------------------------------------------------------------------ check-suite
def run_check_suite(suite_path: str, *, taxonomy: str | None = None) -> dict[str, Any]:
    """Read the suite and run the construction checks; return the payload."""
    from benchcheck.diagnostics.checks import check_suite
    from benchcheck.diagnostics.suite import load_suite

    return check_suite(load_suite(suite_path, taxonomy=taxonomy)).to_json()


def render_check_suite(payload: dict[str, Any]) -> None:
    """Print the per-category label shares (GLUE Table 7 view) and the findings."""
    labels = payload["suite"]["labels"]
    table = Table(title=f"Suite {payload['suite']['source']}: "
                        f"{payload['suite']['n_pairs']} pairs, "
                        f"{payload['suite']['n_examples']} examples")
    table.add_column("category")
    table.add_column("n", justify="right")
    for lab in labels:
        table.add_column(lab, justify="right")

    def shares(entry: dict[str, Any]) -> list[str]:
        return [("—" if entry["shares"][lab] is None else f"{entry['shares'][lab]:.0%}")
                for lab in labels]

    dist = payload["label_distribution"]
    table.add_row("all", str(dist["n"]), *shares(dist), style="bold")
    if "glue_reference_shares" in dist:
        ref = dist["glue_reference_shares"]
        table.add_row("(GLUE diagnostic)", "1104", *[f"{ref[lab]:.0%}" for lab in labels],
                      style="dim")
    for name, entry in payload["categories"].items():
        table.add_row(name, str(entry["n"]), *shares(entry))
    console.print(table)
    d = payload["directions"]
    ms = payload["minimal_sets"]
    dup = payload["duplicates"]
    console.print(
        f"Directions: {d['both_labelled']} of {d['n_pairs']} pairs labelled both ways. "
        f"Minimal sets: {ms['n_sets']} ({ms['n_pairs_in_sets']} pairs). "
        f"Duplicate pairs: {dup['n_groups']} ({dup['n_conflicting']} with conflicting labels). "
        f"Unknown tags: {len(payload['unknown_tags'])}. "
        f"Untagged examples: {payload['untagged']['count']}.",
        highlight=False,
    )
    for f in payload["findings"]:
        colour = "yellow" if f["level"] == "warning" else "cyan"
        console.print(f"[{colour}]{f['level']}[/] ({f['check']}): {f['message']}",
                      highlight=False)


@app.command("check-suite")
def check_suite_cmd(
    suite: Annotated[str, typer.Argument(help="GLUE diagnostic TSV or JSONL suite.")],
    taxonomy: TaxonomyOpt = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit with code 1 when a check warns.")
    ] = False,
    json_out: JsonOpt = None,
) -> None:
    """Check how a diagnostic suite is built: categories, directions, tags, duplicates.

    Example: benchcheck check-suite suite.jsonl --json checks.json
    """
    payload = run_check_suite(suite, taxonomy=taxonomy)
    if json_out != "-":
        render_check_suite(payload)
    write_json(payload, json_out)
    warned = [f for f in payload["findings"] if f["level"] == "warning"]
    if strict and warned:
        raise SuiteWarned(f"--strict: {len(warned)} check(s) warned")
