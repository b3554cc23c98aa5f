r"""Characters by how text is written: word characters, spaces, and scripts written without spaces.

One table (:func:`char_table`) gives every code point a class, read off the ``regex``
library's Unicode properties (``\s``, ``\w``, ``\p{M}``, ``\p{Script=...}``), and a flag
for the scripts that do not separate words by spaces (:data:`NO_SPACE_SCRIPTS`, plus the
CJK punctuation and full-width blocks of :data:`NO_SPACE_BLOCKS`). Two rules use it:

- **joining tokens** (:func:`join_tokens`): an entity's surface, or a sentence's text, is its
  tokens joined by one space, except that no space is put where the character on either side
  belongs to a script written without spaces (``北京``, not ``北 京``; ``iPhone手机``);
- **tokenising text** (:func:`benchcheck.io._spans.tokenize`): one token per character of those
  scripts, else runs of word characters and single other characters.

Surfaces are *compared* by their token sequences (see :mod:`benchcheck.data.model`); the
joined string is how a surface is shown, in the JSON and every report.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

#: Scripts written without spaces between words: one character is one token.
NO_SPACE_SCRIPTS = (
    "Han",
    "Hiragana",
    "Katakana",
    "Bopomofo",
    "Thai",
    "Lao",
    "Khmer",
    "Myanmar",
    "Tibetan",
    "Yi",
)
#: Blocks written with those scripts whose characters are joined without a space too:
#: CJK Symbols and Punctuation (after the ideographic space) and the full-width forms.
NO_SPACE_BLOCKS = ((0x3001, 0x303F), (0xFF01, 0xFFEF))
#: Token classes of a character.
SPACE, WORD, SINGLE, MARK = 0, 1, 2, 3
#: Flag bit: the character belongs to a script written without spaces.
NO_SPACE = 4
#: Characters that separate tokens although Unicode does not call them White_Space.
EXTRA_SPACES = (0x200B, 0xFEFF)  # zero-width space, zero-width no-break space (BOM)
N_CODEPOINTS = 0x110000


@lru_cache(maxsize=1)
def char_table() -> np.ndarray:
    r"""Class (``SPACE``, ``WORD``, ``SINGLE``, ``MARK``) | ``NO_SPACE`` flag, per code point.

    ``WORD``: ``\w`` (letters, digits, connector punctuation) outside the no-space scripts;
    ``MARK``: combining marks (``\p{M}``), which stay with the character before them;
    ``SINGLE``: everything else that is not a space, and every letter of a no-space script;
    ``SPACE``: Unicode ``White_Space`` and :data:`EXTRA_SPACES`. Built once (~0.2 s).

    >>> t = char_table()
    >>> [int(t[ord(c)]) for c in "a 北,\u0e31"]
    [1, 0, 6, 2, 7]
    """
    import regex

    codes = np.arange(N_CODEPOINTS, dtype=np.uint32)
    codes[0xD800:0xE000] = 0xFFFF  # surrogates are no text; read as a non-character
    text = codes.tobytes().decode("utf-32-le")

    def mask(pattern: str) -> np.ndarray:
        out = np.zeros(N_CODEPOINTS, dtype=bool)
        for found in regex.finditer(pattern, text):
            out[found.start() : found.end()] = True
        return out

    no_space = mask("[" + "".join(rf"\p{{Script={s}}}" for s in NO_SPACE_SCRIPTS) + "]+")
    for lo, hi in NO_SPACE_BLOCKS:
        no_space[lo : hi + 1] = True
    space = mask(r"\s+")
    space[list(EXTRA_SPACES)] = True
    mark = mask(r"\p{M}+")
    word = mask(r"\w+") & ~mark
    table = np.full(N_CODEPOINTS, SINGLE, dtype=np.uint8)
    table[word & ~no_space] = WORD
    table[mark] = MARK
    table[space] = SPACE
    table[no_space & ~space] |= NO_SPACE
    return table


def is_no_space(char: str) -> bool:
    """Tell whether a character belongs to a script written without spaces.

    >>> is_no_space("京"), is_no_space("ก"), is_no_space("a"), is_no_space("。")
    (True, True, False, True)
    """
    return bool(char_table()[ord(char)] & NO_SPACE)


def join_tokens(tokens: Sequence[str]) -> str:
    """Join tokens by one space, but by none where either side is a no-space script.

    >>> join_tokens(["北", "京"]), join_tokens(["New", "York"]), join_tokens(["iPhone", "手机"])
    ('北京', 'New York', 'iPhone手机')
    """
    if not tokens:
        return ""
    if all(t.isascii() for t in tokens):
        return " ".join(tokens)
    table = char_table()
    out = [tokens[0]]
    for prev, token in zip(tokens[:-1], tokens[1:], strict=True):
        if not (table[ord(prev[-1])] & NO_SPACE or table[ord(token[0])] & NO_SPACE):
            out.append(" ")
        out.append(token)
    return "".join(out)


def utf8_codepoints(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Decode valid UTF-8 bytes: (code point of each character, byte offset of each).

    Vectorised (numpy); the input must be valid UTF-8, as every Arrow string buffer is.

    >>> cp, at = utf8_codepoints(np.frombuffer("a北é".encode(), np.uint8))
    >>> cp.tolist(), at.tolist()
    ([97, 21271, 233], [0, 1, 4])
    """
    data = np.asarray(data, dtype=np.uint8)
    at = np.flatnonzero((data & 0xC0) != 0x80)
    return _codepoint_at(data, at), at


def first_last_codepoints(offsets: np.ndarray, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last code point of each non-empty string of an Arrow string array.

    ``offsets`` (n + 1 byte offsets) and ``data`` (the UTF-8 buffer) are the array's buffers.
    """
    data = np.asarray(data, dtype=np.uint8)
    lo = offsets[:-1].astype(np.int64)
    hi = offsets[1:].astype(np.int64)
    last = hi - 1
    for _ in range(3):  # back to the last character's lead byte (at most 3 continuations)
        cont = (data[last] & 0xC0) == 0x80
        last = np.where(cont & (last > lo), last - 1, last)
    return _codepoint_at(data, lo), _codepoint_at(data, last)


def _codepoint_at(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Code points of the characters whose lead bytes are at ``at``."""
    lead = data[at].astype(np.uint32)
    width = 1 + (lead >= 0xC0).astype(np.int64) + (lead >= 0xE0) + (lead >= 0xF0)
    # The lead byte's payload: 7, 5, 4 or 3 bits for 1-, 2-, 3- and 4-byte characters.
    cp = lead & np.array([0, 0x7F, 0x1F, 0x0F, 0x07], dtype=np.uint32)[width]
    for k in (1, 2, 3):
        more = np.flatnonzero(width > k)
        if more.size == 0:
            break
        cp[more] = (cp[more] << np.uint32(6)) | (data[at[more] + k] & np.uint32(0x3F))
    return cp


def utf16_offset(text: str, index: int) -> int:
    """UTF-16 code units before character ``index`` of ``text`` (Label Studio's offsets).

    A character above U+FFFF (an emoji) is two units in UTF-16 and one in Python.

    >>> utf16_offset("a😀b", 2)
    3
    """
    return index + sum(1 for c in text[:index] if ord(c) > 0xFFFF)


def char_offset(text: str, unit: int) -> int:
    """Character index of ``text`` at a UTF-16 code-unit offset (the first at or after it).

    >>> char_offset("a😀b", 3)
    2
    """
    count = 0
    for k, char in enumerate(text):
        if count >= unit:
            return k
        count += 2 if ord(char) > 0xFFFF else 1
    return len(text)
