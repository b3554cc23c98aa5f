"""Commands of the statistical dataset evaluation: stats, compare, sample, accuracy, audit."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._common import ForceOpt, JsonOpt, parse_assignments, write_json
from benchcheck.data.columns import Columns
from benchcheck.errors import UsageError
from benchcheck.io.output import Outputs, atomic_write
from benchcheck.io.source import DataSource

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
LabelNamesOpt = Annotated[
    str | None,
    typer.Option("--label-names", help="Comma-separated tag names for JSONL 'ner_tags' indices."),
]
TaskOpt = Annotated[str, typer.Option("--task", help="Task kind: ner, classification or pair.")]


def _source(
    data: str | None,
    split: list[str] | None,
    *,
    scheme: str | None = None,
    strict: bool = False,
    label_names: str | None = None,
    task: str = "ner",
    columns: Columns | None = None,
) -> DataSource:
    """Build the dataset the options describe."""
    return DataSource(
        path=data,
        splits=parse_assignments(split, "--split"),
        task=task,
        columns=columns or Columns(),
        scheme=scheme,
        strict=strict,
        label_names=tuple(label_names.split(",")) if label_names else None,
    )


def _scores(scores: str | None) -> dict[str, float]:
    if not scores:
        return {}
    out = {}
    for k, item in enumerate(scores.split(",")):
        try:
            value = float(item)
        except ValueError:
            raise UsageError(f"--scores expects comma-separated numbers, got {item!r}") from None
        if not math.isfinite(value):
            raise UsageError(f"--scores expects finite numbers, got {item.strip()!r}")
        out[f"model_{k + 1}"] = value
    return out


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
    force: ForceOpt = False,
) -> None:
    """Statistical evaluation of a dataset (NER, classification, pair): the three dimensions.

    Example: benchcheck stats data/conll2003/ --scores 93.1,92.8,92.4,91.9,91.0 --json out.json
    Example: benchcheck stats nli/ --task pair --text-a premise --text-b hypothesis --label label
    Example: benchcheck stats data/ --near-duplicates --near-threshold 0.8 --json out.json
    Example: benchcheck stats data.parquet/ --engine ray --address auto --json out.json
    """
    from benchcheck.report.terminal import stats_renderables
    from benchcheck.runs.stats import (
        EngineOptions,
        NearDuplicateOptions,
        SemanticOptions,
        run_stats,
    )

    source = _source(
        data,
        split,
        scheme=scheme,
        strict=strict,
        label_names=label_names,
        task=task,
        columns=Columns(text=text, text_a=text_a, text_b=text_b, label=label, id=id_col),
    )
    files = parse_assignments(predictions, "--predictions")
    Outputs([*source.inputs, *files.values()], force=force).file(json_out, param="json")
    run = run_stats(
        source,
        scores=_scores(scores),
        predictions=files,
        near_duplicates=(
            NearDuplicateOptions(threshold=near_threshold, seed=seed) if near_dups else None
        ),
        semantic_duplicates=SemanticOptions(semantic_threshold) if semantic_dups else None,
        engine=EngineOptions(engine, address=address, cpus=ray_cpus),
    )
    result = run.to_json()
    write_json(result, json_out)
    if json_out != "-":
        for renderable in stats_renderables(result):
            console.print(renderable)


@app.command("compare")
def compare(
    datasets: Annotated[list[str], typer.Argument(help="NAME=PATH for each dataset to compare.")],
    scheme: SchemeOpt = None,
    strict: StrictOpt = False,
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Several datasets side by side, as the paper's comparison table.

    Example: benchcheck compare conll=data/conll/ wnut=data/wnut/ --json cmp.json
    """
    from benchcheck.report.terminal import compare_table
    from benchcheck.runs.stats import run_compare

    named = parse_assignments(datasets, "compare")
    sources = {n: DataSource(path, scheme=scheme, strict=strict) for n, path in named.items()}
    Outputs([p for s in sources.values() for p in s.inputs], force=force).file(
        json_out, param="json"
    )
    result = run_compare(sources).to_json()
    write_json(result, json_out)
    if json_out != "-":
        console.print(compare_table(result["datasets"]))


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
    force: ForceOpt = False,
    scheme: SchemeOpt = None,
) -> None:
    """Draw a seeded per-split sample for human accuracy judgements (Eq. 2).

    Annotators fill each row's "annotations" object with {"their name": true|false}.

    Example: benchcheck sample data/ --per-split 100 --seed 13 -o to_annotate.jsonl
    """
    from benchcheck.runs.accuracy import run_sample

    source = _source(data, split, scheme=scheme)
    Outputs(source.inputs, force=force).file(output, param="output")
    rows = run_sample(source, per_split=per_split, seed=seed)
    atomic_write(output, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    console.print(f"wrote {len(rows)} rows to {escape(str(output))}")


@app.command("accuracy")
def accuracy(
    annotated: Annotated[
        Path, typer.Argument(help="The sample file with annotators' judgements filled in.")
    ],
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Accuracy per split (Eq. 2) and mean pairwise Cohen's kappa; warns below 0.75.

    A pair whose kappa is undefined (both gave one and the same judgement throughout) shows
    as — (JSON null) and is left out of the mean.

    Example: benchcheck accuracy annotated.jsonl --json accuracy.json
    """
    from benchcheck.report.terminal import accuracy_table
    from benchcheck.runs.accuracy import run_accuracy

    Outputs([annotated], force=force).file(json_out, param="json")
    payload = run_accuracy(annotated).to_json()
    write_json(payload, json_out)
    if json_out != "-":
        console.print(accuracy_table(payload))
    for w in payload["warnings"]:
        console_err.print(f"[yellow]warning:[/] {escape(w)}", soft_wrap=True)
