r"""Crowd models: true labels and reviewer accuracies from many reviewers' answers, no truth.

Majority vote treats every reviewer alike. A crowd model estimates each reviewer's
reliability and every item's posterior over the labels jointly, by EM, from the answers
alone (crowd-kit's implementations):

* ``dawid-skene`` — Dawid & Skene (1979), "Maximum likelihood estimation of observer
  error-rates using the EM algorithm": one confusion matrix per reviewer,
  :math:`P(y_{wj} = k \mid z_j = c) = e^w_{ck}`, class priors :math:`p_c`; the E-step's
  posterior is :math:`P(z_j = c \mid y) \propto p_c \prod_w e^w_{c, y_{wj}}` (their section 2).
* ``glad`` — Whitehill et al. (2009), "Whose vote should count more": reviewer ability
  :math:`\alpha_w` and item difficulty :math:`\beta_j`, :math:`P(y_{wj} = z_j) =
  \sigma(\alpha_w \beta_j)` (their eq. 1), the other labels sharing the rest.
* ``mace`` — Hovy et al. (2013), "Learning whom to trust with MACE": reviewer ``w`` answers
  the true label unless spamming (probability :math:`1 - \theta_w`), then draws from
  :math:`\xi_w`; variational Bayes with ``n_restarts`` seeded restarts.

Chosen by measurement (``benchmarks/crowd_bench.py``, results in
``benchmarks/results/crowd_bench.json``): on the issue's simulated crowd (1,000 items, five
reviewers of accuracy 0.95/0.9/0.8/0.7/0.55, 2 and 3 labels, 3 seeds) all three recover the
reviewers' accuracies within 0.04 of the nominal ones (0.023 of each sample's) and beat
majority vote by 2.0-2.2 points (gold accuracy 0.971 vs 0.951); on a harder crowd (3 of the 5
reviewers per item, labels 80/20, the weakest reviewer answering the majority class 90% of
the time) Dawid-Skene still gains 1.4 points, GLAD none, and MACE loses 19 points (its
spammer model takes the biased reviewer for a reliable one). Dawid-Skene is also 44x
faster than GLAD and MACE on the issue's crowd: the default.

**Reviewer accuracy**, one definition for every model: the mean, over the reviewer's
answers, of the posterior probability that the answer is the true label,
:math:`\hat a_w = \frac{1}{|J_w|} \sum_{j \in J_w} P(z_j = y_{wj} \mid \text{answers})`
— the model's expected share of that reviewer's answers that are right.

Pure: answers in, a frozen :class:`CrowdModel` out.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck.errors import UsageError, require

__all__ = ["CROWD_MODELS", "DEFAULT_CROWD_MODEL", "CrowdModel", "fit_crowd_model"]

CROWD_MODELS = ("dawid-skene", "glad", "mace")
DEFAULT_CROWD_MODEL = "dawid-skene"


@dataclass(frozen=True)
class CrowdModel:
    """A fitted crowd model: the posterior of every item's label and each reviewer's accuracy.

    ``posteriors[id]`` is aligned with ``labels``; ``accuracy[reviewer]`` is the expected
    share of the reviewer's answers that are right; ``answers[reviewer]`` counts them.
    """

    method: str
    labels: tuple[str, ...]
    posteriors: Mapping[str, tuple[float, ...]]
    accuracy: Mapping[str, float]
    answers: Mapping[str, int]

    def gold(self) -> dict[str, str | None]:
        """Return the most probable label of every item; ``None`` on an exact tie.

        >>> CrowdModel("x", ("0", "1"), {"a": (0.2, 0.8), "b": (0.5, 0.5)}, {}, {}).gold()
        {'a': '1', 'b': None}
        """
        out: dict[str, str | None] = {}
        for item, post in self.posteriors.items():
            top = max(post)
            best = [lab for lab, p in zip(self.labels, post, strict=True) if p == top]
            out[item] = best[0] if len(best) == 1 else None
        return out

    def probability(self, item: str, label: str) -> float:
        """Posterior probability that ``item``'s true label is ``label`` (0 for an unseen label)."""
        if label not in self.labels:
            return 0.0
        return self.posteriors[item][self.labels.index(label)]

    def to_json(self) -> dict[str, Any]:
        """Return ``method``, ``reviewers`` (``accuracy``, ``answers``), ``labels`` (posteriors)."""
        return {
            "method": self.method,
            "reviewers": {
                r: {"accuracy": self.accuracy[r], "answers": self.answers[r]} for r in self.accuracy
            },
            "labels": {
                item: dict(zip(self.labels, post, strict=True))
                for item, post in self.posteriors.items()
            },
        }


def fit_crowd_model(
    answers: Sequence[tuple[str, str, str]],
    *,
    method: str = DEFAULT_CROWD_MODEL,
    labels: Sequence[str] | None = None,
    seed: int = 0,
) -> CrowdModel:
    """Fit a crowd model to ``(item, reviewer, label)`` answers (at most one per pair).

    ``labels`` fixes the label set and its order (default: the labels answered, sorted);
    a label nobody gave gets posterior 0. ``seed`` feeds MACE's restarts (Dawid-Skene and
    GLAD are deterministic). Refuses an unknown method, no answers, and a reviewer who
    answers one item twice.

    >>> ans = [("a", "r1", "x"), ("a", "r2", "x"), ("b", "r1", "y"), ("b", "r2", "y")]
    >>> m = fit_crowd_model(ans)
    >>> m.gold(), round(m.accuracy["r1"], 3)
    ({'a': 'x', 'b': 'y'}, 1.0)
    """
    if method not in CROWD_MODELS:
        raise UsageError(f"crowd model must be one of {list(CROWD_MODELS)}, got {method!r}")
    if not answers:
        raise UsageError("a crowd model needs answers; got none")
    seen: set[tuple[str, str]] = set()
    for item, reviewer, _ in answers:
        if (item, reviewer) in seen:
            raise UsageError(f"reviewer {reviewer!r} answers item {item!r} twice")
        seen.add((item, reviewer))
    given = sorted({lab for _, _, lab in answers})
    label_order = tuple(labels) if labels is not None else tuple(given)
    unknown = [lab for lab in given if lab not in label_order]
    if unknown:
        raise UsageError(f"answers {unknown} are not among the labels {list(label_order)}")
    proba = _fit_proba(answers, method, seed)
    items = list(dict.fromkeys(item for item, _, _ in answers))
    cols = [str(c) for c in proba.columns]
    table = proba.to_numpy(dtype=float)
    row_of = {str(t): i for i, t in enumerate(proba.index)}
    posteriors: dict[str, tuple[float, ...]] = {}
    for item in items:
        got = dict(zip(cols, table[row_of[item]], strict=True))
        post = np.array([got.get(lab, 0.0) for lab in label_order])
        total = post.sum()
        post = post / total if total > 0 else np.full(len(label_order), 1 / len(label_order))
        posteriors[item] = tuple(float(p) for p in post)
    correct: dict[str, list[float]] = {}
    for item, reviewer, lab in answers:
        correct.setdefault(reviewer, []).append(posteriors[item][label_order.index(lab)])
    reviewers = sorted(correct)
    return CrowdModel(
        method=method,
        labels=label_order,
        posteriors=posteriors,
        accuracy={r: float(math.fsum(correct[r]) / len(correct[r])) for r in reviewers},
        answers={r: len(correct[r]) for r in reviewers},
    )


def _fit_proba(answers: Sequence[tuple[str, str, str]], method: str, seed: int) -> Any:
    """crowd-kit's posterior table (tasks × labels) for ``method``."""
    aggregation = require("crowdkit.aggregation", "crowd")
    import pandas as pd

    frame = pd.DataFrame(list(answers), columns=["task", "worker", "label"])
    if method == "dawid-skene":
        model = aggregation.DawidSkene(n_iter=100, tol=1e-5)
    elif method == "glad":
        model = aggregation.GLAD(n_iter=100, tol=1e-5, silent=True)
    else:
        model = aggregation.MACE(n_restarts=10, n_iter=50, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas deprecation notes inside crowd-kit
        return model.fit_predict_proba(frame)
