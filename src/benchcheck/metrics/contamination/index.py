"""The test set as a lookup table, built once and sent to every worker (Ray broadcasts it).

:func:`build_index` tokenizes the test items (:mod:`~.tokens`), hashes their n-grams
(:mod:`~.ngrams`) and sorts them, so that a corpus n-gram is looked up in two 16 MB bitmaps
(24 top bits, then 24 middle bits of its hash; with 10**6 test n-grams about 0.4% of corpus
n-grams pass both) and, for those, by binary search. It also keeps each item's raw
text (exact matches), token sequence hash (normalised matches) and, with near-duplicates,
MinHash band keys (:mod:`benchcheck.metrics.neardup`).

Memory: about 40 bytes per test token plus the two 16 MB bitmaps (and 8 bytes per item per band
with near-duplicates); the corpus side holds one batch (see :mod:`~.scan`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from benchcheck.data.hashing import sequence_hash
from benchcheck.errors import UsageError
from benchcheck.metrics.contamination.ngrams import ngram_hashes
from benchcheck.metrics.contamination.tokens import token_hashes

__all__ = ["NearIndex", "TestIndex", "build_index", "doc_sequence_hashes"]

#: Bits of each n-gram hash bitmap (2**24 booleans: 16 MB each, two of them).
PREFIX_BITS = 24
_SHIFT = np.uint64(64 - PREFIX_BITS)
_MID_SHIFT = np.uint64(16)
_MID_MASK = np.uint64((1 << PREFIX_BITS) - 1)


def prefix_slots(h: np.ndarray) -> np.ndarray:
    """Slot of each hash in the first bitmap: its top 24 bits."""
    return np.right_shift(h, _SHIFT).view(np.int64)  # < 2**24: a view, not a copy


def middle_slots(h: np.ndarray) -> np.ndarray:
    """Slot of each hash in the second bitmap: bits 16 to 39."""
    out = np.right_shift(h, _MID_SHIFT)
    out &= _MID_MASK
    return out.view(np.int64)


@dataclass(frozen=True)
class NearIndex:
    """MinHash-LSH of the test items: band keys, verified later by exact Jaccard."""

    threshold: float
    num_perm: int
    seed: int
    bands: int
    rows: int
    keys: np.ndarray  # (bands, items) uint64
    order: np.ndarray  # (bands, items) int64: items sorted by key, band by band
    sizes: np.ndarray  # distinct tokens per item


@dataclass(frozen=True)
class TestIndex:
    """Everything a corpus scan looks up (arrays; picklable, shared read-only)."""

    n: int
    texts: tuple[str, ...]  # raw item texts (exact matches)
    tokens: np.ndarray  # uint64 token hashes, items one after the other
    item_start: np.ndarray  # int64, first token of each item
    item_len: np.ndarray  # int64, tokens of each item
    gram_hash: np.ndarray  # uint64, sorted: every n-gram position of every item
    gram_pos: np.ndarray  # int64, the token index where that n-gram starts
    gram_first: np.ndarray  # bool per token: starts the first occurrence of its n-gram in its item
    prefix: np.ndarray  # bool, 2**PREFIX_BITS: some test n-gram hash has these top bits
    middle: np.ndarray  # bool, 2**PREFIX_BITS: … and these middle bits
    seq_hash: np.ndarray  # uint64 per item: hash of its whole token sequence
    near: NearIndex | None = None

    @property
    def n_items(self) -> int:
        """Number of test items."""
        return int(self.item_len.size)

    @property
    def item_of_token(self) -> np.ndarray:
        """Item index of each test token."""
        return np.repeat(np.arange(self.n_items), self.item_len)

    def n_ngrams(self) -> np.ndarray:
        """Distinct n-grams of each item."""
        return np.bincount(self.item_of_token[self.gram_first], minlength=self.n_items).astype(
            np.int64
        )


def doc_sequence_hashes(tokens: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Order-sensitive hash of each document's whole token sequence (its length mixed in).

    >>> h = doc_sequence_hashes(np.array([1, 2, 2, 1, 1, 2], dtype=np.uint64), np.array([2, 2, 2]))
    >>> bool(h[0] == h[2]), bool(h[0] == h[1])
    (True, False)
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    first = np.cumsum(lengths) - lengths
    position = np.arange(tokens.size, dtype=np.int64) - np.repeat(first, lengths)
    return sequence_hash(tokens, position, first, lengths)


def build_index(
    texts: Sequence[str],
    *,
    n: int,
    near_threshold: float | None = None,
    num_perm: int = 128,
    seed: int = 1,
) -> TestIndex:
    """Tokenize and index the test items for n-grams of ``n`` tokens (see the module doc)."""
    if n < 1:
        raise UsageError(f"{{n}} must be a positive number of tokens, got {n}")
    tok = token_hashes(pl.Series(list(texts), dtype=pl.String))
    starts = tok.starts
    gram_hash, gram_pos = ngram_hashes(tok.hashes, tok.lengths, n)
    # First occurrence of each (item, n-gram) pair: distinct n-grams per item.
    item = np.repeat(np.arange(tok.lengths.size), tok.lengths)[gram_pos]
    order = np.lexsort((gram_pos, gram_hash, item))
    new = np.ones(order.size, dtype=bool)
    new[1:] = (item[order][1:] != item[order][:-1]) | (
        gram_hash[order][1:] != gram_hash[order][:-1]
    )
    gram_first = np.zeros(tok.hashes.size, dtype=bool)
    gram_first[gram_pos[order[new]]] = True
    by_hash = np.argsort(gram_hash, kind="stable")
    prefix = np.zeros(1 << PREFIX_BITS, dtype=bool)
    prefix[prefix_slots(gram_hash)] = True
    middle = np.zeros(1 << PREFIX_BITS, dtype=bool)
    middle[middle_slots(gram_hash)] = True
    near = None
    if near_threshold is not None:
        near = _near_index(tok.hashes, tok.lengths, near_threshold, num_perm, seed)
    return TestIndex(
        n=n,
        texts=tuple(texts),
        tokens=tok.hashes,
        item_start=starts,
        item_len=tok.lengths,
        gram_hash=gram_hash[by_hash],
        gram_pos=gram_pos[by_hash],
        gram_first=gram_first,
        prefix=prefix,
        middle=middle,
        seq_hash=doc_sequence_hashes(tok.hashes, tok.lengths),
        near=near,
    )


def distinct_counts(doc: np.ndarray, values: np.ndarray, n_docs: int) -> np.ndarray:
    """Distinct ``values`` of each document (``doc`` sorted ascending).

    >>> distinct_counts(np.array([0, 0, 0, 2]), np.array([5, 5, 6, 1], dtype=np.uint64), 3)
    array([2, 0, 1])
    """
    if doc.size == 0:
        return np.zeros(n_docs, np.int64)
    order = np.lexsort((values, doc))
    d, v = doc[order], values[order]
    new = np.ones(d.size, dtype=bool)
    new[1:] = (d[1:] != d[:-1]) | (v[1:] != v[:-1])
    return np.bincount(d[new], minlength=n_docs).astype(np.int64)


def _near_index(
    tokens: np.ndarray, lengths: np.ndarray, threshold: float, num_perm: int, seed: int
) -> NearIndex:
    from benchcheck.metrics.neardup import band_keys, lsh_params, minhash_signatures

    if not 0.0 < threshold <= 1.0:
        raise UsageError(f"{{near_threshold}} must be in (0, 1], got {threshold}")
    if num_perm < 2:
        raise UsageError(f"num_perm must be at least 2, got {num_perm}")
    doc = np.repeat(np.arange(lengths.size), lengths)
    sig = minhash_signatures(doc, tokens, lengths.size, num_perm=num_perm, seed=seed)
    bands, rows = lsh_params(threshold, num_perm)
    keys = band_keys(sig, bands, rows)
    return NearIndex(
        threshold=threshold,
        num_perm=num_perm,
        seed=seed,
        bands=bands,
        rows=rows,
        keys=keys,
        order=np.argsort(keys, axis=1, kind="stable"),
        sizes=distinct_counts(doc, tokens, lengths.size),
    )
