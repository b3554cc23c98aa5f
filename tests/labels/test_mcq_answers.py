"""The models'-answers detector of wrong keys (issue 35): E-step by hand, kinds, recovery."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from benchcheck.labels.mcq_answers import _kinds, answer_flags, design_effect_temper


def _one_hot(answers: np.ndarray, k: int) -> np.ndarray:
    return (answers[:, :, None] == np.arange(k)[None, None, :]).astype(float)


def test_first_e_step_by_hand() -> None:
    # one question, two options, key A, two models answering B; start p = 0.7, q = 0.9
    out = answer_flags(
        ["q"], np.array([0]), np.array([2]), _one_hot(np.array([[1, 1]]), 2), ["m1", "m2"],
        temper=1.0, max_iter=1,
    )  # fmt: skip
    a = 0.3**2 * 0.9  # both models wrong, key right
    b = 0.7**2 * 0.1  # both models right, key wrong
    assert out.error_score[0] == pytest.approx(b / (a + b))
    assert out.proposed[0] == 1 and out.support[0] == pytest.approx(b / (a + b))


def test_soft_answer_and_temper_by_hand() -> None:
    # a model that gives P(A) = 0.2, P(B) = 0.8; the likelihood tempered by 0.5
    soft = np.array([[[0.2, 0.8]]])
    out = answer_flags(["q"], np.array([0]), np.array([2]), soft, ["m"], temper=0.5, max_iter=1)
    ll_a = 0.5 * (0.2 * math.log(0.7) + 0.8 * math.log(0.3)) + math.log(0.9)
    ll_b = 0.5 * (0.8 * math.log(0.7) + 0.2 * math.log(0.3)) + math.log(0.1)
    assert out.posterior[0, 1] == pytest.approx(1 / (1 + math.exp(ll_a - ll_b)))


def test_options_past_a_question_s_last_get_no_mass() -> None:
    answers = _one_hot(np.array([[2, 2, 2], [0, 0, 1]]), 4)
    out = answer_flags(["a", "b"], np.array([0, 0]), np.array([3, 2]), answers, ["x", "y", "z"])
    assert out.posterior[1, 2:].tolist() == [0.0, 0.0]
    assert out.posterior[0, 3] == 0.0
    assert out.posterior.sum(1) == pytest.approx([1.0, 1.0])


def test_design_effect_of_identical_and_independent_models() -> None:
    rng = np.random.default_rng(0)
    same = np.repeat(rng.integers(0, 2, (500, 1)), 4, axis=1).astype(float)
    tau, rho = design_effect_temper(same, np.ones_like(same, dtype=bool))
    assert rho == pytest.approx(1.0) and tau == pytest.approx(1 / 4)
    indep = rng.integers(0, 2, (20000, 4)).astype(float)
    tau, _ = design_effect_temper(indep, np.ones_like(indep, dtype=bool))
    assert tau == pytest.approx(1.0, abs=0.05)


def test_kinds_from_the_posterior() -> None:
    post = np.array(
        [
            [0.9, 0.05, 0.05, 0.0],  # ok
            [0.1, 0.8, 0.1, 0.0],  # wrong key, B
            [0.45, 0.4, 0.15, 0.0],  # key and B hold 0.85: ambiguous
            [0.3, 0.25, 0.25, 0.2],  # spread: no correct option
        ]
    )
    key = np.array([0, 0, 0, 0])
    proposed = np.array([1, 1, 1, 1])
    assert _kinds(post, key, proposed, 0.5) == ("ok", "wrong_key", "ambiguous", "no_correct")


def test_recovers_planted_wrong_keys_and_their_subject() -> None:
    # 12 models of accuracy 0.75 answering 1,200 four-option questions; group "bad" has
    # 30 % wrong keys, group "good" 2 %; a shared difficulty makes the models' errors
    # correlated, as real models' are.
    rng = np.random.default_rng(7)
    n, j = 1200, 12
    truth = rng.integers(0, 4, n)
    group = np.where(np.arange(n) < 300, "bad", "good")
    wrong = rng.random(n) < np.where(group == "bad", 0.30, 0.02)
    key = np.where(wrong, (truth + rng.integers(1, 4, n)) % 4, truth)
    hard = rng.random(n) < 0.25
    acc = np.where(hard, 0.4, 0.87)[:, None]
    lure = (truth + 1 + rng.integers(0, 3, n)) % 4  # one shared wrong answer per question
    right = rng.random((n, j)) < acc
    answers = np.where(right, truth[:, None], lure[:, None])
    out = answer_flags(
        [str(i) for i in range(n)], key, np.full(n, 4), _one_hot(answers, 4),
        [f"m{i}" for i in range(j)], groups=list(group),
    )  # fmt: skip
    assert average_precision_score(wrong, out.error_score) > 0.8
    q = dict(zip(out.groups, out.group_key_accuracy, strict=True))
    assert q["bad"] == pytest.approx(0.70, abs=0.06)
    assert q["good"] == pytest.approx(0.98, abs=0.02)
    # where the models mostly know the answer, the proposed answer is the truth; on the hard
    # quarter most models pick the shared lure, and so does the proposal
    easy = out.flagged & wrong & ~hard
    assert (out.proposed[easy] == truth[easy]).mean() > 0.95
    assert out.temper < 0.5  # the shared difficulty is seen as correlation
    assert abs(out.error_score.sum() - wrong.sum()) < 0.25 * wrong.sum()


def test_rerank_by_hand_and_kendall_tau_from_scipy() -> None:
    from scipy.stats import kendalltau

    from benchcheck.labels.mcq_rerank import rerank_models

    # 4 questions, 3 models; key of q1 is wrong (C is right), q3 is removed
    answers = _one_hot(np.array([[0, 0, 0], [2, 2, 0], [1, 0, 1], [3, 1, 2]]), 4)
    key = np.array([0, 0, 1, 3])
    corrected = np.array([0, 2, 1, -1])
    out = rerank_models(answers, key, corrected, ["x", "y", "z"])
    assert out.accuracy_original.tolist() == [0.75, 0.25, 0.75]
    assert out.accuracy_corrected.tolist() == pytest.approx([1.0, 2 / 3, 2 / 3])
    assert out.rank_original.tolist() == [1, 3, 1]
    assert out.rank_corrected.tolist() == [1, 2, 2]
    assert (out.keys_changed, out.removed, out.n_corrected) == (1, 1, 3)
    expected = kendalltau([0.75, 0.25, 0.75], [1.0, 2 / 3, 2 / 3]).statistic
    assert out.kendall_tau == pytest.approx(expected)
