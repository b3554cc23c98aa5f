"""Corpus shards as dumps ship them (Parquet, JSON lines, .gz, .zst), streamed; errors name them."""

import gzip
import json

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from benchcheck.errors import InputError
from benchcheck.io.corpus import corpus_files, corpus_kind, corpus_units, read_unit

DOCS = ["first doc", None, "third, with ß", "", "fifth"]


def _jsonl(docs, ids=True):
    rows = []
    for k, d in enumerate(docs):
        row = {"id": k, "meta": {"x": [1, 2]}} if ids else {}
        if d is not None:
            row["text"] = d
        else:
            row["text"] = None
        rows.append(json.dumps(row, ensure_ascii=False) + "\n")
    return "".join(rows).encode()


def _zst(data: bytes, path):
    with pa.OSFile(str(path), "wb") as f, pa.CompressedOutputStream(f, "zstd") as z:
        z.write(data)


def _write_all(folder):
    folder.mkdir(exist_ok=True)
    pl.DataFrame({"id": list(range(5)), "text": DOCS}).write_parquet(folder / "a.parquet")
    (folder / "b.jsonl").write_bytes(_jsonl(DOCS))
    (folder / "c.jsonl.gz").write_bytes(gzip.compress(_jsonl(DOCS)))
    _zst(_jsonl(DOCS), folder / "d.ndjson.zst")
    (folder / "notes.txt").write_text("not a shard")
    return folder


def _read(unit, **kw):
    texts, rows, ids = [], [], []
    for b in read_unit(unit, column="text", **kw):
        texts += b.texts.to_pylist()
        rows += b.rows.tolist()
        ids += [] if b.ids is None else b.ids.to_pylist()
    return texts, rows, ids


def test_every_format_reads_the_same(tmp_path):
    files = corpus_files(_write_all(tmp_path / "c"))
    assert [f.name for f in files] == ["a.parquet", "b.jsonl", "c.jsonl.gz", "d.ndjson.zst"]
    units = corpus_units(files, column="text", id_column="id")
    assert [u.kind for u in units] == ["parquet", "jsonl", "jsonl", "jsonl"]
    for unit in units:
        texts, rows, ids = _read(unit, id_column="id")
        assert texts == ["first doc", "third, with ß", "", "fifth"]  # nulls skipped
        assert rows == [0, 2, 3, 4]  # rows keep their place in the file
        assert ids == ["0", "2", "3", "4"]  # numbers read as ids become text


def test_kinds():
    assert corpus_kind("x.JSONL.GZ") == ("jsonl", "gzip")
    assert corpus_kind("x.json.zstd") == ("jsonl", "zstd")
    assert corpus_kind("x.csv") is None and corpus_kind("x.gz") is None


def test_streams_in_batches(tmp_path):
    """About batch_mb of text at a time, for every format; Parquet row groups become units."""
    docs = [f"doc {k} " + "word " * 200 for k in range(3000)]  # ~3 MB
    data = _jsonl(docs, ids=False)
    (tmp_path / "big.jsonl.gz").write_bytes(gzip.compress(data))
    pl.DataFrame({"text": docs}).write_parquet(tmp_path / "big.parquet", row_group_size=500)
    files = corpus_files(tmp_path)
    units = corpus_units(files, column="text", unit_mb=1)
    parquet = [u for u in units if u.kind == "parquet"]
    assert len(parquet) >= 2  # runs of row groups of about unit_mb of text
    assert [u.first_row for u in parquet] == [0, *np.cumsum([u.rows for u in parquet])[:-1]]
    assert [(u.rg_lo, u.rg_hi) for u in parquet][-1][1] == 6
    for unit in units:
        batches = list(read_unit(unit, column="text", batch_mb=1))
        assert len(batches) >= 2 if unit.kind == "jsonl" else len(batches) >= 1
        assert max(sum(len(t) for t in b.texts.to_pylist()) for b in batches) < 2.5e6
    rows = np.concatenate([b.rows for u in parquet for b in read_unit(u, column="text")])
    assert rows.tolist() == list(range(3000))


def test_errors_name_the_shard(tmp_path):
    with pytest.raises(InputError, match="no corpus files match") as info:
        corpus_files(str(tmp_path / "nothing" / "*.parquet"))
    (tmp_path / "x.csv").write_text("a")
    with pytest.raises(InputError, match="not a corpus file"):
        corpus_files(tmp_path / "x.csv")

    pl.DataFrame({"body": ["a"]}).write_parquet(tmp_path / "p.parquet")
    with pytest.raises(InputError, match="no column 'text'; the file has body") as info:
        corpus_units([tmp_path / "p.parquet"], column="text")
    assert info.value.path.endswith("p.parquet") and "{text_column}" in info.value.message

    (tmp_path / "j.jsonl").write_text('\n{"body": "a"}\n')
    [unit] = corpus_units([tmp_path / "j.jsonl"], column="text")
    with pytest.raises(InputError, match="no column 'text' in the first record") as info:
        _read(unit)
    assert str(info.value).startswith(f"{tmp_path / 'j.jsonl'}:2: ")

    data = gzip.compress(_jsonl(["x " * 1000] * 500))
    (tmp_path / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    [unit] = corpus_units([tmp_path / "cut.jsonl.gz"], column="text")
    with pytest.raises(InputError, match="compressed stream cut short") as info:
        _read(unit)
    assert info.value.path.endswith("cut.jsonl.gz")
    raw = _jsonl(["x " * 1000] * 500)
    _zst(raw, tmp_path / "full.jsonl.zst")
    whole = (tmp_path / "full.jsonl.zst").read_bytes()
    (tmp_path / "cut.jsonl.zst").write_bytes(whole[: len(whole) // 2])
    [unit] = corpus_units([tmp_path / "cut.jsonl.zst"], column="text")
    with pytest.raises(InputError, match="cut short"):
        _read(unit)

    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\n{"text": "b"}\n{"text": oops}\n')
    [unit] = corpus_units([tmp_path / "bad.jsonl"], column="text")
    with pytest.raises(InputError, match="record 3: JSON parse error"):
        _read(unit)
    (tmp_path / "num.jsonl").write_text('{"text": "a"}\n{"text": 5}\n')
    [unit] = corpus_units([tmp_path / "num.jsonl"], column="text")
    with pytest.raises(InputError, match="record 2: .*changed from string to number"):
        _read(unit)
    (tmp_path / "arr.json").write_text('[{"text": "a"}]')
    [unit] = corpus_units([tmp_path / "arr.json"], column="text")
    with pytest.raises(InputError, match="a record must be an object"):
        _read(unit)
    (tmp_path / "not.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="cannot read as Parquet"):
        corpus_units([tmp_path / "not.parquet"], column="text")
    pl.DataFrame({"text": [1, 2]}).write_parquet(tmp_path / "ints.parquet")
    [unit] = corpus_units([tmp_path / "ints.parquet"], column="text")
    with pytest.raises(InputError, match="holds int64, expected text"):
        _read(unit)


def test_empty_shards_have_no_documents(tmp_path):
    (tmp_path / "e.jsonl").write_text("")
    (tmp_path / "e.jsonl.gz").write_bytes(gzip.compress(b"\n\n"))
    pl.DataFrame({"text": []}, schema={"text": pl.String}).write_parquet(tmp_path / "e.parquet")
    for unit in corpus_units(corpus_files(tmp_path), column="text"):
        assert _read(unit) == ([], [], [])
