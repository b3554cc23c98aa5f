"""Parquet page headers read from the file itself: what each page declares, before decoding.

The footer's sizes (``total_uncompressed_size`` of a column chunk, its ``num_values``) are
what :func:`benchcheck.io._decoded.encoded_floor` checks, but a reader allocates by the
*page headers*: a crafted file whose dictionary or data page header declares a huge
``uncompressed_page_size`` (or ``num_values``) under an honest-looking footer makes Arrow
allocate that much before any check of ours could run. :func:`chunk_pages` walks a column
chunk's pages from its first page offset, reading each ``PageHeader`` (Thrift compact
protocol) and skipping its ``compressed_page_size`` bytes, nothing decompressed;
:func:`check_page_headers` sums what they declare, refuses past the bound, and refuses a
chunk whose headers declare more than its footer says (a dishonest footer).

Hand-written: neither pyarrow (it exposes only the footer's metadata), nor any installed
dependency parses page headers (no ``fastparquet``, ``thriftpy2`` or ``thrift`` in the
environment), and the part needed is small: a ``PageHeader`` is a struct of i32 fields
``type`` (1), ``uncompressed_page_size`` (2), ``compressed_page_size`` (3), ``crc`` (4) and
the ``DataPageHeader`` (5), ``DictionaryPageHeader`` (7) and ``DataPageHeaderV2`` (8) whose
field 1 is ``num_values``; every other field (statistics, index headers) is skipped by its
type. Field ids and types are those of ``parquet.thrift`` (apache/parquet-format).

Cost: one small read per page (headers are tens of bytes; pages are 1 MiB by default).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from benchcheck.errors import InputError

__all__ = ["PageInfo", "check_page_headers", "chunk_pages", "read_page_header"]

#: ``PageType`` of parquet.thrift
DATA_PAGE, INDEX_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 1, 2, 3
#: compact protocol type ids
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12
#: a page header is small: more than this is not a header
_MAX_HEADER = 16 << 20
_MAX_DEPTH = 32


class _Bad(ValueError):
    """A page header that cannot be read."""


class _Short(_Bad):
    """A header running past the bytes read (read more, up to the chunk's end)."""


class _Reader:
    """Thrift compact protocol over a byte string, every read checked against its end."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise _Short("the header runs past the column chunk")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        out = shift = 0
        for _ in range(10):
            b = self.byte()
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7
        raise _Bad("a varint longer than 10 bytes")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def skip(self, kind: int, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise _Bad("nested too deeply")
        if kind in (_TRUE, _FALSE):
            return
        if kind == _BYTE:
            self.byte()
        elif kind in (_I16, _I32, _I64):
            self.varint()
        elif kind == _DOUBLE:
            self.take(8)
        elif kind == _BINARY:
            self.take(self.varint())
        elif kind in (_LIST, _SET):
            head = self.byte()
            size = head >> 4 if head >> 4 != 15 else self.varint()
            for _ in range(size):
                self.skip_element(head & 0x0F, depth + 1)
        elif kind == _MAP:
            size = self.varint()
            if size:
                types = self.byte()
                for _ in range(size):
                    self.skip_element(types >> 4, depth + 1)
                    self.skip_element(types & 0x0F, depth + 1)
        elif kind == _STRUCT:
            for _, inner in self.fields(depth + 1):
                self.skip(inner, depth + 1)
        else:
            raise _Bad(f"unknown Thrift type {kind}")

    def skip_element(self, kind: int, depth: int) -> None:
        if kind in (_TRUE, _FALSE):  # a bool inside a list is one byte
            self.byte()
        else:
            self.skip(kind, depth)

    def take(self, n: int) -> None:
        if n < 0:
            raise _Bad("a negative length")
        if self.pos + n > len(self.data):
            raise _Short("the header runs past the column chunk")
        self.pos += n

    def fields(self, depth: int = 0) -> Iterator[tuple[int, int]]:
        """Yield ``(field id, type)`` of a struct; the caller reads or skips each value."""
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return
            delta, kind = head >> 4, head & 0x0F
            last = last + delta if delta else self.zigzag()
            yield last, kind


@dataclass(frozen=True)
class PageInfo:
    """One page header: its type, declared sizes, values, and where it starts and ends."""

    kind: int
    uncompressed: int
    compressed: int
    num_values: int
    header_bytes: int


def _i32(r: _Reader, kind: int) -> int:
    if kind != _I32:
        raise _Bad(f"a size field of Thrift type {kind}, expected i32")
    return r.zigzag()


def read_page_header(data: bytes) -> PageInfo:
    """Parse the ``PageHeader`` at the start of ``data`` (it may run on past the header).

    >>> # DICTIONARY_PAGE, 100 bytes uncompressed, 60 compressed, 7 values
    >>> read_page_header(bytes([0x15, 4, 0x15, 200, 1, 0x15, 120, 0x4C, 0x15, 14, 0, 0]))
    PageInfo(kind=2, uncompressed=100, compressed=60, num_values=7, header_bytes=12)
    """
    r = _Reader(data)
    kind = uncompressed = compressed = -1
    num_values = 0
    for field, ftype in r.fields():
        if field == 1:
            kind = _i32(r, ftype)
        elif field == 2:
            uncompressed = _i32(r, ftype)
        elif field == 3:
            compressed = _i32(r, ftype)
        elif field in (5, 7, 8) and ftype == _STRUCT:
            for inner, itype in r.fields(1):
                if inner == 1:
                    num_values = _i32(r, itype)
                else:
                    r.skip(itype, 2)
        else:
            r.skip(ftype, 1)
    if kind < 0 or uncompressed < 0 or compressed < 0 or num_values < 0:
        raise _Bad("a page header without its type and sizes, or with a negative one")
    return PageInfo(kind, uncompressed, compressed, num_values, r.pos)


def chunk_pages(handle: BinaryIO, start: int, length: int) -> Iterator[PageInfo]:
    """Read the headers of the pages in ``[start, start + length)`` of an open file.

    Each header is parsed from a read of 1 KiB (more when it is longer: statistics), then
    its page's ``compressed_page_size`` bytes are skipped, never read.
    """
    pos, end = start, start + length
    while pos < end:
        want = 1024
        while True:
            handle.seek(pos)
            data = handle.read(min(want, end - pos))
            try:
                page = read_page_header(data)
                break
            except _Short:
                if len(data) < min(want, end - pos) or want >= min(_MAX_HEADER, end - pos):
                    raise
                want *= 16
        yield page
        pos += page.header_bytes + page.compressed
    if pos != end:
        raise _Bad("the pages run past the column chunk")


@dataclass(frozen=True)
class _Chunk:
    name: str
    start: int
    length: int
    uncompressed: int
    values: int
    width: int  # bytes a dictionary value takes at least in its page (0: unchecked)


#: Bytes a PLAIN value takes at least in a dictionary page, by physical type (a text: its
#: 4-byte length; a fixed-length one: its length)
_WIDTH = {"BYTE_ARRAY": 4, "INT32": 4, "FLOAT": 4, "INT64": 8, "DOUBLE": 8, "INT96": 12}


def _chunks(
    meta: object, names: Sequence[str] | None, row_groups: Sequence[int] | None = None
) -> list[_Chunk]:
    md = meta.metadata  # type: ignore[attr-defined]
    out = []
    for j in range(md.num_columns):
        column = md.schema.column(j)
        if names is not None and column.path.split(".")[0] not in names:
            continue
        kind = column.physical_type
        width = column.length or 0 if kind == "FIXED_LEN_BYTE_ARRAY" else _WIDTH.get(kind, 0)
        for rg in range(md.num_row_groups) if row_groups is None else row_groups:
            col = md.row_group(rg).column(j)
            start = col.data_page_offset
            if col.has_dictionary_page and 0 < col.dictionary_page_offset < start:
                start = col.dictionary_page_offset
            name = f"row group {rg}, column {col.path_in_schema!r}"
            size, total = col.total_compressed_size, col.total_uncompressed_size
            out.append(_Chunk(name, start, size, total, col.num_values, width))
    return out


def check_page_headers(
    path: str | Path,
    meta: object,
    *,
    names: Sequence[str] | None,
    limit: int,
    refuse: Callable[[str, int, str | Path], InputError],
    used: int = 0,
    row_groups: Sequence[int] | None = None,
) -> int:
    """Sum what the page headers of columns ``names`` declare; refuse past ``limit``.

    Refused, naming the chunk, when its headers declare more uncompressed bytes than its
    footer's ``total_uncompressed_size`` or more values than its ``num_values`` (data
    pages), or a dictionary page more values than its bytes can hold (:data:`_WIDTH` a
    value at least). ``refuse(what, limit, path)`` builds the
    error past the bound. ``row_groups``: those only (all: None). Return ``used`` plus the
    declared bytes.
    """
    total = used
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, errors mapped once
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path=path) from None
    with handle:
        for chunk in _chunks(meta, names, row_groups):
            try:
                total = _declared(handle, chunk, total, limit)
            except _Bad as exc:
                raise InputError(
                    f"a dishonest or damaged Parquet file: {chunk.name}: {exc}", path=path
                ) from None
            except _PastBound:
                raise refuse(f"the file (its page headers, {chunk.name})", limit, path) from None
            except OSError as exc:
                raise InputError(f"cannot read ({exc.strerror or exc})", path=path) from None
    return total


class _PastBound(Exception):
    """The declared total passed the bound."""


def _declared(handle: BinaryIO, chunk: _Chunk, total: int, limit: int) -> int:
    """Add what the pages of ``chunk`` declare to ``total``; check it against bound and footer.

    Page by page, so that a header declaring gigabytes is refused at that page: past the
    bound first (:class:`_PastBound`), then past the footer's sizes (:class:`_Bad`).
    """
    declared = values = 0
    for page in chunk_pages(handle, chunk.start, chunk.length):
        declared += page.uncompressed
        if total + declared > limit:
            raise _PastBound
        if page.kind in (DATA_PAGE, DATA_PAGE_V2):
            values += page.num_values
        if page.kind == DICTIONARY_PAGE and page.num_values * chunk.width > page.uncompressed:
            raise _Bad(
                f"its dictionary page declares {page.num_values:,} values in "
                f"{page.uncompressed:,} bytes"
            )
        if declared > chunk.uncompressed:
            raise _Bad(
                f"its page headers declare at least {declared:,} bytes uncompressed, "
                f"the footer {chunk.uncompressed:,}"
            )
    if values > chunk.values:
        raise _Bad(f"its page headers declare {values:,} values, the footer {chunk.values:,}")
    return total + declared
