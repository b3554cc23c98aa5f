"""Commands for data larger than memory: convert (CoNLL → Parquet shards), leakage."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

from benchcheck.cli._common import (
    claim,
    claim_json,
    command,
    emit,
    output_claims,
    parse_assignments,
    reporting,
)
from benchcheck.cli._options import Arg
from benchcheck.runs.leakage import LeakageOptions


@command("convert")
def convert(
    data: Annotated[
        str | None, Arg("Dataset folder (train/dev/test found by name) or one CoNLL file.")
    ] = None,
    output: Annotated[Path, "Folder to create (an empty one, or --force)."] = Path("data.parquet"),
    split: list[str] | None = None,
    chunk_mb: int | None = None,
) -> None:
    """Convert CoNLL splits to Parquet shards that stats, audit and --engine ray read.

    Each split becomes <output>/<split>/part-NNNNN.parquet with one row per token
    (sentence, token, tag, line); the original file and lines are kept for error messages.

    Example: benchcheck convert data/conll2003/ -o conll.parquet/ && benchcheck stats conll.parquet/
    """
    from benchcheck.report.terminal.scale import convert_lines
    from benchcheck.runs.scale import run_convert

    splits = parse_assignments(split, "--split")
    outputs = output_claims([data, *splits.values()])
    claimed = outputs.folder(output, param="output", names=None)  # owned whole
    claim_json(outputs)
    chunk_bytes = None if chunk_mb is None else chunk_mb << 20
    folder = run_convert(data, output, splits=splits, chunk_bytes=chunk_bytes, folder=claimed)
    emit(folder.to_json(), lambda p: convert_lines(p, str(folder.root)))


@command("leakage")
def leakage(
    test: Path,
    corpus: list[str],
    contamination: LeakageOptions = LeakageOptions(),
    predictions: Annotated[
        list[str] | None,
        "NAME=FILE: a model's per-item results (id + 'correct' in [0, 1], or id + 'pred' "
        "against --label): adds the score table.",
    ] = None,
    label: Annotated[str | None, "Gold label column of the test file (default: label)."] = None,
    text_column: str = "text",
    test_column: str | None = None,
    id_column: str | None = None,
    corpus_id_column: str | None = None,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 1,
    engine: Annotated[str, "embedded, or ray (one task per shard)."] = "embedded",
    address: str | None = None,
    ray_cpus: int | None = None,
    batch_mb: int = 32,
    show: int = 10,
) -> None:
    """Test-set contamination against a corpus streamed shard by shard (never all in memory).

    Per item: the share of its tokens inside spans also found in the corpus (Llama 2: spans
    of 10+ tokens, up to 4 mismatches; clean < 20%, dirty >= 80%), or of its n-grams found
    (--definition gpt3 / palm); exact and normalised matches of whole documents; the first
    matches (file, row, offsets). With --predictions: each model's score on the clean and
    dirty subsets, the difference with a bootstrap interval, Llama 2's Z, the ranks.
    Corpus shards: Parquet, JSON lines (.jsonl, .jsonl.gz, .jsonl.zst).

    Example: benchcheck leakage --test test.jsonl --corpus 'shards/*.jsonl.zst' --json leak.json
    Example: benchcheck leakage --test t.jsonl --corpus c/ --predictions a=a.jsonl --label gold
    Example: benchcheck leakage --test t.jsonl --corpus c/ --engine ray --address auto
    """
    from benchcheck.report.terminal.scale import leakage_lines
    from benchcheck.runs.leakage import LeakageEngine, run_leakage

    files = parse_assignments(predictions, "--predictions")
    claim([test, *corpus, *files.values()])
    options = replace(contamination, seed=seed, resamples=resamples, confidence=confidence)
    with reporting("scanning corpus units") as bar:
        result = run_leakage(
            test,
            corpus,
            text_column=text_column,
            test_column=test_column,
            id_column=id_column,
            corpus_id_column=corpus_id_column,
            label_column=label,
            predictions=files,
            options=options,
            engine=LeakageEngine(engine, address=address, cpus=ray_cpus, batch_mb=batch_mb),
            progress=bar,
        )
    emit(result.to_json(), lambda p: leakage_lines(p, show=show))
