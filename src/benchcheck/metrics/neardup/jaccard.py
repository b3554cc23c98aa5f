"""Exact Jaccard similarity of the shingle sets of candidate pairs, vectorised and chunked."""

from __future__ import annotations

import numpy as np

from benchcheck._hashset import unique_sorted

_MAX32 = np.uint64(0xFFFFFFFF)


def _runs(start: np.ndarray, size: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Positions of the runs ``start[d] : start[d] + size[d]`` of ``docs``, concatenated."""
    lens = size[docs]
    offset = np.repeat(start[docs] - (np.cumsum(lens) - lens), lens)
    return offset + np.arange(offset.size)


def exact_jaccard(
    pairs: np.ndarray, doc: np.ndarray, shingle: np.ndarray, *, chunk: int = 1 << 18
) -> np.ndarray:
    """Exact Jaccard similarity of the shingle sets of each pair (u, v).

    Each involved doc's set becomes a run of distinct 32-bit shingle ranks. For ``chunk``
    pairs at a time, both sides' runs are keyed ``pair · 2**32 + rank`` and sorted together:
    the intersection is the number of equal neighbours. Memory stays bounded by the chunk.
    Two empty sets have similarity 0.

    >>> doc, h = np.array([0, 0, 0, 1, 1, 1, 1]), np.array([1, 2, 3, 2, 3, 4, 3])
    >>> exact_jaccard(np.array([[0, 1]]), doc, h).tolist()
    [0.5]
    """
    if pairs.size == 0:
        return np.zeros(0)
    mark = np.zeros(max(int(pairs.max()), int(doc.max(initial=-1))) + 1, dtype=bool)
    mark[pairs.ravel()] = True
    involved = mark[doc]
    local = np.cumsum(mark) - 1  # involved docs numbered 0, 1, …
    h = shingle[involved]
    # Fewer than 2**32 docs and distinct shingles: both fit in half of a 64-bit key.
    rank = np.searchsorted(unique_sorted(h), h).astype(np.uint64)
    sets = unique_sorted((local[doc[involved]].astype(np.uint64) << np.uint64(32)) | rank)
    size = np.bincount((sets >> np.uint64(32)).astype(np.int64), minlength=int(local[-1]) + 1)
    start = np.cumsum(size) - size
    values = sets & _MAX32
    out = np.empty(pairs.shape[0])
    for lo in range(0, pairs.shape[0], chunk):
        u, v = local[pairs[lo : lo + chunk, 0]], local[pairs[lo : lo + chunk, 1]]
        pid = np.arange(u.size, dtype=np.uint64) << np.uint64(32)
        ku = np.repeat(pid, size[u]) | values[_runs(start, size, u)]
        kv = np.repeat(pid, size[v]) | values[_runs(start, size, v)]
        merged = np.sort(np.concatenate([ku, kv]))
        equal = merged[1:][merged[1:] == merged[:-1]]
        inter = np.bincount((equal >> np.uint64(32)).astype(np.int64), minlength=u.size)
        union = size[u] + size[v] - inter
        out[lo : lo + u.size] = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    return out
