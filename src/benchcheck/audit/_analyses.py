"""The analyses of an audit, in the order they run (:data:`ANALYSES`).

Each one takes the inputs and the results object, adds its section(s) and returns a one-line
detail, or raises :class:`~benchcheck.audit._inputs.Skip` saying why it does not apply.
Heavy dependencies (polars, the judges) are imported inside the analysis that needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchcheck.audit._inputs import Analysis, AuditInputs, Progress, Skip
from benchcheck.data.columns import Columns
from benchcheck.errors import JudgeUnavailable, MissingExtraError
from benchcheck.io.source import DataSource
from benchcheck.runs.label_errors import MAX_FLAGS_IN_JSON  # noqa: F401 - re-exported


def shown(path: str | Path) -> str:
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


def _ner_source(inp: AuditInputs, path: str | None = None) -> DataSource:
    return DataSource(
        path if path is not None else inp.ner,
        splits={} if path is not None else dict(inp.ner_splits),
        scheme=inp.scheme,
        strict=inp.strict,
    )


def _ner_stats(inp: AuditInputs, out: dict[str, Any], progress: Progress | None) -> str:
    """Statistical dataset evaluation, per-split leakage/unseen bars, entity types."""
    if inp.ner is None and not inp.ner_splits:
        raise Skip("no NER dataset given")
    from benchcheck.metrics.splits import entity_types, split_overlap
    from benchcheck.runs.stats import run_stats

    run = run_stats(
        _ner_source(inp),
        scores=dict(inp.scores) if not inp.ner_predictions else None,
        predictions=dict(inp.ner_predictions),
    )
    dataset = run.dataset
    assert dataset is not None
    stats = run.to_json()
    out["stats"] = stats
    if dataset.task == "ner":
        out["split_overlap"] = split_overlap(dataset, test_metrics=stats["metrics"])
        out["entity_types"] = entity_types(dataset)
    n = sum(s.n for s in dataset)
    return f"{dataset.task}, {len(dataset.split_names)} splits, {n} instances"


def _comparison(inp: AuditInputs, out: dict[str, Any], progress: Progress | None) -> str:
    """Several datasets side by side (the main one first)."""
    if not inp.compare:
        raise Skip("no --compare datasets given")
    from benchcheck.runs.stats import run_compare

    datasets: dict[str, Any] = {}
    if "stats" in out:
        datasets[out["stats"].get("dataset", "dataset")] = out["stats"]
    others = run_compare({name: _ner_source(inp, path) for name, path in inp.compare.items()})
    datasets.update(others.to_json()["datasets"])
    out["comparison"] = {"datasets": datasets}
    return f"{len(datasets)} datasets"


# ------------------------------------------------------------------------ pair / classification


def _columns(inp: AuditInputs) -> Columns:
    return Columns(
        text=inp.text, text_a=inp.text_a, text_b=inp.text_b, label=inp.label or "label", id=inp.id
    )


def _table_stats(inp: AuditInputs, out: dict[str, Any], progress: Progress | None) -> str:
    """Statistics of a classification or pair file."""
    if inp.table is None:
        raise Skip("no classification or pair file given")
    from benchcheck.runs.stats import run_stats

    kind = "pair" if inp.text_a else "classification"
    run = run_stats(DataSource(inp.table, task=kind, columns=_columns(inp)))
    dataset = run.dataset
    assert dataset is not None
    out["table_stats"] = run.to_json()
    return f"{kind}, {len(dataset.split_names)} split(s), {sum(s.n for s in dataset)} examples"


def _label_errors(inp: AuditInputs, out: dict[str, Any], progress: Progress | None) -> str:
    """Judge every example with the ensemble, flag disagreements (methods.md section 2)."""
    if inp.table is None:
        raise Skip("no classification or pair file given")
    if not inp.judge:
        raise Skip("--no-judge given")
    from benchcheck.runs.flag import FlagOptions
    from benchcheck.runs.judging import JudgeSetup
    from benchcheck.runs.label_errors import NotApplicable, run_label_errors

    columns = _columns(inp)
    try:
        run = run_label_errors(
            inp.table,
            columns=columns,
            judges=JudgeSetup(
                (inp.judge,),
                base_url=inp.base_url,
                api_key_env=inp.api_key_env,
                timeout=inp.timeout,
            ),
            prompts=inp.prompts,
            options=FlagOptions(threshold=inp.threshold),
            progress=progress,
        )
    except NotApplicable as exc:
        raise Skip(str(exc)) from None
    except (MissingExtraError, JudgeUnavailable) as exc:
        raise Skip(f"judge unavailable: {exc}") from None
    shown_columns = {k: v for k, v in columns.given().items() if k != "id"}
    out["label_errors"] = run.to_json(source=shown(inp.table), columns=shown_columns)
    out.setdefault("_timings", {})["judge_seconds"] = run.seconds
    out.setdefault("_frames", {})["flagged"] = run.flagged()
    s = run.flag.summary
    detail = (
        f"{s.flagged} of {s.n} examples flagged by {run.identity.label} × "
        f"{len(run.prompts)} prompts"
    )
    note = out["label_errors"].get("default_judge")
    if note is not None:
        from benchcheck.report.judge_note import detail as default_judge_detail

        detail += "; " + default_judge_detail(note)
    return detail


# ------------------------------------------------------------------------ diagnostics


def _diagnostics(inp: AuditInputs, out: dict[str, Any], progress: Progress | None) -> str:
    """R_K per category and tag for each model's predictions, and the suite's own checks."""
    if inp.suite is None:
        raise Skip("no diagnostic suite given")
    from benchcheck.runs.diagnose import run_check_suite, run_diagnose

    checks = run_check_suite(inp.suite)
    if not inp.suite_predictions:
        out["diagnostics"] = {
            "suite": dict(checks.suite),
            "models": {},
            "checks": checks.to_json(),
            "labels": list(checks.suite["labels"]),
        }
        _fix_suite_source(out["diagnostics"], inp.suite)
        return "suite checks only (no --predictions)"
    result = run_diagnose(
        inp.suite, dict(inp.suite_predictions), seed=inp.seed, resamples=inp.resamples
    )
    payload = result.to_json()
    payload["checks"] = checks.to_json()
    _fix_suite_source(payload, inp.suite)
    out["diagnostics"] = payload
    return f"{len(result.models)} model(s) on {checks.suite['n_examples']} examples"


def _fix_suite_source(payload: dict[str, Any], path: str) -> None:
    for block in (payload, payload.get("checks") or {}):
        if isinstance(block.get("suite"), dict):
            block["suite"]["source"] = shown(path)


# ------------------------------------------------------------------------ test theory


def _items(inp: AuditInputs, out: dict[str, Any], progress: Progress | None) -> str:
    """Item analysis (CTT) and IRT of the models' score matrix (methods.md section 4)."""
    if inp.item_matrix is None and not (inp.table and inp.item_predictions):
        raise Skip("no --matrix, nor a classification/pair file with --predictions")
    from benchcheck.runs.items import ItemsOptions, run_items

    options = ItemsOptions(n_resamples=inp.resamples, seed=inp.seed)
    if inp.item_matrix is not None:
        run = run_items(matrix=inp.item_matrix, options=options)
    else:
        run = run_items(
            data=inp.table,
            label=inp.label or "label",
            id_col=inp.id,
            predictions=inp.item_predictions,
            options=options,
        )
    payload = run.to_json()
    payload["sources"] = {k: shown(v) for k, v in payload["sources"].items()}
    out["items"] = payload
    rel = payload["reliability"]["cronbach_alpha"]
    shown_rel = "undefined" if rel is None else f"{rel:.3f}"
    return (
        f"{run.analysis.n_items} items × {run.analysis.n_models} models, alpha {shown_rel}, "
        f"{len(run.analysis.suspects())} suspect items"
    )


def _ranking(inp: AuditInputs, out: dict[str, Any], progress: Progress | None) -> str:
    """Rank the models under label noise: this audit's flags, gold labels, residual rate."""
    if not (inp.table and len(inp.item_predictions) >= 2):
        raise Skip("needs a classification/pair file and two or more --predictions")
    from benchcheck.errors import UsageError
    from benchcheck.runs.rank import RankOptions, run_rank

    flagged = out.get("_frames", {}).get("flagged")
    flagged_ids = None
    if flagged is not None and flagged.height:
        flagged_ids = {
            str(i): (str(lab), b)
            for i, lab, b in flagged.select("id", "llm_label", "bin").iter_rows()
        }
    options = RankOptions(
        n_resamples=inp.resamples,
        seed=inp.seed,
        precision=inp.precision,
        error_rate=inp.error_rate,
    )
    try:
        run = run_rank(
            inp.table,
            inp.item_predictions,
            label=inp.label or "label",
            id_col=inp.id,
            gold=inp.gold,
            options=options,
            flagged_ids=flagged_ids,
        )
    except UsageError as exc:
        if "precision" in str(exc) or "nothing makes a label uncertain" in str(exc):
            raise Skip(str(exc)) from None
        raise
    payload = run.to_json()
    payload["sources"] = {k: shown(v) for k, v in payload["sources"].items()}
    out["rank"] = payload
    best = payload["models"][0]
    return f"{len(payload['models'])} models; best {best['name']} ({best['score']:.3f})"


def _diff(inp: AuditInputs, out: dict[str, Any], progress: Progress | None) -> str:
    """Compare this audit with an earlier results.json of the same dataset."""
    if inp.baseline is None:
        raise Skip("no --baseline results.json given")
    from benchcheck.io.canonical import read_results
    from benchcheck.items.diff import diff_results

    now = {k: v for k, v in out.items() if not k.startswith("_")}
    diff = diff_results(read_results(inp.baseline), now)
    payload = diff.to_json(changed_only=True)
    payload["baseline"] = shown(inp.baseline)
    out["diff"] = payload
    return f"{payload['n_changed']} of {payload['n_values']} values changed"


#: (name in results.json["analyses"], analysis), in the order they run: comparison reads the
#: statistics' section, so it comes after them.
ANALYSES: tuple[tuple[str, Analysis], ...] = (
    ("statistics", _ner_stats),
    ("comparison", _comparison),
    ("table statistics", _table_stats),
    ("label errors", _label_errors),
    ("diagnostics", _diagnostics),
    ("items", _items),
    ("ranking", _ranking),
    ("diff", _diff),
)
