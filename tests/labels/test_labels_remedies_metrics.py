"""rerank's numpy F1 and accuracy equal scikit-learn's, float for float (random cases)."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, f1_score

from benchcheck.labels.remedies import _acc, _f1


def test_f1_and_accuracy_are_scikit_learns() -> None:
    rng = np.random.default_rng(0)
    for _ in range(500):
        n = int(rng.integers(1, 60))
        labels = np.array(["0", "1", "2"])[: int(rng.integers(1, 4))]
        t, p = rng.choice(labels, n), rng.choice(labels, n)
        pos = str(rng.choice(["0", "1", "9"]))  # "9": a label nobody uses (zero_division)
        assert _f1(t, p, pos) == float(f1_score(t == pos, p == pos, zero_division=0))
        assert _acc(t, p, pos) == float(accuracy_score(t, p))
