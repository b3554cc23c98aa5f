"""Controlled dataset adjustment (Statistical dataset evaluation, Sec. 6.4).

From one split, build subsets of one size whose value of one metric is set to a target (the
paper: test sets with 80% vs 20% unseen entities, ambiguous entities or leaked instances;
train/dev sets with Entity-Null Rate 0.8, 0.2, 0.0), report the achieved value beside the
target, and say how far the selection moved the rest of the distribution.

The metrics that can be adjusted are those the metric table gives an ``adjuster``
(:func:`adjustable`); the adjuster says what kind of quantity the metric is, and so how the
subset is chosen (``rng`` seeded; same input, same output):

- :class:`~benchcheck.metrics.spec.IndicatorShare` (``leakage_ratio``, any task, the split
  against train and dev, Eq. 3; ``entity_null_rate``, NER, Eq. 9): a mean of a per-instance
  indicator, so the subset takes round(target · size) marked instances and the rest
  unmarked; the achieved value is within 1/(2·size) of the target (:mod:`.indicator`).
- :class:`~benchcheck.metrics.spec.SurfaceShare` (``unseen_entity_ratio``, NER, Eq. 4
  against train; ``ambiguous_entity_share``, NER: share of the subset's distinct entity
  surfaces labelled with two or more types anywhere in the dataset): ratios over the
  subset's *distinct* surfaces, chosen greedily from three seeded queues and improved by
  swaps (:mod:`.surfaces`).
- :class:`~benchcheck.metrics.spec.LabelSpread` (``label_imbalance_degree``,
  classification and pair, Eq. 8's analogue): label counts from the family p_l ∝ c_l**t,
  t by bisection (:mod:`.labels`).

Inside each group the instances are drawn stratified by length quartile of the source
(:mod:`.subsets`). The result (:mod:`.result`) reports, per subset, the mean length and the
Kolmogorov–Smirnov statistic against the source, and the total variation distance of entity
types (NER) or labels (text tasks) (:mod:`.shift`). A target is refused, with the reason,
when the split cannot reach it within ``tolerance`` (:mod:`.core`).
"""

from __future__ import annotations

from benchcheck.metrics.adjust.core import adjust, adjustable, default_size, measure
from benchcheck.metrics.adjust.result import Adjustment, Subset
from benchcheck.metrics.adjust.subsets import subset_split

__all__ = [
    "Adjustment",
    "Subset",
    "adjust",
    "adjustable",
    "default_size",
    "measure",
    "subset_split",
]
