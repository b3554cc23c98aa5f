"""The distributed engine: Ray Data over Parquet shards, the same metric plan, the same JSON.

Ray Data reads each split's shards (:mod:`benchcheck.io.shards`); ``map_batches`` turns
every block of token rows into the lean per-sentence and per-span tables (span decoding and
hashing, :func:`benchcheck.io._ner.build_ner_split`); the driver joins the parts with
:func:`benchcheck.io.shards.combine_splits` and computes the statistics as the embedded engine
does, so the JSON is byte-identical.

Ray cuts blocks where it likes, so a sentence may straddle two blocks. Sentence ids are
global within a split, which makes this safe: in each block, the first and the last sentence
of every run of rows with consecutive ids (and increasing lines) are sent back raw; the
sentences between them are whole and are built on the worker. The driver builds the raw
sentences from all their rows (ordered by line), sorts every part by its first sentence id
and checks that the ids cover ``0 .. n - 1`` exactly once before combining: a cut it did not
foresee raises an error instead of giving a wrong number.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.model import Dataset, Split
from benchcheck.errors import BenchcheckError, InputError, UsageError, require
from benchcheck.io.shards import (
    COLUMNS,
    ShardSplit,
    check_shard,
    combine_splits,
    open_shards,
    raise_first_repair,
    shard_split,
)


@dataclass(frozen=True)
class _Part:
    """A worker's result: whole sentences built, or raw boundary rows."""

    name: str
    first: int
    split: Split | None = None
    raw: pl.DataFrame | None = None


def _segments(sentence: np.ndarray, line: np.ndarray) -> Iterator[tuple[int, int]]:
    """Yield [begin, end) row ranges whose sentence ids run on (same or +1) with rising lines."""
    if sentence.size == 0:
        return
    step = np.diff(sentence)
    brk = (step < 0) | (step > 1) | ((step == 0) & (np.diff(line) <= 0))
    cuts = np.concatenate(([0], np.flatnonzero(brk) + 1, [sentence.size]))
    for b, e in zip(cuts[:-1], cuts[1:], strict=True):
        yield int(b), int(e)


def build_block(
    frame: pl.DataFrame, *, name: str, source: str, scheme: str | None = None
) -> list[_Part]:
    """Worker side: whole sentences of a block → built parts; boundary sentences → raw rows."""
    sentence = frame.get_column("sentence").to_numpy()
    line = frame.get_column("line").to_numpy()
    parts: list[_Part] = []
    raw_rows = np.zeros(sentence.size, dtype=bool)
    for b, e in _segments(sentence, line):
        lo, hi = sentence[b], sentence[e - 1]
        edge = (sentence[b:e] == lo) | (sentence[b:e] == hi)
        raw_rows[b:e] = edge
        inner = np.flatnonzero(~edge)
        if inner.size:
            rows = frame.slice(b + int(inner[0]), int(inner.size))
            part = shard_split(rows, name=name, source=source, scheme=scheme)
            parts.append(_Part(name, int(rows.get_column("sentence")[0]), split=part))
    if raw_rows.any():
        raw = frame.filter(pl.Series(raw_rows))
        parts.append(_Part(name, -1, raw=raw))
    return parts


def _map_batch(batch: Any, name: str, source: str, scheme: str | None) -> dict:
    """Build one block for ``map_batches``: Arrow table in, one pickled part per output row."""
    table = pl.from_arrow(batch)
    assert isinstance(table, pl.DataFrame)  # an Arrow table, never a bare array
    frame = table.select(COLUMNS)
    parts = build_block(frame, name=name, source=source, scheme=scheme)
    return {"part": [pickle.dumps(p, protocol=pickle.HIGHEST_PROTOCOL) for p in parts]}


def assemble(parts: list[_Part], info: ShardSplit, *, scheme: str | None = None) -> Split:
    """Driver side: build the boundary sentences, order and check the parts, combine them."""
    built = [p for p in parts if p.split is not None]
    raws = [p.raw for p in parts if p.raw is not None and p.raw.height]
    if raws:
        raw = pl.concat(raws).sort("sentence", "line", maintain_order=True)
        ids = raw.get_column("sentence").to_numpy()
        run_start = np.flatnonzero(np.r_[True, np.diff(ids) > 1])  # runs of consecutive ids
        bounds = np.r_[run_start, ids.size]
        for b, e in zip(bounds[:-1], bounds[1:], strict=True):
            rows = raw.slice(int(b), int(e - b))
            part = shard_split(rows, name=info.name, source=info.source, scheme=scheme)
            built.append(_Part(info.name, int(ids[b]), split=part))
    built.sort(key=lambda p: p.first)
    expected = 0
    for p in built:
        if p.first != expected:
            raise BenchcheckError(
                f"ray engine: split {info.name!r} parts start at sentence {p.first}, expected "
                f"{expected} (a block cut the engine did not foresee); use the embedded engine"
            )
        expected += p.split.n  # type: ignore[union-attr]
    if expected != info.n_sentences:
        raise InputError(
            f"shards hold {expected} sentences, the manifest says {info.n_sentences}",
            path=info.source,
        )
    if not built:
        raise InputError("empty split: its shards hold no tokens", path=info.source)
    return combine_splits([p.split for p in built], scheme=scheme)  # type: ignore[misc]


def connect(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Join the cluster at ``address`` or start a local one (``num_cpus``); return ``ray``."""
    ray = require("ray", "ray")
    require("ray.data", "ray")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no network calls from here
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {
            "logging_level": logging.WARNING,
            "log_to_driver": False,
            "include_dashboard": False,
        }
        try:
            if address:
                ray.init(address=address, **kwargs)
            else:
                ray.init(num_cpus=num_cpus or os.cpu_count(), **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
            raise UsageError(f"cannot start or join {where}: {exc}") from None
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    if hasattr(ctx, "use_datasource_v2"):
        # Measured on a loaded 2-core machine (ray 2.60): the file-listing Parquet reader
        # took 17-40 s per read of a small folder, the classic one 0.8 s once warm.
        ctx.use_datasource_v2 = False
    return ray


def read_shards_ray(
    path: str | Path,
    *,
    scheme: str | None = None,
    strict: bool = False,
    address: str | None = None,
    num_cpus: int | None = None,
    name: str | None = None,
) -> Dataset:
    """Load a shard folder with Ray Data: blocks built on workers, combined on the driver.

    Every shard is measured by decoded size first, as the embedded reader does
    (:func:`benchcheck.io.shards.check_shard`), before Ray starts: a shard past the bound is
    refused naming it, instead of being decoded whole by a worker.
    """
    folder = open_shards(path)
    for info in folder.splits.values():
        for shard in info.shards:
            check_shard(shard)
    ray = connect(address, num_cpus)
    # One execution for all splits: each split's shards are read and mapped with its own
    # name, and the mapped datasets are unioned (a part carries the name of its split).
    mapped = [
        ray.data.read_parquet(
            [str(p.resolve()) for p in info.shards], columns=list(COLUMNS)
        ).map_batches(
            _map_batch,
            batch_size=None,
            batch_format="pyarrow",
            fn_kwargs={"name": split, "source": info.source, "scheme": scheme},
        )
        for split, info in folder.splits.items()
    ]
    union = mapped[0].union(*mapped[1:]) if len(mapped) > 1 else mapped[0]
    by_split: dict[str, list[_Part]] = {split: [] for split in folder.splits}
    for row in union.iter_rows():
        part = pickle.loads(row["part"])
        by_split[part.name].append(part)
    out: dict[str, Split] = {}
    for split, info in folder.splits.items():
        combined = assemble(by_split[split], info, scheme=scheme)
        if strict:
            # Workers never raise (a worker's error reaches the driver wrapped): the embedded
            # reader finds the first invalid transition with its file and line.
            raise_first_repair(info, combined)
        out[split] = combined
    return Dataset(task="ner", splits=out, name=name or folder.name)
