"""Rankings under label noise against brute-force enumeration of every true labeling."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.special import betaln
from sklearn.metrics import accuracy_score, f1_score

from benchcheck.errors import UsageError
from benchcheck.items.noise import BinPrecision, NoiseModel, rank_under_noise
from benchcheck.labels.remedies import ModelScores, rerank

IDS = ["a", "b", "c", "d", "e", "f"]
LABELS = ["1", "0", "1", "1", "0", "0"]
PREDS = {
    "A": ["1", "0", "0", "1", "1", "0"],
    "B": ["1", "1", "1", "1", "0", "1"],
    "C": ["0", "0", "1", "0", "0", "0"],
}
FLAGS = {"c": ("0", "[0.9, 1]"), "e": ("1", "[0.9, 1]"), "f": ("1", "[0.5, 0.9)")}


def _acc(truth: list[str], pred: list[str]) -> float:
    return float(accuracy_score(truth, pred))


def _brute_force(
    prob: dict[str, float],
) -> tuple[dict[str, float], dict[str, list[tuple[float, float]]]]:
    """Exact flip probabilities and score distributions over the 2^3 labelings."""
    names = list(PREDS)
    ref = {n: _acc(LABELS, PREDS[n]) for n in names}
    flips = dict.fromkeys(itertools.combinations(names, 2), 0.0)
    dist: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    flagged = list(FLAGS)
    for outcome in itertools.product([True, False], repeat=len(flagged)):
        truth = list(LABELS)
        w = 1.0
        for i, is_error in zip(flagged, outcome, strict=True):
            k = IDS.index(i)
            if is_error:
                truth[k] = FLAGS[i][0]
            w *= prob[i] if is_error else 1 - prob[i]
        s = {n: _acc(truth, PREDS[n]) for n in names}
        for n in names:
            dist[n].append((s[n], w))
        for a, b in flips:
            hi, lo = (a, b) if ref[a] >= ref[b] else (b, a)
            if s[hi] < s[lo]:
                flips[(a, b)] += w
            elif s[hi] == s[lo]:
                flips[(a, b)] += w / 2
    return {f"{a}|{b}": v for (a, b), v in flips.items()}, dist


def test_fixed_precision_matches_enumeration() -> None:
    precision = {
        "[0.9, 1]": BinPrecision(0.8, 0.2, fixed=True),
        "[0.5, 0.9)": BinPrecision(0.4, 0.6, fixed=True),
    }
    noise = NoiseModel(flagged=FLAGS, precision=precision, gold={})
    n = 40_000
    r = rank_under_noise(IDS, LABELS, PREDS, noise, n_resamples=n, seed=3)
    exact, dist = _brute_force({"c": 0.8, "e": 0.8, "f": 0.4})
    got = r.flip_probability
    for key, value in got.items():
        a, b = key.split("|")
        want = exact.get(f"{a}|{b}", exact.get(f"{b}|{a}"))
        if value is None:  # a tie on the reference labels
            ref = {m.name: m.score for m in r.models}
            assert ref[a] == ref[b]
            continue
        assert value == pytest.approx(want, abs=4 * math.sqrt(0.25 / n))
    for m in r.models:
        mean = sum(s * w for s, w in dist[m.name])
        assert m.expected == pytest.approx(mean, abs=0.01)
        support = sorted({s for s, w in dist[m.name] if w > 0})
        assert support[0] <= m.interval[0] <= m.interval[1] <= support[-1]
        assert m.score == pytest.approx(_acc(LABELS, PREDS[m.name]))


def test_review_counts_match_beta_integration() -> None:
    """Two flags share one bin: P(both errors) is the Beta moment, not the product."""
    ids, labels = ["x", "y", "z"], ["1", "1", "1"]
    preds = {"A": ["1", "1", "1"], "B": ["0", "0", "1"]}
    flags = {"x": ("0", "hi"), "y": ("0", "hi")}
    k, n = 3, 5  # review: 3 of 5 flags in this bin sided with the LLM, 2 with the original
    noise = NoiseModel(flagged=flags, precision={"hi": BinPrecision(3, 2)}, gold={})
    draws = 40_000
    r = rank_under_noise(ids, labels, preds, noise, n_resamples=draws, seed=5)
    alpha, beta = k + 0.5, n - k + 0.5
    p_both = math.exp(betaln(alpha + 2, beta) - betaln(alpha, beta))
    p_one = 2 * math.exp(betaln(alpha + 1, beta + 1) - betaln(alpha, beta))
    # A (ref 1.0) vs B (ref 1/3): both errors → A 1/3, B 1 (flip); one error → 2/3 vs 2/3 (tie)
    want = p_both + p_one / 2
    assert r.flip_probability["A|B"] == pytest.approx(want, abs=4 * math.sqrt(0.25 / draws))


def test_gold_only_is_reranks_ranking() -> None:
    gold = {"a": "1", "b": "1", "c": "0", "d": "1", "e": "0", "f": "1"}
    noise = NoiseModel(flagged={}, precision={}, gold=gold)
    r = rank_under_noise(IDS, LABELS, PREDS, noise, n_resamples=50)
    truth = [gold[i] for i in IDS]
    models = [ModelScores(n, tuple(IDS), None, tuple(p)) for n, p in PREDS.items()]
    rr = rerank(IDS, LABELS, truth, models, n_resamples=100)
    for m in r.models:
        assert m.rank == rr.ranks[m.name]["accuracy"]["gold"]
        assert m.score == pytest.approx(rr.models[m.name]["accuracy"]["gold"])
        assert m.interval == (m.score, m.score)
    assert all(v in (0.0, None) for v in r.flip_probability.values())
    assert "truth is certain" in " ".join(r.notes)


def test_f1_matches_sklearn_on_the_reference_labels() -> None:
    noise = NoiseModel(flagged={}, precision={}, gold={}, residual=0.0)
    r = rank_under_noise(IDS, LABELS, PREDS, noise, metric="f1", positive="1", n_resamples=5)
    for m in r.models:
        assert m.score == pytest.approx(f1_score(LABELS, PREDS[m.name], pos_label="1"))


def test_residual_rate_widens_intervals_and_is_seeded() -> None:
    rng = np.random.default_rng(0)
    ids = [str(i) for i in range(300)]
    labels = rng.choice(["0", "1", "2"], 300).tolist()
    preds = {
        "A": [v if rng.random() < 0.8 else "0" for v in labels],
        "B": [v if rng.random() < 0.78 else "1" for v in labels],
    }
    noise = NoiseModel(flagged={}, precision={}, gold={}, residual=(6, 100))
    r1 = rank_under_noise(ids, labels, preds, noise, n_resamples=500, seed=1)
    r2 = rank_under_noise(ids, labels, preds, noise, n_resamples=500, seed=1)
    assert r1.to_json() == r2.to_json()
    for m in r1.models:
        assert m.interval[0] < m.score  # errors can only hurt a model agreeing with the label
    assert r1.uncertainty["residual_items"] == 300


def test_resample_items_adds_sampling_error() -> None:
    noise = NoiseModel(flagged={}, precision={}, gold={}, residual=0.0)
    r = rank_under_noise(IDS, LABELS, PREDS, noise, n_resamples=400, resample_items=True)
    assert any(m.interval[0] < m.interval[1] for m in r.models)


def test_refusals() -> None:
    noise = NoiseModel(flagged={}, precision={}, gold={})
    with pytest.raises(UsageError, match="at least two models"):
        rank_under_noise(IDS, LABELS, {"A": PREDS["A"]}, noise)
    with pytest.raises(UsageError, match="metric"):
        rank_under_noise(IDS, LABELS, PREDS, noise, metric="auc")
    with pytest.raises(UsageError, match="P\\(LLM label\\)"):
        BinPrecision(0.8, 0.5, fixed=True)
