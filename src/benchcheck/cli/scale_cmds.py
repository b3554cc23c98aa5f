"""Commands for data larger than memory: convert (CoNLL → Parquet shards), leakage."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli import _options as opt
from benchcheck.cli._common import claim, command, emit, parse_assignments
from benchcheck.io.output import Outputs


@command("convert")
def convert(
    data: Annotated[
        str | None, opt.arg("Dataset folder (train/dev/test found by name) or one CoNLL file.")
    ] = None,
    output: Annotated[Path, opt.out("New folder to write (never replaced).")] = Path(
        "data.parquet"
    ),
    split: opt.SplitOpt = None,
    chunk_mb: Annotated[
        int | None,
        typer.Option(
            "--chunk-mb", min=1, help="CoNLL megabytes per shard, cut at blank lines (default 16)."
        ),
    ] = None,
    json_out: opt.JsonOpt = None,
    force: opt.ForceOpt = False,
) -> None:
    """Convert CoNLL splits to Parquet shards that stats, audit and --engine ray read.

    Each split becomes <output>/<split>/part-NNNNN.parquet with one row per token
    (sentence, token, tag, line); the original file and lines are kept for error messages.

    Example: benchcheck convert data/conll2003/ -o conll.parquet/ && benchcheck stats conll.parquet/
    """
    from benchcheck.report.terminal.scale import convert_lines
    from benchcheck.runs.scale import run_convert

    splits = parse_assignments(split, "--split")
    outputs = Outputs([data, *splits.values()], force=force)
    if not output.exists():  # an existing folder is never replaced: convert says so itself
        outputs.folder(output, param="output", names=None)
    outputs.file(json_out, param="json")
    chunk_bytes = None if chunk_mb is None else chunk_mb << 20
    folder = run_convert(data, output, splits=splits, chunk_bytes=chunk_bytes)
    emit(folder.to_json(), json_out, lambda p: convert_lines(p, str(folder.root)))


@command("leakage")
def leakage(
    test: Annotated[
        Path,
        typer.Option("--test", help="Test items: JSONL, CSV, TSV or Parquet with a text column."),
    ],
    corpus: Annotated[
        list[str],
        typer.Option(
            "--corpus", help="Parquet corpus: glob (quote it), file or folder; repeatable."
        ),
    ],
    text_column: Annotated[
        str, typer.Option("--text-column", help="Text column of the corpus (and of the test file).")
    ] = "text",
    test_column: Annotated[
        str | None,
        typer.Option("--test-column", help="Text column of the test file, if different."),
    ] = None,
    id_column: Annotated[
        str | None,
        typer.Option("--id-column", help="Id column of the test file (default: id, else row)."),
    ] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="Words per n-gram.")] = 13,
    batch_rows: Annotated[
        int, typer.Option("--batch-rows", min=1, help="Corpus documents held at once.")
    ] = 8192,
    show: Annotated[int, typer.Option("--show", min=0, help="Contaminated items to list.")] = 10,
    json_out: opt.JsonOpt = None,
    force: opt.ForceOpt = False,
) -> None:
    """Test-set contamination against a corpus streamed shard by shard (never all in memory).

    Exact and normalised (NFKC, casefold, whitespace) matches of whole documents, and word
    n-gram overlap in the style of benchmark decontamination (an item is contaminated when
    any of its n-grams occurs in the corpus).

    Example: benchcheck leakage --test test.jsonl --corpus 'shards/*.parquet' --json leak.json
    """
    from benchcheck.report.terminal.scale import leakage_lines
    from benchcheck.runs.scale import run_leakage

    claim([test, *corpus], force, json_out)
    result = run_leakage(
        test,
        corpus,
        text_column=text_column,
        test_column=test_column,
        id_column=id_column,
        n=n,
        batch_rows=batch_rows,
    )
    emit(result.to_json(), json_out, lambda p: leakage_lines(p, show=show))
