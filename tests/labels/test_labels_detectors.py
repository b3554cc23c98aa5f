"""Detectors: error scores, overlap features, out-of-fold training, combination, flags."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchcheck.errors import UsageError
from benchcheck.labels.detectors import (
    OVERLAP_FEATURES,
    combine,
    error_scores,
    flag_mask,
    out_of_fold_probs,
    overlap_features,
    pair_features,
    rank_by,
    trained_probs,
)


def test_error_scores_by_hand():
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    got = error_scores(p, ["b", "c"], ["a", "b", "c"])
    assert got.tolist() == pytest.approx([0.8, 0.2])
    with pytest.raises(UsageError, match="not among"):
        error_scores(p, ["b", "z"], ["a", "b", "c"])


def test_overlap_features_by_hand():
    a = "The council approved 12 new homes on Monday."
    b = "The Council did not approve 15 homes."
    got = dict(zip(OVERLAP_FEATURES, overlap_features([a], [b])[0].tolist(), strict=True))
    wa = ["the", "council", "approved", "12", "new", "homes", "on", "monday"]
    wb = ["the", "council", "did", "not", "approve", "15", "homes"]
    assert got["unigram_precision"] == pytest.approx(3 / 7)
    assert got["bigram_precision"] == pytest.approx(1 / 6)  # (the, council)
    assert got["trigram_precision"] == 0.0
    assert got["jaccard"] == pytest.approx(3 / len(set(wa) | set(wb)))
    assert got["log_len_a"] == pytest.approx(math.log(9))
    assert got["log_len_b"] == pytest.approx(math.log(8))
    assert got["novel_numbers"] == 1.0
    assert got["novel_capitalised_share"] == 0.0  # The, Council both occur (case-folded)
    assert got["negation_mismatch"] == 1.0
    # an empty second text: precisions 1 by convention, no division by zero
    empty = overlap_features(["x"], [""])[0]
    assert empty[:3].tolist() == [1.0, 1.0, 1.0]


def _pairs(n: int, seed: int):
    """Pairs whose label is whether the second text copies the first's number."""
    rng = np.random.default_rng(seed)
    a, b, y = [], [], []
    for i in range(n):
        k = int(rng.integers(10, 99))
        a.append(f"Report {i}: the team scored {k} points in the final.")
        if i % 2:
            b.append(f"The team scored {k} points.")
            y.append("1")
        else:
            b.append(f"The team scored {k + int(rng.integers(1, 9))} points.")
            y.append("0")
    return a, b, y


def test_out_of_fold_equals_manual_cross_validation():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    a, b, y = _pairs(60, seed=1)
    x = pair_features(a, b)
    got = out_of_fold_probs(x, y, ["0", "1"], folds=4, seed=7)
    codes = np.array([int(v) for v in y])
    want = np.zeros((60, 2))
    for train, test in StratifiedKFold(4, shuffle=True, random_state=7).split(x, codes):
        model = LogisticRegression(
            C=1.0, solver="liblinear", dual=True, max_iter=10_000, random_state=7
        )
        want[test] = model.fit(x[train], codes[train]).predict_proba(x[test])
    np.testing.assert_allclose(got, want, atol=1e-10)
    # with groups: no group is split across folds
    groups = [i // 2 for i in range(60)]
    grouped = out_of_fold_probs(x, y, ["0", "1"], folds=4, seed=7, groups=groups)
    want = np.zeros((60, 2))
    for train, test in StratifiedGroupKFold(4, shuffle=True, random_state=7).split(
        x, codes, groups
    ):
        assert not {groups[i] for i in train} & {groups[i] for i in test}
        model = LogisticRegression(
            C=1.0, solver="liblinear", dual=True, max_iter=10_000, random_state=7
        )
        want[test] = model.fit(x[train], codes[train]).predict_proba(x[test])
    np.testing.assert_allclose(grouped, want, atol=1e-10)
    # three classes: one-vs-rest, rows sum to 1
    y3 = [str(i % 3) for i in range(60)]
    p3 = out_of_fold_probs(x, y3, ["0", "1", "2"], folds=3)
    np.testing.assert_allclose(p3.sum(axis=1), 1.0)
    # labels absent from the data: a zero column
    three = out_of_fold_probs(x, y, ["0", "1", "2"], folds=4, seed=7)
    assert (three[:, 2] == 0).all()
    np.testing.assert_allclose(three[:, :2], got)


def test_trained_detector_finds_planted_flips():
    from sklearn.metrics import average_precision_score

    a, b, y = _pairs(200, seed=2)
    rng = np.random.default_rng(3)
    flip = np.zeros(200, dtype=bool)
    flip[rng.choice(np.flatnonzero(np.array(y) == "0"), 10, replace=False)] = True
    flip[rng.choice(np.flatnonzero(np.array(y) == "1"), 10, replace=False)] = True
    noisy = [("1" if v == "0" else "0") if f else v for v, f in zip(y, flip, strict=True)]
    p = trained_probs(a, b, noisy, ["0", "1"], seed=0)
    e = error_scores(p, noisy, ["0", "1"])
    assert average_precision_score(flip, e) > 0.9
    cl = flag_mask(p, noisy, ["0", "1"], rule="cleanlab")
    assert cl[flip].mean() >= 0.8 and flip[cl].mean() >= 0.6


def test_trained_detector_needs_labels_of_two_kinds():
    a, b, y = _pairs(10, seed=0)
    with pytest.raises(UsageError, match="two different labels"):
        trained_probs(a, b, ["1"] * 10, ["0", "1"])
    with pytest.raises(UsageError, match="at least 2 examples"):
        trained_probs(a, b, ["1"] * 9 + ["0"], ["0", "1"])
    with pytest.raises(UsageError, match="embedder"):
        pair_features(a, b, features="embedding")


def test_embedding_features_and_stacking():
    a, b, y = _pairs(40, seed=4)

    def embed(texts):  # a deterministic stand-in: character histograms, unit norm
        out = np.array([[t.count(c) for c in "0123456789aeiou "] for t in texts], dtype=float)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    x = pair_features(a, b, features="embedding", embed=embed)
    u, v = embed(a), embed(b)
    np.testing.assert_allclose(x[:, :16], u)
    np.testing.assert_allclose(x[:, 32:48], np.abs(u - v))
    np.testing.assert_allclose(x[:, -1], (u * v).sum(axis=1))
    both = pair_features(a, b, features="tfidf+embedding", embed=embed)
    assert both.shape[1] == pair_features(a, b).shape[1] + x.shape[1]
    extra = np.array([[1.0] if v == "1" else [-1.0] for v in y])  # a perfect judge
    p = trained_probs(a, b, y, ["0", "1"], features="embedding", embed=embed, extra=extra)
    assert (p.argmax(axis=1) == np.array([int(v) for v in y])).mean() == 1.0


def test_combine_rules():
    llm = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    tr = np.array([[0.5, 0.5], [0.4, 0.6], [0.1, 0.9]])
    labels = ["1", "1", "1"]
    p, e = combine(llm, tr, labels, ["0", "1"])
    np.testing.assert_allclose(p, (llm + tr) / 2)
    np.testing.assert_allclose(e, [0.7, 0.3, 0.35])
    _, r = combine(llm, tr, labels, ["0", "1"], rule="rank")
    # llm error scores 0.9, 0.2, 0.6 → ranks 1, 0, 0.5; trained 0.5, 0.4, 0.1 → 1, 0.5, 0
    np.testing.assert_allclose(r, [1.0, 0.25, 0.25])
    with pytest.raises(UsageError, match="combination"):
        combine(llm, tr, labels, ["0", "1"], rule="stack")


def test_flag_rules():
    p = np.array([[0.8, 0.2], [0.55, 0.45], [0.3, 0.7], [0.5, 0.5]])
    labels = ["1", "1", "1", "0"]
    assert flag_mask(p, labels, ["0", "1"]).tolist() == [True, True, False, False]
    assert flag_mask(p, labels, ["0", "1"], threshold=0.6).tolist() == [True, False, False, False]
    cleanlab_filter = pytest.importorskip("cleanlab.filter")
    rng = np.random.default_rng(0)
    q = rng.dirichlet([1, 1, 1], size=120)
    y = rng.integers(0, 3, size=120)
    want = cleanlab_filter.find_label_issues(labels=y, pred_probs=q, n_jobs=1)  # no fork pool
    got = flag_mask(q, [str(v) for v in y], ["0", "1", "2"], rule="cleanlab")
    assert got.tolist() == np.asarray(want).tolist()
    with pytest.raises(UsageError, match="min_error_score"):
        flag_mask(p, labels, ["0", "1"], threshold=1.5)


def test_rank_by_ties_in_data_order():
    s = np.array([0.2, 0.9, 0.9, 0.5, 0.95])
    f = np.array([True, True, True, False, False])
    assert rank_by(s, f).tolist() == [3, 1, 2, 0, 0]


def test_detect_rank_combination_and_cleanlab_rule():
    import polars as pl

    from benchcheck.labels.detectors import detect

    a, b, y = _pairs(60, seed=5)
    y[0] = "1"  # planted (index 0 has label 0 by construction)
    data = pl.DataFrame({"id": [str(i) for i in range(60)], "text_a": a, "text_b": b, "label": y})
    p1 = [0.8 if i % 2 else 0.2 for i in range(60)]
    j = pl.DataFrame(
        {
            "id": [str(i) for i in range(60)],
            "judge": "m",
            "prompt": "p",
            "p_0": [1 - v for v in p1],
            "p_1": p1,
        }
    )
    # posterior "none": the error score is the rank combination's score itself
    got = detect(data, j, detector="both", combination="rank", calibration="none", posterior="none")
    f = got.frame
    llm = np.column_stack([1 - np.array(p1), np.array(p1)])
    tr = f.select("trained_p_0", "trained_p_1").to_numpy()
    _, want = combine(llm, tr, y, ["0", "1"], rule="rank")
    np.testing.assert_allclose(f["error_score"].to_numpy(), want)
    assert f.filter(pl.col("rank") == 1)["id"][0] == "0"
    # with the default posterior that score is kept as detector_error_score
    post = detect(data, j, detector="both", combination="rank", calibration="none")
    np.testing.assert_allclose(post.frame["detector_error_score"].to_numpy(), want)
    cl = detect(data, j, calibration="none", flag_rule="cleanlab", threshold=0.0)
    cleanlab_filter = pytest.importorskip("cleanlab.filter")
    codes = np.array([int(v) for v in y])
    want_mask = cleanlab_filter.find_label_issues(labels=codes, pred_probs=llm, n_jobs=1)
    assert cl.frame["flagged"].to_list() == np.asarray(want_mask).tolist()
    assert cl.to_json()["flagged"] == int(np.asarray(want_mask).sum())


def test_detect_judge_error_prior_from_an_audit_sample_of_gold_labels():
    # judge_error="gold": the prior is fitted on the gold examples' probabilities against
    # their reviewed labels (base_rate.judge_error_prior), then used for every score
    import polars as pl

    from benchcheck.labels.base_rate import judge_error_prior
    from benchcheck.labels.detectors import detect
    from benchcheck.labels.posterior import error_posterior

    rng = np.random.default_rng(5)
    n = 120
    p1 = 1 / (1 + np.exp(-rng.normal(0, 2, n)))
    y = (rng.random(n) < p1).astype(int)
    ids = [str(i) for i in range(n)]
    data = pl.DataFrame({"id": ids, "label": [str(v) for v in y]})
    j = pl.DataFrame({"id": ids, "judge": "m", "prompt": "p", "p_0": 1 - p1, "p_1": p1})
    audit = rng.choice(n, 40, replace=False)
    truth = np.where(rng.random(n) < 0.1, 1 - y, y)  # a reviewer corrects some labels
    gold = {ids[i]: str(truth[i]) for i in audit}
    got = detect(data, j, calibration="none", gold=gold, judge_error="gold")
    p = np.column_stack([1 - p1, p1])
    a, b, m = judge_error_prior(p[audit], truth[audit])
    assert m == 40
    settings = got.to_json()["settings"]["judge_error"]
    assert settings["from"] == "gold" and set(settings) == {"beta", "from"}
    # the fit runs twice (here and inside detect): the last bits differ across BLAS builds
    np.testing.assert_allclose(settings["beta"], [a, b], rtol=1e-9)
    want = error_posterior(p, y, judge_error=(a, b)).error
    np.testing.assert_allclose(got.frame["error_score"].to_numpy(), want, rtol=1e-9)
    with pytest.raises(UsageError, match="cover none"):
        detect(data, j, calibration="none", gold={"x": "0"}, judge_error="gold")
