"""The audit's NER label-errors section: the tagger's numbers per split, or why not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn_crfsuite")

from benchcheck.io.conll import read_conll  # noqa: E402
from benchcheck.labels.ner_detect import tagger_flags  # noqa: E402
from benchcheck.labels.ner_flags import spans_from_split  # noqa: E402
from benchcheck.runs.audit import AuditInputs, NerInput, run_audit  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[2] / "labels"))
from test_labels_ner_detect import corpus  # noqa: E402


def test_split_counts_match_flag_spans_and_a_small_split_says_why(tmp_path):
    (tmp_path / "train.txt").write_text(corpus(n=30, wrong={5: "B-PER", 9: "O"}))
    (tmp_path / "dev.txt").write_text(corpus(n=3))
    results = run_audit(AuditInputs(ner=NerInput(str(tmp_path)))).results
    section = results["ner_label_errors"]
    rows = {r["split"]: r for r in section["splits"]}
    dev = rows["dev"]
    assert dev["checked"] == 0 and dev["flagged"] == 0
    assert "at least 5 sentences with entities for --folds 5" in dev["skipped"]
    split = read_conll(tmp_path / "train.txt")
    found = tagger_flags(split.tokens, spans_from_split(split), split.n)
    train = rows["train"]
    assert train["skipped"] is None and train["checked"] == 30
    assert train["disagreements"] == found.flags.height
    assert train["flagged"] == int(found.flags["flagged"].sum()) == section["examples_total"]
    scores = [e["error_score"] for e in section["examples"]]
    assert scores == sorted(scores, reverse=True)
    assert [e["rank"] for e in section["examples"]] == list(range(1, len(scores) + 1))
