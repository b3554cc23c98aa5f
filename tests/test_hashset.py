"""The sort-based hash-set helpers agree with numpy's own set routines and polars' group-by."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from benchcheck._hashset import member, unique_sorted, value_counts, varies_within

# Small alphabets make repeats likely; the full uint64 range checks the top bit.
HASHES = hnp.arrays(
    np.uint64, st.integers(0, 80), elements=st.sampled_from([0, 1, 7, 2**63, 2**64 - 1])
)
WIDE = hnp.arrays(np.uint64, st.integers(0, 80), elements=st.integers(0, 2**64 - 1))


@settings(max_examples=200, deadline=None)
@given(st.one_of(HASHES, WIDE))
def test_unique_and_counts_match_numpy(values: np.ndarray) -> None:
    expected, counts = np.unique(values, return_counts=True)
    assert unique_sorted(values).tolist() == expected.tolist()
    assert value_counts(values).tolist() == counts.tolist()


@settings(max_examples=200, deadline=None)
@given(st.one_of(HASHES, WIDE), st.one_of(HASHES, WIDE))
def test_member_matches_isin(values: np.ndarray, reference: np.ndarray) -> None:
    assert member(values, reference).tolist() == np.isin(values, reference).tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["a", "b", "c"])), max_size=60))
def test_varies_within_matches_a_group_by(rows: list[tuple[int, str]]) -> None:
    groups = np.array([g for g, _ in rows], dtype=np.uint64)
    values = np.array([ord(v) for _, v in rows], dtype=np.uint64)
    frame = pl.DataFrame({"g": groups, "v": values}, schema={"g": pl.UInt64, "v": pl.UInt64})
    per_group = frame.group_by("g").agg(pl.col("v").n_unique().alias("k"))
    assert varies_within(groups, values) == (int((per_group["k"] > 1).sum()), per_group.height)
