"""Table readers: one label rule (scalars only), CSV errors in our words with file and line."""

from __future__ import annotations

import json

import polars as pl
import pytest

from benchcheck.errors import InputError
from benchcheck.io.tables import read_rows, read_table, read_text_split, scalar_strings


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("labels", "line", "message"),
    [
        ([1, [1, 0], 0], 2, "field 'label' holds a list here but a number on line 1"),
        ([[1, 0], [0], [1]], 1, r"a label must be one value .* not a list \(got '\[1, 0\]'\)"),
        ([{"a": 1}, {"a": 2}, {"a": 1}], 1, "not an object"),
        ([1, float("nan"), 0], 2, r"a label must be a string or a finite number \(got nan\)"),
        ([1.0, float("inf"), 0.0], 2, "finite number"),
        (["x", ["y"], "z"], 2, "field 'label' holds a list here but a string on line 1"),
    ],
)
@pytest.mark.parametrize("reader", ["split", "table"])
def test_labels_are_single_values(tmp_path, labels, line, message, reader):
    rows = [{"id": f"e{i}", "text": f"t{i}", "label": v} for i, v in enumerate(labels)]
    path = _write(tmp_path / "d.jsonl", rows)
    with pytest.raises(InputError, match=message) as info:
        if reader == "split":
            read_text_split(path, task="classification")
        else:
            read_table(path, label="label")
    assert info.value.line == line and info.value.path == str(path)


def test_text_given_as_a_list_is_refused(tmp_path):
    rows = [{"id": "a", "text": ["x", "y"], "label": 1}, {"id": "b", "text": ["z"], "label": 0}]
    with pytest.raises(InputError, match="column 'text' must hold one value") as info:
        read_text_split(_write(tmp_path / "d.jsonl", rows), task="classification")
    assert info.value.line == 1


def test_scalar_labels_read_as_before(tmp_path):
    rows = [{"id": "a", "text": "x", "label": 1}, {"id": "b", "text": "y", "label": "[MASK]"}]
    split = read_text_split(_write(tmp_path / "d.jsonl", rows), task="classification")
    assert split.table["label"].to_list() == ["1", "[MASK]"]  # a string that starts with [


def test_scalar_strings_keeps_missing_values():
    f = pl.DataFrame({"label": [1.5, None]})
    assert scalar_strings(f, "label", path=None, what="label").to_list() == ["1.5", None]


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        (
            b"id,text,label\na,x,1\nb,y,1,extra\n",
            3,
            "expected 3 fields, as the header has, found 4",
        ),
        (b'id,text,label\na,x,1\nb,"y,1\nc,z,0\n', 3, "a quoted field starts here and never ends"),
        (b"", None, "empty file: expected a header line"),
        (b"\n\n", None, "empty file"),
    ],
)
def test_csv_errors_name_the_line_in_our_words(tmp_path, content, line, message):
    path = tmp_path / "d.csv"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        read_rows(path)
    assert info.value.line == line
    text = str(info.value)
    assert text.startswith(str(path)) and "truncate_ragged_lines" not in text
    assert "Consider" not in text and "\n" not in text


def test_csv_rows_carry_their_lines(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('id,text,label\na,"two\nlines",1\nb,y,0\n', encoding="utf-8")
    assert read_rows(path)["__line__"].to_list() == [2, 4]
    path.write_text("id,text,label\na,x,1\nb,y,0\n", encoding="utf-8")
    assert read_rows(path)["__line__"].to_list() == [2, 3]
    path.write_text("id,text,label\na,x,1\nb,y,\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_table(path, label="label")
    assert info.value.line == 3  # the missing label's own line, from the CSV


def test_a_stray_quote_polars_reads_leniently_is_refused_with_its_line(tmp_path):
    """A '"' opening the header: polars reads on, the strict line reader does not (sweep)."""
    path = tmp_path / "expert.csv"
    path.write_text('"review_id,label\nr1,"a, ""b""",0\nr2,c,1\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_rows(path)
    assert str(err.value).endswith(
        "expert.csv:1: cannot read as CSV: malformed CSV row (',' expected after '\"')"
    )
