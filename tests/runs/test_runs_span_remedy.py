"""``remedy --spans`` and ``stats --reviewed``: a tiny CoNLL corpus, hand-written corrections."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

from benchcheck.cli import main

# Tab-separated with a middle column and a DOCSTART line; BIOES tags.
CORPUS = (
    "-DOCSTART-\tX\tO\n"
    "\n"
    "Ann\tNNP\tS-PER\n"
    "met\tVBD\tO\n"
    "New\tNNP\tB-ORG\n"
    "York\tNNP\tE-ORG\n"
    "\n"
    "Bob\tNNP\tS-PER\n"
    "left\tVBD\tO\n"
    "\n"
    "Paris\tNNP\tS-LOC\n"
    "is\tVBZ\tO\n"
    "big\tJJ\tO\n"
)
# Sentence 0: New York is a LOC; sentence 1: Bob is no entity; sentence 2: kept as it was.
CORRECTED = (
    "review_id,split,sentence,start,end,type,status,original,experts,stratum\n"
    "r1,test,0,0,1,PER,experts_agree,true,1,disputed\n"
    "r1,test,0,2,4,LOC,experts_agree,false,1,disputed\n"
    "r2,test,1,,,,experts_agree,,,disputed\n"
    "r3,test,2,0,1,LOC,experts_agree,true,1,undisputed\n"
)
CORRECTED_FILE = (
    "-DOCSTART-\tX\tO\n"
    "\n"
    "Ann\tNNP\tS-PER\n"
    "met\tVBD\tO\n"
    "New\tNNP\tB-LOC\n"
    "York\tNNP\tE-LOC\n"
    "\n"
    "Bob\tNNP\tO\n"
    "left\tVBD\tO\n"
    "\n"
    "Paris\tNNP\tS-LOC\n"
    "is\tVBZ\tO\n"
    "big\tJJ\tO\n"
)
FILTERED_FILE = "-DOCSTART-\tX\tO\n\n"


@pytest.fixture
def case(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("test.txt").write_text(CORPUS)
    Path("corrected.csv").write_text(CORRECTED)
    return tmp_path


def test_correct_retags_the_changed_sentences_in_the_file_scheme(case, capsys):
    assert main(["remedy", "test.txt", "--spans", "corrected.csv", "--mode", "correct",
                 "-o", "out", "--json", "r.json"]) == 0  # fmt: skip
    assert Path("out/test.txt").read_text() == CORRECTED_FILE
    assert Path("test.txt").read_text() == CORPUS
    r = json.loads(Path("r.json").read_text())
    assert (r["scheme"], r["n_reviewed"], r["n_corrected"], r["n_written"]) == ("BIOES", 3, 2, 3)


def test_filter_removes_every_reviewed_sentence(case, capsys):
    assert main(["remedy", "test.txt", "--spans", "corrected.csv", "--mode", "filter",
                 "-o", "out"]) == 0  # fmt: skip
    assert Path("out/test.txt").read_text() == FILTERED_FILE


def test_filter_keeps_unreviewed_sentences_byte_for_byte(case, capsys):
    Path("one.csv").write_text("split,sentence,start,end,type\ntest,1,,,\n")
    assert main(["remedy", "test.txt", "--spans", "one.csv", "--mode", "filter",
                 "-o", "out"]) == 0  # fmt: skip
    blocks = CORPUS.split("\n\n")
    assert Path("out/test.txt").read_text() == "\n\n".join([blocks[0], blocks[1], blocks[3]])


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("dev,0,0,1,PER", "split 'dev' is not in the corpus"),
        ("test,3,0,1,PER", "sentence 3 is out of range: test has 3 sentences"),
        ("test,1,1,3,PER", "span [1, 3) of test sentence 1 ends past the sentence's 2 tokens"),
    ],
)
def test_corrections_off_the_corpus_exit_2_and_write_nothing(case, capsys, row, message):
    Path("bad.csv").write_text(f"split,sentence,start,end,type\n{row}\n")
    for argv in (
        ["remedy", "test.txt", "--spans", "bad.csv", "-o", "out"],
        ["stats", "--split", "test=test.txt", "--reviewed", "bad.csv", "--json", "s.json"],
    ):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err and "bad.csv:2" in err
        assert not Path("out").exists() and not Path("s.json").exists()


def test_other_formats_are_refused(case, capsys):
    Path("data.jsonl").write_text('{"tokens": ["Ann"], "tags": ["B-PER"]}\n')
    assert main(["remedy", "data.jsonl", "--spans", "corrected.csv", "-o", "out"]) == 2
    assert "writes CoNLL only" in capsys.readouterr().err
    assert main(["remedy", "test.txt", "--spans", "corrected.csv", "--mode", "flip",
                 "-o", "out"]) == 2  # fmt: skip
    assert not Path("out").exists()


def test_stats_reviewed_accuracy_from_the_audit_rows(case, capsys):
    """The table marks sentence 2 as audit: accuracy 1/1 there; all reviewed: 2 of 3 changed."""
    assert main(["stats", "--split", "test=test.txt", "--reviewed", "corrected.csv",
                 "--json", "s.json"]) == 0  # fmt: skip
    block = json.loads(Path("s.json").read_text())["reviewed_accuracy"]
    t = block["splits"]["test"]
    assert block["sample"] == "audit"
    counts = (t["n_reviewed"], t["n_changed"], t["n_reviewed_all"], t["n_changed_all"])
    assert counts == (1, 0, 3, 2)
    low, high = proportion_confint(1, 1, alpha=0.05, method="beta")
    assert t["accuracy"] == 1.0 and t["ci"] == pytest.approx([low, high], abs=1e-9)


def test_stats_reviewed_flagged_only_is_labelled_a_lower_bound(case, capsys):
    Path("flagged.csv").write_text(CORRECTED.replace("undisputed", "disputed"))
    assert main(["stats", "--split", "test=test.txt", "--reviewed", "flagged.csv"]) == 0
    out = capsys.readouterr().out
    assert "flagged sentences only: a lower bound" in out
    assert main(["stats", "--split", "test=test.txt", "--reviewed", "flagged.csv",
                 "--json", "s.json"]) == 0  # fmt: skip
    t = json.loads(Path("s.json").read_text())["reviewed_accuracy"]["splits"]["test"]
    low, high = proportion_confint(1, 3, alpha=0.05, method="beta")
    assert (t["n_reviewed"], t["n_changed"]) == (3, 2)
    assert [t["accuracy"], *t["ci"]] == pytest.approx([1 / 3, low, high], abs=1e-9)


def test_correct_keeps_crlf_spaces_and_iob1(case, capsys):
    """Space-separated CRLF lines keep their separators and line ends; IOB1 stays IOB1."""
    Path("dev.txt").write_bytes(b"Ann  I-PER\r\nBob  I-PER\r\nleft O\r\n\r\nyes O\r\n")
    Path("c.csv").write_text("split,sentence,start,end,type\ndev,0,0,1,PER\ndev,0,1,2,PER\n")
    assert main(["remedy", "dev.txt", "--spans", "c.csv", "--mode", "correct", "-o", "out",
                 "--scheme", "IOB1"]) == 0  # fmt: skip
    assert Path("out/dev.txt").read_bytes() == (
        b"Ann  I-PER\r\nBob  B-PER\r\nleft O\r\n\r\nyes O\r\n"
    )


def test_overlapping_corrections_and_a_stray_scheme_are_refused(case, capsys):
    Path("o.csv").write_text("split,sentence,start,end,type\ntest,0,0,2,PER\ntest,0,1,3,ORG\n")
    assert main(["remedy", "test.txt", "--spans", "o.csv", "--mode", "correct", "-o", "out"]) == 2
    assert "overlap" in capsys.readouterr().err
    Path("data.jsonl").write_text('{"id": "1", "text": "a", "label": "x"}\n')
    Path("f.jsonl").write_text('{"id": "1", "llm_label": "y", "confidence": 1, "disagree": 1}\n')
    argv = ["remedy", "data.jsonl", "--flags", "f.jsonl", "--scheme", "IOB2", "-o", "out"]
    assert main(argv) == 2
    assert "--scheme goes with --spans" in capsys.readouterr().err
    assert not Path("out").exists()
