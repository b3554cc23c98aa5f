"""Diagnostic suite readers end lines as JSONL and the csv module do, not as str.splitlines()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcheck.errors import InputError
from benchcheck.io.diagnostic import read_diagnostic_jsonl, read_glue_diagnostic_tsv


def test_line_separator_inside_a_string_stays_in_the_row(tmp_path: Path) -> None:
    # U+2028 may stand unescaped in a JSON string; str.splitlines() broke the row there.
    row = {"id": "p1", "sentence1": "A\u2028B", "sentence2": "C", "forward": "neutral"}
    path = tmp_path / "suite.jsonl"
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    table = read_diagnostic_jsonl(path)["diagnostic"].table
    assert table["text_a"].to_list() == ["A\u2028B"]
    assert table["text_b"].to_list() == ["C"]
    assert table["line"].to_list() == [1]


def test_bad_json_names_its_line_after_a_blank_line(tmp_path: Path) -> None:
    row = {"id": "p1", "sentence1": "A", "sentence2": "C", "forward": "neutral"}
    path = tmp_path / "suite.jsonl"
    path.write_text("\ufeff" + json.dumps(row) + "\n\n{oops\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_diagnostic_jsonl(path)
    assert info.value.line == 3
    assert "invalid JSON" in str(info.value)


def test_tsv_cells_keep_unicode_line_separators(tmp_path: Path) -> None:
    # Rows end at \n, \r or \r\n only; str.splitlines() broke a cell at U+2028 or a form feed.
    path = tmp_path / "diagnostic-full.tsv"
    path.write_text(
        "Logic\tPremise\tHypothesis\tLabel\n"
        "Negation\ta\u2028b\tc\tneutral\r\n"
        "\tx\x0cy\tz\tentailment\n",
        encoding="utf-8",
        newline="",
    )
    table = read_glue_diagnostic_tsv(path)["diagnostic"].table
    assert table["text_a"].to_list() == ["a\u2028b", "x\x0cy"]
    assert table["text_b"].to_list() == ["c", "z"]
    assert table["label"].to_list() == ["neutral", "entailment"]
    assert table["tags"].to_list() == [["Negation"], []]
    assert table["line"].to_list() == [2, 3]
