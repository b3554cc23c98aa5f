"""The blocked sequence hash equals the whole-column formula it replaces, block size aside."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.data import hashing
from benchcheck.data.hashing import mix64, sequence_hash
from benchcheck.data.hashing import position_keys as _position_keys


def reference(item: np.ndarray, position: np.ndarray, first: np.ndarray, length: np.ndarray):
    """Per segment: mix64(Σ mix64(key[pos] ^ item) ^ key[length]), written plainly."""
    keys = _position_keys(int(max(position.max(initial=0), length.max(initial=0))) + 1)
    out = np.zeros(first.size, dtype=np.uint64)
    mixed = mix64(keys[position] ^ item)
    with np.errstate(over="ignore"):
        for k, (f, n) in enumerate(zip(first, length, strict=True)):
            out[k] = mixed[f : f + n].sum(dtype=np.uint64)
    return mix64(out ^ keys[length])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 12), min_size=1, max_size=40),
    st.sampled_from([1, 2, 3, 7, 1 << 16]),
    st.integers(0, 2**32),
)
def test_blocks_equal_the_plain_formula(lengths, block, seed):
    length = np.array(lengths, dtype=np.int64)
    first = np.r_[0, np.cumsum(length)[:-1]].astype(np.int64)
    position = (np.arange(length.sum()) - np.repeat(first, length)).astype(np.int32)
    rng = np.random.default_rng(seed)
    items = [
        rng.integers(0, 2**64 - 1, position.size, dtype=np.uint64, endpoint=True) for _ in range(2)
    ]
    old = hashing._BLOCK_ITEMS
    hashing._BLOCK_ITEMS = block
    try:
        got = [sequence_hash(item, position, first, length) for item in items]
    finally:
        hashing._BLOCK_ITEMS = old
    for item, hashed in zip(items, got, strict=True):
        assert hashed.tolist() == reference(item, position, first, length).tolist()


def test_order_matters_and_no_segments_is_empty():
    a = np.array([1, 2], dtype=np.uint64)
    pos, first, length = np.array([0, 1]), np.array([0]), np.array([2])
    assert sequence_hash(a, pos, first, length) != sequence_hash(a[::-1].copy(), pos, first, length)
    empty = np.zeros(0, dtype=np.int64)
    assert sequence_hash(np.zeros(0, np.uint64), empty, empty, empty).size == 0


@pytest.mark.parametrize("n", [1, 70_000])
def test_one_long_segment(n):
    item = np.arange(n, dtype=np.uint64)
    pos, first, length = np.arange(n), np.array([0]), np.array([n])
    assert (
        sequence_hash(item, pos, first, length).tolist()
        == reference(item, pos, first, length).tolist()
    )


@settings(max_examples=60, deadline=None)
@given(
    n_distinct=st.integers(1, 40),
    n=st.integers(1, 30_000),
    rare=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_hash_codes_number_values_in_sorted_order(n_distinct, n, rare, seed):
    # Few common values plus a few rare ones the sample misses: every row is checked.
    from benchcheck.io._ner import _hash_codes

    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2**64, size=n_distinct + rare, dtype=np.uint64)
    hashes = values[rng.integers(0, n_distinct, size=n)]
    for k in range(rare):
        hashes[rng.integers(0, n)] = values[n_distinct + k]
    expected = np.searchsorted(np.unique(hashes), hashes)
    assert _hash_codes(hashes).tolist() == expected.tolist()


def test_hash_codes_many_values_and_shared_low_bits():
    from benchcheck.io._ner import _hash_codes

    rng = np.random.default_rng(3)
    many = rng.integers(0, 2**64, size=20_000, dtype=np.uint64)  # > 4096: sort and search
    assert _hash_codes(many).tolist() == np.searchsorted(np.unique(many), many).tolist()
    # Values equal in their low 40 bits: the window has to move up to tell them apart.
    same_low = (np.arange(1, 30, dtype=np.uint64) << np.uint64(40)) | np.uint64(12345)
    hashes = same_low[rng.integers(0, same_low.size, size=5000)]
    assert _hash_codes(hashes).tolist() == np.searchsorted(np.unique(hashes), hashes).tolist()
