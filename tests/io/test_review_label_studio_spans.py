"""A real Label Studio round trip of a span review of NER flags (marker ``apps``).

Label Studio (the release ``_apps.LABEL_STUDIO`` pins) runs on 127.0.0.1 with a fresh data
folder. Span flags of a small CoNLL file with planted errors (a boundary, a type) and a
Chinese sentence go through ``benchcheck review export --ner``; the project is created from
its ``label_config.xml`` and the tasks (gold spans as pre-annotations) imported through the
REST API. Two reviewers answer: reviewer one corrects the boundary and the type and keeps
the rest; reviewer two agrees on those, skips one task and gives the Chinese entity another
type. The JSON and JSON-MIN exports (and CSV, which Label Studio offers for span projects)
go through ``benchcheck review import``; the corrected spans are asserted exactly. With
``BENCHCHECK_SAVE_EXPORTS=DIR`` the exports are copied there (how the fixture of
``test_review_spans.py`` was made).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from _apps import LABEL_STUDIO, LabelStudio, app_venv, apps_enabled
from _span_review_data import GOLD, ONE, PRED, TWO

from benchcheck.cli import main

pytestmark = [
    pytest.mark.apps,
    pytest.mark.skipif(not apps_enabled(), reason="installs Label Studio: BENCHCHECK_APPS=1"),
]


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    root = tmp_path_factory.mktemp("label_studio_spans")
    server = LabelStudio(app_venv(LABEL_STUDIO, root), root / "data", root / "server.log")
    try:
        server.wait()
        yield server
    finally:
        server.stop()
    assert server.process.poll() is not None  # stopped


def _result(text: str, marks: list[tuple[str, str]]) -> list[dict]:
    out = []
    for k, (surface, label) in enumerate(marks):
        start = text.index(surface)
        out.append(
            {
                "id": f"m{k}",
                "from_name": "label",
                "to_name": "text",
                "type": "labels",
                "value": {
                    "start": start,
                    "end": start + len(surface),
                    "text": surface,
                    "labels": [label],
                },
            }
        )
    return out


def _import(export: str, out: str, *options: str) -> dict:
    summary = f"summary_{Path(out).stem}.json"
    argv = ["review", "import", export, "--key", "review/key.jsonl", "-o", out, *options]
    assert main([*argv, "--json", summary]) == 0
    return json.loads(Path(summary).read_text())


def test_label_studio_span_round_trip(studio, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("gold.conll").write_text(GOLD)
    Path("pred.conll").write_text(PRED)
    assert main(["flag-spans", "gold.conll", "--predictions", "pred.conll", "-o", "sf.jsonl"]) == 0
    argv = ["review", "export", "sf.jsonl", "--ner", "gold.conll", "--seed", "2", "-o", "review"]
    assert main(argv) == 0
    config = Path("review/label_config.xml").read_text()
    shown = json.loads(Path("review/tasks.json").read_text())
    key = {r["review_id"]: r for r in map(json.loads, Path("review/key.jsonl").open())}
    # the four flagged sentences ("Paris is nice ." has none), in numpy's seed-2 order
    assert [key[t["data"]["review_id"]]["sentence"] for t in shown] == [3, 2, 0, 1]

    project = studio.call(
        "POST", "/api/projects", {"title": "benchcheck span review", "label_config": config}
    )
    pid = project["id"]
    assert project["label_config"].strip() == config.strip()  # accepted unchanged
    # reviewers mark whole tokens: regions snap to words; the task and the types' meanings
    # are in the interface (issue 33)
    assert '<Text name="text" value="$text" granularity="word"/>' in project["label_config"]
    assert "Correct the spans of the middle sentence only" in project["label_config"]
    parsed = studio.call("GET", f"/api/projects/{pid}")["parsed_label_config"]
    assert parsed["label"]["to_name"] == ["text"]
    assert parsed["label"]["labels"] == ["LOC", "ORG", "PER"]
    imported = studio.call("POST", f"/api/projects/{pid}/import", shown)
    assert imported["task_count"] == 4
    assert imported["prediction_count"] == 4  # the gold spans, pre-annotated
    tasks = studio.call("GET", f"/api/tasks?project={pid}&page_size=100")["tasks"]
    tasks.sort(key=lambda t: t["id"])
    assert [t["data"] for t in tasks] == [t["data"] for t in shown]  # texts kept as they are
    # each task carries its context: the sentences before and after it
    by_sentence = {key[t["data"]["review_id"]]["sentence"]: t["data"] for t in tasks}
    assert by_sentence[0]["after"] == by_sentence[1]["text"]
    assert by_sentence[3]["before"] == by_sentence[2]["text"]

    me = studio.call("GET", "/api/current-user/whoami")["id"]
    other = studio.call(
        "POST",
        "/api/users/",
        {
            "email": "reviewer.two@example.org",
            "username": "reviewer2",
            "password": "benchcheck-review-2",
        },
    )["id"]
    for t in tasks:
        sentence = key[t["data"]["review_id"]]["sentence"]
        text = t["data"]["text"]
        for who, marks in ((me, ONE[sentence]), (other, TWO[sentence])):
            body = (
                {"result": [], "was_cancelled": True, "completed_by": who}
                if marks is None
                else {"result": _result(text, marks), "completed_by": who}
            )
            studio.call("POST", f"/api/tasks/{t['id']}/annotations", body)

    offered = {
        f["name"]
        for f in studio.call("GET", f"/api/projects/{pid}/export/formats")
        if not f.get("disabled")
    }
    assert {"JSON", "JSON_MIN", "CSV"} <= offered
    save = os.environ.get("BENCHCHECK_SAVE_EXPORTS")
    expected = pl.DataFrame(
        {
            "sentence": [0, 0, 1, 1],
            "start": [0, 3, 0, 3],
            "end": [1, 5, 1, 5],
            "type": ["PER", "LOC", "PER", "ORG"],
            "original": [True, False, False, True],
        }
    )
    adjudicated = pl.DataFrame(
        {
            "sentence": [0, 0, 1, 1, 2, 2, 3],
            "start": [0, 3, 0, 3, 0, 2, 2],
            "end": [1, 5, 1, 5, 1, 3, 3],
            "type": ["PER", "LOC", "PER", "ORG", "PER", "PER", "LOC"],
        }
    )
    for fmt, name in (("JSON", "ls.json"), ("JSON_MIN", "ls_min.json"), ("CSV", "ls_table.csv")):
        blob = studio.call("GET", f"/api/projects/{pid}/export?exportType={fmt}", raw=True)
        Path(name).write_bytes(blob)
        if save:
            Path(save).mkdir(parents=True, exist_ok=True)
            shutil.copy(name, Path(save) / name)
        stem = Path(name).stem
        summary = _import(name, f"spans_{stem}.jsonl")
        assert summary["review"] == "spans"
        assert summary["experts"] == [f"{stem}@{me}", f"{stem}@{other}"]
        assert summary["status_counts"] == {"experts_agree": 2, "unresolved": 2}
        # spans of tasks both answered: 4 agreed, 北京 LOC and 北京 ORG one each
        assert summary["span_agreement"] == {"spans": 6, "agreed": 4, "percent": 4 / 6}
        assert summary["changes"] == {"kept": 2, "added": 2, "removed": 2}
        by_id = {f["id"]: f["verdict"] for f in summary["flags"]}
        assert by_id == {
            "0:3-4|3-5": "confirmed",  # the boundary
            "1:0-1|0-1": "confirmed",  # the type of Mary
            "2:-|3-4": "unresolved",  # skipped by reviewer two
            "3:2-3|2-3": "unresolved",  # the reviewers disagree
        }
        spans = pl.read_ndjson(f"spans_{stem}.jsonl")
        assert spans.select(expected.columns).equals(expected)
        assert set(spans["split"]) == {"gold"} and set(spans["status"]) == {"experts_agree"}

        out = f"adjudicated_{stem}.jsonl"
        adj = _import(name, out, "--consensus", "adjudicator", "--adjudicator", f"{stem}@{me}")
        assert adj["status_counts"] == {"experts_agree": 2, "adjudicated": 2, "unresolved": 0}
        assert adj["flag_counts"] == {"confirmed": 2, "rejected": 2, "unresolved": 0}
        assert pl.read_ndjson(out).select(adjudicated.columns).equals(adjudicated)

    # an export whose text was edited does not belong to the key: one line, exit 2, no output
    rows = json.loads(Path("ls_min.json").read_text())
    rows[0]["text"] = rows[0]["text"] + " "
    rows[0]["content_hash"] = "0" * 16
    Path("edited.json").write_text(json.dumps(rows))
    argv = ["review", "import", "edited.json", "--key", "review/key.jsonl", "-o", "e.jsonl"]
    assert main(argv) == 2
    assert not Path("e.jsonl").exists()
