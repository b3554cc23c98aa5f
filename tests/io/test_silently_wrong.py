"""Records read wrongly without a word (issue 37, item 9): each refused with its place."""

from __future__ import annotations

import json

import pytest

from benchcheck.errors import InputError
from benchcheck.io import medcat, span_json
from benchcheck.io._options import NerOptions


def _medcat(tmp_path, ann: dict, raw: str | None = None):
    doc = {"name": "d1", "text": "Aspirin helps.", "annotations": [ann]}
    path = tmp_path / "m.json"
    path.write_text(raw or json.dumps({"projects": [{"name": "p", "documents": [doc]}]}))
    return medcat.records(path, NerOptions(span_fields={"type": "cui"}))


@pytest.mark.parametrize("field", ["deleted", "killed", "correct"])
@pytest.mark.parametrize("value", ["false", "true", 0, 1, [], {}])
def test_medcat_verdict_not_a_boolean_refused(tmp_path, field, value):
    ann = {"start": 0, "end": 7, "cui": "C1", field: value}
    with pytest.raises(InputError) as info:
        _medcat(tmp_path, ann)
    assert f'document d1: annotation 1: "{field}" is not true or false' in str(info.value)
    assert "m.json" in str(info.value)


def test_medcat_boolean_verdicts_still_read(tmp_path):
    read = _medcat(tmp_path, {"start": 0, "end": 7, "cui": "C1", "deleted": False})
    assert read is not None


def test_medcat_duplicate_key_refused(tmp_path):
    raw = (
        '{"projects": [{"name": "p", "documents": [{"name": "d1", "text": "Aspirin helps.",'
        ' "annotations": [{"start": 0, "end": 7, "cui": "C1", "deleted": false,'
        ' "deleted": true}]}]}]}'
    )
    with pytest.raises(InputError, match="the key 'deleted' is given twice in one object"):
        _medcat(tmp_path, {}, raw)


def _spans(tmp_path, rows, raw: str | None = None):
    path = tmp_path / "s.json"
    path.write_text(raw or json.dumps(rows))
    fields = {"text": "text", "spans": "spans", "id": "id"}
    return span_json.records(path, NerOptions(span_fields=fields))


def test_span_json_array_duplicate_key_refused(tmp_path):
    raw = '[{"id": "a", "text": "Aspirin.", "spans": [], "text": "other"}]'
    with pytest.raises(InputError, match="the key 'text' is given twice in one object"):
        _spans(tmp_path, None, raw)


@pytest.mark.parametrize(
    ("value", "kind"), [(None, "null"), (True, "a boolean"), ([1], "a list"), (1.5, "a number")]
)
def test_span_json_id_not_text_refused(tmp_path, value, kind):
    rows = [{"id": value, "text": "Aspirin.", "spans": []}]
    with pytest.raises(InputError) as info:
        _spans(tmp_path, rows)
    assert f"record 1: the record's id is {kind}; expected a string or an integer" in str(
        info.value
    )


def test_span_json_string_and_integer_ids_read(tmp_path):
    rows = [{"id": 7, "text": "Aspirin.", "spans": []}, {"id": "b", "text": "x", "spans": []}]
    assert _spans(tmp_path, rows) is not None
