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
from benchcheck.io.formats import NerOptions
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
    str | None,
    typer.Option(
        "--scheme",
        help="Force the tagging scheme: IOB1, IOB2, IOE1, IOE2, BIOES (IOBES), BILOU or BMES.",
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        help="NER file format (else detected from the extension and first record): "
        "conll, jsonl, cluener, doccano, label-studio, spacy or hf. Examples below.",
    ),
]
TypeMapOpt = Annotated[
    str | None,
    typer.Option(
        "--type-map",
        help='Rename entity types: a JSON object {"PER.NAM": "PER", ...} or @FILE.json.',
    ),
]
CoarseOpt = Annotated[
    bool,
    typer.Option("--coarse-types", help="Cut entity types at the first '.' (PER.NAM -> PER)."),
]
TokenizerOpt = Annotated[
    str,
    typer.Option(
        "--tokenizer",
        help="Offset formats: unicode (a token per CJK/Thai character, else words) or chars.",
    ),
]
AlignOpt = Annotated[
    str,
    typer.Option(
        "--align",
        help="Offset formats: spans off token boundaries are an error (strict), or are widened "
        "(expand) or narrowed (contract) and counted.",
    ),
]
OverlapsOpt = Annotated[
    str,
    typer.Option(
        "--overlaps",
        help="Offset formats: overlapping spans are an error, or keep-longest / keep-first.",
    ),
]
StrictOpt = Annotated[
    bool, typer.Option("--strict", help="Reject invalid tag transitions instead of repairing them.")
]
LabelNamesOpt = Annotated[
    str | None,
    typer.Option("--label-names", help="Comma-separated tag names for JSONL 'ner_tags' indices."),
]
TaskOpt = Annotated[str, typer.Option("--task", help="Task kind: ner, classification or pair.")]


def format_help() -> str:
    """List the formats ``--format`` takes, one example line each (the help's epilog)."""
    from benchcheck.io.formats import FORMATS

    lines = ["Formats (--format; detected from the extension and first record if not given):"]
    for fmt in FORMATS.values():
        lines.append(escape(f"{fmt.name}: {fmt.title}. Example: {fmt.example}"))
    return "\n".join(lines)


def ner_options(
    fmt: str | None = None,
    type_map: str | None = None,
    coarse_types: bool = False,
    tokenizer: str = "unicode",
    align: str = "strict",
    overlaps: str = "error",
) -> NerOptions:
    """Build the NER reading options; ``--type-map`` is JSON or ``@file`` holding JSON."""
    mapping: dict[str, str] = {}
    if type_map:
        text = type_map
        if type_map.startswith("@"):
            try:
                text = Path(type_map[1:]).read_text(encoding="utf-8")
            except OSError as exc:
                raise UsageError(f"--type-map: cannot read {type_map[1:]!r}: {exc}") from None
        try:
            mapping = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--type-map expects a JSON object: {exc.msg}") from None
        if not isinstance(mapping, dict):
            raise UsageError(f"--type-map expects a JSON object, got {text!r}")
    return NerOptions(
        format=fmt,
        tokenizer=tokenizer,
        align=align,
        overlaps=overlaps,
        type_map=mapping,
        coarse_types=coarse_types,
    )


def _source(
    data: str | None,
    split: list[str] | None,
    *,
    scheme: str | None = None,
    strict: bool = False,
    label_names: str | None = None,
    task: str = "ner",
    columns: Columns | None = None,
    ner: NerOptions | None = None,
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
        ner=ner or NerOptions(),
    )


def warn_reading(result: dict) -> None:  # type: ignore[type-arg]
    """Warn on stderr about what reading noticed: split-only types, skipped splits."""
    for name, types in (result.get("types_only_in") or {}).items():
        console_err.print(
            f"warning: entity types seen only in split {escape(name)}: " + escape(", ".join(types))
        )
    for file in result.get("skipped_splits") or []:
        console_err.print(f"warning: skipped {escape(file)}: it holds no annotation")


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


@app.command("stats", epilog=format_help())
def stats(
    data: DataArg = None,
    split: SplitOpt = None,
    scheme: SchemeOpt = None,
    strict: StrictOpt = False,
    fmt: FormatOpt = None,
    type_map: TypeMapOpt = None,
    coarse_types: CoarseOpt = False,
    tokenizer: TokenizerOpt = "unicode",
    align: AlignOpt = "strict",
    overlaps: OverlapsOpt = "error",
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
    Example: benchcheck stats cluener/ --format cluener --json out.json
    Example: benchcheck stats weibo/ --type-map '{"PER.NAM": "PER", "PER.NOM": "PER"}'
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
        ner=ner_options(fmt, type_map, coarse_types, tokenizer, align, overlaps),
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
    warn_reading(result)
    if json_out != "-":
        for renderable in stats_renderables(result):
            console.print(renderable)


@app.command("compare", epilog=format_help())
def compare(
    datasets: Annotated[list[str], typer.Argument(help="NAME=PATH for each dataset to compare.")],
    scheme: SchemeOpt = None,
    strict: StrictOpt = False,
    fmt: FormatOpt = None,
    type_map: TypeMapOpt = None,
    coarse_types: CoarseOpt = False,
    tokenizer: TokenizerOpt = "unicode",
    align: AlignOpt = "strict",
    overlaps: OverlapsOpt = "error",
    json_out: JsonOpt = None,
    force: ForceOpt = False,
) -> None:
    """Several datasets side by side, as the paper's comparison table.

    Example: benchcheck compare conll=data/conll/ wnut=data/wnut/ --json cmp.json
    """
    from benchcheck.report.terminal import compare_table
    from benchcheck.runs.stats import run_compare

    named = parse_assignments(datasets, "compare")
    ner = ner_options(fmt, type_map, coarse_types, tokenizer, align, overlaps)
    sources = {
        n: DataSource(path, scheme=scheme, strict=strict, ner=ner) for n, path in named.items()
    }
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
