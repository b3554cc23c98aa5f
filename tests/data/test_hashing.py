"""data.hashing against plain-Python SplitMix64 and a plain-Python sequence hash."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from benchcheck.data import hashing

M = 2**64
K1, K2, K3 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _splitmix(z: int) -> int:
    z = ((z ^ (z >> 30)) * K2) % M
    z = ((z ^ (z >> 27)) * K3) % M
    return z ^ (z >> 31)


def _sequence(items: list[int]) -> int:
    total = 0
    for p, h in enumerate(items):
        total = (total + _splitmix(_splitmix((p + K1) % M) ^ h)) % M
    return _splitmix(total ^ _splitmix((len(items) + K1) % M))


@given(st.lists(st.integers(0, M - 1), max_size=50))
def test_mix64_is_splitmix64(values):
    x = np.array(values, dtype=np.uint64)
    assert hashing.mix64(x).tolist() == [_splitmix(v) for v in values]
    assert x.tolist() == values  # a copy: the input is not touched


@given(st.lists(st.lists(st.integers(0, M - 1), max_size=6), max_size=12))
def test_sequence_hash_matches_a_plain_python_sum(segments):
    items = np.array([h for s in segments for h in s], dtype=np.uint64)
    length = np.array([len(s) for s in segments], dtype=np.int64)
    first = (np.cumsum(length) - length).astype(np.int64)
    position = np.array([p for s in segments for p in range(len(s))], dtype=np.int64)
    got = hashing.sequence_hash(items, position, first, length)
    assert got.tolist() == [_sequence(s) for s in segments]  # empty: the length key alone
    other = hashing.sequence_hash(items ^ np.uint64(7), position, first, length)
    assert other.tolist() == [_sequence([h ^ 7 for h in s]) for s in segments]


@given(
    st.lists(st.lists(st.integers(0, 4), max_size=7), max_size=12),
    st.lists(st.integers(0, M - 1), min_size=5, max_size=5),
)
def test_coded_sequence_hash_matches_a_plain_python_sum(segments, code_hash):
    # Items drawn from a short list (tags), hashed through the (position, code) table.
    codes = np.array([c for s in segments for c in s], dtype=np.int16)
    length = np.array([len(s) for s in segments], dtype=np.int64)
    first = (np.cumsum(length) - length).astype(np.int64)
    position = np.array([p for s in segments for p in range(len(s))], dtype=np.int32)
    keys = np.array(code_hash, dtype=np.uint64)
    got = hashing.coded_sequence_hash(codes, keys, position, first, length)
    assert got.tolist() == [_sequence([code_hash[c] for c in s]) for s in segments]


def test_coded_sequence_hash_past_its_table_is_the_same():
    # Long segments × many codes skip the table; the hash is the same.
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3000, size=3000)
    keys = hashing.mix64(np.arange(3000, dtype=np.uint64))
    position, first, length = np.arange(3000), np.array([0]), np.array([3000])
    got = hashing.coded_sequence_hash(codes, keys, position, first, length)
    assert got.tolist() == [_sequence(keys[codes].tolist())]


def test_sequence_hash_is_order_sensitive():
    items = np.array([1, 2, 2, 1], dtype=np.uint64)
    h = hashing.sequence_hash(items, np.array([0, 1, 0, 1]), np.array([0, 2]), np.array([2, 2]))
    assert h[0] != h[1]


def test_string_hash_is_polars_hash_as_uint64():
    s = pl.Series(["a", "", "Straße", "a"])
    h = hashing.string_hash(s)
    assert h.dtype == np.uint64
    assert h.tolist() == s.hash().to_list() and h[0] == h[3]


def test_the_readers_hash_with_this_module():
    """One implementation: the NER split builder and the table reader import these."""
    from benchcheck.io import _ner, tables

    assert _ner.mix64 is hashing.mix64 and _ner.string_hash is hashing.string_hash
    assert tables.mix64 is hashing.mix64 and _ner.sequence_hash is hashing.sequence_hash
    assert _ner.coded_sequence_hash is hashing.coded_sequence_hash
