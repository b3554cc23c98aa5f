"""``benchcheck leakage``: contamination of a test set by a corpus, on one machine or on Ray.

:func:`run_leakage` reads the test items (:mod:`benchcheck.io.leakage`), fixes the
definition (:data:`benchcheck.metrics.contamination.DEFINITIONS`, any field overridden),
builds the test index, cuts the corpus into units (:mod:`benchcheck.io.corpus`) and scans
them — one after the other here, or as Ray tasks (:mod:`benchcheck.engine.ray_leakage`) —
then scores the models on the subsets. Both engines merge the same per-unit states, so
their JSON is identical.

Memory (embedded): the test index (about 40 bytes per test token + 16 MB) plus one batch
(``batch_mb`` of text and about 60 bytes per corpus token in it); no document outlives its
batch. On Ray, each worker holds the same, the driver the index and the merged hits.

Importing this module is cheap (the options are read by the command line before any work);
the run imports the scan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.errors import UsageError

if TYPE_CHECKING:
    from benchcheck.io.leakage import TestItems
    from benchcheck.metrics.contamination import LeakageResult

__all__ = ["LeakageEngine", "LeakageOptions", "run_leakage"]


@dataclass(frozen=True)
class LeakageOptions:
    """The definition and its overrides (None: the definition's value).

    The command line's option group of ``benchcheck leakage`` and ``benchcheck audit
    --corpus`` (one definition of each option); ``seed``, ``resamples`` and ``confidence``
    come from each command's own options.
    """

    definition: str = "llama2"
    overlap: str | None = None
    n: int | None = None
    min_length: int | None = None
    skip: int | None = None
    clean_below: float | None = None
    dirty_from: float | None = None
    near_threshold: float | None = None
    max_matches: int = 3
    seed: int = 1
    resamples: int = 1000
    confidence: float = 0.95


@dataclass(frozen=True)
class LeakageEngine:
    """Where the corpus is scanned: ``embedded`` or ``ray`` (with Ray's address and CPUs)."""

    name: str = "embedded"
    address: str | None = None
    cpus: int | None = None
    batch_mb: int = 32
    unit_mb: int = 256


def run_leakage(
    test: str | Path | TestItems,
    corpus: Sequence[str],
    *,
    text_column: str = "text",
    test_column: str | None = None,
    id_column: str | None = None,
    corpus_id_column: str | None = None,
    label_column: str | None = None,
    predictions: Mapping[str, str] | None = None,
    item_scores: Mapping[str, Sequence[float]] | None = None,
    options: LeakageOptions = LeakageOptions(),
    engine: LeakageEngine = LeakageEngine(),
    progress: Callable[[int, int], None] | None = None,
) -> LeakageResult:
    """Measure how far a corpus streamed in batches contaminates the test items.

    ``test`` is a table (read with the column options) or items already read
    (:class:`~benchcheck.io.leakage.TestItems`: the audit's NER test sentences). Models'
    scores come from ``predictions`` files or, already computed, ``item_scores`` (model →
    one score in [0, 1] per item, in the items' order).
    """
    import numpy as np

    from benchcheck.io.corpus import corpus_files, corpus_units, read_unit
    from benchcheck.io.leakage import TestItems, read_item_scores, read_test_items
    from benchcheck.metrics.contamination import (
        DEFINITIONS,
        ScanOptions,
        ScanState,
        build_index,
        contamination_scores,
        item_overlap,
        leakage_result,
        token_hashes,
    )
    from benchcheck.metrics.contamination.scan import scan_batches

    if engine.name not in ("embedded", "ray"):
        raise UsageError(f"unknown engine {engine.name!r}; expected embedded or ray")
    if options.definition not in DEFINITIONS:
        raise UsageError(
            f"unknown {{definition}} {options.definition!r}; expected one of "
            f"{', '.join(DEFINITIONS)}"
        )
    if options.near_threshold is not None and not 0.0 < options.near_threshold <= 1.0:
        raise UsageError(f"{{near_threshold}} must be in (0, 1], got {options.near_threshold}")
    overrides = {
        k: v
        for k in ("overlap", "n", "min_length", "skip", "clean_below", "dirty_from")
        if (v := getattr(options, k)) is not None
    }
    chosen = replace(DEFINITIONS[options.definition], **overrides)
    if overrides:
        chosen = replace(chosen, name=f"{options.definition}+custom")
    items = (
        test
        if isinstance(test, TestItems)
        else read_test_items(
            test,
            text_column=test_column or text_column,
            id_column=id_column,
            label_column=label_column,
        )
    )
    scores = {
        name: read_item_scores(name, path, items) for name, path in (predictions or {}).items()
    }
    for name, values in (item_scores or {}).items():
        if len(values) != len(items.ids):
            raise UsageError(
                f"model {name!r} has {len(values)} item scores for {len(items.ids)} test items"
            )
        scores[name] = np.asarray(values, dtype=float)
    d = chosen.resolve(token_hashes(list(items.texts)).lengths)
    assert d.n is not None and d.min_length is not None
    scan = ScanOptions(min_length=d.min_length, skip=d.skip, max_matches=options.max_matches)
    scan.check(d.n)
    files = corpus_files(list(corpus))
    read: dict[str, Any] = {
        "column": text_column,
        "id_column": corpus_id_column,
        "batch_mb": engine.batch_mb,
    }
    units = corpus_units(
        files, column=text_column, id_column=corpus_id_column, unit_mb=engine.unit_mb
    )
    index = build_index(
        items.texts, n=d.n, near_threshold=options.near_threshold, seed=options.seed
    )
    nodes: list[str] = []
    if engine.name == "ray":
        from benchcheck.engine.ray_leakage import scan_units_ray

        state, nodes, _ = scan_units_ray(
            index,
            scan,
            units,
            read=read,
            address=engine.address,
            num_cpus=engine.cpus,
            progress=progress,
        )
    else:
        state = ScanState.empty(index)
        for k, unit in enumerate(units):
            part = scan_batches(index, scan, read_unit(unit, **read), unit=unit.index)
            state.merge(part, scan.max_matches)
            if progress is not None:
                progress(k + 1, len(units))
    table = None
    if scores:
        table = contamination_scores(
            scores,
            item_overlap(index, state, d.overlap),
            clean_below=d.clean_below,
            dirty_from=d.dirty_from,
            confidence=options.confidence,
            resamples=options.resamples,
            seed=options.seed,
        )
    return leakage_result(
        index,
        state,
        d,
        ids=items.ids,
        unit_files=[u.path for u in units],
        files=[str(f) for f in files],
        max_matches=options.max_matches,
        scores=table,
        nodes=nodes,
    )
