r"""Whitespace-token counts of a string column, read straight from its Arrow buffer.

A text's length in whitespace tokens is the number of maximal runs of non-whitespace
characters: ``len(re.findall(r"\S+", text))`` with Unicode ``White_Space`` (the regex
crate's ``\s``: U+0009–U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028,
U+2029, U+202F, U+205F, U+3000).

polars' ``str.count_matches(r"\S+")`` gives exactly that, but iterating regex matches runs at
about 200 MB/s. Here the UTF-8 bytes are classified with numpy instead (a token starts at a
non-whitespace byte that follows whitespace or opens the text), in cache-sized blocks. The
byte test sees only the ASCII whitespace; the rare rows holding one of the multi-byte
whitespace characters are found by their byte sequences and recounted with the regex.
UTF-8 continuation bytes are >= 0x80, so an ASCII whitespace byte is always a character.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

_BLOCK_BYTES = 1 << 22
# UTF-8 encodings of the non-ASCII White_Space characters, by lead byte.
_MULTIBYTE_WS = tuple(
    chr(c).encode()
    for c in (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
)


def whitespace_token_counts(texts: pl.Series) -> pl.Series:
    r"""Count the ``\S+`` runs of each string (Int32; null stays null).

    >>> whitespace_token_counts(pl.Series(["a b", "  x\u00a0y\tz ", "", None])).to_list()
    [2, 3, 0, None]
    """
    texts = texts.cast(pl.String)
    offsets, data = string_buffers(texts)
    n = texts.len()
    counts = np.zeros(n, dtype=np.int32)
    redo: list[np.ndarray] = []
    row = 0
    while row < n:
        end = int(np.searchsorted(offsets, offsets[row] + _BLOCK_BYTES, side="right")) - 1
        end = min(max(end, row + 1), n)
        counts[row:end], rows = _count_block(data, offsets[row : end + 1])
        redo.append(rows + row)
        row = end
    out = pl.Series(texts.name, counts, dtype=pl.Int32)
    again = np.concatenate(redo) if redo else np.zeros(0, dtype=np.int64)
    if again.size:
        exact = texts.gather(again).str.count_matches(r"\S+").cast(pl.Int32)
        out = out.scatter(again, exact)
    if texts.null_count():
        out = pl.select(pl.when(texts.is_null()).then(None).otherwise(out)).to_series()
    return out.alias(texts.name)


def string_buffers(values: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    r"""Return a string column's Arrow buffers: ``n + 1`` int64 byte offsets, the UTF-8 bytes.

    Zero-copy where polars' array is already one ``large_string`` chunk. Null rows are empty.

    >>> offsets, data = string_buffers(pl.Series(["ab", "", "é"]))
    >>> offsets.tolist(), bytes(data[offsets[0] : offsets[-1]])
    ([0, 2, 2, 4], b'ab\xc3\xa9')
    """
    arr = values.rechunk().to_arrow()
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.type != pa.large_string():
        arr = arr.cast(pa.large_string())
    n = len(arr)
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[arr.offset : arr.offset + n + 1]
    data = np.zeros(0, np.uint8) if data_buf is None else np.frombuffer(data_buf, np.uint8)
    return offsets, data


def gather_ranges(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenate ``data[starts[k] : starts[k] + lengths[k]]`` for every k, vectorised.

    >>> gather_ranges(np.frombuffer(b"hello world", np.uint8), np.array([6, 0]), np.array([5, 1]))
    array([119, 111, 114, 108, 100, 104], dtype=uint8)
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=data.dtype)
    out_start = np.cumsum(lengths) - lengths
    nonempty = lengths > 0
    shift = np.repeat((np.asarray(starts, dtype=np.int64) - out_start)[nonempty], lengths[nonempty])
    shift += np.arange(total, dtype=np.int64)
    return data[shift]


def strings_from_buffers(offsets: np.ndarray, data: np.ndarray) -> pl.Series:
    """Make a polars string column from Arrow buffers (int64 offsets, valid UTF-8 bytes).

    >>> strings_from_buffers(np.array([0, 2, 2, 5]), np.frombuffer(b"abxyz", np.uint8)).to_list()
    ['ab', '', 'xyz']
    """
    n = offsets.size - 1
    arr = pa.LargeStringArray.from_buffers(
        n,
        pa.py_buffer(np.ascontiguousarray(offsets, dtype=np.int64)),
        pa.py_buffer(np.ascontiguousarray(data, dtype=np.uint8)),
    )
    return series_from_arrow(arr)


class _ArrowArray:
    """A pyarrow array seen only through the Arrow PyCapsule interface."""

    __slots__ = ("array",)

    def __init__(self, array: pa.Array) -> None:
        self.array = array

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        return self.array.__arrow_c_array__(requested_schema)  # type: ignore[no-any-return]


def series_from_arrow(array: pa.Array) -> pl.Series:
    """Return the polars column of a pyarrow array, its buffers shared, not copied.

    Through the Arrow C data interface (PyCapsules), as ``pl.from_arrow`` does, but without
    the conversions ``pl.from_arrow`` prepares for chunked and dictionary arrays, which
    import ``pyarrow.compute`` (about 60 ms of every run's start).

    >>> series_from_arrow(pa.array(["a", None])).to_list()
    ['a', None]
    """
    return pl.Series(_ArrowArray(array))


def _count_block(data: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Token counts of the rows whose byte ranges ``offsets`` delimits, by ASCII whitespace.

    Also returns the (block-relative) rows holding a multi-byte whitespace character, whose
    counts must be redone.
    """
    lo, hi = int(offsets[0]), int(offsets[-1])
    counts = np.zeros(offsets.size - 1, dtype=np.int32)
    if hi == lo:
        return counts, np.zeros(0, dtype=np.int64)
    block = data[lo:hi]
    space = (block == 32) | ((block - np.uint8(9)) < 5)  # ' ' and \t \n \v \f \r
    start = np.empty_like(space)
    start[0] = not space[0]
    np.less(space[1:], space[:-1], out=start[1:])  # whitespace, then not
    firsts = offsets[:-1] - lo
    nonempty = offsets[1:] > offsets[:-1]
    heads = firsts[nonempty]
    start[heads] = ~space[heads]  # a row's first byte opens a token unless it is whitespace
    counts[nonempty] = np.add.reduceat(start.view(np.uint8), heads, dtype=np.int32)
    return counts, _multibyte_whitespace_rows(block, firsts)


def _multibyte_whitespace_rows(block: np.ndarray, firsts: np.ndarray) -> np.ndarray:
    """Rows (by their first-byte positions ``firsts`` in ``block``) holding non-ASCII spaces."""
    lead = np.flatnonzero((block == 0xC2) | ((block - np.uint8(0xE1)) < 3))
    if lead.size == 0:
        return np.zeros(0, dtype=np.int64)
    last = block.size - 1
    hit = np.zeros(lead.size, dtype=bool)
    for seq in _MULTIBYTE_WS:
        match = block[lead] == seq[0]
        for k in range(1, len(seq)):
            match &= (lead + k <= last) & (block[np.minimum(lead + k, last)] == seq[k])
        hit |= match
    return np.unique(np.searchsorted(firsts, lead[hit], side="right") - 1)
