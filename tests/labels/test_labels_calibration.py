"""Calibration of judge probabilities: contextual, prior shift, Platt, isotonic, ECE."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from benchcheck.errors import UsageError
from benchcheck.labels.calibration import (
    calibrate_ensemble,
    calibrate_members,
    contextual_calibrate,
    expected_calibration_error,
    fit_isotonic,
    fit_platt,
    label_shares,
    prior_shift,
)


def test_contextual_by_hand_binary_and_three_way():
    # binary: divide by the content-free mean (0.75, 0.25), renormalise
    got = contextual_calibrate([[0.6, 0.4]], [[0.8, 0.2], [0.7, 0.3]])
    a, b = 0.6 / 0.75, 0.4 / 0.25
    assert got[0].tolist() == pytest.approx([a / (a + b), b / (a + b)], abs=1e-12)
    # = subtracting the content-free log-odds
    logit = math.log(0.4 / 0.6) - math.log(0.25 / 0.75)
    assert got[0, 1] == pytest.approx(1 / (1 + math.exp(-logit)), abs=1e-12)
    # three labels
    p = [0.2, 0.5, 0.3]
    cf = [0.1, 0.6, 0.3]
    r = [x / y for x, y in zip(p, cf, strict=True)]
    got3 = contextual_calibrate([p], [cf])[0]
    assert got3.tolist() == pytest.approx([v / sum(r) for v in r], abs=1e-12)
    # the paper's written rule: softmax of the ratios
    soft = contextual_calibrate([p], [cf], rule="softmax")[0]
    e = [math.exp(v) for v in r]
    assert soft.tolist() == pytest.approx([v / sum(e) for v in e], abs=1e-12)
    assert soft.argmax() == got3.argmax()
    with pytest.raises(UsageError, match="rule"):
        contextual_calibrate([p], [cf], rule="nope")
    with pytest.raises(UsageError, match="labels"):
        contextual_calibrate([p], [[0.5, 0.5]])


def _bisect_offset(logits: list[float], share: float) -> float:
    """Plain-Python bisection for d with mean(sigmoid(logit + d)) = share."""
    lo, hi = -60.0, 60.0
    for _ in range(200):
        mid = (lo + hi) / 2
        mean = sum(1 / (1 + math.exp(-(z + mid))) for z in logits) / len(logits)
        lo, hi = (mid, hi) if mean < share else (lo, mid)
    return (lo + hi) / 2


def test_prior_shift_binary_matches_plain_bisection():
    rng = np.random.default_rng(0)
    p1 = rng.beta(1, 3, size=200)  # biased low, like the embedded judge
    p = np.column_stack([1 - p1, p1])
    q, delta = prior_shift(p, [0.45, 0.55])
    assert q[:, 1].mean() == pytest.approx(0.55, abs=1e-10)
    logits = [math.log(b / a) for a, b in p]
    assert delta[1] == pytest.approx(_bisect_offset(logits, 0.55), abs=1e-8)
    assert delta[0] == 0.0
    # the order of the examples is kept: a shift is monotone
    assert (np.argsort(q[:, 1], kind="stable") == np.argsort(p1, kind="stable")).all()


def test_prior_shift_three_way_matches_iterative_scaling():
    rng = np.random.default_rng(1)
    p = rng.dirichlet([1.0, 4.0, 1.0], size=150)
    target = np.array([0.41, 0.42, 0.17])
    q, delta = prior_shift(p, target)
    np.testing.assert_allclose(q.mean(axis=0), target, atol=1e-8)
    # independent: multiplicative prior updates (Saerens et al. 2002 style) to a fixed point
    w = np.ones(3)
    for _ in range(5000):
        r = p * w
        r /= r.sum(axis=1, keepdims=True)
        w *= target / r.mean(axis=0)
    r = p * w
    r /= r.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(q, r, atol=1e-7)
    np.testing.assert_allclose(delta[1:] - delta[0], np.log(w[1:] / w[0]), atol=1e-6)


def test_prior_shift_refuses_degenerate_shares():
    with pytest.raises(UsageError, match="strictly between 0 and 1"):
        prior_shift([[0.5, 0.5]], [1.0, 0.0])
    with pytest.raises(UsageError, match="summing to 1"):
        prior_shift([[0.5, 0.5]], [0.5, 0.6])


def test_platt_matches_unpenalised_logistic_mle():
    """Independent path: statsmodels' Logit MLE on the log-odds."""
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    p1 = rng.uniform(0.05, 0.95, size=300)
    gold = (rng.uniform(size=300) < p1**2).astype(int)  # over-confident judge
    p = np.column_stack([1 - p1, p1])
    cal = fit_platt(p, [str(g) for g in gold], ["0", "1"])
    x = np.log(p1 / (1 - p1))
    mle = sm.Logit(gold, sm.add_constant(x)).fit(disp=0).params
    assert cal.intercept[0] == pytest.approx(mle[0], abs=1e-3)
    assert cal.coef[0][0] == pytest.approx(mle[1], abs=1e-3)
    want = 1 / (1 + np.exp(-(mle[0] + mle[1] * x)))
    np.testing.assert_allclose(cal.apply(p)[:, 1], want, atol=1e-3)


def _pava(y: list[float]) -> list[float]:
    """Plain pool-adjacent-violators on y already ordered by score (unit weights)."""
    blocks = [[v, 1] for v in y]
    i = 0
    while i < len(blocks) - 1:
        if blocks[i][0] > blocks[i + 1][0]:
            s = blocks[i][0] * blocks[i][1] + blocks[i + 1][0] * blocks[i + 1][1]
            n = blocks[i][1] + blocks[i + 1][1]
            blocks[i : i + 2] = [[s / n, n]]
            i = max(i - 1, 0)
        else:
            i += 1
    out: list[float] = []
    for v, n in blocks:
        out += [v] * n
    return out


def test_isotonic_matches_plain_pava():
    p1 = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    gold = [0, 1, 0, 0, 1, 0, 1, 1]
    cal = fit_isotonic(np.column_stack([1 - p1, p1]), [str(g) for g in gold], ["0", "1"])
    got = cal.apply(np.column_stack([1 - p1, p1]))[:, 1]
    np.testing.assert_allclose(got, _pava([float(g) for g in gold]), atol=1e-12)


def test_gold_needs_two_labels():
    with pytest.raises(UsageError, match="two different gold labels"):
        fit_platt([[0.5, 0.5], [0.4, 0.6]], ["1", "1"], ["0", "1"])
    with pytest.raises(UsageError, match="not among"):
        fit_isotonic([[0.5, 0.5], [0.4, 0.6]], ["1", "x"], ["0", "1"])


def test_ece_plain_python():
    rng = np.random.default_rng(4)
    p = rng.dirichlet([1, 1, 1], size=97)
    y = rng.integers(0, 3, size=97)
    bins: dict[int, list[tuple[float, float]]] = {}
    for row, g in zip(p.tolist(), y.tolist(), strict=True):
        conf = max(row)
        m = max(0, math.ceil(conf * 10) - 1)
        bins.setdefault(m, []).append((conf, float(row.index(conf) == g)))
    want = sum(
        len(v) / 97 * abs(sum(c for _, c in v) / len(v) - sum(c for c, _ in v) / len(v))
        for v in bins.values()
    )
    assert expected_calibration_error(p, y) == pytest.approx(want, abs=1e-12)
    # perfectly calibrated in one bin: zero
    assert expected_calibration_error([[0.0, 1.0]] * 4, [1, 1, 1, 1]) == 0.0
    assert math.isnan(expected_calibration_error(np.zeros((0, 2)), []))


def _judgments():
    rows = []
    rng = np.random.default_rng(5)
    for prompt, bias in (("nli", -1.0), ("document", 0.5)):
        for i in range(40):
            z = rng.normal(0.0, 1.5) + bias
            p1 = 1 / (1 + math.exp(-z))
            rows.append({"id": f"e{i}", "judge": "m", "prompt": prompt, "p_0": 1 - p1, "p_1": p1})
    cf = pl.DataFrame(
        {
            "judge": ["m"] * 4,
            "prompt": ["nli", "nli", "document", "document"],
            "p_0": [0.8, 0.7, 0.4, 0.3],
            "p_1": [0.2, 0.3, 0.6, 0.7],
        }
    )
    return pl.DataFrame(rows), cf


def test_calibrate_members_per_prompt():
    j, cf = _judgments()
    same, info = calibrate_members(j, method="none", labels=["0", "1"])
    assert same.equals(j) and info.params == {}
    out, info = calibrate_members(j, method="contextual", labels=["0", "1"], content_free=cf)
    assert out.select("id", "judge", "prompt").equals(j.select("id", "judge", "prompt"))
    for prompt in ("nli", "document"):
        raw = j.filter(pl.col("prompt") == prompt).select("p_0", "p_1").to_numpy()
        c = cf.filter(pl.col("prompt") == prompt).select("p_0", "p_1").to_numpy()
        got = out.filter(pl.col("prompt") == prompt).select("p_0", "p_1").to_numpy()
        np.testing.assert_allclose(got, contextual_calibrate(raw, c), atol=1e-12)
        assert info.params[f"m|{prompt}"]["content_free_mean"] == pytest.approx(
            c.mean(axis=0).tolist()
        )
    observed = ["1"] * 30 + ["0"] * 10
    out, info = calibrate_members(j, method="prior", labels=["0", "1"], observed=observed)
    for prompt in ("nli", "document"):
        got = out.filter(pl.col("prompt") == prompt)["p_1"].to_numpy()
        assert got.mean() == pytest.approx(0.75, abs=1e-10)
    # binary, per member: contextual then prior equals prior alone (both one logit offset)
    both, _ = calibrate_members(
        j, method="contextual+prior", labels=["0", "1"], content_free=cf, observed=observed
    )
    np.testing.assert_allclose(both["p_1"].to_numpy(), out["p_1"].to_numpy(), atol=1e-9)
    gold = {f"e{i}": "1" if i % 3 else "0" for i in range(20)}
    plat, info = calibrate_members(j, method="platt", labels=["0", "1"], gold=gold)
    assert info.params["m|nli"]["n_gold"] == 20
    sub = j.filter(pl.col("prompt") == "nli")
    ids = sub["id"].to_list()
    mask = [i in gold for i in ids]
    ref = fit_platt(
        sub.filter(pl.Series(mask)).select("p_0", "p_1").to_numpy(),
        [gold[i] for i, m in zip(ids, mask, strict=True) if m],
        ["0", "1"],
    ).apply(sub.select("p_0", "p_1").to_numpy())
    np.testing.assert_allclose(plat.filter(pl.col("prompt") == "nli")["p_1"], ref[:, 1])


def test_calibrate_members_needs_its_inputs():
    j, _ = _judgments()
    with pytest.raises(UsageError, match="content-free"):
        calibrate_members(j, method="contextual", labels=["0", "1"])
    with pytest.raises(UsageError, match="prior shift"):
        calibrate_members(j, method="prior", labels=["0", "1"])
    with pytest.raises(UsageError, match="gold"):
        calibrate_members(j, method="isotonic", labels=["0", "1"])
    with pytest.raises(UsageError, match="one of"):
        calibrate_members(j, method="temperature", labels=["0", "1"])


def test_calibrate_ensemble_shares_and_labels():
    ens = pl.DataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "p_0": [0.9, 0.7, 0.6, 0.2],
            "p_1": [0.1, 0.3, 0.4, 0.8],
            "llm_label": ["0", "0", "0", "1"],
            "confidence": [0.9, 0.7, 0.6, 0.8],
        }
    )
    out, info = calibrate_ensemble(ens, labels=["0", "1"], observed=["1", "1", "0", "1"])
    assert out["p_1"].mean() == pytest.approx(0.75, abs=1e-10)
    p1 = out["p_1"].to_numpy()
    assert out["llm_label"].to_list() == ["1" if v > 0.5 else "0" for v in p1]
    np.testing.assert_allclose(out["confidence"].to_numpy(), np.maximum(p1, 1 - p1))
    assert info.scope == "ensemble" and info.to_json()["params"]["ensemble"]["offset"][0] == 0


def test_label_shares():
    assert label_shares(["a", "b", "b"], ["b", "a", "c"]).tolist() == pytest.approx(
        [2 / 3, 1 / 3, 0.0]
    )


def test_fit_to_labels_is_out_of_fold_platt():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    from benchcheck.labels.calibration import fit_to_labels

    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 120)
    p1 = 1 / (1 + np.exp(-(0.5 * (2 * y - 1) - 0.8 + rng.normal(0, 0.6, 120))))
    p = np.column_stack([1 - p1, p1])
    got = fit_to_labels(p, [str(v) for v in y], ["0", "1"], folds=4, seed=3)
    x = np.log(p1 / (1 - p1))[:, None]
    want = np.zeros(120)
    for tr, te in StratifiedKFold(4, shuffle=True, random_state=3).split(x, y):
        m = LogisticRegression(C=1e6, max_iter=10_000).fit(x[tr], y[tr])
        want[te] = m.predict_proba(x[te])[:, 1]
    np.testing.assert_allclose(got[:, 1], want, atol=1e-10)
    assert abs(got[:, 1].mean() - y.mean()) < 0.05  # the bias toward 0 is gone
