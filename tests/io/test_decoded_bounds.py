"""Decompression and dictionary bombs: every reader bounded by decoded size (issue 37, item 3).

The small bombs here are refused under a small ``BENCHCHECK_MAX_READ_BYTES``; the
full-size ones of the issue (10M rows, 300 MB lines) run in the replay under ``ulimit -v``.
"""

from __future__ import annotations

import gzip
import time
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchcheck.errors import InputError
from benchcheck.io._decoded import decoded_nbytes, expand_dictionary, inflate
from benchcheck.io.corpus import CorpusUnit, corpus_units, read_unit
from benchcheck.io.tables import read_rows, read_table


def dictionary_bomb(path, *, rows: int, width: int = 1000, ids: bool = True) -> None:
    """One ``width``-character dictionary value referenced by ``rows`` rows."""
    value = pa.array(["x" * width])
    texts = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)), value)
    columns = {"text": texts, "label": pa.array(np.zeros(rows, np.int32) % 2).cast(pa.string())}
    if ids:
        columns = {"id": pa.array(np.arange(rows).astype(str)), **columns}
    pq.write_table(pa.table(columns), path, compression="zstd")


def test_decoded_size_is_measured_before_decoding():
    texts = pa.DictionaryArray.from_arrays(pa.array([0, 1, 1, None]), pa.array(["ab", "cdef"]))
    # 2 + 4 + 4 (values) + 4 * 8 (offsets); the null row counts its offset only
    assert decoded_nbytes(texts) == 2 + 4 + 4 + 32
    parts = list(expand_dictionary([texts], max_bytes=16))
    assert [first for first, _ in parts] == [0, 1, 2, 3]  # 10 + 8 > 16 per pair
    assert [p[0].to_pylist() for _, p in parts] == [["ab"], ["cdef"], ["cdef"], [None]]
    assert all(pa.types.is_string(p[0].type) for _, p in parts)


def test_table_dictionary_bomb_refused_with_the_bound(tmp_path, monkeypatch):
    dictionary_bomb(tmp_path / "bomb.parquet", rows=200_000)
    assert (tmp_path / "bomb.parquet").stat().st_size < 1_000_000  # 200 MB decoded
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(50 << 20))  # 200 MB decoded > 50 MiB
    with pytest.raises(InputError) as info:
        read_rows(tmp_path / "bomb.parquet")
    assert str(info.value) == (
        f"{tmp_path / 'bomb.parquet'}: the table decodes to more than the bound of 50.0 MiB "
        "(half the free memory; BENCHCHECK_MAX_READ_BYTES sets it)"
    )
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(400 << 20))
    frame = read_rows(tmp_path / "bomb.parquet")
    assert frame.height == 200_000 and frame["text"][7] == "x" * 1000


def test_compressed_pages_past_the_bound_refused_before_reading(tmp_path, monkeypatch):
    pq.write_table(pa.table({"text": ["y" * 3_000_000] * 3}), tmp_path / "z.parquet")
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(1 << 20))
    with pytest.raises(
        InputError, match=r"the file \(its pages uncompressed\) decodes to more than the bound"
    ):
        read_rows(tmp_path / "z.parquet")


def test_category_text_column_reads_as_text(tmp_path):
    """A pandas ``category`` (dictionary-encoded) text column is text (issue 37, item 10)."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"id": ["a", "b", "c"], "text": ["good", "bad", "good"], "label": ["p", "n", "p"]}
    )
    frame["text"] = frame["text"].astype("category")
    frame["label"] = frame["label"].astype("category")
    frame.to_parquet(tmp_path / "cat.parquet")
    table = read_table(tmp_path / "cat.parquet", text="text", label="label", id="id")
    assert table["text"].to_list() == ["good", "bad", "good"]
    assert table["label"].to_list() == ["p", "n", "p"]


def test_corpus_batches_sized_by_decoded_bytes(tmp_path):
    """The leakage corpus reader: 1000-character value x 300k rows, batches of ~1 MiB."""
    dictionary_bomb(tmp_path / "c.parquet", rows=300_000)
    units = corpus_units([tmp_path / "c.parquet"], column="text", id_column="id")
    seen = 0
    for unit in units:
        for batch in read_unit(unit, column="text", id_column="id", batch_mb=1):
            decoded = sum(len(t) for t in batch.texts.to_pylist())
            assert decoded <= 1 << 20, decoded  # one batch never holds more than batch_mb
            assert batch.rows.tolist() == list(range(seen, seen + len(batch.rows)))
            assert batch.ids is not None and batch.ids[0].as_py() == str(seen)
            seen += len(batch.rows)
    assert seen == 300_000


def _gz(tmp_path, data: bytes) -> CorpusUnit:
    path = tmp_path / "s.jsonl.gz"
    path.write_bytes(gzip.compress(data, compresslevel=1))
    return CorpusUnit(0, str(path), "jsonl", "gzip")


def test_first_record_sniffer_is_linear_on_blank_lines(tmp_path):
    unit = _gz(tmp_path, b"\n" * (30 << 20) + b'{"text": "late"}\n')
    start = time.perf_counter()
    batches = list(read_unit(unit, column="text"))
    assert time.perf_counter() - start < 20  # quadratic copying took minutes
    assert [t for b in batches for t in b.texts.to_pylist()] == ["late"]


def test_first_record_longer_than_a_batch_refused_at_the_bound(tmp_path):
    unit = _gz(tmp_path, b'{"text": "' + b"a" * (40 << 20))
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"line 1 runs past 1 MiB without ending"):
        list(read_unit(unit, column="text", batch_mb=1))
    assert time.perf_counter() - start < 20


def test_zlib_bomb_refused_as_it_inflates():
    bomb = zlib.compress(b"\0" * (64 << 20), 9)
    assert len(bomb) < 100_000
    with pytest.raises(InputError, match=r"f.spacy: the DocBin decodes to more than .* 1.0 MiB"):
        inflate(bomb, "f.spacy", what="the DocBin", limit=1 << 20)
    with pytest.raises(InputError, match="cut short"):
        inflate(bomb[:-10], "f.spacy", what="the DocBin")


def test_docbin_bomb_refused(tmp_path, monkeypatch):
    pytest.importorskip("spacy")
    from benchcheck.io.spacy_docs import docbin_records

    bomb = zlib.compress(b"\0" * (64 << 20), 9)
    (tmp_path / "b.spacy").write_bytes(bomb)
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(1 << 20))
    with pytest.raises(InputError, match="the DocBin decodes to more than the bound of 1.0 MiB"):
        docbin_records(tmp_path / "b.spacy")
