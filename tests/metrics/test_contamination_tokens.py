"""Contamination tokens: checked by hand, and the vectorised path equals the reference."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.data.hashing import string_hash
from benchcheck.metrics.contamination.ngrams import ngram_hashes, rolling_hashes
from benchcheck.metrics.contamination.tokens import normalise, token_hashes, tokenize


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("The quick, brown FOX!", ["the", "quick", "brown", "fox"]),  # case, punctuation
        ("  a\tb\n\nc  ", ["a", "b", "c"]),  # any whitespace
        ("Straße STRASSE", ["strasse", "strasse"]),  # casefold, not lower
        ("ﬁne ＡＢＣ Ⅻ", ["fine", "abc", "xii"]),  # NFKC: ligature, full width, numerals
        ("don't 3.14 a_b e-mail", ["don", "t", "3", "14", "a_b", "e", "mail"]),
        ("北京大学。东京", ["北", "京", "大", "学", "东", "京"]),  # CJK by character
        ("カタカナ ひらがな", ["カ", "タ", "カ", "ナ", "ひ", "ら", "が", "な"]),
        ("ที่นี่", ["ที่", "นี่"]),  # Thai: a character with its marks
        ("iPhone手机", ["iphone", "手", "机"]),
        ("e\u0301te", ["éte"]),  # combining mark composed by NFKC
        ("a\u0301\u0302b", ["\u00e1\u0302b"]),  # marks stay inside a word (NFKC composes á)
        ("\u0301x", ["x"]),  # a mark after nothing is dropped
        ("हिन्दी", ["हिन्दी"]),  # vowel signs and virama inside the word
        ("— … ¿¡ @#$ ", []),
        ("", []),
    ],
)
def test_tokens_by_hand(text, tokens):
    assert tokenize(text) == tokens


def test_normalise():
    assert normalise("Straße ﬁle Ⅻ") == "strasse file xii"
    assert normalise("ΣΊΣΥΦΟΣ") == normalise("σίσυφος")  # final sigma folds like any sigma


alphabet = st.sampled_from(
    list("aBz09_ -.,'\t\n")
    + ["ß", "ﬁ", "Ａ", "北", "京", "ก", "\u0e35", "\u0301", "é", "Σ", "ς"]
    + ["ー", "。", "\u00a0", "İ", "Ⅻ"]
)
texts = st.lists(alphabet, max_size=30).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(texts, min_size=1, max_size=8))
def test_vectorised_tokens_equal_reference(batch):
    got = token_hashes(pl.Series(batch, dtype=pl.String))
    ref = [tokenize(t) for t in batch]
    assert got.lengths.tolist() == [len(r) for r in ref]
    flat = [tok for r in ref for tok in r]
    assert got.hashes.tolist() == string_hash(pl.Series(flat, dtype=pl.String)).tolist()


def _poly(values, base=0x9E3779B97F4A7C15):
    h = 0
    for v in values:
        h = (h * base + int(v)) % 2**64
    return h


@pytest.mark.parametrize("block", [3, 7, 1 << 20])
def test_rolling_hashes_are_the_polynomial(monkeypatch, block):
    from benchcheck.metrics.contamination import ngrams

    monkeypatch.setattr(ngrams, "_BLOCK", block)
    ngrams._powers.cache_clear()
    rng = np.random.default_rng(0)
    h = rng.integers(0, 2**64, size=40, dtype=np.uint64)
    for n in (1, 2, 5, 13):
        got = rolling_hashes(h, n).tolist()
        assert got == [_poly(h[i : i + n]) for i in range(40 - n + 1)]
    ngrams._powers.cache_clear()


def test_ngrams_stay_inside_documents():
    h = np.arange(10, dtype=np.uint64)
    hashes, at = ngram_hashes(h, np.array([3, 0, 1, 6]), 3)
    assert at.tolist() == [0, 4, 5, 6, 7]
    assert hashes.tolist() == [_poly(h[i : i + 3]) for i in at]
    assert ngram_hashes(h[:2], np.array([2]), 3)[0].size == 0
