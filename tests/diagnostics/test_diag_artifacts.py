import numpy as np
import pytest
from scipy.stats import binom

from benchcheck.diagnostics import partial_input_audit
from benchcheck.errors import UsageError

LABELS = ["entailment", "neutral", "contradiction"]
VOCAB = [f"w{i}" for i in range(200)]


def make(rng, n, cue):
    texts, labels = [], []
    for _ in range(n):
        lab = LABELS[rng.integers(3)]
        words = list(rng.choice(VOCAB, 7))
        if cue and lab == "contradiction":
            words.insert(int(rng.integers(7)), "nobody")
        texts.append(" ".join(words))
        labels.append(lab)
    return texts, labels


N_TRAIN, N_EVAL = 500, 300
# Eval labels are drawn uniformly and independently of the texts, so a model without real
# signal gets Binomial(N_EVAL, 1/3) examples right; 1e-6 tail bounds on that count.
UPPER = binom.ppf(1 - 1e-6, N_EVAL, 1 / 3) / N_EVAL


def test_planted_cue_is_found():
    rng = np.random.default_rng(0)
    res = partial_input_audit(
        *make(rng, N_TRAIN, True), *make(rng, N_EVAL, True), seed=0, n_resamples=200
    )
    assert res.accuracy > UPPER
    assert res.accuracy_ci[0] > max(res.majority_accuracy, res.chance_accuracy)
    assert res.cues["contradiction"][0].feature == "nobody"
    assert res.cues["contradiction"][0].label_share == 1.0
    assert res.p_value < 1e-6 and "above both baselines" in res.reading
    assert res.r_k.r_k > 0.3


def test_no_cue_stays_near_chance():
    rng = np.random.default_rng(1)
    res = partial_input_audit(
        *make(rng, N_TRAIN, False), *make(rng, N_EVAL, False), seed=0, n_resamples=200
    )
    lower = binom.ppf(1e-6, N_EVAL, 1 / 3) / N_EVAL
    assert lower <= res.accuracy <= UPPER
    assert "no evidence" in res.reading
    assert res.chance_accuracy == pytest.approx(1 / 3)
    js = res.to_json()
    assert js["kind"] == "artifacts" and js["accuracy_ci"][0] <= js["accuracy"]


def test_numbers_match_independent_libraries():
    # Clopper–Pearson via statsmodels, the one-sided test via the binomial tail, the
    # majority baseline and R_K recomputed from the reported confusion matrix (sklearn).
    from sklearn.metrics import matthews_corrcoef
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(5)
    (tr_x, tr_y), (ev_x, ev_y) = make(rng, 200, True), make(rng, 90, True)
    res = partial_input_audit(tr_x, tr_y, ev_x, ev_y, seed=0, n_resamples=20)
    conf = np.array(res.r_k.confusion)
    k, n = int(np.trace(conf)), int(conf.sum())
    assert n == 90 and res.accuracy == pytest.approx(k / n)
    assert res.accuracy_ci == pytest.approx(proportion_confint(k, n, alpha=0.05, method="beta"))
    majority = max(sorted(set(tr_y)), key=tr_y.count)
    assert res.majority_label == majority
    assert res.majority_accuracy == pytest.approx(ev_y.count(majority) / n)
    best = max(res.majority_accuracy, 1 / 3)
    assert res.p_value == pytest.approx(binom.sf(k - 1, n, best))
    gold = [res.labels[i] for i in range(3) for j in range(3) for _ in range(conf[i, j])]
    pred = [res.labels[j] for i in range(3) for j in range(3) for _ in range(conf[i, j])]
    assert res.r_k.r_k == pytest.approx(matthews_corrcoef(gold, pred))


def test_deterministic_and_validates():
    rng = np.random.default_rng(2)
    tr, ev = make(rng, 150, True), make(rng, 60, True)
    a = partial_input_audit(*tr, *ev, seed=3, n_resamples=50).to_json()
    b = partial_input_audit(*tr, *ev, seed=3, n_resamples=50).to_json()
    assert a == b
    with pytest.raises(UsageError, match="two labels"):
        partial_input_audit(["a", "b"], ["x", "x"], ["c"], ["x"])


def test_max_train_subsample():
    rng = np.random.default_rng(4)
    tr, ev = make(rng, 300, True), make(rng, 60, True)
    res = partial_input_audit(*tr, *ev, seed=1, n_resamples=20, max_train=120)
    assert res.n_train == 120 and res.meta["n_train_available"] == 300
