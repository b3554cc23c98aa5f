"""Crowd models on a simulated crowd with known reviewer accuracies (issue 28's check).

1,000 items, five reviewers of accuracy 0.95 / 0.9 / 0.8 / 0.7 / 0.55 who each answer every
item (a wrong answer: another label, uniformly). The models see the answers only.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from benchcheck.errors import UsageError
from benchcheck.labels.crowd import fit_crowd_model
from benchcheck.stats.agreement import majority_vote

ACCURACY = (0.95, 0.9, 0.8, 0.7, 0.55)


def simulate(n: int, k: int, seed: int, accuracy=ACCURACY):
    """``(answers, truth, observed accuracy per reviewer)``."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    answers, observed = [], {}
    for w, acc in enumerate(accuracy):
        right = rng.random(n) < acc
        wrong = (truth + rng.integers(1, k, n)) % k
        given = np.where(right, truth, wrong)
        observed[f"r{w}"] = float(np.mean(given == truth))
        answers += [(f"i{i:04d}", f"r{w}", str(given[i])) for i in range(n)]
    return answers, [str(t) for t in truth], observed


def _gold_accuracy(model, truth):
    gold = model.gold()
    return float(np.mean([gold[f"i{i:04d}"] == t for i, t in enumerate(truth)]))


def _majority_accuracy(answers, truth):
    by_item: dict[str, list[str]] = {}
    for item, _, lab in answers:
        by_item.setdefault(item, []).append(lab)
    votes = majority_vote([by_item[f"i{i:04d}"] for i in range(len(truth))])
    return float(np.mean([v == t for v, t in zip(votes, truth, strict=True)]))


def test_dawid_skene_recovers_the_issue_crowd():
    answers, truth, observed = simulate(1000, 2, seed=0)
    model = fit_crowd_model(answers, method="dawid-skene")
    for w, acc in enumerate(ACCURACY):
        est = model.accuracy[f"r{w}"]
        assert est == pytest.approx(acc, abs=0.05)  # the issue's target, nominal accuracy
        assert est == pytest.approx(observed[f"r{w}"], abs=0.02)  # this sample's accuracy
    ds, mv = _gold_accuracy(model, truth), _majority_accuracy(answers, truth)
    assert ds > mv + 0.015  # measured 0.976 vs 0.945 on this seed
    assert all(abs(sum(p) - 1) < 1e-9 for p in model.posteriors.values())
    assert model.answers == {f"r{w}": 1000 for w in range(5)}


@pytest.mark.parametrize("method", ["glad", "mace"])
def test_glad_and_mace_recover_a_three_label_crowd(method):
    answers, truth, observed = simulate(300, 3, seed=1)
    model = fit_crowd_model(answers, method=method, seed=0)
    for w in range(len(ACCURACY)):
        assert model.accuracy[f"r{w}"] == pytest.approx(observed[f"r{w}"], abs=0.05)
    assert _gold_accuracy(model, truth) >= _majority_accuracy(answers, truth)


def test_labels_order_unseen_label_and_refusals():
    answers = [("a", "x", "1"), ("a", "y", "1"), ("b", "x", "0"), ("b", "y", "0")]
    model = fit_crowd_model(answers, labels=["0", "1", "2"])
    assert model.labels == ("0", "1", "2")
    assert model.probability("a", "2") == 0.0 and model.probability("a", "9") == 0.0
    js = model.to_json()
    assert set(js) == {"method", "reviewers", "labels"}
    assert js["reviewers"]["x"]["answers"] == 2
    assert js["labels"]["a"]["1"] == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(UsageError, match="crowd model must be one of"):
        fit_crowd_model(answers, method="zero-coin")
    with pytest.raises(UsageError, match="twice"):
        fit_crowd_model([*answers, ("a", "x", "0")])
    with pytest.raises(UsageError, match="not among the labels"):
        fit_crowd_model(answers, labels=["1"])
    with pytest.raises(UsageError, match="needs answers"):
        fit_crowd_model([])


def test_agreement_command_adds_the_crowd_model(tmp_path):
    from benchcheck.cli import main

    answers, truth, _ = simulate(1000, 2, seed=0)
    crowd = pl.DataFrame(answers, schema=["id", "annotator", "label"], orient="row")
    crowd.write_csv(tmp_path / "crowd.csv")
    ids = [f"i{i:04d}" for i in range(len(truth))]
    pl.DataFrame({"id": ids, "gold": truth}).write_ndjson(tmp_path / "truth.jsonl")
    out = tmp_path / "agreement.json"
    argv = [
        "agreement",
        "--crowd",
        str(tmp_path / "crowd.csv"),
        "--crowd-model",
        "dawid-skene",
        "--source",
        f"gold={tmp_path / 'truth.jsonl'}",
        "--json",
        str(out),
    ]
    assert main(argv) == 0
    payload = json.loads(out.read_text())
    model = payload["crowd_model"]
    assert model["method"] == "dawid-skene"
    for w, acc in enumerate(ACCURACY):
        assert model["reviewers"][f"r{w}"]["accuracy"] == pytest.approx(acc, abs=0.05)
    assert set(model["labels"]) == set(ids)
    assert model["labels"]["i0000"]["0"] + model["labels"]["i0000"]["1"] == pytest.approx(1)
    f1 = payload["weighted_f1"]["f1"]["gold"]
    assert f1["crowd_model"] > f1["crowd_majority"]  # estimated from the crowd file alone
    alpha = payload["fleiss"]["crowd"]["all"]
    lo, hi = alpha["krippendorff_alpha_ci"]
    assert lo <= alpha["krippendorff_alpha"] <= hi
    # without a crowd file the option is a usage error (exit 2)
    bad = ["agreement", "--source", f"gold={tmp_path / 'truth.jsonl'}", "--crowd-model", "glad"]
    assert main(bad) == 2
