"""Whitespace-token counts read from the Arrow buffer equal polars' regex count."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.io import _tokens
from benchcheck.io._tokens import whitespace_token_counts

# Every Unicode White_Space character, plus near misses: U+001C–U+001F (Python's isspace says
# yes, the regex says no), U+200B (zero-width, not White_Space), and other characters whose
# UTF-8 begins with the same lead bytes as the multi-byte spaces.
SPACES = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)
NEAR = "\x1c\x1d\x1e\x1f\u200b\xa1\xc2\u2030\u2060\u3001\u1681é"
TEXT = st.text(
    alphabet=st.sampled_from(list(SPACES + NEAR + "ab"))
    | st.characters(exclude_categories=("Cs",)),
    max_size=40,
)


def regex_counts(values: list[str | None]) -> list[int | None]:
    return pl.Series(values, dtype=pl.String).str.count_matches(r"\S+").cast(pl.Int32).to_list()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.none() | TEXT, max_size=60))
def test_equals_the_regex_count(values: list[str | None]) -> None:
    assert whitespace_token_counts(pl.Series(values, dtype=pl.String)).to_list() == regex_counts(
        values
    )


@settings(max_examples=50, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=200), st.integers(1, 64))
def test_block_boundaries_do_not_matter(values: list[str], block: int) -> None:
    old = _tokens._BLOCK_BYTES
    _tokens._BLOCK_BYTES = block  # tiny blocks: every row boundary is also a block boundary
    try:
        got = whitespace_token_counts(pl.Series(values)).to_list()
    finally:
        _tokens._BLOCK_BYTES = old
    assert got == regex_counts(values)


def test_hand_counts_and_a_sliced_series() -> None:
    s = pl.Series(["one", " two  words ", "a\u3000b\u00a0c", "\u2028", "x\x1cy", "", None])
    assert whitespace_token_counts(s).to_list() == [1, 2, 3, 0, 1, 0, None]
    assert whitespace_token_counts(s.slice(2, 3)).to_list() == [3, 0, 1]
    chunked = pl.concat([pl.Series(["a b"]), pl.Series(["c d e"])], rechunk=False)
    assert whitespace_token_counts(chunked).to_list() == [2, 3]
