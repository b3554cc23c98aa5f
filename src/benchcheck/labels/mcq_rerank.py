r"""Models re-scored on the original and the corrected keys: the ranking change.

The label-error paper's Table 4 question: does fixing the keys change which model is best?
Each model's accuracy on a key vector is

.. math:: \mathrm{acc}_j(k) = \frac{1}{|S|} \sum_{i \in S} [\hat a_{ij} = k_i],

:math:`\hat a_{ij}` its answer (the argmax of a distribution; no answer counts as wrong),
:math:`S` the questions the keys keep (a corrected key of ``-1`` removes the question:
no correct option, several, or unclear). Ranks are 1 = best (ties share the best rank);
the change is summarised by Kendall's :math:`\tau_b` between the two accuracy vectors
(scipy), each model's ``rank_change`` (original − corrected rank: positive = moved up) and
the number of models whose rank ``moved``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau, rankdata

__all__ = ["McqRerank", "neighbour_differences", "rerank_models"]


@dataclass(frozen=True)
class McqRerank:
    """Per model: accuracy and rank on the original and the corrected keys."""

    models: tuple[str, ...]
    accuracy_original: np.ndarray
    accuracy_corrected: np.ndarray
    rank_original: np.ndarray
    rank_corrected: np.ndarray
    n_original: int
    n_corrected: int
    keys_changed: int
    removed: int
    kendall_tau: float

    def to_json(self) -> dict[str, object]:
        """Return the counts, Kendall's tau and one row per model (best corrected first)."""
        order = np.argsort(self.rank_corrected, kind="stable")
        return {
            "questions_original": self.n_original,
            "questions_corrected": self.n_corrected,
            "keys_changed": self.keys_changed,
            "removed": self.removed,
            "kendall_tau": self.kendall_tau,
            "moved": int((self.rank_original != self.rank_corrected).sum()),
            "models": [
                {
                    "model": self.models[j],
                    "accuracy_original": float(self.accuracy_original[j]),
                    "accuracy_corrected": float(self.accuracy_corrected[j]),
                    "rank_original": int(self.rank_original[j]),
                    "rank_corrected": int(self.rank_corrected[j]),
                    "rank_change": int(self.rank_original[j] - self.rank_corrected[j]),
                }
                for j in order
            ],
        }


def _ranks(acc: np.ndarray) -> np.ndarray:
    return rankdata(-acc, method="min").astype(np.int64)


def rerank_models(
    answers: np.ndarray, key: np.ndarray, corrected: np.ndarray, models: Sequence[str]
) -> McqRerank:
    """Score every model on ``key`` and on ``corrected`` (``-1`` = question removed).

    ``answers`` is (questions × models × options), as :func:`answer_flags` takes it.

    >>> ans = np.zeros((3, 2, 2)); ans[:, 0, 0] = 1; ans[:2, 1, 1] = 1; ans[2, 1, 0] = 1
    >>> out = rerank_models(ans, np.array([0, 0, 0]), np.array([1, -1, 0]), ["a", "b"])
    >>> out.accuracy_original.tolist(), out.accuracy_corrected.tolist()
    ([1.0, 0.3333333333333333], [0.5, 1.0])
    >>> out.rank_original.tolist(), out.rank_corrected.tolist()
    ([1, 2], [2, 1])
    """
    key = np.asarray(key)
    corrected = np.asarray(corrected)
    answered = answers.sum(2) > 0
    choice = np.where(answered, answers.argmax(2), -1)  # (n, J)
    right_orig = choice == key[:, None]
    keep = corrected >= 0
    right_corr = choice[keep] == corrected[keep][:, None]
    acc_o = right_orig.mean(0)
    acc_c = right_corr.mean(0) if keep.any() else np.full(len(models), np.nan)
    tau = (
        float(kendalltau(acc_o, acc_c).statistic)
        if len(models) > 1 and keep.any()
        else float("nan")
    )
    return McqRerank(
        models=tuple(models),
        accuracy_original=acc_o,
        accuracy_corrected=acc_c,
        rank_original=_ranks(acc_o),
        rank_corrected=_ranks(acc_c),
        n_original=len(key),
        n_corrected=int(keep.sum()),
        keys_changed=int((keep & (corrected != key)).sum()),
        removed=int((~keep).sum()),
        kendall_tau=tau,
    )


def neighbour_differences(
    answers: np.ndarray,
    corrected: np.ndarray,
    ranking: McqRerank,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> list[dict[str, object]]:
    """Paired bootstrap of the accuracy gap between models next to each other on ``corrected``.

    For each pair of neighbours in the corrected ranking (best first), the difference of
    their accuracies on the questions ``corrected`` keeps, its percentile interval and
    two-sided p-value from :func:`benchcheck.stats.intervals.paired_bootstrap` (the same
    resampled questions for both models): is the reviewed order more than noise?
    """
    from benchcheck.stats.intervals import paired_bootstrap

    keep = corrected >= 0
    if not keep.any() or len(ranking.models) < 2:
        return []
    answered = answers.sum(2) > 0
    choice = np.where(answered, answers.argmax(2), -1)[keep]
    truth = corrected[keep]
    order = np.argsort(ranking.rank_corrected, kind="stable")
    out: list[dict[str, object]] = []
    for a, b in zip(order[:-1], order[1:], strict=True):
        res = paired_bootstrap(
            truth, choice[:, a], choice[:, b], _accuracy, n_resamples=n_resamples, seed=seed
        )
        out.append(
            {
                "metric": "accuracy",
                "a": ranking.models[a],
                "b": ranking.models[b],
                "difference": res.difference,
                "ci": list(res.ci),
                "p_value": res.p_value,
                "skipped": res.skipped,
            }
        )
    return out


def _accuracy(truth: np.ndarray, choice: np.ndarray) -> float:
    return float((truth == choice).mean())
