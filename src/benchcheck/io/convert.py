"""``benchcheck convert``: CoNLL splits written as a folder of Parquet shards.

Each split becomes ``<output>/<split>/part-NNNNN.parquet`` with one row per token
(sentence, token, tag, line) plus the manifest :mod:`benchcheck.io.shards` reads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data import schemes
from benchcheck.errors import InputError, UsageError, uninterrupted
from benchcheck.io.output import OutputFolder, Outputs, safe_name
from benchcheck.io.shards import FORMAT, MANIFEST, SCHEMA, VERSION, ShardFolder, open_shards

__all__ = ["convert"]


def convert(
    source: str | Path | None = None,
    output: str | Path = "data.parquet",
    *,
    splits: Mapping[str, str | Path] | None = None,
    name: str | None = None,
    chunk_bytes: int | None = None,
    compression: str = "zstd",
    folder: OutputFolder | None = None,
) -> ShardFolder:
    """Write each CoNLL split of ``source`` (folder, file, or ``splits``) as Parquet shards.

    The splits are the files :func:`benchcheck.io.load.load` would read, found by
    :func:`benchcheck.io.load.split_files` (same names, aliases, skipped files and errors).

    ``output`` follows the one output rule (:meth:`benchcheck.io.output.Outputs.folder`,
    the command owning the folder whole): absent or empty, never an input nor around one;
    ``folder``, the output as a command claimed it, may allow replacing an existing one
    (``force``), which is then replaced whole. Shards are written into a temporary sibling
    folder (:class:`benchcheck.io.output.OutputFolder`: fsynced, then renamed to
    ``output`` only once every split is complete; a killed conversion's temporary is
    removed by the next one), so an interrupted conversion leaves no folder that looks
    valid. Tag shapes are checked on the
    way (unknown shapes raise :class:`~benchcheck.errors.InputError` with file and line);
    scheme transitions are checked when the shards are read, as for the CoNLL files.
    """
    from benchcheck.io import conll
    from benchcheck.io.load import split_files

    out = Path(output)
    files = split_files(source, splits=splits)  # the splits and the errors of load
    for split in files:  # each split becomes a folder: its name must be safe as one
        safe_name(split, what="split name")
    title = name or ("dataset" if source is None else Path(str(source)).name)
    for file in files.values():
        if file.suffix.lower() in (".jsonl", ".ndjson", ".json", ".parquet", ".arrow"):
            raise UsageError(f"benchcheck convert reads CoNLL files; {file} is not one")
    if folder is None:
        inputs = [source, *files.values()] if source is not None else list(files.values())
        folder = Outputs(inputs).folder(out, param="output", names=None)
    with folder as staged:
        tmp = staged.stage(MANIFEST).parent
        meta: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "task": "ner",
            "name": title,
            "splits": {},
        }
        for split, file in files.items():
            meta["splits"][split] = _convert_file(
                file, staged.stage(split), chunk_bytes or conll.CHUNK_BYTES, compression
            )
        (tmp / MANIFEST).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return open_shards(out)


def _convert_file(path: Path, folder: Path, chunk_bytes: int, compression: str) -> dict[str, Any]:
    """Write one CoNLL file's chunks as shards; return its manifest entry."""
    from benchcheck.io import conll

    folder.mkdir(parents=True)
    shards: list[str] = []
    n_sent = n_tok = 0
    fmt = None
    last_line = 0
    for data, first_line, n_lines in conll._chunks(path, chunk_bytes):
        last_line = first_line + n_lines - (1 if data.endswith(b"\n") else 0)
        if fmt is None or not fmt[1]:  # until a chunk with a content line fixes the format
            fmt = conll._format_of(data, path, first_line)
        parsed = conll._parse_fast(data, fmt, first_line=first_line) or conll._parse_lines(
            data, path, fmt, first_line=first_line
        )
        token, tag, line, start = parsed.token, parsed.tag, parsed.line, parsed.sentence_start
        assert tag is not None  # only the statistics path asks for tag codes instead
        if token.len() == 0:
            continue
        _check_tags(tag, line, path)
        sentence = np.cumsum(start, dtype=np.int64) - 1 + n_sent
        frame = pl.DataFrame(
            {
                "sentence": sentence,
                "token": token,
                "tag": tag,
                "line": np.asarray(line, dtype=np.int64),
            },
            schema=SCHEMA,
        )
        shard = f"part-{len(shards):05d}.parquet"
        with uninterrupted():  # a signal mid-write would panic polars' writer threads
            frame.write_parquet(folder / shard, compression=compression, statistics=True)  # type: ignore[arg-type]
        shards.append(shard)
        n_sent = int(sentence[-1]) + 1
        n_tok += token.len()
    if not shards:
        raise conll.empty_split_error(path, last_line)
    return {"source": str(path), "shards": shards, "n_sentences": n_sent, "n_tokens": n_tok}


def _check_tags(tag: pl.Series, line: np.ndarray, path: Path) -> None:
    """Raise on the first tag whose shape is not ``O`` or a known prefix and a type."""
    for value in tag.unique(maintain_order=True).to_list():
        if schemes.parse_tag(value) is None:
            row = int(np.flatnonzero((tag == value).to_numpy())[0])
            raise InputError(
                schemes.TAG_SHAPE_EXPECTED,
                path=path,
                line=int(line[row]),
                got=value,
            )
