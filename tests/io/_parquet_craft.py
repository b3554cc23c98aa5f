"""Dishonest Parquet files for tests: a real file written by pyarrow, one page header patched.

Written independently of :mod:`benchcheck.io._parquet_pages` (its own varint reading). The
file is written with page checksums, so that each page header holds an i32 ``crc``
(field 4): dropping it frees the bytes that a larger ``uncompressed_page_size`` or
``num_values`` needs, padded (a varint may carry redundant ``0x80`` groups, as Thrift
readers accept), so the header keeps its length and every offset of the footer stays
right. The footer is left as written: it now disagrees with the page.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq


def _varint(data: bytes | bytearray, p: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        b = data[p]
        p += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, p
        shift += 7


def _padded(n: int, width: int) -> bytes:
    """``n`` as a zigzag varint of exactly ``width`` bytes."""
    z = (n << 1) ^ (n >> 63)
    out = []
    for _ in range(width - 1):
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    assert z < 0x80, f"{n} does not fit in {width} bytes"
    return bytes([*out, z])


def _unzigzag(z: int) -> int:
    return (z >> 1) ^ -(z & 1)


def page_offsets(path: Path, page: str = "dictionary") -> int:
    """Where the first dictionary (or data) page header of row group 0, column 0 starts."""
    col = pq.ParquetFile(path).metadata.row_group(0).column(0)
    return col.dictionary_page_offset if page == "dictionary" else col.data_page_offset


def patch_header(
    src: Path,
    dst: Path,
    *,
    page: str = "dictionary",
    uncompressed: int | None = None,
    values: int | None = None,
) -> tuple[int, int]:
    """Copy ``src`` to ``dst`` with one page header's sizes replaced; return the old ones.

    ``page``: the first ``"dictionary"`` or ``"data"`` page of row group 0, column 0. The
    header must read type (1), uncompressed (2), compressed (3), crc (4), then the page
    kind's header struct whose first field is ``num_values``.
    """
    data = bytearray(src.read_bytes())
    at = page_offsets(src, page)
    assert data[at] == 0x15  # field 1, i32
    _, p = _varint(data, at + 1)
    assert data[p] == 0x15  # field 2, i32
    s2 = p + 1
    old_u, e2 = _varint(data, s2)
    assert data[e2] == 0x15  # field 3, i32
    _, e3 = _varint(data, e2 + 1)
    assert data[e3] == 0x15, "no crc: write the file with write_page_checksum=True"
    _, e4 = _varint(data, e3 + 1)
    struct = data[e4]
    assert struct & 0x0F == 12 and data[e4 + 1] == 0x15  # a struct, its field 1 an i32
    s5 = e4 + 2
    old_v, e5 = _varint(data, s5)
    room = (e2 - s2) + (e4 - e3) + (e5 - s5)  # the two varints and the crc field
    u = _unzigzag(old_u) if uncompressed is None else uncompressed
    v = _unzigzag(old_v) if values is None else values
    head = bytes(data[at:s2])
    middle = bytes(data[e2:e3])
    new = head + _padded(u, 5) + middle + bytes([struct + 0x10, 0x15]) + _padded(v, room - 5)
    assert len(new) == e5 - at
    data[at:e5] = new
    dst.write_bytes(bytes(data))
    return _unzigzag(old_u), _unzigzag(old_v)
