"""One pass over corpus documents against the test index: what each batch adds to the state.

Per batch of documents (:func:`scan_batch`):

1. **tokens** of every document (:func:`~.tokens.token_hashes`);
2. **exact** matches: documents whose raw text equals an item's (a polars join of the
   documents whose byte length is some item's);
3. **normalised** matches: documents whose whole token sequence equals an item's (sequence
   hashes of the documents whose token count is some item's, confirmed token by token);
4. **n-gram anchors**: every n-gram of every document (:func:`~.ngrams.rolling_hashes`) is
   looked up in the index (prefix bitmap, then binary search) and confirmed token by token;
   an anchor is a (test position, corpus position) pair whose n tokens are equal;
5. **matched spans** (Llama 2, Touvron et al. 2023, App. A.6): from each anchor the match is
   extended to the right, token by token, allowing up to ``skip`` mismatched positions; the
   span ends at its last matching token (no trailing mismatch; the first n tokens match by
   construction). Spans shorter than ``min_length`` tokens do not count. An anchor that
   directly follows another on the same diagonal (both n-grams shifted by one) ends where
   that one ends, so only the first of each run of anchors is extended;
6. with near-duplicates, the **MinHash-LSH** candidates among the documents whose distinct
   token count allows a Jaccard similarity of at least the threshold (J(A, B) ≤
   min(|A|, |B|) / max(|A|, |B|)), verified by exact Jaccard.

The :class:`ScanState` keeps, over all batches: per test token, whether a matched span
covers it and whether an n-gram starting there was found; per item, the counts of exact,
normalised and near matches and of matched spans; and the first ``max_matches`` matched
spans and near matches of each item in corpus order (unit, row, offset). States of
different shards merge exactly (:meth:`ScanState.merge`: OR, sums, the first matches by the
same order), so a run split over workers gives the one-process result.

Memory per batch: the batch's text plus about 60 bytes per corpus token.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import polars as pl
import pyarrow as pa

from benchcheck.errors import UsageError
from benchcheck.metrics.contamination.index import (
    TestIndex,
    distinct_counts,
    doc_sequence_hashes,
    middle_slots,
    prefix_slots,
)
from benchcheck.metrics.contamination.ngrams import rolling_hashes
from benchcheck.metrics.contamination.tokens import Tokens, token_hashes

__all__ = ["CorpusBatchLike", "ScanOptions", "ScanState", "scan_batch", "scan_batches"]

_MATCH_FIELDS = ("item", "unit", "row", "doc_offset", "item_offset", "length")
_NEAR_FIELDS = ("item", "unit", "row", "jaccard")


class CorpusBatchLike(Protocol):
    """What :func:`scan_batches` reads from a corpus reader's batch."""

    @property
    def texts(self) -> pa.Array:
        """The documents' texts (no nulls)."""

    @property
    def rows(self) -> np.ndarray:
        """Each document's row in its file."""

    @property
    def ids(self) -> pa.Array | None:
        """Each document's id, when the corpus has an id column."""


@dataclass(frozen=True)
class ScanOptions:
    """How matched spans are found: minimum length, mismatches allowed, matches kept."""

    min_length: int
    skip: int = 0
    max_matches: int = 3

    def check(self, n: int) -> None:
        """Refuse impossible values (``min_length`` below the n-gram size, negatives)."""
        if self.min_length < n:
            raise UsageError(
                f"{{min_length}} must be at least {{n}} ({n}): a span starts with n matching "
                f"tokens, got {self.min_length}"
            )
        if self.skip < 0:
            raise UsageError(f"{{skip}} must be 0 or more, got {self.skip}")
        if self.max_matches < 0:
            raise UsageError(f"{{max_matches}} must be 0 or more, got {self.max_matches}")


def _empty(fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    return {f: np.zeros(0, np.float64 if f == "jaccard" else np.int64) for f in fields}


@dataclass
class ScanState:
    """What the corpus has shown so far (see the module doc); merge states with :meth:`merge`."""

    covered: np.ndarray  # bool per test token: inside a matched span
    found: np.ndarray  # bool per test token: an n-gram starting here occurs in the corpus
    exact: np.ndarray  # int64 per item
    normalised: np.ndarray
    spans: np.ndarray
    near: np.ndarray
    matches: dict[str, np.ndarray] = field(default_factory=lambda: _empty(_MATCH_FIELDS))
    match_ids: list[str | None] = field(default_factory=list)
    near_matches: dict[str, np.ndarray] = field(default_factory=lambda: _empty(_NEAR_FIELDS))
    near_ids: list[str | None] = field(default_factory=list)
    documents: int = 0
    tokens: int = 0

    @classmethod
    def empty(cls, index: TestIndex) -> ScanState:
        """Return the state before any document."""
        m, k = index.tokens.size, index.n_items
        return cls(
            covered=np.zeros(m, dtype=bool),
            found=np.zeros(m, dtype=bool),
            exact=np.zeros(k, np.int64),
            normalised=np.zeros(k, np.int64),
            spans=np.zeros(k, np.int64),
            near=np.zeros(k, np.int64),
        )

    def merge(self, other: ScanState, max_matches: int) -> None:
        """Add ``other`` (from other documents) into this state."""
        self.covered |= other.covered
        self.found |= other.found
        for name in ("exact", "normalised", "spans", "near"):
            getattr(self, name)[:] += getattr(other, name)
        self.documents += other.documents
        self.tokens += other.tokens
        self.add_matches(other.matches, other.match_ids, max_matches)
        self.add_near(other.near_matches, other.near_ids, max_matches)

    def add_matches(self, cols: dict[str, np.ndarray], ids: list[str | None], cap: int) -> None:
        """Add matched-span records; keep each item's first ``cap`` in corpus order."""
        self.matches, self.match_ids = _first_per_item(
            _concat(self.matches, cols), self.match_ids + ids, _MATCH_ORDER, cap
        )

    def add_near(self, cols: dict[str, np.ndarray], ids: list[str | None], cap: int) -> None:
        """Add near-duplicate records; keep each item's first ``cap`` in corpus order."""
        self.near_matches, self.near_ids = _first_per_item(
            _concat(self.near_matches, cols), self.near_ids + ids, _NEAR_ORDER, cap
        )


_MATCH_ORDER = ("unit", "row", "doc_offset", "item_offset")
_NEAR_ORDER = ("unit", "row")


def _concat(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([a[k], b[k]]) for k in a}


def _first_rows(cols: dict[str, np.ndarray], keys: tuple[str, ...], cap: int) -> np.ndarray:
    """Return the indices of each item's first ``cap`` records in the order of ``keys``."""
    if cols["item"].size == 0:
        return np.zeros(0, np.int64)
    order = np.lexsort(tuple(cols[k] for k in reversed(keys)) + (cols["item"],))
    item = cols["item"][order]
    head = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    rank = np.arange(item.size) - np.repeat(head, np.diff(np.r_[head, item.size]))
    return order[rank < cap]


def _first_per_item(
    cols: dict[str, np.ndarray], ids: list[str | None], keys: tuple[str, ...], cap: int
) -> tuple[dict[str, np.ndarray], list[str | None]]:
    """Keep each item's first ``cap`` records (and their ids) in the order of ``keys``."""
    keep = _first_rows(cols, keys, cap)
    return {k: v[keep] for k, v in cols.items()}, [ids[i] for i in keep.tolist()]


def scan_batches(
    index: TestIndex, options: ScanOptions, batches: Iterable[CorpusBatchLike], *, unit: int
) -> ScanState:
    """Scan every batch of one corpus unit (a shard or a part of one) into a new state."""
    state = ScanState.empty(index)
    for batch in batches:
        scan_batch(index, options, state, batch.texts, batch.rows, unit=unit, ids=batch.ids)
    return state


def scan_batch(
    index: TestIndex,
    options: ScanOptions,
    state: ScanState,
    texts: pa.Array,
    rows: np.ndarray,
    *,
    unit: int,
    ids: pa.Array | None = None,
) -> None:
    """Add one batch of documents (no nulls; ``rows`` their rows in the unit) to ``state``."""
    tok = token_hashes(texts)
    state.documents += len(texts)
    state.tokens += int(tok.hashes.size)
    _exact(index, state, texts)
    _normalised(index, state, tok)
    batch = _Batch(tok, np.asarray(rows, dtype=np.int64), unit, ids)
    _spans(index, options, state, batch)
    if index.near is not None:
        _near(index, options, state, batch)


@dataclass(frozen=True)
class _Batch:
    tok: Tokens
    rows: np.ndarray
    unit: int
    ids: pa.Array | None

    def id_list(self, docs: np.ndarray) -> list[str | None]:
        if self.ids is None:
            return [None] * int(docs.size)
        return [None if v is None else str(v) for v in self.ids.take(pa.array(docs)).to_pylist()]


def _exact(index: TestIndex, state: ScanState, texts: pa.Array) -> None:
    """Documents equal, byte for byte, to an item's text."""
    import pyarrow.compute as pc

    lengths = pc.binary_length(texts).to_numpy(zero_copy_only=False)
    wanted = np.unique([len(t.encode()) for t in index.texts])
    maybe = np.flatnonzero(np.isin(lengths, wanted))
    if maybe.size == 0:
        return
    docs = pl.DataFrame({"text": pl.Series(texts.take(pa.array(maybe))).cast(pl.String)})
    keys = pl.DataFrame({"text": list(index.texts), "item": np.arange(index.n_items)})
    hits = docs.join(keys, on="text", how="inner").get_column("item").to_numpy()
    state.exact += np.bincount(hits, minlength=index.n_items)


def _normalised(index: TestIndex, state: ScanState, tok: Tokens) -> None:
    """Documents whose whole token sequence equals an item's (an item with tokens)."""
    sizes = np.unique(index.item_len[index.item_len > 0])
    maybe = np.flatnonzero(np.isin(tok.lengths, sizes))
    if maybe.size == 0:
        return
    lengths = tok.lengths[maybe]
    doc_hash = doc_sequence_hashes(tok.hashes[_positions(tok, maybe)], lengths)
    has_tokens = index.item_len > 0
    items = np.flatnonzero(has_tokens)
    order = items[np.argsort(index.seq_hash[items], kind="stable")]
    sorted_hash = index.seq_hash[order]
    lo = np.searchsorted(sorted_hash, doc_hash, side="left")
    hi = np.searchsorted(sorted_hash, doc_hash, side="right")
    count = hi - lo
    if not count.any():
        return
    doc = np.repeat(maybe, count)
    item = order[np.repeat(lo, count) + _ranks(count)]
    same = index.item_len[item] == tok.lengths[doc]
    doc, item = doc[same], item[same]
    for j in range(int(tok.lengths[doc].max(initial=0))):  # confirm token by token
        inside = j < tok.lengths[doc]
        eq = ~inside | (
            index.tokens[index.item_start[item] + np.where(inside, j, 0)]
            == tok.hashes[tok.starts[doc] + np.where(inside, j, 0)]
        )
        doc, item = doc[eq], item[eq]
    state.normalised += np.bincount(item, minlength=index.n_items)


def _positions(tok: Tokens, docs: np.ndarray) -> np.ndarray:
    """Token positions of the documents ``docs``, one document after the other."""
    lengths = tok.lengths[docs]
    where = np.repeat(tok.starts[docs] - (np.cumsum(lengths) - lengths), lengths)
    where += np.arange(where.size)
    return where


def _ranks(count: np.ndarray) -> np.ndarray:
    """0, 1, … count[k] − 1 for every k, concatenated."""
    total = int(count.sum())
    return np.arange(total) - np.repeat(np.cumsum(count) - count, count)


def _anchors(index: TestIndex, tok: Tokens) -> tuple[np.ndarray, np.ndarray]:
    """(test position, corpus position) of every confirmed shared n-gram."""
    n = index.n
    if tok.hashes.size < n or index.gram_hash.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    h = rolling_hashes(tok.hashes, n)  # windows across documents too: dropped below
    at = np.flatnonzero(index.prefix[prefix_slots(h)])
    at = at[index.middle[middle_slots(h[at])]]
    ends = np.cumsum(tok.lengths)
    at = at[at + n <= ends[np.searchsorted(ends, at, side="right")]]  # inside its document
    hc = h[at]
    lo = np.searchsorted(index.gram_hash, hc, side="left")
    hi = np.searchsorted(index.gram_hash, hc, side="right")
    count = hi - lo
    q = np.repeat(at, count)
    p = index.gram_pos[np.repeat(lo, count) + _ranks(count)]
    ok = np.ones(p.size, dtype=bool)
    for j in range(n):  # a 64-bit n-gram hash collision never counts
        ok &= index.tokens[p + j] == tok.hashes[q + j]
    return p[ok], q[ok]


def _extend(
    index: TestIndex,
    tok: Tokens,
    p: np.ndarray,
    q: np.ndarray,
    item_end: np.ndarray,
    doc_end: np.ndarray,
    skip: int,
) -> np.ndarray:
    """End (exclusive test position) of the longest span from each anchor (module doc, 5)."""
    end = p + index.n
    off = np.full(p.size, index.n, dtype=np.int64)
    misses = np.zeros(p.size, dtype=np.int64)
    act = np.arange(p.size)
    while act.size:
        tp, tq = p[act] + off[act], q[act] + off[act]
        inside = (tp < item_end[act]) & (tq < doc_end[act])
        act, tp, tq = act[inside], tp[inside], tq[inside]
        if act.size == 0:
            break
        eq = index.tokens[tp] == tok.hashes[tq]
        end[act[eq]] = tp[eq] + 1
        misses[act[~eq]] += 1
        off[act] += 1
        act = act[misses[act] <= skip]
    return end


def _spans(index: TestIndex, options: ScanOptions, state: ScanState, batch: _Batch) -> None:
    tok = batch.tok
    p, q = _anchors(index, tok)
    if p.size == 0:
        return
    state.found[p] = True
    item_ends = index.item_start + index.item_len
    item = np.searchsorted(item_ends, p, side="right")
    doc_ends = np.cumsum(tok.lengths)
    doc = np.searchsorted(doc_ends, q, side="right")
    # Only the first anchor of each run on a diagonal needs extending.
    span_q = np.int64(max(int(tok.hashes.size), 1) + 1)
    key = p * span_q + q
    ordered = np.sort(key)
    prev = key - span_q - 1
    at = np.searchsorted(ordered, prev)
    follows = (at < ordered.size) & (ordered[np.minimum(at, ordered.size - 1)] == prev)
    # (with n = 1 the anchor before may lie in the item or document before)
    follows &= (p > index.item_start[item]) & (q > doc_ends[doc] - tok.lengths[doc])
    p, q, item, doc = p[~follows], q[~follows], item[~follows], doc[~follows]
    end = _extend(index, tok, p, q, item_ends[item], doc_ends[doc], options.skip)
    long = end - p >= options.min_length
    p, q, item, doc, end = p[long], q[long], item[long], doc[long], end[long]
    if p.size == 0:
        return
    m = index.tokens.size
    depth = np.cumsum(np.bincount(p, minlength=m + 1) - np.bincount(end, minlength=m + 1))
    state.covered |= depth[:m] > 0
    # Overlapping spans on one (item, document, diagonal) are one match.
    diag = q - p
    order = np.lexsort((p, diag, doc, item))
    p, q, item, doc, end, diag = (a[order] for a in (p, q, item, doc, end, diag))
    group = np.r_[True, (item[1:] != item[:-1]) | (doc[1:] != doc[:-1]) | (diag[1:] != diag[:-1])]
    reach = _group_cummax(end, group)
    new = group | (p > np.r_[0, reach[:-1]])
    first = np.flatnonzero(new)
    span_end = np.maximum.reduceat(end, first)
    state.spans += np.bincount(item[first], minlength=index.n_items)
    records = {
        "item": item[first],
        "unit": np.full(first.size, batch.unit, np.int64),
        "row": batch.rows[doc[first]],
        "doc_offset": q[first] - (doc_ends - tok.lengths)[doc[first]],
        "item_offset": p[first] - index.item_start[item[first]],
        "length": span_end - p[first],
    }
    keep = _first_rows(records, _MATCH_ORDER, options.max_matches)
    state.add_matches(
        {k: v[keep] for k, v in records.items()},
        batch.id_list(doc[first][keep]),
        options.max_matches,
    )


def _group_cummax(values: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Return the running maximum of ``values`` (0 to 2**40), restarted where ``start``.

    >>> _group_cummax(np.array([3, 1, 5, 2, 1]), np.array([True, False, False, True, False]))
    array([3, 3, 5, 2, 2])
    """
    group = np.cumsum(start).astype(np.int64) << np.int64(40)
    return np.maximum.accumulate(values + group) - group


def _near(index: TestIndex, options: ScanOptions, state: ScanState, batch: _Batch) -> None:
    """MinHash-LSH candidates among the documents, verified by exact Jaccard."""
    from benchcheck.metrics.neardup import band_keys, exact_jaccard, minhash_signatures

    near = index.near
    assert near is not None
    tok = batch.tok
    t = near.threshold
    has = near.sizes > 0
    if not has.any():
        return
    low, high = t * near.sizes[has].min(), near.sizes[has].max() / t
    keep = tok.lengths >= low
    long = np.flatnonzero(keep & (tok.lengths > high))
    if long.size:  # distinct tokens of the long documents decide
        local = np.repeat(np.arange(long.size), tok.lengths[long])
        distinct = distinct_counts(local, tok.hashes[_positions(tok, long)], long.size)
        keep[long] = (distinct >= low) & (distinct <= high)
    docs = np.flatnonzero(keep & (tok.lengths > 0))
    if docs.size == 0:
        return
    local = np.repeat(np.arange(docs.size), tok.lengths[docs])
    shingle = tok.hashes[_positions(tok, docs)]
    sig = minhash_signatures(local, shingle, docs.size, num_perm=near.num_perm, seed=near.seed)
    keys = band_keys(sig, near.bands, near.rows)
    pairs = []
    for b in range(near.bands):
        sorted_keys = near.keys[b][near.order[b]]
        lo = np.searchsorted(sorted_keys, keys[b], side="left")
        hi = np.searchsorted(sorted_keys, keys[b], side="right")
        count = hi - lo
        if count.any():
            d = np.repeat(np.arange(docs.size), count)
            it = near.order[b][np.repeat(lo, count) + _ranks(count)]
            pairs.append(np.stack([it, d], axis=1))
    if not pairs:
        return
    cand = np.unique(np.concatenate(pairs), axis=0)
    cand = cand[near.sizes[cand[:, 0]] > 0]
    k = index.n_items
    both_doc = np.concatenate([index.item_of_token, k + local])
    both_sh = np.concatenate([index.tokens, shingle])
    jac = exact_jaccard(np.stack([cand[:, 0], k + cand[:, 1]], axis=1), both_doc, both_sh)
    ok = jac >= t
    item, d, jac = cand[ok, 0], docs[cand[ok, 1]], jac[ok]
    if item.size == 0:
        return
    state.near += np.bincount(item, minlength=k)
    records = {
        "item": item,
        "unit": np.full(item.size, batch.unit, np.int64),
        "row": batch.rows[d],
        "jaccard": jac,
    }
    keep = _first_rows(records, _NEAR_ORDER, options.max_matches)
    state.add_near(
        {key: v[keep] for key, v in records.items()}, batch.id_list(d[keep]), options.max_matches
    )
