"""Commands of the statistical dataset evaluation: stats, compare, sample, accuracy, audit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._common import parse_assignments, write_json
from benchcheck.errors import UsageError
from benchcheck.report._numbers import num

DataArg = Annotated[
    str | None,
    typer.Argument(
        help="Dataset folder (train/dev/test files found by name), a file, or a saved HF dataset."
    ),
]
SplitOpt = Annotated[
    list[str] | None, typer.Option("--split", help="NAME=FILE; repeat for each split.")
]
SchemeOpt = Annotated[
    str | None, typer.Option("--scheme", help="Force the tagging scheme: IOB1, IOB2 or BIOES.")
]
StrictOpt = Annotated[
    bool, typer.Option("--strict", help="Reject invalid tag transitions instead of repairing them.")
]
JsonOpt = Annotated[
    str | None, typer.Option("--json", help="Write the canonical JSON here ('-' for stdout).")
]
LabelNamesOpt = Annotated[
    str | None,
    typer.Option("--label-names", help="Comma-separated tag names for JSONL 'ner_tags' indices."),
]
TaskOpt = Annotated[str, typer.Option("--task", help="Task kind: ner, classification or pair.")]


def _load(
    data: str | None,
    split: list[str] | None,
    scheme: str | None,
    strict: bool,
    label_names: str | None,
    task: str = "ner",
    columns: dict[str, str | None] | None = None,
    keep_tokens: bool = True,
):  # type: ignore[no-untyped-def]
    from benchcheck.io.load import load

    if scheme is not None:
        scheme = scheme.upper()
    names = label_names.split(",") if label_names else None
    return load(
        data,
        splits=parse_assignments(split, "--split") or None,
        scheme=scheme,
        strict=strict,
        label_names=names,
        task=task,
        columns=columns,
        keep_tokens=keep_tokens,
    )


def _scores(scores: str | None) -> dict[str, float]:
    if not scores:
        return {}
    out = {}
    for k, item in enumerate(scores.split(",")):
        try:
            out[f"model_{k + 1}"] = float(item)
        except ValueError:
            raise UsageError(f"--scores expects comma-separated numbers, got {item!r}") from None
    return out


def run_stats(
    data: str | None,
    *,
    split: list[str] | None = None,
    scheme: str | None = None,
    strict: bool = False,
    scores: str | None = None,
    predictions: list[str] | None = None,
    label_names: str | None = None,
    task: str = "ner",
    columns: dict[str, str | None] | None = None,
    near_duplicates: bool = False,
    near_threshold: float = 0.8,
    seed: int = 1,
    semantic_duplicates: bool = False,
    semantic_threshold: float = 0.9,
    engine: str = "embedded",
    address: str | None = None,
    ray_cpus: int | None = None,
) -> dict[str, Any]:
    """Load, score predictions if given, compute every metric; the canonical JSON object."""
    from benchcheck.metrics.compute import compute_stats

    # Once, here: the prediction files are read with the same scheme as the dataset.
    scheme = scheme.upper() if scheme else None
    # Usage errors before the (possibly long) read of the dataset.
    model_scores = _scores(scores)
    files = parse_assignments(predictions, "--predictions")
    if files and model_scores:
        raise UsageError("give either --scores or --predictions, not both (their units differ)")

    # Statistics need no token table: without predictions, read in bounded memory.
    if engine != "embedded":  # --engine ray: shards read and built on a Ray cluster
        from benchcheck.engine import load_with_engine

        dataset = load_with_engine(
            engine,
            data,
            split=split,
            scheme=scheme,
            strict=strict,
            task=task,
            keep_tokens=bool(predictions) or near_duplicates or semantic_duplicates,
            address=address,
            num_cpus=ray_cpus,
        )
    else:
        dataset = _load(
            data,
            split,
            scheme,
            strict,
            label_names,
            task,
            columns,
            keep_tokens=bool(predictions) or near_duplicates or semantic_duplicates,
        )
    if files:
        from benchcheck.metrics.predictions import score_test_predictions

        model_scores = score_test_predictions(dataset, files, scheme=scheme)
    result = compute_stats(dataset, scores=model_scores).to_json()
    if files:
        from benchcheck.metrics.buckets import bucket_prediction_files

        result["buckets"] = bucket_prediction_files(dataset, files, scheme=scheme)
    if near_duplicates:
        from benchcheck.metrics.neardup import near_duplicates as near

        result["near_duplicates"] = near(dataset, threshold=near_threshold, seed=seed).to_json()
    if semantic_duplicates:
        from benchcheck.metrics.neardup import semantic_duplicates as semantic

        result["semantic_duplicates"] = semantic(dataset, threshold=semantic_threshold).to_json()
    return result


@app.command("stats")
def stats(
    data: DataArg = None,
    split: SplitOpt = None,
    scheme: SchemeOpt = None,
    strict: StrictOpt = False,
    scores: Annotated[
        str | None,
        typer.Option(
            "--scores", help="Comma-separated model scores: adds Model Differentiation (Eq. 7)."
        ),
    ] = None,
    predictions: Annotated[
        list[str] | None,
        typer.Option(
            "--predictions",
            help="NAME=FILE of CoNLL predictions on test; scored with seqeval micro-F1.",
        ),
    ] = None,
    label_names: LabelNamesOpt = None,
    task: TaskOpt = "ner",
    text: Annotated[
        str | None, typer.Option("--text", help="Text column (classification).")
    ] = None,
    text_a: Annotated[
        str | None, typer.Option("--text-a", help="First text column (pair).")
    ] = None,
    text_b: Annotated[
        str | None, typer.Option("--text-b", help="Second text column (pair).")
    ] = None,
    label: Annotated[str | None, typer.Option("--label", help="Label column.")] = None,
    id_col: Annotated[str | None, typer.Option("--id", help="Id column.")] = None,
    near_dups: Annotated[
        bool,
        typer.Option(
            "--near-duplicates", help="Add normalised and MinHash-LSH near-duplicates (slower)."
        ),
    ] = False,
    near_threshold: Annotated[
        float, typer.Option("--near-threshold", help="Jaccard threshold of near-duplicates.")
    ] = 0.8,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the MinHash functions.")] = 1,
    semantic_dups: Annotated[
        bool,
        typer.Option(
            "--semantic-duplicates",
            help="Add embedding near-duplicates (offline all-MiniLM-L6-v2; 'semantic' extra).",
        ),
    ] = False,
    semantic_threshold: Annotated[
        float, typer.Option("--semantic-threshold", help="Cosine threshold of semantic duplicates.")
    ] = 0.9,
    engine: Annotated[
        str, typer.Option("--engine", help="embedded, or ray (a shard folder from convert).")
    ] = "embedded",
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster address (default: local).")
    ] = None,
    ray_cpus: Annotated[
        int | None, typer.Option("--ray-cpus", min=1, help="CPUs of a local Ray cluster.")
    ] = None,
    json_out: JsonOpt = None,
) -> None:
    """Statistical evaluation of a dataset (NER, classification, pair): the three dimensions.

    Example: benchcheck stats data/conll2003/ --scores 93.1,92.8,92.4,91.9,91.0 --json out.json
    Example: benchcheck stats nli/ --task pair --text-a premise --text-b hypothesis --label label
    Example: benchcheck stats data/ --near-duplicates --near-threshold 0.8 --json out.json
    Example: benchcheck stats data.parquet/ --engine ray --address auto --json out.json
    """
    from benchcheck.report.terminal import stats_table

    result = run_stats(
        data,
        split=split,
        scheme=scheme,
        strict=strict,
        scores=scores,
        predictions=predictions,
        label_names=label_names,
        task=task,
        columns={"text": text, "text_a": text_a, "text_b": text_b, "label": label, "id": id_col},
        near_duplicates=near_dups,
        near_threshold=near_threshold,
        seed=seed,
        semantic_duplicates=semantic_dups,
        semantic_threshold=semantic_threshold,
        engine=engine,
        address=address,
        ray_cpus=ray_cpus,
    )
    write_json(result, json_out)
    if json_out != "-":
        console.print(stats_table(result))
        for block in ("near_duplicates", "semantic_duplicates"):
            if block in result:
                nd = result[block]["metrics"]
                console.print(
                    block.replace("_", "-")
                    + ": "
                    + ", ".join(f"{k} {num(v, 4)}" for k, v in nd.items())
                )
        for note in result["notes"]:
            console.print(f"[dim]note:[/] {note}")


@app.command("compare")
def compare(
    datasets: Annotated[list[str], typer.Argument(help="NAME=PATH for each dataset to compare.")],
    scheme: SchemeOpt = None,
    strict: StrictOpt = False,
    json_out: JsonOpt = None,
) -> None:
    """Several datasets side by side, as the paper's comparison table.

    Example: benchcheck compare conll=data/conll/ wnut=data/wnut/ --json cmp.json
    """
    from benchcheck.report.terminal import compare_table

    named = parse_assignments(datasets, "compare")
    results = {name: run_stats(path, scheme=scheme, strict=strict) for name, path in named.items()}
    write_json({"datasets": results}, json_out)
    if json_out != "-":
        console.print(compare_table(results))


@app.command("sample")
def sample(
    data: DataArg = None,
    split: SplitOpt = None,
    per_split: Annotated[
        int, typer.Option("--per-split", min=1, help="Instances drawn from each split.")
    ] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same sample).")] = 13,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="JSONL file to write for the annotators.")
    ] = Path("to_annotate.jsonl"),
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite the output file if it exists.")
    ] = False,
    scheme: SchemeOpt = None,
) -> None:
    """Draw a seeded per-split sample for human accuracy judgements (Eq. 2).

    Annotators fill each row's "annotations" object with {"their name": true|false}.

    Example: benchcheck sample data/ --per-split 100 --seed 13 -o to_annotate.jsonl
    """
    from benchcheck.metrics.accuracy import draw_sample

    if output.exists() and not force:
        raise UsageError(f"{output} exists; choose another path or pass --force to overwrite it")
    rows = draw_sample(_load(data, split, scheme, False, None), per_split=per_split, seed=seed)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    console.print(f"wrote {len(rows)} rows to {escape(str(output))}")


@app.command("accuracy")
def accuracy(
    annotated: Annotated[
        Path, typer.Argument(help="The sample file with annotators' judgements filled in.")
    ],
    json_out: JsonOpt = None,
) -> None:
    """Accuracy per split (Eq. 2) and mean pairwise Cohen's kappa; warns below 0.75.

    A pair whose kappa is undefined (both gave one and the same judgement throughout) shows
    as — (JSON null) and is left out of the mean.

    Example: benchcheck accuracy annotated.jsonl --json accuracy.json
    """
    import numpy as np
    from rich.table import Table

    from benchcheck.metrics.accuracy import KAPPA_THRESHOLD, read_annotations, score_annotations
    from benchcheck.report.terminal import fmt

    scored = score_annotations(read_annotations(annotated))
    splits = {
        name: {
            "n": s.n,
            "accuracy": s.accuracy,
            "kappa_mean": s.kappa_mean,
            "kappa_pairs": s.kappa_pairs,
            "annotators": list(s.annotators),
        }
        for name, s in scored.items()
    }
    accs = [s.accuracy for s in scored.values() if s.accuracy is not None]
    kappas = [s.kappa_mean for s in scored.values() if s.kappa_mean is not None]
    warnings = [
        f"{name}: mean pairwise Cohen's kappa {s.kappa_mean:.3f} is below {KAPPA_THRESHOLD}: "
        "do not trust this accuracy"
        for name, s in scored.items()
        if s.kappa_mean is not None and s.kappa_mean < KAPPA_THRESHOLD
    ]
    warnings += [
        f"{name}: no annotator pair with a defined kappa"
        for name, s in scored.items()
        if s.kappa_mean is None
    ]
    payload: dict[str, Any] = {
        "metrics": {
            "accuracy": float(np.mean(accs)) if accs else None,
            "kappa_mean": float(np.mean(kappas)) if kappas else None,
        },
        "splits": splits,
        "kappa_threshold": KAPPA_THRESHOLD,
        "warnings": warnings,
    }
    write_json(payload, json_out)
    if json_out != "-":
        table = Table(title="Accuracy (Eq. 2) ↑", title_justify="left")
        for col in ("split", "n", "accuracy", "mean pairwise kappa", "annotators"):
            table.add_column(col, justify="left" if col in ("split", "annotators") else "right")
        for name, s in scored.items():
            table.add_row(
                escape(name),
                str(s.n),
                fmt(s.accuracy),
                fmt(s.kappa_mean),
                escape(", ".join(s.annotators)),
            )
        table.add_section()
        table.add_row(
            "mean",
            "",
            fmt(payload["metrics"]["accuracy"]),
            fmt(payload["metrics"]["kappa_mean"]),
            "",
        )
        console.print(table)
    for w in warnings:
        console_err.print(f"[yellow]warning:[/] {escape(w)}", soft_wrap=True)
