"""Readers bounded by *decoded* size: one rule for compressed and dictionary-encoded inputs.

A file's size says little about what it decodes to: a zlib stream of 4 MB may inflate to
4 GB (a spaCy DocBin), and a Parquet column of 1 MB holding one 1,000-character dictionary
value referenced by 10M rows decodes to 10 GB. So a reader that decodes never trusts the
encoded size. Each one here measures what it decodes *as it decodes*, before the decoded
bytes exist where that can be known (a dictionary's value lengths taken by its indices),
and refuses with the bound named once the running total passes it:

- :func:`inflate` inflates a zlib stream at most ``limit + 1`` bytes;
- :func:`read_parquet_bounded` reads a Parquet file whole (the footer's sizes, then the
  page headers', checked first: :mod:`benchcheck.io._parquet_pages`), its text and binary
  values as dictionaries, nested ones included (a ``list<string>`` of tokens or options, a list of
  structs): a dictionary page is never expanded before it is measured. It refuses once the
  decoded total passes the bound, then decodes the dictionaries (a pandas ``category`` text
  column reads as text);
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
from benchcheck.io._parquet_pages import check_page_headers
from benchcheck.io._text import whole_read_limit

__all__ = [
    "bound_words",
    "byte_leaves",
    "check_parquet_decoded",
    "decoded_nbytes",
    "encoded_floor",
    "expand_dictionary",
    "inflate",
    "read_parquet_bounded",
]

#: rows of one Parquet batch read as dictionaries (indices: 4 bytes a row, 1 MiB)
_ROWS = 1 << 18


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
    """Bytes ``arr`` takes once its dictionaries are decoded (measured, nothing decoded).

    Nested arrays are measured through their children: a list's offsets and validity plus
    its values, a struct's validity plus its fields, so that a dictionary of text inside a
    list (``list<dictionary<string>>``) is measured as well as one at the top.

    >>> tokens = pa.DictionaryArray.from_arrays(pa.array([0, 0, 1]), pa.array(["ab", "c"]))
    >>> lists = pa.ListArray.from_arrays(pa.array([0, 2, 3]), tokens)
    >>> decoded_nbytes(lists)  # 3 * 4 list offsets + (2 + 2 + 1) text + 3 * 8 text offsets
    41
    """
    if isinstance(arr, pa.ChunkedArray):
        return sum(decoded_nbytes(chunk) for chunk in arr.chunks)
    kind = arr.type
    if pa.types.is_dictionary(kind) and _is_bytes(kind.value_type):
        return _dictionary_nbytes(arr)
    validity = (len(arr) + 7) // 8 if arr.null_count else 0
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        offsets = arr.offsets.to_numpy()
        values = arr.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
        return validity + offsets.nbytes + decoded_nbytes(values)
    if pa.types.is_fixed_size_list(kind):
        return validity + decoded_nbytes(arr.flatten())
    if pa.types.is_struct(kind):
        return validity + sum(decoded_nbytes(child) for child in arr.flatten())
    return int(arr.nbytes)


def _dictionary_nbytes(arr: pa.Array) -> int:
    """Measure a dictionary array of text decoded: each value's length, 8 a row (offsets)."""
    lengths = _value_lengths(arr.dictionary)
    if not len(lengths) or not len(arr):
        return 8 * len(arr)
    indices = arr.indices
    if arr.null_count:
        indices = indices.filter(arr.is_valid())
    counts = np.bincount(indices.to_numpy(zero_copy_only=False), minlength=len(lengths))
    return 8 * len(arr) + int(counts[: len(lengths)] @ lengths)


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


#: Bytes a decoded value takes at least, by Parquet physical type (text: its offset).
_WIDTH = {
    "BOOLEAN": 1 / 8,
    "INT32": 4,
    "INT64": 8,
    "INT96": 8,
    "FLOAT": 4,
    "DOUBLE": 8,
    "BYTE_ARRAY": 4,
}


def byte_leaves(meta: object, names: Sequence[str] | None = None) -> list[str]:
    """Parquet paths of the text and binary leaves of the columns ``names`` (all: None).

    Nested leaves are included (``options.list.element``, ``o.list.element.text``), as
    ``pyarrow.parquet.ParquetFile(read_dictionary=...)`` names them.
    """
    schema = meta.schema  # type: ignore[attr-defined]
    out = []
    for j in range(len(schema)):
        column = schema.column(j)
        top = column.path.split(".")[0]
        if names is not None and top not in names:
            continue
        if column.physical_type == "BYTE_ARRAY" and column.logical_type.type != "DECIMAL":
            out.append(column.path)
    return out


def encoded_floor(meta: object, names: Sequence[str] | None = None) -> tuple[int, int]:
    """Return ``(uncompressed pages, least decoded bytes of the values)`` of columns ``names``.

    Both are read from the footer, nothing decoded: what the pages decompress to (what a
    plain page decodes to), and the values counted times the least a decoded value takes
    (:data:`_WIDTH`), which bounds what dictionary and run-length pages expand to from below
    (a list of 10M repeated tokens is 10M values, whatever its pages take).
    """
    md = meta.metadata  # type: ignore[attr-defined]
    schema = md.schema
    pages = values = 0.0
    for j in range(md.num_columns):
        column = schema.column(j)
        if names is not None and column.path.split(".")[0] not in names:
            continue
        width = _WIDTH.get(column.physical_type, column.length or 1)
        for rg in range(md.num_row_groups):
            chunk = md.row_group(rg).column(j)
            pages += chunk.total_uncompressed_size
            values += chunk.num_values * width
    return int(pages), int(values)


def _batches(reader: object, columns: Sequence[str] | None) -> Iterator[pa.RecordBatch]:
    """Batches of ``reader`` (read as dictionaries) one row group at a time.

    A batch spanning two row groups would hold two dictionaries, which Arrow cannot give
    for a nested column ("Nested data conversions not implemented for chunked array
    outputs": a ``list<string>`` over several row groups).
    """
    for rg in range(reader.num_row_groups):  # type: ignore[attr-defined]
        yield from reader.iter_batches(  # type: ignore[attr-defined]
            batch_size=_ROWS, row_groups=[rg], columns=columns
        )


def check_parquet_decoded(
    path: str | Path,
    *,
    columns: Sequence[str] | None = None,
    limit: int | None = None,
    used: int = 0,
) -> int:
    """Measure what the columns of a Parquet file decode to; refuse past ``limit``.

    Nothing is decoded whole: the footer is checked first (:func:`encoded_floor`), and the
    page headers against it and the bound
    (:func:`benchcheck.io._parquet_pages.check_page_headers`: a dishonest footer), then the
    columns holding text (nested too) are read batch by batch as dictionaries and measured
    before they would be expanded, the running total refused once it passes ``limit``.
    The other columns count what the footer says they decode to. For a reader that then
    reads the file its own way (polars, natively and in parallel): the measuring pass costs
    far less than decoding through Arrow here. ``used`` bytes are already counted (other
    files read together). Return the running total.
    """
    import pyarrow.parquet as pq

    limit = whole_read_limit() if limit is None else limit
    try:
        meta = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    wanted = list(columns) if columns is not None else list(meta.schema_arrow.names)
    pages, values = encoded_floor(meta, wanted)
    if used + pages > limit:
        raise _refuse("the file (its pages uncompressed)", limit, path)
    if used + values > limit:
        raise _refuse("the file (its values counted)", limit, path)
    check_page_headers(path, meta, names=wanted, limit=limit, refuse=_refuse, used=used)
    leaves = byte_leaves(meta.metadata, wanted)
    texts = sorted({leaf.split(".")[0] for leaf in leaves}, key=wanted.index)
    total = used + max(encoded_floor(meta, [c for c in wanted if c not in texts]))
    if not texts:
        return total
    try:
        reader = pq.ParquetFile(path, read_dictionary=leaves)
        for batch in _batches(reader, texts):
            total += sum(decoded_nbytes(c) for c in batch.columns)
            if total > limit:
                raise _refuse("the table", limit, path)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    return total


def read_parquet_bounded(
    path: str | Path, *, columns: Sequence[str] | None = None, limit: int | None = None
) -> pa.Table:
    """Read a Parquet file whole, refusing as soon as its decoded size passes ``limit``.

    Checked twice: before reading, from the footer (:func:`encoded_floor`: the pages'
    uncompressed size and the values counted) of the columns read, and from the page
    headers themselves (:func:`benchcheck.io._parquet_pages.check_page_headers`: what each
    page declares, refused past the bound or past its footer); while reading, each
    batch's size with dictionaries measured before they are decoded, nested ones included.
    Dictionary columns of text come back as text.
    """
    import pyarrow.parquet as pq

    limit = whole_read_limit() if limit is None else limit
    try:
        meta = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    wanted = list(columns) if columns is not None else None
    pages, values = encoded_floor(meta, wanted)
    if pages > limit:
        raise _refuse("the file (its pages uncompressed)", limit, path)
    if values > limit:
        raise _refuse("the file (its values counted)", limit, path)
    check_page_headers(path, meta, names=wanted, limit=limit, refuse=_refuse)
    total = 0
    batches = []
    try:
        reader = pq.ParquetFile(path, read_dictionary=byte_leaves(meta.metadata, wanted))
        for batch in _batches(reader, wanted):
            total += sum(decoded_nbytes(c) for c in batch.columns)
            if total > limit:
                raise _refuse("the table", limit, path)
            batches.append(batch)
        schema = reader.schema_arrow
        if wanted is not None:
            schema = pa.schema([schema.field(name) for name in wanted], schema.metadata)
        table = pa.Table.from_batches(batches, schema=batches[0].schema if batches else schema)
        table = table.cast(pa.schema([_decoded(f) for f in table.schema], table.schema.metadata))
        table.validate(full=True)  # text that is not UTF-8, before anyone trusts it
        return table
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None


def _decoded(field: pa.Field) -> pa.Field:
    """Give the field with every dictionary of text inside it (nested too) as plain text."""
    return field.with_type(_decoded_type(field.type))


def _decoded_type(kind: pa.DataType) -> pa.DataType:
    if pa.types.is_dictionary(kind):
        return kind.value_type if _is_bytes(kind.value_type) else kind
    if pa.types.is_map(kind):
        return pa.map_(_decoded(kind.key_field), _decoded(kind.item_field), kind.keys_sorted)
    if pa.types.is_list(kind):
        return pa.list_(_decoded(kind.value_field))
    if pa.types.is_large_list(kind):
        return pa.large_list(_decoded(kind.value_field))
    if pa.types.is_fixed_size_list(kind):
        return pa.list_(_decoded(kind.value_field), kind.list_size)
    if pa.types.is_struct(kind):
        return pa.struct([_decoded(f) for f in kind])
    return kind
