r"""Human baseline on a diagnostic suite: agreement between annotators and R_K against gold.

Fleiss' kappa (:func:`benchcheck.stats.agreement.fleiss_kappa`: statsmodels ``fleiss_kappa``
on ``aggregate_raters``) over the examples that every annotator labelled:
:math:`\kappa = (\bar P - \bar P_e) / (1 - \bar P_e)`, ``None`` where it is undefined
(every annotator gave every such example the same one label: 0/0). Each
annotator's R_K against the gold labels (on the examples they labelled) with a seeded
bootstrap interval; the mean over annotators; and the R_K of the majority vote (examples
with a unique most frequent label). Beside Fleiss' kappa, Krippendorff's alpha (nominal) over
every example at least two annotators labelled, missing labels allowed
(:func:`benchcheck.stats.agreement.krippendorff_alpha`), with a seeded bootstrap interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck.diagnostics.score import Cell, rk_cell
from benchcheck.diagnostics.suite import DiagnosticSuite
from benchcheck.errors import UsageError
from benchcheck.stats.agreement import (
    fleiss_kappa,
    krippendorff_alpha,
    krippendorff_alpha_ci,
    majority_vote,
)

__all__ = ["HumanBaseline", "human_baseline"]


@dataclass(frozen=True)
class HumanBaseline:
    """Agreement and accuracy of human annotators on a suite."""

    suite: Mapping[str, Any]
    labels: tuple[str, ...]
    fleiss_kappa: float | None
    n_items_kappa: int
    annotators: Mapping[str, Cell]
    mean_r_k: float | None
    majority: Cell
    n_ties: int
    krippendorff_alpha: float | None = None
    krippendorff_alpha_ci: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON form, ``kind: human``."""
        return {
            "kind": "human",
            "suite": dict(self.suite),
            "labels": list(self.labels),
            "fleiss_kappa": self.fleiss_kappa,
            "n_items_kappa": self.n_items_kappa,
            "krippendorff_alpha": self.krippendorff_alpha,
            "krippendorff_alpha_ci": None
            if self.krippendorff_alpha_ci is None
            else list(self.krippendorff_alpha_ci),
            "annotators": {k: v.to_json() for k, v in self.annotators.items()},
            "mean_r_k": self.mean_r_k,
            "majority_vote": self.majority.to_json(),
            "n_majority_ties": self.n_ties,
        }


def human_baseline(
    suite: DiagnosticSuite,
    annotations: Mapping[str, Mapping[str, str]],
    *,
    seed: int = 0,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> HumanBaseline:
    """Compute Fleiss' kappa, each annotator's R_K vs gold, their mean, and the majority's R_K.

    ``annotations`` is ``{annotator: {example id: label}}``; annotators may label different
    subsets. Kappa needs at least two annotators and uses only the examples all of them
    labelled (``n_items_kappa``); it is None when there are none, and None when every
    rating of those examples is one and the same label (the undefined 0/0 case; the rule of
    :mod:`benchcheck.stats.agreement`).
    """
    if not annotations:
        raise UsageError("no annotations given")
    labels = list(suite.label_names)
    gold = dict(zip(suite.ids, suite.table["label"].to_list(), strict=True))
    for who, items in annotations.items():
        bad = sorted({v for v in items.values() if v not in labels})
        if bad:
            raise UsageError(f"annotator {who!r} uses labels outside {labels}: {bad}")
        unknown = [i for i in items if i not in gold]
        if unknown:
            raise UsageError(f"annotator {who!r} labels ids not in the suite: {unknown[:3]}")
    names = list(annotations)
    per: dict[str, Cell] = {}
    for who in names:
        ids = [i for i in suite.ids if i in annotations[who]]
        per[who] = rk_cell(
            [gold[i] for i in ids],
            [annotations[who][i] for i in ids],
            labels,
            seed=seed,
            key=f"human/{who}",
            n_resamples=n_resamples,
            confidence=confidence,
        )
    common = [i for i in suite.ids if all(i in annotations[w] for w in names)]
    kappa = (
        fleiss_kappa([[annotations[w][i] for w in names] for i in common])
        if len(names) >= 2
        else None
    )
    rated = [i for i in suite.ids if any(i in annotations[w] for w in names)]
    units = [[annotations[w].get(i) for w in names] for i in rated]
    alpha = krippendorff_alpha(units)
    alpha_ci = krippendorff_alpha_ci(
        units, confidence=confidence, n_resamples=n_resamples, seed=seed
    )
    tie = object()
    voted = majority_vote([[annotations[w].get(i) for w in names] for i in rated], tie=tie)
    votes_ids = [i for i, v in zip(rated, voted, strict=True) if v is not tie]
    votes = [str(v) for v in voted if v is not tie]
    ties = len(rated) - len(votes_ids)
    majority = rk_cell(
        [gold[i] for i in votes_ids],
        votes,
        labels,
        seed=seed,
        key="human/majority",
        n_resamples=n_resamples,
        confidence=confidence,
    )
    scores = [c.r_k for c in per.values() if c.r_k is not None]
    return HumanBaseline(
        suite=suite.summary(),
        labels=tuple(labels),
        fleiss_kappa=kappa,
        n_items_kappa=len(common) if len(names) >= 2 else 0,
        annotators=per,
        mean_r_k=float(np.mean(scores)) if scores else None,
        majority=majority,
        n_ties=ties,
        krippendorff_alpha=alpha,
        krippendorff_alpha_ci=alpha_ci,
    )
