"""Error rate from gold, per-bin agreement, ensemble curves, agreement between sources."""

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from _labels_synth import make_case
from scipy import stats as sps
from sklearn.metrics import f1_score, roc_auc_score
from statsmodels.stats import inter_rater
from statsmodels.stats.proportion import proportion_confint

from benchcheck.errors import UsageError
from benchcheck.io.tables import read_rows
from benchcheck.labels.analysis import (
    agreement_report,
    bin_agreement,
    ensemble_curve,
    gold_error_rate,
)
from benchcheck.labels.ensemble import ensemble

GOLDEN = Path(__file__).parent / "golden"


def test_gold_error_rate_golden_file():
    gold = read_rows(GOLDEN / "gold.jsonl")
    res, left = gold_error_rate(gold, population=100)
    # 12 examples, 1 unresolved -> sample 11; errors: a1, a3, a6, a9
    assert (res.errors, res.sample, res.population) == (4, 11, 100)
    assert left == {"unresolved": 1, "not_reviewed": 0}
    lo, hi = proportion_confint(4, 11, method="beta")
    assert res.ci == pytest.approx((lo, hi))
    f = math.sqrt(89 / 99)
    p = 4 / 11
    assert res.ci_fpc == pytest.approx((p - f * (p - lo), p + f * (hi - p)))
    with pytest.raises(UsageError):
        gold_error_rate(gold, population=5)


def _gold_for_bins():
    rows = []
    # bin [0.9, 0.95): 4 reviewed, experts side with LLM on 3; bin [0.5, 0.6): 2, LLM on 0
    for i, (conf, g) in enumerate(
        [(0.91, "0"), (0.92, "0"), (0.93, "0"), (0.94, "1"), (0.55, "1"), (0.58, "1"), (0.97, None)]
    ):
        rows.append(
            {
                "id": str(i),
                "label": "1",
                "llm_label": "0",
                "confidence": conf,
                "gold": g,
                "review_id": f"r{i}",
            }
        )
    rows.append(
        {
            "id": "x",
            "label": "1",
            "llm_label": "1",
            "confidence": 0.99,
            "gold": "1",
            "review_id": None,
        }
    )
    return pl.DataFrame(rows)


def test_bin_agreement_by_hand_and_scipy():
    stats = bin_agreement(
        _gold_for_bins(), bins=(0.5, 0.6, 0.9, 0.95, 1.0), n_resamples=200, seed=7, min_bin=3
    )
    by = {s.bin: s for s in stats}
    b = by["[0.9, 0.95)"]
    assert (b.n, b.with_llm, b.with_original) == (4, 0.75, 0.25)
    ref = sps.bootstrap(
        (np.array([1.0, 1, 1, 0]),),
        np.mean,
        n_resamples=200,
        method="percentile",
        rng=np.random.default_rng(7 + 2),
    )
    assert b.with_llm_ci == pytest.approx(
        (ref.confidence_interval.low, ref.confidence_interval.high)
    )
    low = by["[0.5, 0.6)"]
    assert (low.n, low.with_llm, low.with_original) == (2, 0.0, 1.0)
    assert low.with_llm_ci == (0.0, 0.0) and low.warning is not None
    assert by["[0.95, 1]"].n == 0  # the unresolved one carries no gold
    with pytest.raises(UsageError):
        bin_agreement(_gold_for_bins(), n_resamples=50)


def _gold_from_truth(data, truth):
    return pl.DataFrame(
        {"id": data["id"], "label": data["label"].cast(pl.String), "gold": [str(v) for v in truth]}
    )


def test_ensemble_curve_full_size_by_hand():
    data, j, truth, flipped = make_case(120, seed=5, strength=1.0)
    gold = _gold_from_truth(data, truth)
    points, members = ensemble_curve(j, gold, repeats=50, seed=0)
    assert members == ["m1/doc", "m1/nli", "m2/doc", "m2/nli"]
    assert [p.n_subsets for p in points] == [4, 6, 4, 1]
    ens = ensemble(j)
    p1 = dict(zip(ens["id"], ens["p_1"], strict=True))
    llm = dict(zip(ens["id"], ens["llm_label"], strict=True))
    full = points[-1]
    assert full.roc_auc_mean == pytest.approx(roc_auc_score(truth, [p1[i] for i in data["id"]]))
    orig = data["label"].cast(pl.String).to_list()
    flags = [llm[i] != o for i, o in zip(data["id"], orig, strict=True)]
    assert full.f1_mean == pytest.approx(f1_score(flipped, flags))
    single = j.filter((pl.col("judge") == "m1") & (pl.col("prompt") == "doc"))
    assert points[0].roc_auc_ci[0] <= roc_auc_score(truth, single["p_1"]) <= points[0].roc_auc_ci[1]
    assert points[-1].roc_auc_mean >= points[0].roc_auc_mean
    by_judge, jm = ensemble_curve(j, gold, unit="judge", repeats=1, seed=0)
    assert jm == ["m1", "m2"] and by_judge[-1].roc_auc_mean == pytest.approx(full.roc_auc_mean)


def test_ensemble_curve_seeded_sampling():
    data, j, truth, _ = make_case(40, seed=6, judges=("a", "b", "c"), prompts=("p", "q", "r"))
    gold = _gold_from_truth(data, truth)
    a, _ = ensemble_curve(j, gold, repeats=5, seed=1)
    b, _ = ensemble_curve(j, gold, repeats=5, seed=1)
    assert [p.to_dict() for p in a] == [p.to_dict() for p in b]
    assert a[3].n_subsets == 5  # C(9, 4) = 126 > 5 repeats
    with pytest.raises(UsageError):
        ensemble_curve(j, gold, unit="prompt")


def test_agreement_report_against_references():
    rng = np.random.default_rng(1)
    ids = [str(i) for i in range(60)]
    gold = rng.integers(0, 2, 60)
    original = np.where(rng.random(60) < 0.2, 1 - gold, gold)
    llm = np.where(rng.random(60) < 0.1, 1 - gold, gold)
    sources = {
        "original": {i: str(v) for i, v in zip(ids, original, strict=True)},
        "llm": {i: str(v) for i, v in zip(ids, llm, strict=True)},
        "gold": {i: str(v) for i, v in zip(ids, gold, strict=True)},
    }
    crowd_rows = []
    ratings = []
    for i, g in zip(ids, gold, strict=True):
        labs = [str(g if rng.random() < 0.75 else 1 - g) for _ in range(3)]
        ratings.append(labs)
        for k, lab in enumerate(labs):
            crowd_rows.append({"id": i, "annotator": f"w{(int(i) + k) % 5}", "label": lab})
    crowd = pl.DataFrame(crowd_rows)
    _, j, _, _ = make_case(60, seed=1)
    j = j.with_columns(pl.col("id").str.slice(1).cast(pl.Int64).cast(pl.String))
    rep = agreement_report(
        sources, crowd=crowd, groups={"llm_vs_orig": ["llm", "original"]}, judgments=j
    ).to_json()
    f1 = rep["weighted_f1"]["f1"]
    assert f1["gold"]["original"] == pytest.approx(f1_score(gold, original, average="weighted"))
    assert f1["original"]["gold"] == pytest.approx(f1_score(original, gold, average="weighted"))
    maj = [max(set(r), key=r.count) for r in ratings]
    assert f1["gold"]["crowd_majority"] == pytest.approx(
        f1_score([str(v) for v in gold], maj, average="weighted")
    )
    strict = ["0" if "0" in r else "1" for r in ratings]
    assert f1["gold"]["crowd_strict"] == pytest.approx(
        f1_score([str(v) for v in gold], strict, average="weighted")
    )
    table, _ = inter_rater.aggregate_raters(np.array([[int(v) for v in r] for r in ratings]), 2)
    assert rep["fleiss"]["crowd"]["all"]["kappa"] == pytest.approx(inter_rater.fleiss_kappa(table))
    dis = [k for k in range(60) if llm[k] != original[k]]
    assert rep["disagreement_subset"] == len(dis)
    sub, _ = inter_rater.aggregate_raters(np.array([[int(v) for v in ratings[k]] for k in dis]), 2)
    assert rep["fleiss"]["crowd"]["disagreement"]["kappa"] == pytest.approx(
        inter_rater.fleiss_kappa(sub)
    )
    assert rep["fleiss"]["llm_vs_orig"]["all"]["n_items"] == 60
    assert {"prompts:m1", "prompts:m2", "judges"} <= set(rep["fleiss"])
    # judge groups by hand: each prompt's argmax label, and each judge's prompt-mean argmax
    p1 = {(r["judge"], r["prompt"], r["id"]): r["p_1"] > r["p_0"] for r in j.iter_rows(named=True)}
    for judge in ("m1", "m2"):
        votes = np.array([[p1[(judge, p, i)] for p in ("doc", "nli")] for i in ids], dtype=int)
        table, _ = inter_rater.aggregate_raters(votes, 2)
        got = rep["fleiss"][f"prompts:{judge}"]["all"]
        assert got["kappa"] == pytest.approx(inter_rater.fleiss_kappa(table))
        assert (got["n_items"], got["raters"]) == (60, 2)
    means = j.group_by("judge", "id").agg(pl.col("p_0").mean(), pl.col("p_1").mean())
    mean1 = {(r["judge"], r["id"]): r["p_1"] > r["p_0"] for r in means.iter_rows(named=True)}
    votes = np.array([[mean1[(m, i)] for m in ("m1", "m2")] for i in ids], dtype=int)
    table, _ = inter_rater.aggregate_raters(votes, 2)
    assert rep["fleiss"]["judges"]["all"]["kappa"] == pytest.approx(inter_rater.fleiss_kappa(table))
    assert len(rep["per_annotator"]) == 5
    assert sum(r["n_items"] for r in rep["per_annotator"]) == 180
    with pytest.raises(UsageError):
        agreement_report(sources, groups={"g": ["nope", "gold"]})


def test_agreement_report_refuses_judgments_with_mixed_label_sets():
    # nli (0/1) beside nli3 (three labels): each prompt leaves the other's p_ columns empty,
    # and an argmax over all columns used to pick an empty one (every nli row 'contradiction').
    rows = []
    for i in ("a", "b"):
        rows.append(
            {
                "id": i,
                "judge": "m",
                "prompt": "nli",
                "p_0": 0.2,
                "p_1": 0.8,
                "p_contradiction": None,
                "p_entailment": None,
                "p_neutral": None,
            }
        )
        rows.append(
            {
                "id": i,
                "judge": "m",
                "prompt": "nli3",
                "p_0": None,
                "p_1": None,
                "p_contradiction": 0.1,
                "p_entailment": 0.7,
                "p_neutral": 0.2,
            }
        )
    judgments = pl.DataFrame(rows)
    sources = {"original": {"a": "1", "b": "0"}, "gold": {"a": "1", "b": "1"}}
    with pytest.raises(UsageError, match=r"mix label sets.*nli: 0, 1; nli3: contradiction"):
        agreement_report(sources, judgments=judgments)
    same = judgments.filter(pl.col("prompt") == "nli").drop(
        "p_contradiction", "p_entailment", "p_neutral"
    )
    rep = agreement_report(sources, judgments=same).to_json()
    assert "prompts:m" in rep["fleiss"]
