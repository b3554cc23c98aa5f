"""write_rows: one writer for JSONL / CSV / TSV / Parquet rows, bytes checked by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

from benchcheck.errors import UsageError
from benchcheck.io.tables import write_rows


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": [2, 1],
            "text": ["café «x»", None],
            "score": [float("nan"), -0.5],
            "flagged": [True, False],
            "__line__": [7, 3],
        }
    )


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson", ".json", ".JSONL"])
def test_jsonl_bytes(tmp_path: Path, suffix: str) -> None:
    path = write_rows(_frame(), tmp_path / f"out{suffix}")
    # column order kept, json.dumps separators, non-ASCII as is, None and NaN as null,
    # the reader's __line__ column left out
    assert (
        path.read_bytes()
        == (
            '{"id": 2, "text": "café «x»", "score": null, "flagged": true}\n'
            '{"id": 1, "text": null, "score": -0.5, "flagged": false}\n'
        ).encode()
    )
    assert all(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


def test_infinities_are_null_in_jsonl(tmp_path: Path) -> None:
    frame = pl.DataFrame({"x": [float("inf"), float("-inf"), 1.0]})
    text = write_rows(frame, tmp_path / "x.jsonl").read_text(encoding="utf-8")
    assert text == '{"x": null}\n{"x": null}\n{"x": 1.0}\n'


@pytest.mark.parametrize(("suffix", "sep"), [(".csv", ","), (".tsv", "\t")])
def test_csv_and_tsv_bytes(tmp_path: Path, suffix: str, sep: str) -> None:
    frame = pl.DataFrame({"id": [1, 2], "text": ["a b", None], "label": ["x", "y"]})
    text = write_rows(frame, tmp_path / f"out{suffix}").read_text(encoding="utf-8")
    assert text == sep.join(["id", "text", "label"]) + f"\n1{sep}a b{sep}x\n2{sep}{sep}y\n"


def test_parquet_round_trip_without_line_column(tmp_path: Path) -> None:
    back = pl.read_parquet(write_rows(_frame(), tmp_path / "out.parquet"))
    assert back.columns == ["id", "text", "score", "flagged"]
    assert back["id"].to_list() == [2, 1] and back["text"].to_list() == ["café «x»", None]
    assert math.isnan(back["score"][0]) and back["flagged"].to_list() == [True, False]


def test_like_chooses_the_format(tmp_path: Path) -> None:
    frame = pl.DataFrame({"id": [1], "text": ["a"]})
    path = write_rows(frame, tmp_path / "subset.data", like="source.TSV")
    assert path.read_text(encoding="utf-8") == "id\ttext\n1\ta\n"
    # the suffix of the target does not matter once ``like`` is given
    assert write_rows(frame, tmp_path / "s.jsonl", like="x.csv").read_text() == "id,text\n1,a\n"


def test_parent_folder_is_created(tmp_path: Path) -> None:
    path = write_rows(pl.DataFrame({"a": [1]}), tmp_path / "new" / "deeper" / "a.jsonl")
    assert path.read_text(encoding="utf-8") == '{"a": 1}\n'


def test_unknown_suffix_names_the_file_and_the_choices(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cannot write .*out\.xlsx: use \.jsonl, \.csv"):
        write_rows(pl.DataFrame({"a": [1]}), tmp_path / "out.xlsx")
    with pytest.raises(UsageError, match=r"in the format of src\.txt"):
        write_rows(pl.DataFrame({"a": [1]}), tmp_path / "out.csv", like="src.txt")
    assert not (tmp_path / "out.xlsx").exists() and not (tmp_path / "out.csv").exists()
