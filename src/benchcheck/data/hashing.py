"""64-bit hashes of strings and of sequences: how the dataset model identifies instances.

Every exact-match metric compares instances, inputs and entity surfaces through these
hashes (:mod:`benchcheck.data.model` states the construction and the collision odds):

- :func:`string_hash`: polars' hash of each string, with its fixed default seeds;
- :func:`mix64`: the SplitMix64 finaliser (Steele, Lea and Flood 2014), vectorised over
  uint64 with wrapping arithmetic;
- :func:`sequence_hash`: order-sensitive hashes of segments of
  item hashes (a sentence's tokens, a span's tokens): each item is mixed with a key of its
  position before the wrapping sum, and the length is mixed in last;
  :func:`coded_sequence_hash` gives the same hash for items drawn from a short list (tags).

Written with numpy because no library offers a vectorised SplitMix64 over arrays (xxhash
hashes one buffer per call). Pure functions: arrays in, arrays out.

>>> int(mix64(np.array([0], dtype=np.uint64))[0])
0
>>> int(mix64(np.array([1], dtype=np.uint64))[0]) == 0x5692161D100B05E5
True
"""

from __future__ import annotations

import numpy as np
import polars as pl

__all__ = [
    "coded_sequence_hash",
    "mix64",
    "position_keys",
    "sequence_hash",
    "string_hash",
]

_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xBF58476D1CE4E5B9)
_K3 = np.uint64(0x94D049BB133111EB)


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, vectorised (wrapping uint64 arithmetic), on a uint64 copy of x."""
    return _mix_inplace(x.astype(np.uint64, copy=True))


def position_keys(size: int) -> np.ndarray:
    """Key of each position 0..size-1: :func:`mix64` of the position plus a constant."""
    return mix64(np.arange(size, dtype=np.uint64) + _K1)


_BLOCK_ITEMS = 1 << 16


def sequence_hash(
    item_hash: np.ndarray, position: np.ndarray, first: np.ndarray, length: np.ndarray
) -> np.ndarray:
    """Order-sensitive hash of each segment ``[first[k], first[k] + length[k])``.

    Each item's hash is mixed with a key of its position before the wrapping sum, so
    permutations of a segment hash differently; the length is mixed in last. Segments are
    ``first``-sorted and contiguous (each starts where the previous ends, as sentences and
    span lists do). Items are mixed and summed block by block, each block a run of whole
    segments of about 64k items, so no column-sized temporary is made: the work stays in
    cache, and at 10**6 tokens this is about 3x faster than whole-column numpy expressions.
    """
    out = np.zeros(first.size, dtype=np.uint64)
    if first.size == 0:
        return out
    keys = position_keys(int(position.max()) + 1 if position.size else 1)
    # Block edges: segment indices whose first items lie about _BLOCK_ITEMS apart.
    cuts = np.searchsorted(first, np.arange(0, int(first[-1]) + 1, _BLOCK_ITEMS))
    cuts = cuts[np.append(True, cuts[1:] != cuts[:-1])]  # sorted: drop repeats
    edges = [*cuts.tolist(), first.size]
    end_item = int(first[-1] + length[-1])
    buf = np.empty(0, dtype=np.uint64)
    tmp = np.empty(0, dtype=np.uint64)
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        if lo >= hi:
            continue
        a = int(first[lo])
        b = int(first[hi]) if hi < first.size else end_item
        if buf.size < b - a:
            buf, tmp = np.empty(b - a, dtype=np.uint64), np.empty(b - a, dtype=np.uint64)
        nonempty = np.flatnonzero(length[lo:hi]) + lo  # empty segments keep their 0 sum
        if nonempty.size == 0:
            continue
        mixed = buf[: b - a]
        # (take is several times slower with an int32 index than with intp: cast the block)
        np.take(keys, position[a:b].astype(np.intp, copy=False), out=mixed)
        np.bitwise_xor(mixed, item_hash[a:b], out=mixed)
        _mix_block(mixed, tmp[: b - a])
        out[nonempty] = np.add.reduceat(mixed, first[nonempty] - a)
    length_keys = position_keys(int(length.max()) + 1)[length]
    return _mix_inplace(np.bitwise_xor(out, length_keys, out=out))


#: Largest (position × code) table :func:`coded_sequence_hash` builds (32 MB of uint64).
_CODED_TABLE_MAX = 1 << 22


def coded_sequence_hash(
    codes: np.ndarray,
    code_hash: np.ndarray,
    position: np.ndarray,
    first: np.ndarray,
    length: np.ndarray,
) -> np.ndarray:
    """:func:`sequence_hash` of ``code_hash[codes]``, for items drawn from a short list.

    Every item term, ``mix64(key[position] ^ code_hash[code])``, is made once per (position,
    code) pair in a table, so an item costs a lookup instead of a mix; the segments are
    summed and their lengths mixed in as in :func:`sequence_hash`, with the same result.
    Segments are ``first``-sorted and contiguous, as in :func:`sequence_hash`.

    >>> codes, keys = np.array([1, 0, 1, 1]), mix64(np.array([7, 9], dtype=np.uint64))
    >>> pos, first, n = np.array([0, 1, 0, 1]), np.array([0, 2]), np.array([2, 2])
    >>> bool((coded_sequence_hash(codes, keys, pos, first, n)
    ...       == sequence_hash(keys[codes], pos, first, n)).all())
    True
    """
    k = code_hash.size
    span = int(position.max()) + 1 if position.size else 1
    if first.size == 0 or span * k > _CODED_TABLE_MAX:
        return sequence_hash(code_hash[codes], position, first, length)
    table = _mix_inplace(
        (position_keys(span)[:, None] ^ code_hash.astype(np.uint64)[None, :]).reshape(-1)
    )
    index = position.astype(np.intp)  # (take is 4x slower with an int32 index)
    index *= k
    index += codes
    terms = table.take(index[: int(first[-1] + length[-1])])
    out = np.zeros(first.size, dtype=np.uint64)
    nonempty = np.flatnonzero(length)  # empty segments keep their 0 sum
    if nonempty.size:
        out[nonempty] = np.add.reduceat(terms, first[nonempty])
    length_keys = position_keys(int(length.max()) + 1)[length]
    return _mix_inplace(np.bitwise_xor(out, length_keys, out=out))


def _mix_block(x: np.ndarray, tmp: np.ndarray) -> None:
    """:func:`mix64` of ``x`` in place, using ``tmp`` (same size) for the shifted copies."""
    with np.errstate(over="ignore"):
        np.right_shift(x, np.uint64(30), out=tmp)
        x ^= tmp
        x *= _K2
        np.right_shift(x, np.uint64(27), out=tmp)
        x ^= tmp
        x *= _K3
        np.right_shift(x, np.uint64(31), out=tmp)
        x ^= tmp


def _mix_inplace(x: np.ndarray) -> np.ndarray:
    """:func:`mix64` overwriting ``x`` (uint64), for arrays the caller no longer needs."""
    with np.errstate(over="ignore"):
        x ^= x >> np.uint64(30)
        x *= _K2
        x ^= x >> np.uint64(27)
        x *= _K3
        x ^= x >> np.uint64(31)
    return x


def string_hash(values: pl.Series) -> np.ndarray:
    """Deterministic 64-bit hash of each string (polars' hash with its fixed default seeds)."""
    return values.hash().to_numpy().astype(np.uint64, copy=False)
