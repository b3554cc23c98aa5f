"""Readers bounded by *decoded* size: one rule for compressed and dictionary-encoded inputs.

A file's size says little about what it decodes to: a zlib stream of 4 MB may inflate to
4 GB (a spaCy DocBin), and a Parquet column of 1 MB holding one 1,000-character dictionary
value referenced by 10M rows decodes to 10 GB. So a reader that decodes never trusts the
encoded size. Each one here measures what it decodes *as it decodes*, before the decoded
bytes exist where that can be known (a dictionary's value lengths taken by its indices),
and refuses with the bound named once the running total passes it:

- :func:`inflate` inflates a zlib stream at most ``limit + 1`` bytes;
- :func:`read_parquet_bounded` reads a Parquet file whole, its text and binary columns as
  dictionaries (so that a dictionary page is never expanded before it is measured), refusing
  once the decoded total passes the bound, then decodes the dictionaries (a pandas
  ``category`` text column reads as text);
- :func:`expand_dictionary` cuts a dictionary-encoded batch into slices of at most
  ``max_bytes`` decoded bytes each, for a streaming reader.

The bound for a file read whole is the one :func:`benchcheck.io._text.whole_read_limit`
gives (half the free memory; ``BENCHCHECK_MAX_READ_BYTES`` sets it), now applied to the
decoded bytes instead of the file's.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from benchcheck.errors import InputError
from benchcheck.io._text import whole_read_limit

__all__ = [
    "bound_words",
    "decoded_nbytes",
    "expand_dictionary",
    "inflate",
    "read_parquet_bounded",
]

#: rows of one Parquet batch read as dictionaries (indices: 4 bytes a row)
_ROWS = 1 << 16


def bound_words(limit: int) -> str:
    """Name a decoded-size bound as the error message says it.

    >>> bound_words(3 << 20)
    '3.0 MiB (half the free memory; BENCHCHECK_MAX_READ_BYTES sets it)'
    """
    if limit >= 1 << 30:
        shown = f"{limit / 2**30:.1f} GiB"
    elif limit >= 1 << 20:
        shown = f"{limit / 2**20:.1f} MiB"
    else:
        shown = f"{limit:,} bytes"
    return f"{shown} (half the free memory; BENCHCHECK_MAX_READ_BYTES sets it)"


def _refuse(what: str, limit: int, path: str | Path) -> InputError:
    return InputError(f"{what} decodes to more than the bound of {bound_words(limit)}", path=path)


def inflate(data: bytes, path: str | Path, *, what: str, limit: int | None = None) -> bytes:
    """Inflate a zlib stream, refusing once it passes ``limit`` bytes (never inflated whole).

    >>> inflate(zlib.compress(b"abc"), "f", what="the DocBin")
    b'abc'
    >>> inflate(zlib.compress(b"a" * 100), "f.spacy", what="the DocBin", limit=10)
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: f.spacy: the DocBin decodes to more than the bound of 10 bytes (half the free memory; BENCHCHECK_MAX_READ_BYTES sets it)
    """  # noqa: E501
    limit = whole_read_limit() if limit is None else limit
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise InputError(f"{what} is not a zlib stream: {exc}", path=path) from None
    if len(out) > limit:
        raise _refuse(what, limit, path)
    if not inflater.eof:
        raise InputError(f"{what} is cut short (the zlib stream does not end)", path=path)
    return out


def _value_lengths(values: pa.Array) -> np.ndarray:
    """Byte length of each value of a string/binary array (nulls 0), as int64."""
    offsets: np.ndarray = np.frombuffer(values.buffers()[1], dtype=_offset_dtype(values.type))
    offsets = offsets[values.offset : values.offset + len(values) + 1]
    return np.diff(offsets).astype(np.int64)


def _offset_dtype(kind: pa.DataType) -> type:
    large = pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)
    return np.int64 if large else np.int32


def _is_bytes(kind: pa.DataType) -> bool:
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
    )


def row_nbytes(arr: pa.Array) -> np.ndarray | None:
    """Return the decoded bytes of each row of a dictionary array of text (None otherwise).

    A row's bytes are its value's length plus 8 (its offset); a null row counts 8.
    """
    if not pa.types.is_dictionary(arr.type) or not _is_bytes(arr.type.value_type):
        return None
    lengths = _value_lengths(arr.dictionary)
    indices = arr.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    per_row = lengths[indices] if len(lengths) else np.zeros(len(arr), np.int64)
    if arr.null_count:
        per_row = np.where(arr.is_valid().to_numpy(zero_copy_only=False), per_row, 0)
    return per_row + 8


def decoded_nbytes(arr: pa.Array | pa.ChunkedArray) -> int:
    """Bytes ``arr`` takes once its dictionaries are decoded (measured, nothing decoded)."""
    if isinstance(arr, pa.ChunkedArray):
        return sum(decoded_nbytes(chunk) for chunk in arr.chunks)
    per_row = row_nbytes(arr)
    return int(per_row.sum()) if per_row is not None else int(arr.nbytes)


def expand_dictionary(
    columns: Sequence[pa.Array], *, max_bytes: int
) -> Iterator[tuple[int, list[pa.Array]]]:
    """Yield ``(first row, columns)`` slices of at most ``max_bytes`` decoded bytes, decoded.

    Columns not dictionary-encoded pass as they are (one slice when none is). A row larger
    than ``max_bytes`` alone is a slice of its own: its value already exists once, as the
    dictionary's.
    """
    sizes = [row_nbytes(c) for c in columns]
    if all(s is None for s in sizes):
        yield 0, list(columns)
        return
    n = len(columns[0])
    per_row = sum((s for s in sizes if s is not None), np.zeros(n, np.int64))
    ends = np.cumsum(per_row)
    start = 0
    while start < n:
        base = ends[start - 1] if start else 0
        stop = int(np.searchsorted(ends, base + max_bytes, side="right"))
        stop = max(stop, start + 1)
        yield start, [_decode(c.slice(start, stop - start)) for c in columns]
        start = stop


def _decode(arr: pa.Array) -> pa.Array:
    if pa.types.is_dictionary(arr.type):
        return arr.dictionary.take(arr.indices)
    return arr


def dictionary_columns(schema: pa.Schema, names: Sequence[str] | None = None) -> list[str]:
    """List the top-level columns of ``schema`` to read as dictionaries (text and binary)."""
    out = []
    for field in schema:
        if names is not None and field.name not in names:
            continue
        kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
        if _is_bytes(kind):
            out.append(field.name)
    return out


def read_parquet_bounded(
    path: str | Path, *, columns: Sequence[str] | None = None, limit: int | None = None
) -> pa.Table:
    """Read a Parquet file whole, refusing as soon as its decoded size passes ``limit``.

    Checked twice: before reading, the pages' uncompressed size (what decompression yields)
    of the columns read; while reading, each batch's size with dictionaries measured before
    they are decoded. Dictionary columns of text come back as text.
    """
    import pyarrow.parquet as pq

    limit = whole_read_limit() if limit is None else limit
    try:
        meta = pq.ParquetFile(path)
        schema = meta.schema_arrow
    except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    wanted = list(columns) if columns is not None else None
    md = meta.metadata
    pages = sum(
        md.row_group(rg).column(j).total_uncompressed_size
        for rg in range(md.num_row_groups)
        for j in range(md.num_columns)
        if wanted is None or md.schema.column(j).path.split(".")[0] in wanted
    )
    if pages > limit:
        raise _refuse("the file (its pages uncompressed)", limit, path)
    as_dict = dictionary_columns(schema, wanted)
    total = 0
    batches = []
    try:
        reader = pq.ParquetFile(path, read_dictionary=as_dict)
        for batch in reader.iter_batches(batch_size=_ROWS, columns=wanted):
            total += sum(decoded_nbytes(c) for c in batch.columns)
            if total > limit:
                raise _refuse("the table", limit, path)
            batches.append(batch)
        table = pa.Table.from_batches(batches, schema=reader.schema_arrow)
        table = table.cast(_decoded_schema(table.schema))
        table.validate(full=True)  # text that is not UTF-8, before anyone trusts it
        return table
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None


def _decoded_schema(schema: pa.Schema) -> pa.Schema:
    fields = []
    for field in schema:
        if pa.types.is_dictionary(field.type) and _is_bytes(field.type.value_type):
            field = field.with_type(field.type.value_type)
        fields.append(field)
    return pa.schema(fields, metadata=schema.metadata)
