"""The metric table: every metric benchcheck knows, in output order, and nothing else.

:data:`METRICS` is the one place a metric is declared (see :class:`MetricSpec` for the
fields); :data:`BY_NAME` looks one up and :func:`specs_for` lists those of a task kind.
``compute_stats`` and ``split_overlap`` compute from it, ``adjust`` reads its adjusters,
``scripts/make_metric_cards.py`` renders ``docs/metrics/`` from it. The metric modules
import nothing from here: importing them has no side effect, and this module imports them.

The order is the order of results (kept from before the table, so that results stay byte
for byte the same): difficulty, reliability, the classification and pair metrics, validity,
then the near-duplicate analyses' metrics; the ``dimensions`` block regroups by dimension.
"""

from __future__ import annotations

from types import MappingProxyType

from benchcheck.data.model import TASK_KINDS, TaskKind
from benchcheck.metrics import difficulty, reliability, text, validity
from benchcheck.metrics.neardup import lexical, semantic
from benchcheck.metrics.spec import (
    DIMENSIONS,
    IndicatorShare,
    LabelSpread,
    MetricSpec,
    Preparation,
    Scope,
    SurfaceShare,
)

__all__ = ["BY_NAME", "DIMENSIONS", "METRICS", "MetricSpec", "specs_for", "stats_specs"]

_ALL: tuple[TaskKind, ...] = TASK_KINDS
_TEXT: tuple[TaskKind, ...] = ("classification", "pair", "mcq")
_NER: tuple[TaskKind, ...] = ("ner",)
#: Leakage compares the test split with train and dev (Eq. 3).
_TRAIN_DEV = ("train", "dev")
_LEAK_NEEDS = "needs a test split and a train or dev split"
#: e* of Eq. 5, shared by the degree and its variant.
_E_STAR = Preparation("e_star", difficulty.n_ambiguous)

METRICS: tuple[MetricSpec, ...] = (
    # --- difficulty (NER) ------------------------------------------------------------------
    MetricSpec(
        name="entity_ambiguity_degree",
        function=difficulty.entity_ambiguity_degree,
        dimension="difficulty",
        # Eq. 5 as written falls as ambiguity grows: a harder (more ambiguous) split scores
        # lower, so lower is "better" in the difficulty dimension's sense.
        better="lower",
        tasks=_NER,
        scope="split",
        title="Entity ambiguity degree",
        definition="Eq. 5 as written: 1 − e*/n, e* = entity values labelled with more than "
        "one type; it falls as ambiguity grows (ambiguous_entity_ratio rises).",
        needs="needs at least one instance",
        prepared=(_E_STAR,),
    ),
    MetricSpec(
        name="ambiguous_entity_ratio",
        function=difficulty.ambiguous_entity_ratio,
        dimension="difficulty",
        better="higher",
        tasks=_NER,
        scope="split",
        title="Ambiguous entity ratio",
        definition=(
            "e* / number of distinct entity values: the share of entity values with 2+ types."
        ),
        needs="needs entities in the split",
        prepared=(_E_STAR,),
    ),
    MetricSpec(
        name="entity_density",
        function=difficulty.entity_density,
        dimension="difficulty",
        better="higher",
        tasks=_NER,
        scope="split",
        title="Entity density",
        definition="Eq. 6: mean over sentences of (distinct entity values in it) / (its tokens).",
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="unseen_entity_ratio",
        function=difficulty.unseen_entity_ratio,
        dimension="difficulty",
        better="higher",
        tasks=_NER,
        scope="cross",
        title="Unseen entity ratio",
        definition="Eq. 4: |e(Te) − e(Tr)| / |e(Te)| over sets of entity values (test vs train).",
        needs="needs a train and a test split, and test entities",
        references=("train",),
        adjuster=SurfaceShare(
            difficulty.unseen_surfaces,
            marked="unseen",
            needs="a train split and another split to adjust",
        ),
    ),
    MetricSpec(
        name="unseen_entity_ratio_typed",
        function=difficulty.unseen_entity_ratio_typed,
        dimension="difficulty",
        better="higher",
        tasks=_NER,
        scope="cross",
        title="Unseen entity ratio (typed)",
        definition="Eq. 4 over (entity value, type) pairs.",
        needs="needs a train and a test split, and test entities",
        references=("train",),
    ),
    MetricSpec(
        name="ambiguous_entity_share",
        function=difficulty.ambiguous_entity_share,
        dimension="difficulty",
        better="higher",
        tasks=_NER,
        scope="cross",
        title="Ambiguous entity share",
        definition="Share of a split's distinct entity values labelled with 2+ types in any split.",
        needs="needs entities in the split",
        references=None,
        # Adjust's target for the paper's "80% ambiguous entities" test sets (Sec. 6.4);
        # stats reports ambiguity as Eq. 5 and its variant and does not list it.
        in_stats=False,
        adjuster=SurfaceShare(difficulty.ambiguous_surfaces, marked="ambiguous"),
    ),
    MetricSpec(
        name="model_differentiation",
        function=difficulty.model_differentiation,
        dimension="difficulty",
        better="higher",
        tasks=_ALL,
        scope="scores",
        title="Model differentiation",
        definition="Eq. 7: population standard deviation of k models' scores on the dataset.",
        needs="needs model scores",
    ),
    # --- reliability (every task) -------------------------------------------------------------
    MetricSpec(
        name="redundancy",
        function=reliability.redundancy,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="split",
        title="Redundancy",
        definition="Eq. 1: pairs i<j with identical (x, y), divided by n.",
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="duplicate_ratio",
        function=reliability.duplicate_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="split",
        title="Duplicate ratio",
        definition=(
            "(n − distinct instances) / n: the share of instances that repeat an earlier one."
        ),
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="leakage_ratio",
        function=reliability.leakage_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="cross",
        title="Leakage ratio",
        definition="Eq. 3: share of test instances (x, y) that also occur in train or dev.",
        needs=_LEAK_NEEDS,
        references=_TRAIN_DEV,
        adjuster=IndicatorShare(
            reliability.leaked_instances,
            marked="leaked",
            needs="a train or dev split besides {split!r}",
        ),
    ),
    MetricSpec(
        name="text_leakage_ratio",
        function=reliability.text_leakage_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="cross",
        title="Text leakage ratio",
        definition="Share of test inputs x (labels ignored) that also occur in train or dev.",
        needs=_LEAK_NEEDS,
        references=_TRAIN_DEV,
    ),
    # --- classification and pair ------------------------------------------------------------
    MetricSpec(
        name="label_imbalance_degree",
        function=text.label_imbalance_degree,
        dimension="validity",
        better="lower",
        tasks=_TEXT,
        scope="split",
        title="Label imbalance degree",
        definition=(
            "Analogue of Eq. 8: standard deviation (ddof=0) of the label shares P(l_1)…P(l_v)."
        ),
        needs="needs at least one instance",
        adjuster=LabelSpread(),
    ),
    MetricSpec(
        name="label_conflict_ratio",
        function=text.label_conflict_ratio,
        dimension="reliability",
        better="lower",
        tasks=_TEXT,
        scope="split",
        title="Label conflict ratio",
        definition="Share of distinct inputs x in the split that carry more than one label.",
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="label_conflict_ratio_across",
        function=text.label_conflict_ratio_across,
        dimension="reliability",
        better="lower",
        tasks=_TEXT,
        scope="pooled",
        title="Label conflict ratio across splits",
        definition=(
            "Share of distinct inputs over all splits together that carry more than one label."
        ),
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="mean_length",
        function=text.mean_length,
        dimension="difficulty",
        better="higher",
        tasks=("classification", "mcq"),
        scope="split",
        title="Mean length",
        definition="Mean number of whitespace-separated tokens per text.",
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="mean_length_a",
        function=text.mean_length_a,
        dimension="difficulty",
        better="higher",
        tasks=("pair",),
        scope="split",
        title="Mean length of text a",
        definition="Mean number of whitespace-separated tokens of the first text of each pair.",
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="mean_length_b",
        function=text.mean_length_b,
        dimension="difficulty",
        better="higher",
        tasks=("pair",),
        scope="split",
        title="Mean length of text b",
        definition="Mean number of whitespace-separated tokens of the second text of each pair.",
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="text_a_duplicate_ratio",
        function=text.text_a_duplicate_ratio,
        dimension="reliability",
        better="lower",
        tasks=("pair",),
        scope="split",
        title="Duplicate ratio of text a",
        definition="(n − distinct first texts) / n: first texts shared by several pairs.",
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="text_b_duplicate_ratio",
        function=text.text_b_duplicate_ratio,
        dimension="reliability",
        better="lower",
        tasks=("pair",),
        scope="split",
        title="Duplicate ratio of text b",
        definition="(n − distinct second texts) / n.",
        needs="needs at least one instance",
    ),
    MetricSpec(
        name="text_a_leakage_ratio",
        function=text.text_a_leakage_ratio,
        dimension="reliability",
        better="lower",
        tasks=("pair",),
        scope="cross",
        title="Text a leakage ratio",
        definition="Share of test pairs whose first text occurs as a first text in train or dev.",
        needs=_LEAK_NEEDS,
        references=_TRAIN_DEV,
    ),
    MetricSpec(
        name="text_b_leakage_ratio",
        function=text.text_b_leakage_ratio,
        dimension="reliability",
        better="lower",
        tasks=("pair",),
        scope="cross",
        title="Text b leakage ratio",
        definition="Share of test pairs whose second text occurs as a second text in train or dev.",
        needs=_LEAK_NEEDS,
        references=_TRAIN_DEV,
    ),
    MetricSpec(
        name="partial_leakage_ratio",
        function=text.partial_leakage_ratio,
        dimension="reliability",
        better="lower",
        tasks=("pair",),
        scope="cross",
        title="Partial leakage ratio",
        definition=(
            "Share of test pairs not leaked as a pair whose first or second text leaked alone."
        ),
        needs=_LEAK_NEEDS,
        references=_TRAIN_DEV,
    ),
    # --- validity (NER) -----------------------------------------------------------------------
    MetricSpec(
        name="entity_imbalance_degree",
        function=validity.entity_imbalance_degree,
        dimension="validity",
        better="lower",
        tasks=_NER,
        scope="split",
        title="Entity imbalance degree",
        definition="Eq. 8: standard deviation (ddof=0) of the shares of entity mentions per type.",
        needs="needs entities in the split",
    ),
    MetricSpec(
        name="entity_null_rate",
        function=validity.entity_null_rate,
        dimension="validity",
        better="lower",
        tasks=_NER,
        scope="split",
        title="Entity-null rate",
        definition="Eq. 9: share of instances without any entity.",
        needs="needs at least one instance",
        adjuster=IndicatorShare(validity.entity_free, marked="entity-free"),
    ),
    # --- near-duplicates (stats --near-duplicates / --semantic-duplicates) -------------------
    # One parameterised pass (threshold, seed) computes these together over every split, so
    # stats cannot compute them one by one; the functions read them from the analysis.
    MetricSpec(
        name="near_duplicate_ratio",
        function=lexical.near_duplicate_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="near_duplicates",
        title="Near-duplicate ratio",
        definition="(n − clusters of inputs with word Jaccard ≥ threshold) / n, mean over splits.",
        needs="needs at least one instance",
        in_stats=False,
    ),
    MetricSpec(
        name="normalized_duplicate_ratio",
        function=lexical.normalized_duplicate_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="near_duplicates",
        title="Normalised duplicate ratio",
        definition=(
            "(n − distinct inputs after NFKC, case-folding, whitespace) / n, mean over splits."
        ),
        needs="needs at least one instance",
        in_stats=False,
    ),
    MetricSpec(
        name="near_leakage_ratio",
        function=lexical.near_leakage_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="near_duplicates",
        title="Near leakage ratio",
        definition=(
            "Share of test inputs with a near-duplicate (word Jaccard ≥ threshold) in train or dev."
        ),
        needs=_LEAK_NEEDS,
        in_stats=False,
    ),
    MetricSpec(
        name="normalized_leakage_ratio",
        function=lexical.normalized_leakage_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="near_duplicates",
        title="Normalised leakage ratio",
        definition="Share of test inputs whose normalised text occurs in train or dev.",
        needs=_LEAK_NEEDS,
        in_stats=False,
    ),
    MetricSpec(
        name="semantic_duplicate_ratio",
        function=semantic.semantic_duplicate_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="semantic_duplicates",
        title="Semantic duplicate ratio",
        definition=(
            "(n − clusters of inputs with embedding cosine ≥ threshold) / n, mean over splits."
        ),
        needs="needs at least one instance",
        in_stats=False,
    ),
    MetricSpec(
        name="semantic_leakage_ratio",
        function=semantic.semantic_leakage_ratio,
        dimension="reliability",
        better="lower",
        tasks=_ALL,
        scope="semantic_duplicates",
        title="Semantic leakage ratio",
        definition=(
            "Share of test inputs with an embedding cosine ≥ threshold to a train or dev input."
        ),
        needs=_LEAK_NEEDS,
        in_stats=False,
    ),
)

#: Name → spec, read-only.
BY_NAME: MappingProxyType[str, MetricSpec] = MappingProxyType({s.name: s for s in METRICS})
if len(BY_NAME) != len(METRICS):
    raise ValueError("a metric name occurs twice in METRICS")


def specs_for(task: str, scope: Scope | None = None) -> list[MetricSpec]:
    """List the metrics that apply to a task kind (optionally of one scope), in table order.

    >>> [s.name for s in specs_for("pair", "cross")][:2]
    ['leakage_ratio', 'text_leakage_ratio']
    """
    return [s for s in METRICS if task in s.tasks and (scope is None or s.scope == scope)]


def stats_specs(task: str) -> list[MetricSpec]:
    """List the metrics that :func:`~benchcheck.metrics.compute.compute_stats` reports."""
    return [s for s in specs_for(task) if s.in_stats]
