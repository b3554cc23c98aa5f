from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import matthews_corrcoef
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from benchcheck.diagnostics import human_baseline
from benchcheck.runs.diagnose import load_suite

DATA = Path(__file__).parent / "data"
IDS = ["p1:forward", "p1:backward", "p2:forward", "p2:backward"]
# gold:  contradiction, contradiction, neutral,       entailment
ANN = {
    "a": ["entailment", "entailment", "neutral", "contradiction"],
    "b": ["entailment", "entailment", "neutral", "contradiction"],
    "c": ["entailment", "neutral", "neutral", "neutral"],
}


def test_fleiss_by_hand_and_statsmodels():
    suite = load_suite(DATA / "suite_mini.jsonl")
    ann = {who: dict(zip(IDS, labs, strict=True)) for who, labs in ANN.items()}
    res = human_baseline(suite, ann, seed=0, n_resamples=200)
    # Items (e,e,e) (e,e,n) (n,n,n) (c,c,n): P_bar = 2/3, P_e = (5²+5²+2²)/12² = 0.375,
    # kappa = (2/3 - 0.375) / 0.625 = 7/15.
    assert res.fleiss_kappa == pytest.approx(7 / 15)
    codes = {"entailment": 0, "neutral": 1, "contradiction": 2}
    data = np.array([[codes[ANN[w][i]] for w in "abc"] for i in range(4)])
    assert res.fleiss_kappa == pytest.approx(fleiss_kappa(aggregate_raters(data, n_cat=3)[0]))
    assert res.n_items_kappa == 4
    gold = ["contradiction", "contradiction", "neutral", "entailment"]
    for who, labs in ANN.items():
        assert res.annotators[who].r_k == pytest.approx(matthews_corrcoef(gold, labs))
        assert res.annotators[who].n == 4
    mean = np.mean([matthews_corrcoef(gold, v) for v in ANN.values()])
    assert res.mean_r_k == pytest.approx(mean)
    # Majority vote per item: e, e, n, c (no ties) → same as annotator a.
    assert res.majority.r_k == pytest.approx(matthews_corrcoef(gold, ANN["a"]))
    assert res.n_ties == 0
    js = res.to_json()
    assert js["kind"] == "human" and js["annotators"]["c"]["n"] == 4


def test_krippendorff_alpha_beside_fleiss_matches_the_package():
    import krippendorff

    suite = load_suite(DATA / "suite_mini.jsonl")
    ann = {who: dict(zip(IDS, labs, strict=True)) for who, labs in ANN.items()}
    del ann["c"]["p2:backward"]  # a missing label: Fleiss drops the item, alpha keeps it
    res = human_baseline(suite, ann, seed=0, n_resamples=200)
    codes = {"entailment": 0, "neutral": 1, "contradiction": 2}
    data = np.array(
        [[codes[ann[w][i]] if i in ann[w] else np.nan for i in IDS] for w in "abc"], dtype=float
    )
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert res.krippendorff_alpha == pytest.approx(want, abs=1e-12)
    assert res.n_items_kappa == 3
    lo, hi = res.to_json()["krippendorff_alpha_ci"]
    assert lo <= res.krippendorff_alpha <= hi


def test_partial_annotations_and_single_annotator():
    suite = load_suite(DATA / "suite_mini.jsonl")
    res = human_baseline(
        suite,
        {"a": {"p1:forward": "contradiction"}, "b": {"p2:forward": "neutral"}},
        n_resamples=10,
    )
    assert res.fleiss_kappa is None and res.n_items_kappa == 0
    solo = human_baseline(suite, {"a": {"p1:forward": "contradiction"}}, n_resamples=10)
    assert solo.fleiss_kappa is None and solo.annotators["a"].n == 1


def test_majority_vote_ties_are_counted_and_left_out():
    suite = load_suite(DATA / "suite_mini.jsonl")
    # p1:forward: contradiction vs neutral (a tie); p2:forward: both neutral; p2:backward:
    # only b (entailment, its own majority); p1:backward: nobody.
    ann = {
        "a": {"p1:forward": "contradiction", "p2:forward": "neutral"},
        "b": {"p1:forward": "neutral", "p2:forward": "neutral", "p2:backward": "entailment"},
    }
    res = human_baseline(suite, ann, n_resamples=10)
    assert res.n_ties == 1
    assert res.majority.n == 2
    # gold of p2:forward is neutral, of p2:backward entailment: both votes right.
    assert res.majority.accuracy == 1.0
    assert res.majority.r_k == pytest.approx(
        matthews_corrcoef(["neutral", "entailment"], ["neutral", "entailment"])
    )
