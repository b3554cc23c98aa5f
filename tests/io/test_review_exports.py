"""The shapes of review exports (benchcheck.io.review_exports) against real exports.

``fixtures/label_studio_spans`` is what Label Studio 1.23.2 exported (JSON, JSON-MIN, CSV);
the package's Argilla records are what ``rg.Record.from_dict`` reads (``test_review_argilla``
checks it with the SDK). The generated schema is checked with jsonschema, an independent
reader of the same shapes; the messages are checked word for word where the issue quotes one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from benchcheck.cli import main
from benchcheck.errors import InputError
from benchcheck.io.review import read_span_answers
from benchcheck.io.review_exports import (
    FORMATS,
    export_schema,
    read_item_export,
    read_span_export,
)

SPANS = Path(__file__).parent / "fixtures" / "label_studio_spans"
ARGILLA = Path(__file__).parents[1] / "labels" / "golden" / "export" / "argilla" / "records.json"


def _valid(fmt: str, value: object) -> bool:
    schema = export_schema(fmt)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema).is_valid(value)


def test_real_exports_follow_the_schemas():
    assert _valid("label studio span", json.loads((SPANS / "ls.json").read_text()))
    assert _valid("label studio span min", json.loads((SPANS / "ls_min.json").read_text()))
    assert _valid("argilla item", json.loads(ARGILLA.read_text()))
    # and a wrong type is invalid for jsonschema too (the example of the issue)
    tasks = json.loads((SPANS / "ls.json").read_text())
    tasks[1]["annotations"][0]["result"][0]["value"]["start"] = False
    assert not _valid("label studio span", tasks)
    assert set(FORMATS) == {
        "label studio item",
        "label studio item min",
        "argilla item",
        "label studio span",
        "label studio span min",
    }


def _ls_item(choices: object) -> list[dict]:
    value = {"choices": choices}
    result = [{"from_name": "label", "to_name": "text", "type": "choices", "value": value}]
    task = {"data": {"review_id": "r0001"}, "annotations": [{"completed_by": 1, "result": result}]}
    return [{"data": {"review_id": f"r000{k}"}} for k in range(3)] + [task]


def test_the_issue_message_word_for_word():
    with pytest.raises(InputError) as err:
        read_item_export(_ls_item("10"), Path("export.json"))
    assert str(err.value) == (
        "export.json: $[3].annotations[0].result[0].value.choices: expected an array of "
        'strings, got a string ("10")'
    )
    with pytest.raises(InputError) as err:
        read_item_export(_ls_item(["0", "1"]), Path("export.json"))
    assert str(err.value) == (
        "export.json: $[3].annotations[0].result[0].value.choices: 2 choices "
        '("0", "1") for the single-choice question \'label\''
    )
    read = read_item_export(_ls_item(["1"]), Path("export.json"))
    assert [(a.review_id, a.who, a.value) for a in read.answers if a.who] == [("r0001", "1", "1")]


def test_cancelled_with_a_result_is_no_answer_and_drafts_are_counted():
    tasks = _ls_item(["1"])
    tasks[3]["annotations"][0]["was_cancelled"] = True
    tasks[3]["drafts"] = [{"result": [], "user": "x"}, {"result": [], "user": "y"}]
    read = read_item_export(tasks, Path("e.json"))
    assert [(a.who, a.value) for a in read.answers if a.who] == [("1", None)]
    assert read.notes == ("e.json: 2 draft(s) never submitted are not answers",)
    records = [
        {"id": "r1", "fields": {}, "responses": {"label": [
            {"value": "1", "user_id": "u1"},
            {"value": "0", "user_id": "u2", "status": "draft"},
            {"value": "0", "user_id": "u3", "status": "discarded"},
            {"value": None, "user_id": "u4"},
        ]}},
    ]  # fmt: skip
    read = read_item_export(records, Path("a.json"))
    assert [(a.who, a.value) for a in read.answers if a.who] == [
        ("u1", "1"),
        ("u3", None),
        ("u4", None),
    ]
    assert read.notes == ("a.json: 1 draft(s) never submitted are not answers",)


def test_utf16_offsets_bounded_by_the_texts_utf16_length():
    # "🙂 Bob": Bob is at characters 2-5, UTF-16 units 3-6 (the emoji is two units)
    row = {"review_id": "r1", "text": "🙂 Bob", "annotator": 1}
    ok = read_span_export(
        [{**row, "label": [{"start": 3, "end": 6, "labels": ["PER"]}]}], Path("m")
    )
    assert ok.answers[1].value[0].end == 6
    with pytest.raises(InputError, match=r"\$\[0\]\.label\[0\]: start 3, end 7; expected 0 <= "):
        read_span_export([{**row, "label": [{"start": 3, "end": 7, "labels": ["PER"]}]}], Path("m"))


def test_csv_export_names_the_line_and_the_path(tmp_path):
    table = tmp_path / "ls_table.csv"
    text = (SPANS / "ls_table.csv").read_text().replace('""start"":2', '""start"":false', 1)
    table.write_text(text)
    with pytest.raises(InputError) as err:
        read_span_answers(table)
    assert str(err.value) == f"{table}:2: $.label[0].start: expected an integer, got false"


def test_span_import_warns_of_drafts(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(SPANS, "review")
    tasks = json.loads(Path("review/ls.json").read_text())
    tasks[0]["drafts"] = [{"result": [], "user": 3}]
    Path("review/ls.json").write_text(json.dumps(tasks))
    assert main(["review", "import", "review/ls.json", "-o", "s.jsonl", "--json", "s.json"]) == 0
    warnings = json.loads(Path("s.json").read_text())["warnings"]
    assert "review/ls.json: 1 draft(s) never submitted are not answers" in warnings
