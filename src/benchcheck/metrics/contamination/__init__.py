"""Test-set contamination against a corpus too large for memory (benchmark decontamination).

The corpus arrives in batches of documents (read by :mod:`benchcheck.io.corpus`, shard by
shard, on one machine or on Ray workers); memory holds the test index and one batch. Per
test item: exact and normalised matches of whole documents, the **overlap** (the share of
its tokens inside matched spans, Llama 2's definition, or the share of its n-grams found,
PaLM's and GPT-3's), Llama 2's **clean / not clean / not dirty / dirty** subsets, the first
matched spans (file, row, offsets), and optionally MinHash-LSH near-duplicate documents;
with model scores, each model's score on each subset, Llama 2's :math:`Z_n`, the clean −
dirty difference with a bootstrap interval and the ranks.

One concept per module: :mod:`~.tokens` (normalisation and tokens), :mod:`~.ngrams`
(rolling n-gram hashes), :mod:`~.index` (the test index), :mod:`~.scan` (one pass over a
batch, mergeable states), :mod:`~.overlap` (definitions, shares, subsets), :mod:`~.scores`
(the score table), :mod:`~.result` (the result and its JSON).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import polars as pl
import pyarrow as pa

from benchcheck.metrics.contamination.index import TestIndex, build_index
from benchcheck.metrics.contamination.overlap import (
    DEFINITIONS,
    SUBSETS,
    Definition,
    bucket_of,
    gpt3_n,
    subset_masks,
)
from benchcheck.metrics.contamination.result import (
    ItemLeak,
    LeakageResult,
    Match,
    NearMatch,
    item_overlap,
    leakage_result,
)
from benchcheck.metrics.contamination.scan import ScanOptions, ScanState, scan_batch
from benchcheck.metrics.contamination.scores import (
    ModelContamination,
    ScoreTable,
    SubsetScore,
    contamination_scores,
)
from benchcheck.metrics.contamination.tokens import normalise, token_hashes, tokenize

__all__ = [
    "DEFINITIONS",
    "SUBSETS",
    "Definition",
    "ItemLeak",
    "LeakageResult",
    "Match",
    "ModelContamination",
    "NearMatch",
    "ScanOptions",
    "ScanState",
    "ScoreTable",
    "SubsetScore",
    "TestIndex",
    "bucket_of",
    "build_index",
    "contamination",
    "contamination_scores",
    "gpt3_n",
    "item_overlap",
    "leakage_result",
    "normalise",
    "scan_batch",
    "subset_masks",
    "token_hashes",
    "tokenize",
]


def contamination(
    texts: Sequence[str],
    batches: Iterable[pl.Series | pa.Array | Sequence[str]],
    *,
    ids: Sequence[str] | None = None,
    definition: str | Definition = "llama2",
    near_threshold: float | None = None,
    max_matches: int = 3,
    scores: Mapping[str, np.ndarray] | None = None,
    seed: int = 0,
) -> LeakageResult:
    """Contamination of ``texts`` by a corpus given as batches of document texts.

    The in-memory form of ``benchcheck leakage``: one corpus "file" (``<corpus>``) whose
    rows are numbered across the batches; null documents are skipped (their rows counted).

    >>> r = contamination(["one two three four five six seven eight nine ten eleven"],
    ...                   [["x one two three four five six seven eight nine ten eleven y"]])
    >>> r.items[0].overlap, r.items[0].bucket
    (1.0, 'dirty')
    """
    d = DEFINITIONS[definition] if isinstance(definition, str) else definition
    probe = build_index(texts, n=1)  # token counts decide GPT-3's n
    d = d.resolve(probe.item_len)
    assert d.n is not None and d.min_length is not None
    index = build_index(texts, n=d.n, near_threshold=near_threshold, seed=1)
    options = ScanOptions(min_length=d.min_length, skip=d.skip, max_matches=max_matches)
    options.check(d.n)
    state = ScanState.empty(index)
    row = 0
    for batch in batches:
        arr = batch.to_arrow() if isinstance(batch, pl.Series) else pa.array(batch, pa.string())
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        valid = np.flatnonzero(arr.is_valid().to_numpy(zero_copy_only=False))
        rows = row + valid
        scan_batch(index, options, state, arr.take(pa.array(valid)), rows, unit=0)
        row += len(arr)
    item_ids = [str(i) for i in ids] if ids is not None else [str(k) for k in range(len(texts))]
    table = None
    if scores:
        overlap = item_overlap(index, state, d.overlap)
        table = contamination_scores(
            scores, overlap, clean_below=d.clean_below, dirty_from=d.dirty_from, seed=seed
        )
    return leakage_result(
        index,
        state,
        d,
        ids=item_ids,
        unit_files=["<corpus>"],
        files=["<corpus>"],
        max_matches=max_matches,
        scores=table,
    )
