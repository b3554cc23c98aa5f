"""Scripts without spaces: the character table, the joining rule, UTF-8 decoding."""

import numpy as np
import polars as pl
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.data import scripts
from benchcheck.io._ner import _joined_surfaces
from benchcheck.io._tokens import string_buffers

NO_SPACE = regex.compile(
    "["
    + "".join(rf"\p{{Script={s}}}" for s in scripts.NO_SPACE_SCRIPTS)
    + r"\u3001-\u303f\uff01-\uffef]"
)


def _joined(tokens: list[str]) -> str:
    """The joining rule by hand: a space unless either side is of a no-space script."""
    out = tokens[0]
    for prev, tok in zip(tokens[:-1], tokens[1:], strict=True):
        out += ("" if NO_SPACE.match(prev[-1]) or NO_SPACE.match(tok[0]) else " ") + tok
    return out


token_st = st.text(
    st.sampled_from(list("ab9北京かナไท한,.é\u0301\u3002Ａ")), min_size=1, max_size=4
)


@settings(max_examples=300, deadline=None)
@given(st.lists(token_st, min_size=1, max_size=5))
def test_join_tokens_follows_the_rule(tokens):
    assert scripts.join_tokens(tokens) == _joined(tokens)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(token_st, min_size=1, max_size=4), min_size=1, max_size=6))
def test_vectorised_surfaces_equal_join_tokens(surfaces):
    span = np.repeat(np.arange(len(surfaces)), [len(s) for s in surfaces])
    tokens = pl.Series([t for s in surfaces for t in s], dtype=pl.String)
    assert _joined_surfaces(span, tokens).to_list() == [scripts.join_tokens(s) for s in surfaces]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=5))
def test_utf8_decoding_and_first_last_characters(texts):
    texts = [t for t in texts if not any(0xD800 <= ord(c) < 0xE000 for c in t)] or ["x"]
    offsets, data = string_buffers(pl.Series(texts, dtype=pl.String))
    cp, at = scripts.utf8_codepoints(data[offsets[0] : offsets[-1]])
    assert cp.tolist() == [ord(c) for c in "".join(texts)]
    head, tail = scripts.first_last_codepoints(offsets, data)
    assert head.tolist() == [ord(t[0]) for t in texts]
    assert tail.tolist() == [ord(t[-1]) for t in texts]


def test_char_table_classes():
    table = scripts.char_table()
    assert table[ord("a")] == scripts.WORD and table[ord(" ")] == scripts.SPACE
    assert table[ord("\u3000")] == scripts.SPACE and table[0x200B] == scripts.SPACE
    assert table[ord("北")] == scripts.SINGLE | scripts.NO_SPACE
    assert table[ord("\u0301")] == scripts.MARK and table[ord(",")] == scripts.SINGLE
    assert table[ord("한")] == scripts.WORD  # Korean is written with spaces
