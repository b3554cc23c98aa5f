r"""The one text rule of contamination: normalisation and tokens, in Python and vectorised.

**Normalisation**: Unicode NFKC, then ``str.casefold`` (``Straße`` → ``strasse``,
``ﬁ`` → ``fi``, full-width ``Ａ`` → ``a``).

**Tokens** of the normalised text (:data:`TOKEN_PATTERN`), with L the letters, digits and
connector punctuation (``\p{Alphabetic}``, ``\p{Nd}``, ``\p{Pc}``), M the combining marks
(``\p{M}``) and S the scripts written without spaces
(:data:`benchcheck.data.scripts.NO_SPACE_SCRIPTS`: Han, Kana, Thai, …):

- a *word* is a run of characters of L − M − S, each followed by any characters of
  (L − S) ∪ M: ``don't`` gives ``don`` and ``t``, ``a_b`` one word, ``3.14`` two;
- a character of (L ∩ S) − M is a token of its own with the marks after it: CJK by
  characters (``北京`` → ``北``, ``京``; Thai ``ที่`` is one token);
- everything else — punctuation, symbols, spaces, a mark after none of these — separates
  tokens and is dropped.

This is the GPT-3 decontamination's "lowercase, whitespace delimited word with no
punctuation" (Brown et al. 2020, App. C) made precise for every script. :func:`tokenize` is
the readable reference; :func:`token_hashes` computes the same tokens for a batch of
documents at once and returns their 64-bit hashes (polars' string hash, fixed seeds): rows
of ASCII text are lower-cased and split by one byte table (``bytes.translate``) and
polars' ``str.split``; other rows are normalised in Python and cut by polars' regex engine
with the same pattern. Both engines use Unicode properties; characters assigned in a newer
Unicode version than the engine knows may be classed differently.

>>> tokenize("The Straße's ＡＢＣ — 北京, ที่!")
['the', 'strasse', 's', 'abc', '北', '京', 'ที่']
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import polars as pl
import pyarrow as pa

from benchcheck.data.hashing import string_hash
from benchcheck.data.scripts import NO_SPACE_SCRIPTS

__all__ = ["TOKEN_PATTERN", "Tokens", "normalise", "token_hashes", "tokenize"]

_S = "".join(rf"\p{{Script={s}}}" for s in NO_SPACE_SCRIPTS)
_L = r"[\p{Alphabetic}\p{Nd}\p{Pc}]"
#: Tokens of normalised text (set operations nested so that Rust's and Python's ``regex``
#: read them alike; Python's needs the ``V1`` flag).
TOKEN_PATTERN = (
    rf"[{_L}--[\p{{M}}{_S}]][[{_L}--[{_S}]]\p{{M}}]*"  # a word
    rf"|[[{_L}&&[{_S}]]--[\p{{M}}]]\p{{M}}*"  # a character of a script without spaces
)

# ASCII rows: A-Z → a-z, letters, digits and '_' kept, every other byte → a space.
_ASCII = bytearray(b" " * 256)
for _c in b"abcdefghijklmnopqrstuvwxyz0123456789_":
    _ASCII[_c] = _c
for _c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ":
    _ASCII[_c] = _c + 32
_ASCII_TABLE = bytes(_ASCII)


def normalise(text: str) -> str:
    """NFKC, then ``str.casefold``.

    >>> normalise("Straße ﬁle Ⅻ")
    'strasse file xii'
    """
    return unicodedata.normalize("NFKC", text).casefold()


@lru_cache(maxsize=1)
def _pattern():  # type: ignore[no-untyped-def]
    import regex

    return regex.compile(TOKEN_PATTERN, flags=regex.V1)


def tokenize(text: str) -> list[str]:
    """Tokens of one text (the reference of :func:`token_hashes`; see the module doc).

    >>> tokenize("Don't   STOP — 3.14, a_b")
    ['don', 't', 'stop', '3', '14', 'a_b']
    """
    return _pattern().findall(normalise(text))  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Tokens:
    """The tokens of a batch of documents: their hashes, documents one after the other."""

    hashes: np.ndarray  # uint64, one per token
    lengths: np.ndarray  # int64, tokens per document

    @property
    def starts(self) -> np.ndarray:
        """Index of each document's first token."""
        return np.cumsum(self.lengths) - self.lengths


def _large_strings(texts: pa.Array | pl.Series | Sequence[str]) -> pa.LargeStringArray:
    if isinstance(texts, pl.Series):
        arr = texts.to_arrow()
    elif isinstance(texts, (pa.Array, pa.ChunkedArray)):
        arr = texts
    else:
        return pa.array(list(texts), pa.large_string())
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.type != pa.large_string():
        arr = arr.cast(pa.large_string())
    return arr


def _split_counts(lists: pl.Series) -> Tokens:
    """Hash the tokens of a list column, leaving out empty strings and nulls."""
    counts = lists.list.len().to_numpy().astype(np.int64)
    flat = lists.explode()
    hashes = string_hash(flat)
    keep = (flat.str.len_bytes() > 0).fill_null(False).to_numpy()
    if keep.all():
        return Tokens(hashes, counts)
    rows = np.repeat(np.arange(counts.size), np.maximum(counts, 1))  # explode keeps [] as null
    kept = np.bincount(rows[keep], minlength=counts.size).astype(np.int64)
    return Tokens(hashes[keep], kept)


def _ascii_tokens(texts: pa.LargeStringArray) -> Tokens:
    """Tokens of ASCII rows: one ``bytes.translate`` pass, then polars' split on spaces."""
    n = len(texts)
    _, offsets_buf, data_buf = texts.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[texts.offset : texts.offset + n + 1]
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = b"" if data_buf is None else memoryview(data_buf)[lo:hi].tobytes()
    mapped = pa.LargeStringArray.from_buffers(
        n, pa.py_buffer(offsets - lo), pa.py_buffer(data.translate(_ASCII_TABLE))
    )
    return _split_counts(pl.Series(mapped).str.split(" "))


def _unicode_tokens(texts: pa.LargeStringArray) -> Tokens:
    """Tokens of rows with other characters: NFKC and casefold in Python, then the regex."""
    norm = pl.Series([normalise(t) for t in texts.to_pylist()], dtype=pl.String)
    return _split_counts(norm.str.extract_all(TOKEN_PATTERN))


def token_hashes(texts: pa.Array | pl.Series | Sequence[str]) -> Tokens:
    """Hash the tokens of every text (no nulls), in document order.

    >>> t = token_hashes(pl.Series(["A b, a", "", "北京"]))
    >>> t.lengths.tolist(), bool(t.hashes[0] == t.hashes[2])
    ([3, 0, 2], True)
    """
    import pyarrow.compute as pc

    arr = _large_strings(texts)
    if len(arr) == 0:
        return Tokens(np.zeros(0, np.uint64), np.zeros(0, np.int64))
    ascii_rows = pc.string_is_ascii(arr).to_numpy(zero_copy_only=False)
    if ascii_rows.all():
        return _ascii_tokens(arr)
    if not ascii_rows.any():
        return _unicode_tokens(arr)
    plain, other = np.flatnonzero(ascii_rows), np.flatnonzero(~ascii_rows)
    parts = [
        (plain, _ascii_tokens(arr.take(pa.array(plain)))),
        (other, _unicode_tokens(arr.take(pa.array(other)))),
    ]
    return _interleave(len(arr), parts)


def _interleave(n: int, parts: list[tuple[np.ndarray, Tokens]]) -> Tokens:
    """Put the tokens of row subsets back in row order."""
    lengths = np.zeros(n, np.int64)
    for rows, tok in parts:
        lengths[rows] = tok.lengths
    start = np.cumsum(lengths) - lengths
    out = np.empty(int(lengths.sum()), np.uint64)
    for rows, tok in parts:
        if tok.hashes.size:
            dest = np.repeat(start[rows] - tok.starts, tok.lengths)
            dest += np.arange(tok.hashes.size)
            out[dest] = tok.hashes
    return Tokens(out, lengths)
