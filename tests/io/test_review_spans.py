"""Span review of NER flags without the application: export, and Label Studio's own exports.

``fixtures/label_studio_spans/`` holds what Label Studio 1.23.2 exported in
``test_review_label_studio_spans.py`` (JSON, JSON-MIN, CSV; unedited) with the key and
interface of that review (``review export --seed 2`` of ``_span_review_data``). The expected
spans below are worked out by hand from the reviewers' answers in ``_span_review_data``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from _span_review_data import GOLD, PRED

from benchcheck.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "label_studio_spans"
EXPORTS = (("ls.json", "ls"), ("ls_min.json", "ls_min"), ("ls_table.csv", "ls_table"))


@pytest.fixture
def review(tmp_path, monkeypatch):
    """The review folder of the fixture (key and interface), as the working directory."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURES, "review")
    return tmp_path


def _sentence_text(tasks: list, key: list, sentence: int) -> str:
    """The text of a reviewed sentence, as its task shows it."""
    return next(
        t["data"]["text"] for t, k in zip(tasks, key, strict=True) if k["sentence"] == sentence
    )


def _export(tmp: Path, *options: str) -> None:
    (tmp / "gold.conll").write_text(GOLD)
    (tmp / "pred.conll").write_text(PRED)
    assert main(["flag-spans", "gold.conll", "--predictions", "pred.conll", "-o", "sf.jsonl"]) == 0
    argv = ["review", "export", "sf.jsonl", "--ner", "gold.conll", "-o", "out", *options]
    assert main(argv) == 0


def test_export_is_the_fixture_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _export(tmp_path, "--seed", "2")
    for name in ("key.jsonl", "label_config.xml"):
        assert (tmp_path / "out" / name).read_text() == (FIXTURES / name).read_text()
    config = (tmp_path / "out" / "label_config.xml").read_text()
    assert '<Labels name="label" toName="text">' in config
    # reviewers mark whole tokens: the interface snaps regions to words (issue 33)
    assert '<Text name="text" value="$text" granularity="word"/>' in config
    assert [v for v in ("LOC", "ORG", "PER") if f'<Label value="{v}" hint="' in config] == [
        "LOC",
        "ORG",
        "PER",
    ]
    # the task and the meaning of each type, and the context around the sentence
    assert "Correct the spans of the middle sentence only" in config
    assert '<Header value="PER — a person&#x27;s name (real or fictional)" size="6"/>' in config
    assert '<Text name="before" value="$before"/>' in config
    assert '<Text name="after" value="$after"/>' in config
    guidelines = (tmp_path / "out" / "guidelines.md").read_text()
    assert "- `LOC`: a location" in guidelines and "Mark whole tokens" in guidelines
    tasks = json.loads((tmp_path / "out" / "tasks.json").read_text())
    key = [json.loads(line) for line in (tmp_path / "out" / "key.jsonl").open()]
    # numpy's permutation of the four flagged sentences with seed 2: [3, 2, 0, 1]
    order = np.random.default_rng(2).permutation(4)
    assert [k["sentence"] for k in key] == order.tolist() == [3, 2, 0, 1]
    assert [k["stratum"] for k in key] == ["disputed"] * 4
    first = tasks[0]
    assert first["data"] == {
        "review_id": "r0001",
        "content_hash": key[0]["content_hash"],
        "text": "我在北京工作。",  # CJK joined without spaces
        # its neighbours in the file (no -DOCSTART-: no document)
        "before": _sentence_text(tasks, key, 2),
        "after": "Paris is nice .",
        "document": "",
    }
    # the gold span 北京 (LOC), pre-annotated; no model source, no model type anywhere
    assert first["predictions"] == [
        {
            "model_version": "gold",
            "result": [
                {
                    "id": "g1",
                    "from_name": "label",
                    "to_name": "text",
                    "type": "labels",
                    "value": {"start": 2, "end": 4, "text": "北京", "labels": ["LOC"]},
                }
            ],
        }
    ]
    # every task pre-annotates exactly its sentence's gold spans, nothing of the model
    for task, k in zip(tasks, key, strict=True):
        (pre,) = task["predictions"]
        text = task["data"]["text"]
        marked = [
            (r["value"]["start"], r["value"]["end"], r["value"]["labels"][0]) for r in pre["result"]
        ]
        gold = [(k["char_starts"][a], k["char_ends"][b - 1], t) for a, b, t in k["gold_spans"]]
        assert marked == gold and all(text[a:b] for a, b, _ in marked)
        assert set(task) == {"id", "data", "predictions"} and set(task["data"]) == {
            "review_id",
            "content_hash",
            "text",
            "before",
            "after",
            "document",
        }
    # the key: token offsets by hand, the gold spans, the flag
    assert key[0]["char_starts"] == [0, 1, 2, 4, 6] and key[0]["char_ends"] == [1, 2, 4, 6, 7]
    assert key[0]["gold_spans"] == [[2, 3, "LOC"]]
    assert key[0]["flags"][0]["id"] == "3:2-3|2-3"
    assert key[0]["flags"][0]["pred_type"] == "ORG"


def test_export_seed_sample_and_audit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _export(tmp_path, "--seed", "0", "--sample", "2", "--audit-sample", "1")
    key = [json.loads(line) for line in (tmp_path / "out" / "key.jsonl").open()]
    rng = np.random.default_rng(0)
    chosen = np.array([0, 1, 2, 3])[rng.permutation(4)][:2]
    audit = rng.choice(np.array([4]), size=1, replace=False)  # "Paris is nice ." alone
    both = np.concatenate([chosen, audit])
    expected = both[rng.permutation(3)].tolist()
    assert [k["sentence"] for k in key] == expected
    assert sorted(k["stratum"] for k in key) == ["disputed", "disputed", "undisputed"]


@pytest.mark.parametrize(("export", "stem"), EXPORTS)
def test_import_label_studio_exports(review, export, stem):
    argv = ["review", "import", f"review/{export}", "-o", "spans.jsonl", "--json", "s.json"]
    assert main(argv) == 0
    summary = json.loads(Path("s.json").read_text())
    assert summary["review"] == "spans"
    assert summary["experts"] == [f"{stem}@1", f"{stem}@2"]
    assert summary["status_counts"] == {"experts_agree": 2, "unresolved": 2}
    assert summary["unresolved_ids"] == ["r0001", "r0002"]  # 北京 disputed; skipped task
    assert summary["span_agreement"] == {"spans": 6, "agreed": 4, "percent": 4 / 6}
    assert summary["changes"] == {"kept": 2, "added": 2, "removed": 2}
    assert {f["id"]: f["verdict"] for f in summary["flags"]} == {
        "3:2-3|2-3": "unresolved",
        "2:-|3-4": "unresolved",
        "0:3-4|3-5": "confirmed",
        "1:0-1|0-1": "confirmed",
    }
    assert {f["id"]: f["prediction_in_gold"] for f in summary["flags"]} == {
        "3:2-3|2-3": None,
        "2:-|3-4": None,
        "0:3-4|3-5": True,
        "1:0-1|0-1": True,
    }
    disputed = [s for s in summary["spans"] if not s["agree"]]
    assert [(s["type"], s["marked_by"]) for s in disputed] == [
        ("LOC", [f"{stem}@1"]),
        ("ORG", [f"{stem}@2"]),
    ]
    spans = pl.read_ndjson("spans.jsonl")
    assert spans.rows() == [
        ("r0003", "gold", 0, 0, 1, "PER", "experts_agree", True, 2, "disputed"),
        ("r0003", "gold", 0, 3, 5, "LOC", "experts_agree", False, 2, "disputed"),
        ("r0004", "gold", 1, 0, 1, "PER", "experts_agree", False, 2, "disputed"),
        ("r0004", "gold", 1, 3, 5, "ORG", "experts_agree", True, 2, "disputed"),
    ]
    assert spans.columns == [
        "review_id",
        "split",
        "sentence",
        "start",
        "end",
        "type",
        "status",
        "original",
        "experts",
        "stratum",
    ]


@pytest.mark.parametrize(("export", "stem"), EXPORTS)
def test_import_majority_and_adjudicator(review, export, stem):
    argv = ["review", "import", f"review/{export}", "-o", "a.jsonl", "--json", "a.json"]
    assert main([*argv, "--consensus", "adjudicator", "--adjudicator", f"{stem}@2"]) == 0
    adj = json.loads(Path("a.json").read_text())
    # reviewer two skipped r0002 (unresolved still) and says ORG for 北京
    assert adj["status_counts"] == {"experts_agree": 2, "adjudicated": 1, "unresolved": 1}
    assert adj["flag_counts"] == {"confirmed": 3, "rejected": 0, "unresolved": 1}
    rows = pl.read_ndjson("a.jsonl").filter(pl.col("sentence") == 3)
    assert rows.select("start", "end", "type", "status").rows() == [(2, 3, "ORG", "adjudicated")]
    argv = ["review", "import", f"review/{export}", "-o", "m.jsonl", "--json", "m.json"]
    assert main([*argv, "--consensus", "majority"]) == 0
    maj = json.loads(Path("m.json").read_text())
    # r0002: one answer, its spans are a majority of one; 北京: LOC and ORG tie, unresolved
    assert maj["status_counts"] == {"experts_agree": 2, "majority": 1, "unresolved": 1}
    rows = pl.read_ndjson("m.jsonl").filter(pl.col("sentence") >= 2)
    assert rows.select("sentence", "start", "end", "type").rows() == [
        (2, 0, 1, "PER"),
        (2, 2, 3, "PER"),
    ]
    assert {f["id"]: f["verdict"] for f in maj["flags"]}["3:2-3|2-3"] == "unresolved"
    assert {f["id"]: f["verdict"] for f in maj["flags"]}["2:-|3-4"] == "rejected"


def _edit_min(path: Path, edit) -> None:
    rows = json.loads(path.read_text())
    edit(rows)
    path.write_text(json.dumps(rows, ensure_ascii=False))


def _refused(capsys, *argv: str) -> str:
    assert main(["review", "import", *argv, "-o", "bad.jsonl"]) == 2
    assert not Path("bad.jsonl").exists()
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return err


def test_region_off_token_boundaries(review, capsys):
    def cut(rows):  # "New Yor": ends inside the token York
        row = next(r for r in rows if r["review_id"] == "r0003" and r["annotator"] == 1)
        row["label"][1]["end"] -= 1

    _edit_min(Path("review/ls_min.json"), cut)
    err = _refused(capsys, "review/ls_min.json")
    assert "item 5 (review_id r0003)" in err and "'New Yor'" in err
    assert "not on token boundaries" in err and len(err.splitlines()) == 1


def test_region_with_edge_whitespace_is_trimmed(review):
    def widen(rows):  # " New York " with the spaces around it: the same tokens
        for r in rows:
            if r["review_id"] == "r0003":
                r["label"][1]["start"] -= 1
                r["label"][1]["end"] += 1

    _edit_min(Path("review/ls_min.json"), widen)
    assert main(["review", "import", "review/ls_min.json", "-o", "s.jsonl"]) == 0
    rows = pl.read_ndjson("s.jsonl").filter(pl.col("sentence") == 0)
    assert rows.select("start", "end", "type").rows() == [(0, 1, "PER"), (3, 5, "LOC")]


def test_bad_exports_are_one_line(review, capsys):
    def retype(rows):
        rows[0]["label"][0]["labels"] = ["MISC"]

    _edit_min(Path("review/ls_min.json"), retype)
    err = _refused(capsys, "review/ls_min.json")
    assert "'MISC' is none of the review's types" in err and len(err.splitlines()) == 1

    def rehash(rows):
        rows[0]["content_hash"] = "0" * 16
        rows[1]["content_hash"] = "0" * 16

    shutil.copy(FIXTURES / "ls_min.json", "review/ls_min.json")
    _edit_min(Path("review/ls_min.json"), rehash)
    err = _refused(capsys, "review/ls_min.json")
    assert "differs from the key's" in err

    def foreign(rows):
        for r in rows:
            if r["review_id"] == "r0001":
                r["review_id"] = "r0999"

    shutil.copy(FIXTURES / "ls_min.json", "review/ls_min.json")
    _edit_min(Path("review/ls_min.json"), foreign)
    assert "not in the review key" in _refused(capsys, "review/ls_min.json")

    err = _refused(capsys, "review/ls.json", "--reconciled", "review/ls_table.csv")
    assert "--reconciled is for classification reviews" in err
    err = _refused(capsys, "review/ls.json", "--consensus", "dawid-skene")
    assert "for a span review" in err


def test_reviewer_who_skipped_everything(review, capsys):
    tasks = json.loads(Path("review/ls.json").read_text())
    for t in tasks:
        for a in t["annotations"]:
            if a["completed_by"] == 2:
                a["was_cancelled"] = True
    Path("review/ls.json").write_text(json.dumps(tasks))
    err = _refused(capsys, "review/ls.json")
    assert "reviewer 'ls@2' answered nothing" in err


def test_ner_needs_span_flags(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("gold.conll").write_text(GOLD)
    Path("pred.conll").write_text(PRED)
    assert main(["flag-spans", "gold.conll", "--predictions", "pred.conll", "-o", "sf.jsonl"]) == 0
    Path("items.jsonl").write_text('{"id": "a", "text": "x", "label": "1", "llm_label": "0"}\n')
    capsys.readouterr()
    assert main(["review", "export", "items.jsonl", "--ner", "gold.conll", "-o", "out"]) == 2
    assert "--ner is for span flags" in capsys.readouterr().err and not Path("out").exists()
    # a split column naming another split: refused
    pl.read_ndjson("sf.jsonl").with_columns(pl.lit("dev").alias("split")).write_ndjson("o.jsonl")
    assert main(["review", "export", "o.jsonl", "--ner", "gold.conll", "-o", "out"]) == 2
    assert "split 'dev'" in capsys.readouterr().err and not Path("out").exists()


def test_extra_columns_and_unflagged_rows(tmp_path, monkeypatch):
    """Scored flags (the tagger's): extra columns tolerated, ``flagged`` false not reviewed."""
    monkeypatch.chdir(tmp_path)
    Path("gold.conll").write_text(GOLD)
    Path("pred.conll").write_text(PRED)
    assert main(["flag-spans", "gold.conll", "--predictions", "pred.conll", "-o", "sf.jsonl"]) == 0
    flags = pl.read_ndjson("sf.jsonl").with_columns(
        pl.lit("gold").alias("split"),
        pl.Series("error_score", [0.9, 0.2, 0.8, 0.1]),
    )
    flags = flags.with_columns((pl.col("error_score") >= 0.5).alias("flagged"))
    flags.write_ndjson("scored.jsonl")
    assert main(["review", "export", "scored.jsonl", "--ner", "gold.conll", "-o", "out"]) == 0
    key = [json.loads(line) for line in Path("out/key.jsonl").open()]
    wanted = flags.filter(pl.col("flagged"))["sentence"].to_list()
    assert sorted(k["sentence"] for k in key) == sorted(wanted)


def _no_entity_expected(stem: str) -> None:
    summary = json.loads(Path("s.json").read_text())
    assert summary["status_counts"] == {"experts_agree": 2, "unresolved": 2}
    assert summary["changes"] == {"kept": 1, "added": 1, "removed": 3}
    flags = {f["id"]: (f["verdict"], f["prediction_in_gold"]) for f in summary["flags"]}
    assert flags["0:3-4|3-5"] == ("confirmed", False)  # New (LOC) is gone, New York too
    spans = pl.read_ndjson("s.jsonl")
    assert spans.select("sentence", "start", "end", "type").rows() == [
        (0, None, None, None),  # settled with no entity: a row without a span says so
        (1, 0, 1, "PER"),
        (1, 3, 5, "ORG"),
    ]


def test_no_entity_answer_in_json_min(review):
    """A submitted annotation without a region: JSON-MIN gives the row without ``label``.

    That is what Label Studio 1.23.2 exported for one (checked against the running app;
    a skipped or never annotated task has no row at all).
    """

    def clear(rows):
        for r in rows:
            if r["review_id"] == "r0003":
                del r["label"]

    _edit_min(Path("review/ls_min.json"), clear)
    argv = ["review", "import", "review/ls_min.json", "-o", "s.jsonl", "--json", "s.json"]
    assert main(argv) == 0
    _no_entity_expected("ls_min")


def test_no_entity_answer_in_csv(review):
    """In the CSV export the same annotation has an empty ``label`` cell."""
    table = pl.read_csv("review/ls_table.csv", infer_schema=False)
    table = table.with_columns(
        pl.when(pl.col("review_id") == "r0003").then(None).otherwise(pl.col("label")).alias("label")
    )
    table.write_csv("review/ls_table.csv")
    argv = ["review", "import", "review/ls_table.csv", "-o", "s.jsonl", "--json", "s.json"]
    assert main(argv) == 0
    _no_entity_expected("ls_table")


def test_span_flags_read_back_from_csv(tmp_path, monkeypatch):
    """Span flags written as CSV (strings, empty cells) give the same package as JSONL."""
    monkeypatch.chdir(tmp_path)
    _export(tmp_path, "--seed", "2")
    scored = pl.read_ndjson("sf.jsonl").with_columns(
        pl.lit("gold").alias("split"),
        pl.Series("gold_start", [0, 2, 3, None]),
        pl.Series("flagged", [True, True, True, False]),
    )
    scored.write_ndjson("scored.jsonl")
    scored.write_csv("scored.csv")
    for name in ("scored.jsonl", "scored.csv"):
        argv = ["review", "export", name, "--ner", "gold.conll", "--seed", "2"]
        assert main([*argv, "-o", f"out_{Path(name).suffix[1:]}"]) == 0
    assert Path("out_csv/key.jsonl").read_text() == Path("out_jsonl/key.jsonl").read_text()
    key = [json.loads(line) for line in Path("out_csv/key.jsonl").open()]
    assert len(key) == 3  # the row with flagged false is not reviewed
