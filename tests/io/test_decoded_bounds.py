"""Decompression and dictionary bombs: every reader bounded by decoded size (issue 37, item 3).

The small bombs here are refused under a small ``BENCHCHECK_MAX_READ_BYTES``; the
full-size ones of the issue (10M rows, 300 MB lines) run in the replay under ``ulimit -v``.
"""

from __future__ import annotations

import gzip
import time
import zlib

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchcheck.errors import InputError
from benchcheck.io._decoded import (
    check_parquet_decoded,
    decoded_nbytes,
    expand_dictionary,
    inflate,
    read_parquet_bounded,
)
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


# ------------------------------------------------- nested list columns and shards (issue 37)


def _repeated_lists(rows: int, per_row: int, value: str) -> pa.Array:
    """``rows`` lists of ``per_row`` elements, all one dictionary value: tiny on disk."""
    tokens = pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(rows * per_row, np.int32)), pa.array([value])
    )
    offsets = pa.array(np.arange(0, rows * per_row + 1, per_row, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, tokens)


def test_nested_sizes_measured_through_lists_and_structs():
    opts = pa.array([[{"label": "A", "text": "xyz"}], None, []])
    # list: validity 1 + 4 * 4 offsets; the struct of its one element, no nulls: its fields
    # as pyarrow's nbytes counts a one-value slice of plain text (bytes + one offset):
    # "A" 1 + 4, "xyz" 3 + 4
    assert decoded_nbytes(opts) == 1 + 16 + (1 + 4) + (3 + 4)
    # a dictionary inside a list is measured by its values' lengths, not by its indices
    assert decoded_nbytes(_repeated_lists(2, 3, "x" * 100)) == 3 * 4 + 6 * (100 + 8)


def test_nested_list_dictionary_bomb_refused_with_the_bound(tmp_path, monkeypatch):
    """MCQ options as ``list<string>``: 200 questions x 1,000 options of 1,000 characters."""
    path = tmp_path / "mcq.parquet"
    questions = pa.array([f"q{i}?" for i in range(200)])
    choices = _repeated_lists(200, 1_000, "o" * 1_000)  # 200 MB decoded
    pq.write_table(pa.table({"question": questions, "choices": choices}), path, compression="zstd")
    assert path.stat().st_size < 100_000
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(50 << 20))
    with pytest.raises(InputError) as info:
        read_rows(path)
    assert str(info.value) == (
        f"{path}: the table decodes to more than the bound of 50.0 MiB "
        "(half the free memory; BENCHCHECK_MAX_READ_BYTES sets it)"
    )
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(400 << 20))
    frame = read_rows(path)
    assert frame["choices"].dtype == pl.List(pl.String)
    assert frame["choices"][199].to_list() == ["o" * 1_000] * 1_000


def test_nested_values_decode_to_what_was_written(tmp_path):
    """Lists of lists, lists of structs and maps of text come back as plain text, unchanged."""
    table = pa.table(
        {
            "tokens": pa.array([[["a", "b"], ["c"]], None, [[], None, ["d"]]]),
            "options": pa.array(
                [[{"label": "A", "text": "x"}], [], [{"label": None, "text": "é"}]]
            ),
            "meta": pa.array([[("k", "v")], [], None], pa.map_(pa.string(), pa.string())),
        }
    )
    pq.write_table(table, tmp_path / "n.parquet")
    got = read_parquet_bounded(tmp_path / "n.parquet")
    assert got.schema == table.schema and got.equals(table)


def test_values_counted_bound_run_length_columns(tmp_path, monkeypatch):
    """10M equal integers take a few bytes of pages but decode to 80 MB: counted, refused."""
    path = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"label": pa.array(np.zeros(10_000_000, np.int64))}), path)
    assert path.stat().st_size < 200_000
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(50 << 20))
    with pytest.raises(InputError, match=r"the file \(its values counted\) decodes to more"):
        read_rows(path)
    with pytest.raises(InputError, match=r"the file \(its values counted\) decodes to more"):
        check_parquet_decoded(path)


def test_corpus_nested_columns_refused_before_reading(tmp_path):
    """Leakage corpus shards: a list text or id column decodes every element at once."""
    lists = _repeated_lists(100, 100_000, "t" * 1_000)  # 10 GB decoded
    pq.write_table(pa.table({"text": lists}), tmp_path / "l.parquet", compression="zstd")
    [unit] = corpus_units([tmp_path / "l.parquet"], column="text")
    with pytest.raises(InputError, match=r"the text column holds list<element: .*>, expected text"):
        list(read_unit(unit, column="text"))
    table = pa.table({"text": pa.array(["a"] * 100), "id": lists})
    pq.write_table(table, tmp_path / "i.parquet", compression="zstd")
    [unit] = corpus_units([tmp_path / "i.parquet"], column="text", id_column="id")
    with pytest.raises(InputError, match=r"the id column holds list<element: .*>, expected text"):
        list(read_unit(unit, column="text", id_column="id"))


def test_corpus_record_longer_than_a_batch_refused_from_the_footer(tmp_path):
    """One 8 MB text compresses to kilobytes: refused before its page is decompressed."""
    table = pa.table({"text": pa.array(["a" * (8 << 20)])})
    pq.write_table(table, tmp_path / "p.parquet", compression="zstd", use_dictionary=False)
    assert (tmp_path / "p.parquet").stat().st_size < 10_000
    [unit] = corpus_units([tmp_path / "p.parquet"], column="text")
    with pytest.raises(InputError, match=r"row group 0: its texts average 8 MiB a record, past 1"):
        list(read_unit(unit, column="text", batch_mb=1))
    assert [len(t) for b in read_unit(unit, column="text") for t in b.texts.to_pylist()] == [
        8 << 20
    ]


def test_shard_dictionary_bomb_refused_and_ordinary_shards_read_as_before(tmp_path, monkeypatch):
    """A ``convert`` shard whose token column is one 1,000-character value x 200k rows."""
    from benchcheck.io.shards import COLUMNS, read_shard

    n = 200_000
    zeros = pa.array(np.zeros(n, np.int32))
    shard = {
        "sentence": pa.array(np.arange(n) // 10),
        "token": pa.DictionaryArray.from_arrays(zeros, pa.array(["w" * 1_000])),
        "tag": pa.DictionaryArray.from_arrays(zeros, pa.array(["O"])),
        "line": pa.array(np.arange(1, n + 1)),
    }
    pq.write_table(pa.table(shard), tmp_path / "part-00000.parquet", compression="zstd")
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(100 << 20))  # 50 MiB a shard (2 read)
    with pytest.raises(InputError) as info:
        read_shard(tmp_path / "part-00000.parquet")
    assert str(info.value) == (
        f"{tmp_path / 'part-00000.parquet'}: the table decodes to more than the bound of "
        "50.0 MiB (half the free memory; BENCHCHECK_MAX_READ_BYTES sets it)"
    )
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(1 << 30))
    frame = read_shard(tmp_path / "part-00000.parquet")
    assert frame.equals(pl.read_parquet(tmp_path / "part-00000.parquet", columns=list(COLUMNS)))
    assert check_parquet_decoded(tmp_path / "part-00000.parquet") == n * (8 + 1_000 + 8 + 1 + 8 + 8)


def test_real_docbin_refused_past_the_bound_and_read_below_it(tmp_path, monkeypatch):
    """A DocBin spaCy itself wrote (2,000 docs, one entity each): bounded by its inflated size."""
    pytest.importorskip("spacy")
    from spacy.tokens import Doc, DocBin, Span
    from spacy.vocab import Vocab

    from benchcheck.io.spacy_docs import docbin_records

    vocab = Vocab()
    docs = DocBin()
    for _ in range(2_000):
        doc = Doc(vocab, words=["EU", "rejects", "German", "call"] * 10)
        doc.ents = [Span(doc, 0, 1, label="ORG")]
        docs.add(doc)
    data = docs.to_bytes()
    (tmp_path / "d.spacy").write_bytes(data)
    inflated = len(zlib.decompress(data))
    assert inflated > 20 * len(data)  # the file says little about what it decodes to
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(inflated - 1))
    with pytest.raises(InputError, match=r"d.spacy: the DocBin decodes to more than the bound"):
        docbin_records(tmp_path / "d.spacy")
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", str(inflated))
    records = docbin_records(tmp_path / "d.spacy")
    assert len(records.texts) == 2_000 and records.texts[0].startswith("EU rejects German")
