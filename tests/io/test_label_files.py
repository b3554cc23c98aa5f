"""Gold, label-source and crowd readers: single-value labels, unique ids, lines in errors."""

from __future__ import annotations

import json

import pytest

from benchcheck.errors import InputError
from benchcheck.io.label_files import read_crowd, read_gold, read_label_source


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_gold(tmp_path):
    rows = [
        {"id": 1, "label": 1, "gold": 0, "confidence": 0.9},
        {"id": 2, "label": 0, "gold": None},
    ]
    gold = read_gold(_write(tmp_path / "g.jsonl", rows))
    assert gold["label"].to_list() == ["1", "0"] and gold["gold"].to_list() == ["0", None]
    rows[1]["id"] = 1
    with pytest.raises(InputError, match=r"duplicate id.*first on line 1") as info:
        read_gold(_write(tmp_path / "g.jsonl", rows))
    assert info.value.line == 2
    rows[1].update(id=2, gold=[0, 1])
    with pytest.raises(InputError, match="field 'gold' holds a list here but a number on line 1"):
        read_gold(_write(tmp_path / "g.jsonl", rows))
    with pytest.raises(InputError, match=r"lacks column\(s\) \['gold'\]"):
        read_gold(_write(tmp_path / "g.jsonl", [{"id": 1, "label": 1}]))
    (tmp_path / "g.csv").write_text("id,label,gold,confidence\n1,1,0,high\n")
    with pytest.raises(InputError, match="confidence must be a number") as info:
        read_gold(tmp_path / "g.csv")
    assert info.value.line == 2
    (tmp_path / "g.csv").write_text("id,label,gold,confidence\n1,1,0,0.75\n2,1,,\n")
    assert read_gold(tmp_path / "g.csv")["confidence"].to_list() == [0.75, None]


def test_label_source(tmp_path):
    path = _write(tmp_path / "s.jsonl", [{"id": 1, "label": "a"}, {"id": 2, "label": ""}])
    assert read_label_source("orig", path) == {"1": "a"}
    path = _write(tmp_path / "s.jsonl", [{"id": 1, "label": "a"}, {"id": 1, "label": "b"}])
    with pytest.raises(InputError, match="duplicate id") as info:
        read_label_source("orig", path)
    assert info.value.line == 2
    path = _write(tmp_path / "s.jsonl", [{"id": 1, "x": ["a"]}, {"id": 2, "x": ["b"]}])
    with pytest.raises(InputError, match="a label must be one value"):
        read_label_source("orig", path, "x")


def test_crowd(tmp_path):
    rows = [{"id": 1, "annotator": "x", "label": 1}, {"id": 1, "annotator": "y", "label": 0}]
    assert read_crowd(_write(tmp_path / "c.jsonl", rows))["label"].to_list() == ["1", "0"]
    rows.append({"id": 1, "annotator": "x", "label": 0})
    with pytest.raises(
        InputError, match=r"duplicate \(id, annotator\) pair.*rates each example once"
    ) as info:
        read_crowd(_write(tmp_path / "c.jsonl", rows))
    assert info.value.line == 3 and info.value.got == ("1", "x")
