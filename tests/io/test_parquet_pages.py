"""Parquet page headers read from the file, against its footer and the bound (issue 37, item 3).

Honest files are checked against the footer pyarrow wrote (each page's uncompressed size
plus its header's bytes add up to ``total_uncompressed_size``; data pages' values to
``num_values``); dishonest ones are pyarrow files with one page header patched
(``_parquet_craft``, its own varint code), so the expected sizes are the ones patched in.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _parquet_craft import patch_header

from benchcheck.errors import InputError
from benchcheck.io._decoded import _refuse, check_parquet_decoded, read_parquet_bounded
from benchcheck.io._parquet_pages import _chunks, chunk_pages, read_page_header

N = 30_000


def _table() -> pa.Table:
    return pa.table(
        {
            "text": pa.array(["lorem ipsum " * 10, "abc", None] * (N // 3)),
            "n": np.arange(N),
            "toks": pa.array([["a", "bb"], None, []] * (N // 3)),
            "x": np.linspace(0, 1, N),
        }
    )


@pytest.mark.parametrize("compression", ["NONE", "zstd", "snappy"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_honest_headers_add_up_to_what_the_footer_says(tmp_path, compression, version):
    path = tmp_path / "h.parquet"
    pq.write_table(
        _table(),
        path,
        compression=compression,
        data_page_version=version,
        write_page_checksum=version == "2.0",
        row_group_size=10_000,
        data_page_size=4_096,  # several pages a chunk
    )
    meta = pq.ParquetFile(path)
    md = meta.metadata
    chunks = _chunks(meta, None)
    assert len(chunks) == md.num_row_groups * md.num_columns == 3 * 4
    with open(path, "rb") as handle:
        for chunk in chunks:
            pages = list(chunk_pages(handle, chunk.start, chunk.length))
            assert len(pages) > 1
            assert sum(p.uncompressed + p.header_bytes for p in pages) == chunk.uncompressed
            assert sum(p.compressed + p.header_bytes for p in pages) == chunk.length
            assert sum(p.num_values for p in pages if p.kind in (0, 3)) == chunk.values
    footer = sum(
        md.row_group(i).column(j).total_uncompressed_size
        for i in range(md.num_row_groups)
        for j in range(md.num_columns)
    )
    assert check_parquet_decoded(path, limit=1 << 40) >= footer // 2
    # a list column over several row groups: read one row group at a time (a batch over two
    # gave "Nested data conversions not implemented for chunked array outputs" before)
    assert read_parquet_bounded(path, limit=1 << 40).equals(_table())
    assert read_parquet_bounded(path, columns=["x", "toks"], limit=1 << 40).equals(
        _table().select(["x", "toks"])
    )


def test_a_header_with_statistics_lists_and_bools_is_skipped_field_by_field():
    # DATA_PAGE, 10/8 bytes, DataPageHeader{num_values 3, encoding 0, statistics{max b"zz",
    # null_count 1 (i64)}, an unknown list<i32> [1, 2], an unknown bool true}
    stats = bytes([0x18, 2]) + b"zz" + bytes([0x26, 2, 0])
    inner = bytes([0x15, 6, 0x15, 0]) + bytes([0x3C]) + stats + bytes([0x19, 0x25, 2, 4, 0x11, 0])
    header = bytes([0x15, 0, 0x15, 20, 0x15, 16, 0x2C]) + inner + bytes([0])
    page = read_page_header(header + b"page bytes")
    assert (page.kind, page.uncompressed, page.compressed) == (0, 10, 8)
    assert (page.num_values, page.header_bytes) == (3, len(header))


@pytest.fixture
def honest(tmp_path):
    path = tmp_path / "honest.parquet"
    table = pa.table({"text": pa.array(["lorem ipsum " * 10, "abc"] * (N // 2))})
    pq.write_table(table, path, compression="NONE", write_page_checksum=True)
    return path


def test_a_dictionary_page_declaring_2_gb_is_refused_at_the_bound(tmp_path, honest):
    bad = tmp_path / "bad.parquet"
    patch_header(honest, bad, uncompressed=2_000_000_000)
    for check in (read_parquet_bounded, check_parquet_decoded):
        with pytest.raises(InputError) as err:
            check(bad, limit=64 << 20)
        assert str(err.value) == (
            f"{bad}: the file (its page headers, row group 0, column 'text') decodes to more "
            "than the bound of 64.0 MiB (half the free memory; BENCHCHECK_MAX_READ_BYTES sets it)"
        )


def test_a_header_declaring_one_byte_more_than_its_footer_is_refused(tmp_path, honest):
    col = pq.ParquetFile(honest).metadata.row_group(0).column(0)
    with open(honest, "rb") as handle:  # the other pages' declared bytes
        pages = list(chunk_pages(handle, col.dictionary_page_offset, col.total_compressed_size))
    others = sum(p.uncompressed for p in pages[1:])
    most = col.total_uncompressed_size - others  # the dictionary page may declare this much
    bad = tmp_path / "bad.parquet"
    patch_header(honest, bad, uncompressed=most + 1)
    with pytest.raises(InputError, match=r"a dishonest or damaged Parquet file: row group 0, "):
        read_parquet_bounded(bad, limit=1 << 40)
    footer = col.total_uncompressed_size  # the last page passes it by one byte
    with pytest.raises(
        InputError, match=f"at least {footer + 1:,} bytes uncompressed, the footer {footer:,}$"
    ):
        check_parquet_decoded(bad, limit=1 << 40)
    fair = tmp_path / "fair.parquet"
    patch_header(honest, fair, uncompressed=most)  # uncompressed pages: Arrow reads them
    assert len(read_parquet_bounded(fair, limit=1 << 40)) == N


def test_data_page_values_past_the_footer_are_refused(tmp_path, honest):
    bad = tmp_path / "bad.parquet"
    _, old = patch_header(honest, bad, page="data", values=2_000_000_000)
    with pytest.raises(InputError, match=f"declare {2_000_000_000 + N - old:,} values, the footer"):
        read_parquet_bounded(bad, limit=1 << 40)


def test_a_dictionary_page_of_more_values_than_its_bytes_hold_is_refused(tmp_path, honest):
    bad = tmp_path / "bad.parquet"
    size, _ = patch_header(honest, bad, values=1_000_000)
    with pytest.raises(InputError, match=f"declares 1,000,000 values in {size:,} bytes"):
        check_parquet_decoded(bad, limit=1 << 40)


def test_a_damaged_header_is_one_input_error(tmp_path, honest):
    data = bytearray(honest.read_bytes())
    at = pq.ParquetFile(honest).metadata.row_group(0).column(0).dictionary_page_offset
    data[at : at + 8] = b"\xff" * 8  # an unknown Thrift type, a varint that never ends
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(data))
    with pytest.raises(InputError, match="bad.parquet: a dishonest or damaged Parquet file"):
        read_parquet_bounded(bad, limit=1 << 40)


def test_the_refusal_is_built_by_the_given_function(tmp_path, honest):
    from benchcheck.io._parquet_pages import check_page_headers

    meta = pq.ParquetFile(honest)
    total = check_page_headers(honest, meta, names=None, limit=1 << 40, refuse=_refuse)
    with pytest.raises(InputError, match="bound of 1,000 bytes"):
        check_page_headers(honest, meta, names=None, limit=1_000, refuse=_refuse, used=total)


def test_only_the_row_groups_asked_are_read_and_the_corpus_reader_checks_its_own(tmp_path):
    from benchcheck.io._parquet_pages import check_page_headers
    from benchcheck.io.corpus import corpus_units, read_unit

    honest, bad = tmp_path / "honest.parquet", tmp_path / "bad.parquet"
    table = pa.table({"text": [f"text {i}" for i in range(N)]})
    pq.write_table(
        table, honest, row_group_size=N // 3, use_dictionary=False, write_page_checksum=True
    )  # one page a row group
    patch_header(honest, bad, page="data", uncompressed=1 << 30)  # row group 0 only
    meta = pq.ParquetFile(bad)
    kw = {"names": None, "limit": 1 << 40, "refuse": _refuse}
    assert check_page_headers(bad, meta, row_groups=[1, 2], **kw) > 0
    with pytest.raises(InputError, match="row group 0, column 'text'"):
        check_page_headers(bad, meta, row_groups=[0], **kw)
    units = corpus_units([bad], column="text", unit_mb=0)  # a unit a row group
    assert [u.rg_lo for u in units] == [0, 1, 2]
    assert sum(len(b.texts) for u in units[1:] for b in read_unit(u, column="text")) == 2 * N // 3
    with pytest.raises(InputError, match=f"declare at least {1 << 30:,} bytes uncompressed"):
        list(read_unit(units[0], column="text"))
