"""Commands of the statistical dataset evaluation: stats, compare, sample, accuracy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from rich.markup import escape

from benchcheck.cli._common import (
    claim,
    command,
    emit,
    parse_assignments,
    parse_scores,
    reporting,
    warn,
)
from benchcheck.cli._options import Arg
from benchcheck.data.columns import Columns
from benchcheck.io.formats import NerOptions
from benchcheck.io.source import DataSource


def format_help() -> str:
    """List the formats ``--format`` takes, one example line each (the help's epilog)."""
    from benchcheck.io.formats import FORMATS

    lines = ["Formats (--format; detected from the extension and first record if not given):"]
    lines += [escape(f"{f.name}: {f.title}. Example: {f.example}") for f in FORMATS.values()]
    return "\n".join(lines)


def _source(data: str | None, split: list[str] | None, **kw: Any) -> DataSource:
    """Build the dataset the options describe (``--split NAME=FILE`` parsed)."""
    return DataSource(path=data, splits=parse_assignments(split, "--split"), **kw)


@command("stats", epilog=format_help())
def stats(
    data: Annotated[str | None, Arg()] = None,
    split: list[str] | None = None,
    scheme: str | None = None,
    strict: bool = False,
    ner: NerOptions = NerOptions(),
    scores: str | None = None,
    predictions: Annotated[
        list[str] | None, "NAME=FILE of CoNLL predictions on test; scored with seqeval micro-F1."
    ] = None,
    label_names: str | None = None,
    task: str = "ner",
    columns: Columns = Columns(),
    near_duplicates: bool = False,
    near_threshold: float = 0.8,
    seed: int = 1,
    semantic_duplicates: bool = False,
    semantic_threshold: float = 0.9,
    engine: str = "embedded",
    address: str | None = None,
    ray_cpus: int | None = None,
    reviewed: str | None = None,
    json_out: str | None = None,
) -> None:
    """Statistical evaluation of a dataset (NER, classification, pair): the three dimensions.

    Example: benchcheck stats data/conll2003/ --scores 93.1,92.8,92.4,91.9,91.0 --json out.json
    Example: benchcheck stats nli/ --task pair --text-a premise --text-b hypothesis --label label
    Example: benchcheck stats data/ --near-duplicates --near-threshold 0.8 --json out.json
    Example: benchcheck stats data.parquet/ --engine ray --address auto --json out.json
    Example: benchcheck stats cluener/ --format cluener --json out.json
    Example: benchcheck stats weibo/ --type-map '{"PER.NAM": "PER", "PER.NOM": "PER"}'
    Example: benchcheck stats data/ --reviewed corrected_spans.csv --json out.json
    """
    from benchcheck.report.terminal import reading_notes, stats_renderables
    from benchcheck.runs.stats import (
        EngineOptions,
        NearDuplicateOptions,
        SemanticOptions,
        run_stats,
    )

    labels = tuple(label_names.split(",")) if label_names else None
    kw = dict(scheme=scheme, strict=strict, label_names=labels, task=task, columns=columns, ner=ner)
    source = _source(data, split, **kw)
    files = parse_assignments(predictions, "--predictions")
    claim([*source.inputs, *files.values(), *([reviewed] if reviewed else [])])
    near = NearDuplicateOptions(near_threshold, seed=seed) if near_duplicates else None
    run = run_stats(
        source,
        scores=parse_scores(scores),
        predictions=files,
        near_duplicates=near,
        semantic_duplicates=SemanticOptions(semantic_threshold) if semantic_duplicates else None,
        engine=EngineOptions(engine, address=address, cpus=ray_cpus),
        reviewed=reviewed,
    )
    result = run.to_json()
    warn(reading_notes(result))
    emit(result, stats_renderables)


@command("compare", epilog=format_help())
def compare(
    datasets: Annotated[list[str], Arg()],
    scheme: str | None = None,
    strict: bool = False,
    ner: NerOptions = NerOptions(),
) -> None:
    """Several datasets side by side, as the paper's comparison table.

    Example: benchcheck compare conll=data/conll/ wnut=data/wnut/ --json cmp.json
    """
    from benchcheck.report.terminal import compare_table
    from benchcheck.runs.stats import run_compare

    named = parse_assignments(datasets, "compare")
    sources = {n: DataSource(p, scheme=scheme, strict=strict, ner=ner) for n, p in named.items()}
    claim([p for s in sources.values() for p in s.inputs])
    with reporting("compare") as bar:
        run = run_compare(sources, progress=bar)
    emit(run.to_json(), lambda r: [compare_table(r["datasets"])])


@command("sample", json=False)
def sample(
    data: Annotated[str | None, Arg()] = None,
    split: list[str] | None = None,
    per_split: int = 100,
    seed: int = 13,
    output: Annotated[Path, "JSONL file to write for the annotators."] = Path("to_annotate.jsonl"),
    force: bool = False,  # (declared here to keep its place in --help; read by claim)
    scheme: str | None = None,
) -> None:
    """Draw a seeded per-split sample for human accuracy judgements (Eq. 2).

    Annotators fill each row's "annotations" object with {"their name": true|false}.

    Example: benchcheck sample data/ --per-split 100 --seed 13 -o to_annotate.jsonl
    """
    from benchcheck.runs.accuracy import run_sample

    source = _source(data, split, scheme=scheme)
    claim(source.inputs, output=output)
    with reporting("sample") as bar:
        run = run_sample(source, per_split=per_split, seed=seed, output=output, progress=bar)
    emit(run.to_json(), lambda p: [f"wrote {p['n_rows']} rows to {escape(str(p['output']))}"])


@command("accuracy")
def accuracy(annotated: Annotated[Path, Arg()]) -> None:
    """Accuracy per split (Eq. 2) and mean pairwise Cohen's kappa; warns below 0.75.

    A pair whose kappa is undefined (both gave one and the same judgement throughout) shows
    as — (JSON null) and is left out of the mean.

    Example: benchcheck accuracy annotated.jsonl --json accuracy.json
    """
    from benchcheck.report.terminal import accuracy_table
    from benchcheck.runs.accuracy import run_accuracy

    claim([annotated])
    with reporting("accuracy") as bar:
        payload = run_accuracy(annotated, progress=bar).to_json()
    emit(payload, lambda p: [accuracy_table(p)])
    warn(payload["warnings"], soft_wrap=True)
