"""Commands for data larger than memory: convert (CoNLL → Parquet shards), leakage."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchcheck.cli._common import (
    claim,
    claim_json,
    command,
    emit,
    output_claims,
    parse_assignments,
)
from benchcheck.cli._options import Arg


@command("convert")
def convert(
    data: Annotated[
        str | None, Arg("Dataset folder (train/dev/test found by name) or one CoNLL file.")
    ] = None,
    output: Annotated[Path, "New folder to write (never replaced)."] = Path("data.parquet"),
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
    if not output.exists():  # an existing folder is never replaced: convert says so itself
        outputs.folder(output, param="output", names=None)
    claim_json(outputs)
    chunk_bytes = None if chunk_mb is None else chunk_mb << 20
    folder = run_convert(data, output, splits=splits, chunk_bytes=chunk_bytes)
    emit(folder.to_json(), lambda p: convert_lines(p, str(folder.root)))


@command("leakage")
def leakage(
    test: Path,
    corpus: list[str],
    text_column: str = "text",
    test_column: str | None = None,
    id_column: str | None = None,
    n: int = 13,
    batch_rows: int = 8192,
    show: int = 10,
) -> None:
    """Test-set contamination against a corpus streamed shard by shard (never all in memory).

    Exact and normalised (NFKC, casefold, whitespace) matches of whole documents, and word
    n-gram overlap in the style of benchmark decontamination (an item is contaminated when
    any of its n-grams occurs in the corpus).

    Example: benchcheck leakage --test test.jsonl --corpus 'shards/*.parquet' --json leak.json
    """
    from benchcheck.report.terminal.scale import leakage_lines
    from benchcheck.runs.scale import run_leakage

    claim([test, *corpus])
    result = run_leakage(
        test,
        corpus,
        text_column=text_column,
        test_column=test_column,
        id_column=id_column,
        n=n,
        batch_rows=batch_rows,
    )
    emit(result.to_json(), lambda p: leakage_lines(p, show=show))
