"""Parquet shards of NER splits: convert once, then read shard by shard in bounded memory.

Layout written by :func:`convert` (``benchcheck convert DATA -o data.parquet/``)::

    data.parquet/
      _benchcheck_shards.json        manifest: format, task, dataset name, splits → shards
      train/part-00000.parquet       token rows: sentence, token, tag, line
      train/part-00001.parquet
      test/part-00000.parquet

One shard per CoNLL chunk (chunks end at blank lines, so a sentence never straddles two
shards). ``sentence`` is the sentence's 0-based index in its split (global, not per shard),
``line`` its token's 1-based line in the original file, whose path the manifest keeps as the
split's ``source``: errors found later still name the original ``file:line``, and the
statistics read from shards are exactly, byte for byte, those read from the CoNLL files.

:func:`read_shards` builds each shard's lean per-sentence and per-span tables with
:func:`benchcheck.io._ner.build_ner_split` and joins them with
:func:`benchcheck.io._ner.combine_splits`, as the CoNLL reader does with its chunks. The
distributed engine (:mod:`benchcheck.engine.ray_engine`) runs :func:`shard_split` on
workers and the same combination on the driver.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.model import Dataset, Split
from benchcheck.errors import InputError, UsageError
from benchcheck.io._decoded import check_parquet_decoded
from benchcheck.io._ner import build_ner_split, combine_splits  # combine_splits: public here
from benchcheck.io._text import whole_read_limit

MANIFEST = "_benchcheck_shards.json"
FORMAT = "benchcheck-ner-shards"
VERSION = 1
#: Columns of a shard, in order.
COLUMNS = ("sentence", "token", "tag", "line")
SCHEMA = {"sentence": pl.Int64, "token": pl.String, "tag": pl.String, "line": pl.Int64}
#: Shards read and built at once (as the CoNLL reader's chunks).
_WORKERS = 2


@dataclass(frozen=True)
class ShardSplit:
    """One split of a shard folder: its original source and its shard files, in order."""

    name: str
    source: str
    shards: tuple[Path, ...]
    n_sentences: int
    n_tokens: int


@dataclass(frozen=True)
class ShardFolder:
    """A converted dataset: where it is, its name and its splits (read from the manifest)."""

    root: Path
    name: str
    task: str
    splits: Mapping[str, ShardSplit] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return the manifest-like JSON summary (shard paths relative to the folder)."""
        return {
            "output": str(self.root),
            "name": self.name,
            "task": self.task,
            "splits": {
                k: {
                    "source": s.source,
                    "n_shards": len(s.shards),
                    "n_sentences": s.n_sentences,
                    "n_tokens": s.n_tokens,
                }
                for k, s in self.splits.items()
            },
        }


def is_shard_folder(path: str | Path) -> bool:
    """Say whether ``path`` is a folder written by :func:`convert` (it holds the manifest).

    >>> is_shard_folder(".")
    False
    """
    return (Path(path) / MANIFEST).is_file()


def open_shards(path: str | Path) -> ShardFolder:
    """Read and check the manifest of a shard folder; errors name the folder."""
    from benchcheck.io._text import loads_json, read_text_file
    from benchcheck.io.output import inside, safe_name

    root = Path(path)
    manifest = root / MANIFEST
    if not manifest.is_file():
        raise InputError(
            f"not a benchcheck shard folder (no {MANIFEST}); write one with benchcheck convert",
            path=root,
        )
    meta = loads_json(read_text_file(manifest), manifest)
    if not isinstance(meta, dict):
        raise InputError("unreadable shard manifest: expected a JSON object", path=manifest)
    if meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise InputError(
            f"unknown shard format; expected {FORMAT} version {VERSION}",
            path=manifest,
            got=f"{meta.get('format')} {meta.get('version')}",
        )
    if not isinstance(meta.get("splits"), dict):
        raise InputError("unreadable shard manifest: expected an object of splits", path=manifest)
    splits = {}
    for name, info in meta["splits"].items():
        try:  # a crafted manifest must not make the reader open files outside the folder
            safe_name(name, what="split name")
            files = tuple(inside(root, Path(name) / safe_name(f)) for f in info["shards"])
            n_sentences, n_tokens = int(info["n_sentences"]), int(info["n_tokens"])
        except (UsageError, KeyError, TypeError, ValueError) as exc:
            raise InputError(f"unreadable shard manifest: {exc}", path=manifest) from None
        missing = [f for f in files if not f.is_file()]
        if missing:
            raise InputError("shard listed in the manifest is missing", path=missing[0])
        splits[name] = ShardSplit(
            name=name,
            source=str(info.get("source", "")),
            shards=files,
            n_sentences=n_sentences,
            n_tokens=n_tokens,
        )
    return ShardFolder(root=root, name=meta["name"], task=meta["task"], splits=splits)


def shard_split(
    frame: pl.DataFrame,
    *,
    name: str,
    source: str,
    scheme: str | None = None,
    strict: bool = False,
    keep_tokens: bool = False,
) -> Split:
    """Build the split of one shard's token rows (sentence ids local to the shard).

    ``frame`` holds the shard's ``sentence``, ``token``, ``tag`` and ``line`` columns in file
    order; a new sentence starts wherever ``sentence`` changes.
    """
    sentence = frame.get_column("sentence").to_numpy()
    start = np.ones(sentence.size, dtype=bool)
    if sentence.size > 1:
        start[1:] = sentence[1:] != sentence[:-1]
    return build_ner_split(
        name=name,
        source=source,
        token=frame.get_column("token"),
        tag=frame.get_column("tag"),
        sentence_start=start,
        line=frame.get_column("line").to_numpy(),
        scheme=scheme,
        strict=strict,
        keep_tokens=keep_tokens,
        check_letters=False,  # checked over the whole split when the shards are combined
    )


def check_shard(path: Path) -> int:
    """Measure what one shard's columns decode to; refuse past the bound of a shard read whole.

    The bound is the whole-read bound shared by the shards read at once (two); the measure,
    :func:`benchcheck.io._decoded.check_parquet_decoded`, decodes nothing whole. Every
    reader of shards calls it before its own Parquet reader (polars here, Ray Data's).
    """
    return check_parquet_decoded(path, columns=COLUMNS, limit=whole_read_limit() // _WORKERS)


def read_shard(path: Path) -> pl.DataFrame:
    """Read one shard's columns, bounded by decoded size; errors name the file.

    A shard is read whole, so its decoded size is measured first
    (:func:`benchcheck.io._decoded.check_parquet_decoded`: a dictionary page, one long token
    standing for 10M rows, is measured before it is expanded), against the whole-read bound
    shared by the shards read at once; then polars reads it.
    """
    check_shard(path)
    try:
        return pl.read_parquet(path, columns=list(COLUMNS))
    except Exception as exc:  # noqa: BLE001 - any arrow/polars error is a bad shard here
        raise InputError(f"cannot read shard: {exc}", path=path) from None


def iter_shard_splits(
    split: ShardSplit,
    *,
    scheme: str | None = None,
    strict: bool = False,
    keep_tokens: bool = False,
) -> Iterator[Split]:
    """Yield the split of each shard in order, checking that sentence ids run on.

    Shards are read and built on two threads (polars and numpy release the GIL), at most two
    in flight, taken in order: the first error in the split is the one raised.
    """

    def build(path: Path) -> tuple[int, Split] | None:
        frame = read_shard(path)
        if frame.height == 0:
            return None
        first = int(frame.get_column("sentence")[0])
        part = shard_split(
            frame,
            name=split.name,
            source=split.source,
            scheme=scheme,
            strict=strict,
            keep_tokens=keep_tokens,
        )
        return first, part

    expected = 0
    pending: deque[tuple[Path, Future[tuple[int, Split] | None]]] = deque()
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        paths = iter(split.shards)
        while True:
            for path in paths:
                pending.append((path, pool.submit(build, path)))
                if len(pending) >= _WORKERS:
                    break
            if not pending:
                return
            path, future = pending.popleft()
            done = future.result()
            if done is None:
                continue
            first, part = done
            if first != expected:
                raise InputError(
                    f"shard starts at sentence {first}, expected {expected}: shards missing or "
                    "out of order",
                    path=path,
                )
            expected += part.n
            yield part


def read_shard_split(
    split: ShardSplit,
    *,
    scheme: str | None = None,
    strict: bool = False,
    keep_tokens: bool = False,
) -> Split:
    """Read one split shard by shard and combine the parts exactly (as the CoNLL reader)."""
    parts = list(
        iter_shard_splits(
            split, scheme=scheme, strict=strict and scheme is not None, keep_tokens=keep_tokens
        )
    )
    if not parts:
        raise InputError("empty split: its shards hold no tokens", path=split.source)
    combined = combine_splits(parts, scheme=scheme)
    if strict:
        raise_first_repair(split, combined)
    return combined


def raise_first_repair(split: ShardSplit, combined: Split) -> None:
    """Raise at the first tag transition ``combined`` repaired, naming its file and line.

    As in :func:`~benchcheck.io.conll.read_conll`, the scheme is known only once every shard
    is read: the split is read again under it, strictly. Does nothing without repairs.
    """
    if combined.tag_repairs:
        for _ in iter_shard_splits(split, scheme=combined.scheme, strict=True):
            pass


def read_shards(
    path: str | Path,
    *,
    scheme: str | None = None,
    strict: bool = False,
    keep_tokens: bool = False,
    name: str | None = None,
) -> Dataset:
    """Load a shard folder as a :class:`~benchcheck.data.Dataset` (see :func:`read_shard_split`)."""
    folder = open_shards(path)
    out = {
        split: read_shard_split(info, scheme=scheme, strict=strict, keep_tokens=keep_tokens)
        for split, info in folder.splits.items()
    }
    return Dataset(task="ner", splits=out, name=name or folder.name)
