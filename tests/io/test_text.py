"""One decoding rule: UTF-8 (BOM dropped); UTF-16/32 named as such; a bad byte's line."""

from __future__ import annotations

import numpy as np
import pytest

from benchcheck.errors import InputError
from benchcheck.io._text import count_newlines, decode_utf8, encoding_problem
from benchcheck.io.tables import read_rows

TEXT = "id,text,label\na,héllo,1\nb,wörld,0\n"


@pytest.mark.parametrize(
    ("codec", "name"),
    [
        ("utf-16", "UTF-16 (little-endian)"),  # with a BOM (Python writes one)
        ("utf-16-le", "UTF-16 (little-endian)"),  # no BOM: found by its zero bytes
        ("utf-16-be", "UTF-16 (big-endian)"),
        ("utf-32", "UTF-32 (little-endian)"),
    ],
)
def test_other_encodings_are_named(tmp_path, codec, name):
    assert encoding_problem(TEXT.encode(codec)) == name
    for suffix in (".csv", ".tsv", ".jsonl"):
        path = tmp_path / f"d{suffix}"
        path.write_bytes(TEXT.encode(codec))
        with pytest.raises(InputError) as info:
            read_rows(path)
        assert f"the file is encoded as {name}; expected UTF-8" in str(info.value)
        assert "ragged" not in str(info.value)


def test_utf8_with_and_without_bom():
    assert encoding_problem(TEXT.encode("utf-8")) is None
    assert encoding_problem(TEXT.encode("utf-8-sig")) is None
    assert decode_utf8(TEXT.encode("utf-8-sig"), "x") == TEXT


def test_undecodable_byte_names_its_line(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes(b"id,text,label\na,x,1\nb,\xff\xfe\xfa,0\n")
    with pytest.raises(InputError) as info:
        read_rows(path)
    assert (info.value.line, info.value.message) == (3, "undecodable bytes; expected UTF-8")


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 << 20])
def test_count_newlines_equals_bytes_count(size):
    # Across the slice boundary (1 MiB), for every buffer type the readers pass.
    data = np.random.default_rng(size).choice(np.frombuffer(b"ab\n\r\t", np.uint8), size)
    raw = data.tobytes()
    for buffer in (raw, bytearray(raw), memoryview(raw)):
        assert count_newlines(buffer) == raw.count(b"\n")


def test_one_json_rule():
    """Unique keys, bounded depth, valid Unicode: each an error naming file and line."""
    from benchcheck.errors import InputError
    from benchcheck.io._text import duplicate_key, loads_json

    assert loads_json('{"a": {"a": 1}, "b": [1, 2]}', "f.json") == {"a": {"a": 1}, "b": [1, 2]}
    assert loads_json('{"t": "\\ud83d\\ude00"}', "f.json") == {"t": "😀"}  # a pair: fine
    for text, why in (
        ('{"id": 1, "id": 2}', "'id' is given twice"),
        ('{"a": {"x": 1, "x": 2}}', "'x' is given twice"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"id": "\\ud800"}', "lone UTF-16 surrogate"),
        ('{"id": ', "invalid JSON"),
    ):
        with pytest.raises(InputError, match=why) as info:
            loads_json(text, "f.jsonl", line=7)
        assert str(info.value).startswith("f.jsonl:7: ")
    assert duplicate_key('{"a": 1, "b": {"c": 1, "c": 2}}') == "c"


def test_whole_reads_are_sized_first(tmp_path, monkeypatch):
    from benchcheck.errors import InputError
    from benchcheck.io._text import read_file_bytes, whole_read_limit

    f = tmp_path / "big.txt"
    f.write_bytes(b"x" * 5000)
    monkeypatch.setenv("BENCHCHECK_MAX_READ_BYTES", "4096")
    assert whole_read_limit() == 4096
    with pytest.raises(InputError, match="more than can be read whole"):
        read_file_bytes(f)
    monkeypatch.delenv("BENCHCHECK_MAX_READ_BYTES")
    assert read_file_bytes(f) == b"x" * 5000
