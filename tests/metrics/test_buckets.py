"""Where models fail: bucketed F1 against seqeval and against hand counts."""

from __future__ import annotations

import json

import numpy as np
from seqeval.metrics import f1_score

from benchcheck.io.load import load, read_predictions
from benchcheck.metrics.buckets import bucket_predictions, bucket_scores


def _write(path, sents):
    path.write_text(
        "\n\n".join("\n".join(f"{w} {t}" for w, t in s) for s in sents) + "\n", encoding="utf-8"
    )


TRAIN = [
    [("Paris", "B-LOC"), ("is", "O"), ("nice", "O")],
    [("Jordan", "B-PER"), ("won", "O")],
    [("Jordan", "B-LOC"), ("is", "O"), ("dry", "O")],
]
TEST = [
    [("Paris", "B-LOC"), ("is", "O"), ("nice", "O")],  # leaked sentence, seen entity
    [("Jordan", "B-PER"), ("met", "O"), ("Anna", "B-PER")],  # ambiguous seen + unseen
    [("Berlin", "B-LOC"), ("and", "O"), ("Rome", "B-LOC")],  # unseen
]
PRED = [
    [("Paris", "B-LOC"), ("is", "O"), ("nice", "O")],  # correct
    [("Jordan", "B-LOC"), ("met", "O"), ("Anna", "B-PER")],  # Jordan wrong type, Anna right
    [("Berlin", "B-LOC"), ("and", "B-ORG"), ("Rome", "O")],  # Berlin right, 'and' spurious
]


def test_hand_fixture(tmp_path):
    _write(tmp_path / "train.txt", TRAIN)
    _write(tmp_path / "test.txt", TEST)
    _write(tmp_path / "pred.txt", PRED)
    ds = load(tmp_path)
    got = bucket_predictions(ds, read_predictions({"m": tmp_path / "pred.txt"}))["m"]
    # Gold: Paris, Jordan(PER), Anna, Berlin, Rome = 5; predicted: Paris, Jordan(LOC), Anna,
    # Berlin, and(ORG) = 5; correct 3.
    assert got["all"]["n_gold"] == 5 and got["all"]["n_pred"] == 5
    assert abs(got["all"]["f1"] - 0.6) < 1e-12
    assert got["all"]["seqeval_f1"] == f1_score(
        [[t for _, t in s] for s in TEST], [[t for _, t in s] for s in PRED]
    )
    # Seen surfaces (train entities Paris, Jordan): gold Paris, Jordan; pred Paris, Jordan.
    assert got["seen"] == {"f1": 0.5, "precision": 0.5, "recall": 0.5, "n_gold": 2, "n_pred": 2}
    # Unseen: gold Anna, Berlin, Rome; pred Anna, Berlin, and → P 2/3, R 2/3.
    assert abs(got["unseen"]["f1"] - 2 / 3) < 1e-12
    # Ambiguous (Jordan: PER and LOC in train): gold 1, pred 1, none correct.
    assert got["ambiguous"]["f1"] == 0.0 and got["ambiguous"]["n_gold"] == 1
    # Leaked sentence 0 only.
    assert got["leaked"]["n_sentences"] == 1 and got["leaked"]["f1"] == 1.0
    assert got["clean"]["n_sentences"] == 2


def test_sentence_buckets_are_seqeval_on_subsets(tmp_path):
    from benchcheck.sample_data import NER_SAMPLE

    ds = load(NER_SAMPLE)
    gold = ds["test"]
    rng = np.random.default_rng(0)
    lines = (NER_SAMPLE / "test.txt").read_text(encoding="utf-8").splitlines()
    tags = ["O", "B-PER", "I-PER", "B-LOC", "B-ORG", "I-ORG"]
    out = []
    for line in lines:
        parts = line.split(" ")
        if len(parts) == 2 and not line.startswith("-DOCSTART-") and rng.random() < 0.3:
            parts[1] = tags[rng.integers(len(tags))]
        out.append(" ".join(parts))
    pred_path = tmp_path / "pred.txt"
    pred_path.write_text("\n".join(out) + "\n", encoding="utf-8")
    from benchcheck.io.conll import read_conll

    pred = read_conll(pred_path, name="m")
    got = bucket_scores(ds, pred)
    g = gold.tokens.group_by("sentence", maintain_order=True).agg("tag")["tag"].to_list()
    p = pred.tokens.group_by("sentence", maintain_order=True).agg("tag")["tag"].to_list()
    assert abs(got["all"]["f1"] - f1_score(g, p)) < 1e-12
    lengths = [len(s) for s in g]
    for name in [k for k in got if k.startswith("length")]:
        lo, hi = name.split(" ")[1].split("-")
        keep = [i for i, n in enumerate(lengths) if n >= int(lo) and (not hi or n <= int(hi))]
        if keep:
            assert (
                abs(got[name]["f1"] - f1_score([g[i] for i in keep], [p[i] for i in keep])) < 1e-12
            )
    # Entity buckets partition the entities.
    for a, b in (("seen", "unseen"), ("ambiguous", "unambiguous")):
        assert got[a]["n_gold"] + got[b]["n_gold"] == got["all"]["n_gold"]
        assert got[a]["n_pred"] + got[b]["n_pred"] == got["all"]["n_pred"]


def test_stats_reports_buckets(tmp_path, capsys):
    from benchcheck.cli import main

    _write(tmp_path / "train.txt", TRAIN)
    _write(tmp_path / "test.txt", TEST)
    _write(tmp_path / "p.conll", PRED)
    rc = main(["stats", str(tmp_path), "--predictions", f"m={tmp_path / 'p.conll'}", "--json", "-"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert abs(out["buckets"]["m"]["all"]["f1"] - 0.6) < 1e-12
    assert out["model_scores"]["m"] == 60.0
