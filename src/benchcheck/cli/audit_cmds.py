"""``benchcheck audit``: every analysis that applies to a dataset, written as a report folder.

An audit is a list of *analyses*. Each one looks at the inputs, and either adds its section
to ``results.json`` or says why it was skipped (missing input, missing optional package,
judge unavailable); ``results.json["analyses"]`` lists what ran. The report folder holds
``results.json`` (canonical, schema-versioned), ``report.html``, ``report.md`` and, when
examples were flagged, ``flagged.csv`` / ``flagged.jsonl``. Every rendering is a pure
function of ``results.json`` (``benchcheck report`` re-renders it byte for byte).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._common import dumps, parse_assignments, write_json
from benchcheck.cli.stats_cmds import DataArg, JsonOpt, SchemeOpt, SplitOpt, StrictOpt
from benchcheck.errors import JudgeUnavailable, MissingExtraError, UsageError

#: Rows of flagged examples kept inside results.json (the CSV/JSONL files hold all).
MAX_FLAGS_IN_JSON = 1000


class Skip(Exception):
    """An analysis does not apply (or cannot run here); the message says why."""


@dataclass
class AuditInputs:
    """What the user gave (or the bundled samples), resolved once."""

    ner: str | None = None
    ner_splits: list[str] | None = None
    scheme: str | None = None
    strict: bool = False
    scores: str | None = None
    ner_predictions: list[str] | None = None
    compare: dict[str, str] = field(default_factory=dict)
    table: str | None = None
    text: str | None = None
    text_a: str | None = None
    text_b: str | None = None
    label: str | None = None
    id: str | None = None
    judge: str | None = "llama-cpp"
    prompts: str | None = None
    threshold: float = 0.5
    suite: str | None = None
    suite_predictions: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    resamples: int = 1000


Analysis = Callable[[AuditInputs, dict[str, Any]], str]


def _shown(path: str | Path) -> str:
    """Show a path as written in results: bundled sample files by package path."""
    from benchcheck.metrics.compute import display_source

    return display_source(str(Path(path).resolve())) if _is_sample(path) else str(path)


def _is_sample(path: str | Path) -> bool:
    from benchcheck.sample_data import HERE

    try:
        Path(path).resolve().relative_to(HERE)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------------ NER statistics


def _ner_stats(inp: AuditInputs, out: dict[str, Any]) -> str:
    """Statistical dataset evaluation, per-split leakage/unseen bars, entity types."""
    if inp.ner is None and not inp.ner_splits:
        raise Skip("no NER dataset given")
    from benchcheck.cli.stats_cmds import _load, _scores
    from benchcheck.metrics.compute import compute_stats

    dataset = _load(inp.ner, inp.ner_splits, inp.scheme, inp.strict, None)
    scores = _scores(inp.scores)
    files: dict[str, str | Path] = dict(parse_assignments(inp.ner_predictions, "--predictions"))
    if files:
        from benchcheck.metrics.predictions import score_prediction_files

        if "test" not in dataset:
            raise UsageError(
                "--predictions are scored on the test split, and this dataset has none"
            )
        scores = score_prediction_files(dataset["test"], files, scheme=inp.scheme)
    stats = compute_stats(dataset, scores=scores).to_json()
    out["stats"] = stats
    if dataset.task == "ner":
        out["split_overlap"] = _split_overlap(dataset, stats)
        out["entity_types"] = _entity_types(dataset)
    n = sum(s.n for s in dataset)
    return f"{dataset.task}, {len(dataset.split_names)} splits, {n} instances"


def _split_overlap(dataset: Any, stats: dict[str, Any]) -> dict[str, Any]:
    """Leakage and unseen-entity ratios of each evaluation split against the earlier ones.

    test: against train+dev (Eq. 3) and train (Eq. 4), the values in ``stats``; dev:
    against train, computed by the same registered functions on a (train, dev-as-test) view.
    """
    from benchcheck.data.model import Dataset
    from benchcheck.metrics.registry import specs_for

    cross = [s for s in specs_for(dataset.task, "cross")]
    rows = []
    if "dev" in dataset and "train" in dataset:
        view = Dataset(
            task=dataset.task,
            splits={"train": dataset["train"], "test": dataset["dev"]},
            name=dataset.name,
        )
        row: dict[str, Any] = {"split": "dev", "against": ["train"]}
        row.update({s.name: s.function(view) for s in cross})
        rows.append(row)
    if "test" in dataset:
        against = [n for n in ("train", "dev") if n in dataset]
        if against:
            row = {"split": "test", "against": against}
            row.update({s.name: stats["metrics"].get(s.name) for s in cross})
            rows.append(row)
    return {"rows": rows}


def _entity_types(dataset: Any) -> dict[str, Any]:
    """Entity mentions per type and split (counts and shares), types by overall frequency."""
    import polars as pl

    totals: dict[str, int] = {}
    splits: dict[str, dict[str, Any]] = {}
    for split in dataset:
        if split.spans is None or split.spans.height == 0:
            splits[split.name] = {"counts": {}, "shares": {}, "n": 0}
            continue
        counts = (
            split.spans.group_by(pl.col("type").cast(pl.String)).len().sort("type").rows()
        )
        n = sum(c for _, c in counts)
        splits[split.name] = {
            "counts": {t: int(c) for t, c in counts},
            "shares": {t: c / n for t, c in counts},
            "n": n,
        }
        for t, c in counts:
            totals[t] = totals.get(t, 0) + int(c)
    types = sorted(totals, key=lambda t: (-totals[t], t))
    return {"types": types, "splits": splits}


def _comparison(inp: AuditInputs, out: dict[str, Any]) -> str:
    """Several datasets side by side (the main one first)."""
    if not inp.compare:
        raise Skip("no --compare datasets given")
    from benchcheck.cli.stats_cmds import run_stats

    datasets: dict[str, Any] = {}
    if "stats" in out:
        datasets[out["stats"].get("dataset", "dataset")] = out["stats"]
    for name, path in inp.compare.items():
        datasets[name] = run_stats(path, scheme=inp.scheme, strict=inp.strict)
    out["comparison"] = {"datasets": datasets}
    return f"{len(datasets)} datasets"


# ------------------------------------------------------------------------ pair / classification


def _table_stats(inp: AuditInputs, out: dict[str, Any]) -> str:
    """Statistics of a classification or pair file, when the reader for it exists (issue 6)."""
    if inp.table is None:
        raise Skip("no classification or pair file given")
    import inspect

    from benchcheck.io.load import load
    from benchcheck.metrics.compute import compute_stats

    kind = "pair" if inp.text_a else "classification"
    if "columns" not in inspect.signature(load).parameters:
        raise Skip(f"the dataset loader does not read {kind} files yet")
    columns = {"text": inp.text, "text_a": inp.text_a, "text_b": inp.text_b,
               "label": inp.label or "label", "id": inp.id}
    dataset = load(inp.table, task=kind, columns=columns)
    out["table_stats"] = compute_stats(dataset).to_json()
    return f"{kind}, {len(dataset.split_names)} split(s), {sum(s.n for s in dataset)} examples"


def _audit_prompts() -> str:
    """Return the judges' prompt set for audit (fewer framings than ``all``: faster)."""
    try:
        from benchcheck.judges.run import AUDIT_PROMPTS
    except ImportError:  # pragma: no cover - older judges module
        return "all"
    return str(AUDIT_PROMPTS)


def _read_examples(inp: AuditInputs) -> Any:
    from benchcheck.io.tables import read_table

    assert inp.table is not None
    return read_table(inp.table, text=inp.text, text_a=inp.text_a, text_b=inp.text_b,
                      label=inp.label or "label", id=inp.id)


def _label_errors(inp: AuditInputs, out: dict[str, Any]) -> str:
    """Judge every example with the ensemble, flag disagreements (methods.md section 2)."""
    if inp.table is None:
        raise Skip("no classification or pair file given")
    if not inp.judge:
        raise Skip("--no-judge given")
    import polars as pl

    from benchcheck.labels.ensemble import ensemble
    from benchcheck.labels.flags import DEFAULT_BINS, flag_examples, summarize_flags

    try:
        from benchcheck.judges.cache import JudgeCache, default_cache_path
        from benchcheck.judges.prompts import select_prompts
        from benchcheck.judges.run import judge_frame, make_judge
    except ImportError as exc:
        raise Skip(f"the judges are not available in this build ({exc})") from None

    frame = _read_examples(inp)
    prompts = select_prompts(inp.prompts or _audit_prompts())
    unusable = [p.name for p in prompts if not p.fields <= set(frame.columns)]
    if unusable:
        raise Skip(
            f"prompt(s) {unusable} need fields the examples lack (they have "
            f"{[c for c in ('text', 'text_a', 'text_b') if c in frame.columns]}); run "
            "`benchcheck judge` with a prompt file, then `benchcheck flag`"
        )
    labels = sorted({lab for p in prompts for lab in p.labels})
    bad = sorted(set(frame["label"].cast(pl.String).to_list()) - set(labels))
    if bad:
        raise Skip(f"labels {bad[:5]} are not among the prompts' labels {labels}")
    started = time.perf_counter()
    try:
        judge = make_judge(inp.judge)
    except (MissingExtraError, JudgeUnavailable) as exc:
        raise Skip(f"judge unavailable: {exc}") from None
    try:
        with JudgeCache(default_cache_path()) as cache, judge:
            judgments = judge_frame(frame, [judge], prompts, cache=cache)
            identity = judge.identity
    except (MissingExtraError, JudgeUnavailable) as exc:
        raise Skip(f"judge unavailable: {exc}") from None
    seconds = time.perf_counter() - started
    ens = ensemble(judgments)
    flags = flag_examples(frame, ens, threshold=inp.threshold, bins=DEFAULT_BINS,
                          source=inp.table)
    summary = summarize_flags(flags, threshold=inp.threshold, bins=DEFAULT_BINS)
    text_cols = [c for c in ("text", "text_a", "text_b") if c in frame.columns]
    keep = ["rank", "id", *text_cols, "label", "llm_label", "confidence", "bin"]
    keep += [c for c in flags.columns if c.startswith("p_")]
    flagged = flags.filter(pl.col("flagged")).sort("rank").select(keep)
    out["label_errors"] = {
        "dataset": {"source": _shown(inp.table), "n": frame.height,
                    "columns": {k: v for k, v in (("text", inp.text), ("text_a", inp.text_a),
                                                  ("text_b", inp.text_b),
                                                  ("label", inp.label or "label")) if v}},
        "judge": {
            "judge": identity.label,
            "weights_sha256": identity.weights_hash,
            "prompts": [p.name for p in prompts],
            "members": int(judgments.select("judge", "prompt").unique().height),
        },
        "text_columns": text_cols,
        "summary": summary.to_dict(),
        "bins": list(DEFAULT_BINS),
        "examples": flagged.head(MAX_FLAGS_IN_JSON).to_dicts(),
        "examples_total": flagged.height,
        "files": ["flagged.csv", "flagged.jsonl"] if flagged.height else [],
    }
    out.setdefault("_timings", {})["judge_seconds"] = seconds
    out.setdefault("_frames", {})["flagged"] = flagged
    return (f"{summary.flagged} of {summary.n} examples flagged by {identity.label} × "
            f"{len(prompts)} prompts")


# ------------------------------------------------------------------------ diagnostics


def _diagnostics(inp: AuditInputs, out: dict[str, Any]) -> str:
    """R_K per category and tag for each model's predictions, and the suite's own checks."""
    if inp.suite is None:
        raise Skip("no diagnostic suite given")
    from benchcheck.diagnostics import check_suite, diagnose_suite, load_suite
    from benchcheck.io.diagnostic import read_model_predictions

    suite = load_suite(inp.suite)
    checks = check_suite(suite).to_json()
    if not inp.suite_predictions:
        out["diagnostics"] = {"suite": suite.summary(), "models": {}, "checks": checks,
                              "labels": list(suite.label_names)}
        _fix_suite_source(out["diagnostics"], inp.suite)
        return "suite checks only (no --predictions)"
    preds, notes = read_model_predictions(inp.suite_predictions, ids=suite.ids,
                                          label_names=suite.label_names)
    result = diagnose_suite(suite, preds, seed=inp.seed, n_resamples=inp.resamples,
                            prediction_notes=notes).to_json()
    result["checks"] = checks
    _fix_suite_source(result, inp.suite)
    out["diagnostics"] = result
    return f"{len(preds)} model(s) on {suite.n} examples"


def _fix_suite_source(payload: dict[str, Any], path: str) -> None:
    for block in (payload, payload.get("checks") or {}):
        if isinstance(block.get("suite"), dict):
            block["suite"]["source"] = _shown(path)


ANALYSES: tuple[tuple[str, Analysis], ...] = (
    ("statistics", _ner_stats),
    ("comparison", _comparison),
    ("table statistics", _table_stats),
    ("label errors", _label_errors),
    ("diagnostics", _diagnostics),
)


def run_audit(inp: AuditInputs) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run every analysis; returns (results.json object, side outputs such as frames)."""
    out: dict[str, Any] = {"title": "benchcheck audit report"}
    inputs = {}
    if inp.ner:
        inputs["dataset"] = _shown(inp.ner)
    for name, path in parse_assignments(inp.ner_splits, "--split").items():
        inputs[f"split {name}"] = _shown(path)
    if inp.table:
        inputs["examples"] = _shown(inp.table)
    if inp.suite:
        inputs["diagnostic suite"] = _shown(inp.suite)
    for name, path in inp.suite_predictions.items():
        inputs[f"predictions {name}"] = _shown(path)
    analyses = []
    for name, fn in ANALYSES:
        try:
            detail = fn(inp, out)
            analyses.append({"name": name, "status": "ok", "detail": detail})
        except Skip as why:
            analyses.append({"name": name, "status": "skipped", "detail": str(why)})
    side = {"frames": out.pop("_frames", {}), "timings": out.pop("_timings", {})}
    results = {"title": out.pop("title"), "inputs": inputs, "analyses": analyses, **out}
    return results, side


def write_report(
    results: dict[str, Any], folder: Path, side: dict[str, Any] | None = None
) -> list[Path]:
    """Write results.json, report.html, report.md and the flagged examples into ``folder``."""
    from benchcheck.report.html import render_html
    from benchcheck.report.markdown import render_markdown

    folder.mkdir(parents=True, exist_ok=True)
    text = dumps(results)
    canonical = json.loads(text)
    written = []
    for name, content in (("results.json", text), ("report.html", render_html(canonical)),
                          ("report.md", render_markdown(canonical))):
        (folder / name).write_text(content, encoding="utf-8")
        written.append(folder / name)
    flagged = (side or {}).get("frames", {}).get("flagged")
    if flagged is not None and flagged.height:
        flagged.write_csv(folder / "flagged.csv")
        with (folder / "flagged.jsonl").open("w", encoding="utf-8") as fh:
            for row in flagged.iter_rows(named=True):
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        written += [folder / "flagged.csv", folder / "flagged.jsonl"]
    else:
        for stale in ("flagged.csv", "flagged.jsonl"):
            (folder / stale).unlink(missing_ok=True)
    return written


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
        typer.Option("--judge", help="Judge for label-error flags: backend[:model] "
                     "(default: the embedded llama.cpp model)."),
    ] = "llama-cpp",
    no_judge: Annotated[bool, typer.Option("--no-judge", help="Skip label-error flags.")] = False,
    prompts: Annotated[
        str | None,
        typer.Option("--prompts", help="Prompt framings: 'all' or names, e.g. nli,document "
                     "(default: the judges' audit set, two framings, to keep audit fast)."),
    ] = None,
    threshold: Annotated[
        float, typer.Option("--threshold", help="Minimum confidence of a flag.")
    ] = 0.5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every bootstrap.")] = 0,
    json_out: JsonOpt = None,
) -> None:
    """Run every analysis that applies to a dataset and write a report folder.

    With no DATA, audits the bundled samples: NER statistics, label-error flags on the pair
    sample with the embedded judge, and the diagnostic suite with a baseline's predictions
    (offline, no server, no API key). The folder gets results.json, report.html, report.md
    and flagged.csv/.jsonl.

    Example: benchcheck audit data/mnbm.jsonl --text-a grounding --text-b generated_text -o report/
    """
    from benchcheck.io.diagnostic import looks_like_suite

    inp = AuditInputs(scheme=scheme, strict=strict, seed=seed,
                      judge=None if no_judge else judge, prompts=prompts, threshold=threshold,
                      compare=parse_assignments(compare, "--compare"))
    named = parse_assignments(predictions, "--predictions")
    if data is None and not split:
        from benchcheck.diagnostics import sample_predictions_path
        from benchcheck.sample_data import DIAGNOSTIC_SAMPLE, NER_SAMPLE, PAIR_SAMPLE

        if text or text_a or text_b or predictions:
            raise UsageError("name the data file these options apply to (DATA)")
        inp.ner = str(NER_SAMPLE)
        inp.table, inp.text_a, inp.text_b = str(PAIR_SAMPLE), "grounding", "generated_text"
        inp.suite = str(DIAGNOSTIC_SAMPLE)
        inp.suite_predictions = {"overlap-baseline": str(sample_predictions_path())}
    elif text or text_a or text_b:
        if data is None:
            raise UsageError("--text/--text-a/--text-b need a DATA file")
        if (text_a is None) != (text_b is None):
            raise UsageError("give both --text-a and --text-b for pair data")
        inp.table, inp.text, inp.text_a, inp.text_b = data, text, text_a, text_b
        inp.label, inp.id = label, id_col
    elif data is not None and looks_like_suite(data):
        inp.suite, inp.suite_predictions = data, named
    else:
        inp.ner, inp.ner_splits, inp.scores = data, split, scores
        inp.ner_predictions = predictions

    results, side = run_audit(inp)
    written = write_report(results, output, side)
    write_json(results, json_out)
    if json_out != "-":
        from benchcheck.report.terminal import stats_table

        if "stats" in results:
            console.print(stats_table(results["stats"]))
        for a in results["analyses"]:
            mark = "[green]ok[/]" if a["status"] == "ok" else "[dim]skipped[/]"
            console.print(f"{mark} {a['name']}: {a['detail']}", highlight=False)
        seconds = side["timings"].get("judge_seconds")
        if seconds is not None:
            console.print(f"[dim]judge time (model load + scoring, cached results free): "
                          f"{seconds:.1f} s[/]", highlight=False)
        console.print("wrote " + ", ".join(str(p) for p in written), highlight=False)
    for a in results["analyses"]:
        if a["status"] == "skipped" and "unavailable" in a["detail"]:
            console_err.print(f"[yellow]warning:[/] {a['name']}: {a['detail']}")
