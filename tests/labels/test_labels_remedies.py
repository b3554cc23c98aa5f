"""Remedies (filter/flip + random ablation) and re-ranking on gold labels."""

import hashlib
import json

import numpy as np
import polars as pl
import pytest
from _labels_synth import make_case, write_jsonl
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

from benchcheck.data.scores import ModelScores
from benchcheck.errors import InputError, UsageError
from benchcheck.io.tables import read_rows
from benchcheck.labels.detectors import detect
from benchcheck.labels.remedies import apply_remedy, rerank
from benchcheck.runs.labels import write_remedy


def _flags(n=80, seed=0):
    data, j, truth, flipped = make_case(n, flip_rate=0.2, seed=seed)
    d = data.with_columns(pl.col("label").cast(pl.String))
    return data, detect(d, j, calibration="none", threshold=0.0).frame


@pytest.mark.parametrize("mode", ["filter", "flip"])
def test_remedy_counts_types_and_ablation(tmp_path, mode):
    data, f = _flags()
    src = write_jsonl(data, tmp_path / "train.jsonl")
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    rows = read_rows(src)
    out = apply_remedy(rows, f, mode=mode, min_confidence=0.8, seed=3)
    sel = f.filter(pl.col("disagree") & (pl.col("confidence") >= 0.8))
    k = sel.height
    assert k > 0
    assert out["_selected"]["id"].to_list() == [i for i in data["id"] if i in set(sel["id"])]
    assert out["_ablation"].height == k
    again = apply_remedy(rows, f, mode=mode, min_confidence=0.8, seed=3)
    assert again["_ablation"]["id"].to_list() == out["_ablation"]["id"].to_list()
    other = apply_remedy(rows, f, mode=mode, min_confidence=0.8, seed=4)
    assert other["_ablation"]["id"].to_list() != out["_ablation"]["id"].to_list()
    cleaned, abl = out["cleaned"], out["ablation_random"]
    assert cleaned["label"].dtype == data["label"].dtype  # ints stay ints
    if mode == "filter":
        assert cleaned.height == abl.height == data.height - k
        assert not set(sel["id"]) & set(cleaned["id"])
    else:
        assert cleaned.height == data.height
        new = dict(zip(cleaned["id"], cleaned["label"], strict=True))
        llm = dict(zip(sel["id"], sel["llm_label"], strict=True))
        assert all(str(new[i]) == llm[i] for i in llm)
        changed = (abl["label"] != data["label"]).sum()
        assert changed == k
    res = write_remedy(out, tmp_path / "out", source=src, mode=mode, min_confidence=0.8, seed=3)
    assert res.n == data.height and res.n_selected == k
    back = read_rows(res.files["cleaned"])
    assert back.height == cleaned.height
    assert hashlib.sha256(src.read_bytes()).hexdigest() == digest  # input untouched
    with pytest.raises(UsageError, match="it is an input of this command"):
        write_remedy(
            out, tmp_path, source=tmp_path / "cleaned.jsonl", mode=mode, min_confidence=0.8, seed=3
        )


def test_remedy_bad_options():
    data, f = _flags(20)
    with pytest.raises(UsageError):
        apply_remedy(data, f, mode="erase")
    with pytest.raises(InputError):
        apply_remedy(data, f, label_col="nope")


def test_rerank_by_hand_and_rank_change():
    rng = np.random.default_rng(0)
    n = 300
    gold = rng.integers(0, 2, n)
    original = np.where(rng.random(n) < 0.2, 1 - gold, gold)
    # model A fits the gold labels, model B copies the original (noisy) labels
    a_pred = np.where(rng.random(n) < 0.85, gold, 1 - gold)
    b_pred = np.where(rng.random(n) < 0.95, original, 1 - original)
    a_score = a_pred * 0.5 + rng.random(n) * 0.5
    b_score = b_pred * 0.5 + rng.random(n) * 0.5
    ids = [str(i) for i in range(n)]
    models = [
        ModelScores("A", tuple(ids), tuple(a_score), None),
        ModelScores("B", tuple(reversed(ids)), tuple(b_score[::-1]), None),
    ]
    res = rerank(
        ids, [str(v) for v in original], [str(v) for v in gold], models, n_resamples=100, seed=0
    )
    assert res.models["A"]["roc_auc"]["gold"] == pytest.approx(roc_auc_score(gold, a_score))
    assert res.models["B"]["roc_auc"]["original"] == pytest.approx(roc_auc_score(original, b_score))
    a_lab = (a_score > 0.5).astype(int)
    assert res.models["A"]["f1"]["gold"] == pytest.approx(f1_score(gold, a_lab))
    assert res.models["A"]["accuracy"]["original"] == pytest.approx(accuracy_score(original, a_lab))
    assert res.ranks["A"]["accuracy"] == {"original": 2, "gold": 1, "change": 1}
    assert res.ranks["B"]["accuracy"] == {"original": 1, "gold": 2, "change": -1}
    pw = [p for p in res.pairwise if p["metric"] == "accuracy"][0]
    assert pw["difference"] == pytest.approx(
        accuracy_score(gold, a_lab) - accuracy_score(gold, (b_score > 0.5))
    )
    assert pw["ci"][0] <= pw["difference"] <= pw["ci"][1]
    json.dumps(res.to_dict())
    with pytest.raises(
        InputError, match=r"1 of 301 ids of the gold file are not in the outputs of model 'A' \('x'"
    ):
        rerank(
            ids + ["x"],
            [str(v) for v in original] + ["0"],
            [str(v) for v in gold] + ["0"],
            models,
            n_resamples=10,
        )
