"""Contamination on a Ray cluster: one task per corpus unit, the test index broadcast once.

The driver builds the test index (:func:`benchcheck.metrics.contamination.build_index`) and
puts it in Ray's object store once (``ray.put``: every worker on a node maps the same
copy). Each corpus unit (:func:`benchcheck.io.corpus.corpus_units`: a JSON-lines shard or a
run of a Parquet shard's row groups) is one task that streams the unit batch by batch
(:func:`benchcheck.io.corpus.read_unit`) — tokenizing, hashing n-grams and MinHash
signatures and looking them up in the index — and returns the unit's
:class:`~benchcheck.metrics.contamination.ScanState`, which holds only hits. The driver merges
the states exactly as the embedded engine does, so the JSON is the same byte for byte.

Tasks are spread over the nodes (``SPREAD``), take one CPU each and are retried once, on
any error or a lost worker (``max_retries=1, retry_exceptions=True``): a shard that fails
twice stops the run with an error naming it. Every node reads the shards at the paths the
driver sees (a shared file system or the same mount); see ``docs/scale.md``.

Ray Core tasks rather than Ray Data: a unit's work keeps its documents on the worker and
sends back kilobytes, and a failing task must be traced to its shard, which Ray Data's
wrapped errors do not tell.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from benchcheck.errors import BenchcheckError, InputError
from benchcheck.io.corpus import CorpusUnit, read_unit
from benchcheck.metrics.contamination import ScanOptions, ScanState, TestIndex
from benchcheck.metrics.contamination.scan import scan_batches

__all__ = ["ShardFailed", "scan_units_ray"]


class ShardFailed(Exception):
    """A unit's error as it crosses processes: the shard and what went wrong."""

    def __init__(
        self, path: str, message: str, line: int | None = None, got: str | None = None
    ) -> None:
        self.path, self.message, self.line, self.got = path, message, line, got
        super().__init__(f"{path}: {message}")

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (ShardFailed, (self.path, self.message, self.line, self.got))


def benchcheck_scan_unit(
    index: TestIndex, options: ScanOptions, unit: CorpusUnit, read: dict[str, Any]
) -> tuple[ScanState, str, int]:
    """Worker side: scan one unit; return its state, the node id and the worker's pid."""
    import ray

    try:
        state = scan_batches(index, options, read_unit(unit, **read), unit=unit.index)
    except InputError as exc:
        got = None if exc.got is None else str(exc.got)
        raise ShardFailed(exc.path or unit.path, exc.message, exc.line, got) from None
    except Exception as exc:  # noqa: BLE001 - any failure is named with its shard
        raise ShardFailed(unit.path, f"{type(exc).__name__}: {exc}") from None
    return state, ray.get_runtime_context().get_node_id(), os.getpid()


def scan_units_ray(
    index: TestIndex,
    options: ScanOptions,
    units: Sequence[CorpusUnit],
    *,
    read: dict[str, Any],
    address: str | None = None,
    num_cpus: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[ScanState, list[str], list[int]]:
    """Scan every unit on Ray; return the merged state, each unit's node id and worker pid."""
    from benchcheck.engine.ray_engine import connect

    ray = connect(address, num_cpus)
    task = ray.remote(benchcheck_scan_unit).options(
        num_cpus=1,
        max_retries=1,
        retry_exceptions=True,
        scheduling_strategy="SPREAD",
        # one CPU per task: polars' own thread pool would fight the other tasks
        runtime_env={"env_vars": {"POLARS_MAX_THREADS": "1"}},
    )
    shared = ray.put(index)
    refs = {task.remote(shared, options, unit, read): unit for unit in units}
    parts: dict[int, ScanState] = {}
    nodes: dict[int, str] = {}
    pids: dict[int, int] = {}
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            unit = refs[ref]
            try:
                parts[unit.index], nodes[unit.index], pids[unit.index] = ray.get(ref)
            except ray.exceptions.RayError as exc:
                for other in pending:
                    ray.cancel(other)
                raise _failure(unit, exc) from None
        if progress is not None:
            progress(len(parts), len(units))
    state = ScanState.empty(index)
    for unit in units:
        state.merge(parts[unit.index], options.max_matches)
    return state, [nodes[u.index] for u in units], [pids[u.index] for u in units]


def _failure(unit: CorpusUnit, exc: Exception) -> BenchcheckError:
    """Say that a unit failed on both attempts, naming its shard."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, ShardFailed):
        return InputError(
            f"{cause.message} (failed on both attempts on Ray)",
            path=cause.path,
            line=cause.line,
            got=cause.got,
        )
    return BenchcheckError(
        f"{unit.path}: the Ray task scanning this shard failed on both attempts: {exc}"
    )
