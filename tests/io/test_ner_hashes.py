"""The blocked sequence hash equals the whole-column formula it replaces, block size aside."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.io import _ner
from benchcheck.io._ner import _position_keys, mix64, sequence_hash, sequence_hashes


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
    old = _ner._BLOCK_ITEMS
    _ner._BLOCK_ITEMS = block
    try:
        got = sequence_hashes(items, position, first, length)
    finally:
        _ner._BLOCK_ITEMS = old
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
