"""Commands for data larger than memory: convert (CoNLL → Parquet shards), leakage."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli._app import app, console
from benchcheck.cli._common import parse_assignments, write_json

JsonOpt = Annotated[
    str | None, typer.Option("--json", help="Write the canonical JSON here ('-' for stdout).")
]


@app.command("convert")
def convert(
    data: Annotated[
        str | None,
        typer.Argument(help="Dataset folder (train/dev/test found by name) or one CoNLL file."),
    ] = None,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="New folder to write (never overwritten).")
    ] = Path("data.parquet"),
    split: Annotated[
        list[str] | None, typer.Option("--split", help="NAME=FILE; repeat for each split.")
    ] = None,
    chunk_mb: Annotated[
        int, typer.Option("--chunk-mb", min=1, help="CoNLL bytes per shard (cut at blank lines).")
    ] = 64,
    json_out: JsonOpt = None,
) -> None:
    """Convert CoNLL splits to Parquet shards that stats, audit and --engine ray read.

    Each split becomes <output>/<split>/part-NNNNN.parquet with one row per token
    (sentence, token, tag, line); the original file and lines are kept for error messages.

    Example: benchcheck convert data/conll2003/ -o conll.parquet/ && benchcheck stats conll.parquet/
    """
    from benchcheck.engine.shards import convert as run

    folder = run(
        data,
        output,
        splits=parse_assignments(split, "--split") or None,
        chunk_bytes=chunk_mb << 20,
    )
    payload = folder.to_json()
    write_json(payload, json_out)
    if json_out != "-":
        for name, info in payload["splits"].items():
            console.print(
                f"{name}: {info['n_sentences']} sentences, {info['n_tokens']} tokens "
                f"in {info['n_shards']} shard(s)"
            )
        console.print(f"wrote {folder.root}")
