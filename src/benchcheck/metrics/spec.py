"""The vocabulary of the metric table: what a metric spec says, and how adjust reads it.

A :class:`MetricSpec` names one metric and says everything the rest of the package needs
to compute, report, document and adjust it; :mod:`benchcheck.metrics.table` lists them.
Nothing here computes a metric: this module imports no metric module, and the metric
modules import nothing from here or from the table.

``scope`` is what the spec's function takes:

========================  =================================================================
``split``                 one split → a value; reported per split and as the mean over the
                          splits whose value is defined
``cross``                 ``(target, references)``: a target split against reference
                          splits → a value; stats takes ``test`` as the target and the
                          spec's ``references`` that the dataset has
``pooled``                the list of all splits, pooled → a value
``scores``                a list of model scores → a value (Eq. 7)
``near_duplicates``       the result of the near-duplicate analysis → a value
``semantic_duplicates``   the result of the semantic-duplicate analysis → a value
========================  =================================================================

The last two are parameterised analyses (a Jaccard or cosine threshold, a MinHash seed) that
compute all their metrics in one pass over the whole dataset; their specs document the
metrics and read the values out of the analysis result, which is why
:func:`~benchcheck.metrics.compute.compute_stats` (parameter-free) does not run them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np

    from benchcheck.data.model import Dataset, Split, TaskKind

Dimension = Literal["reliability", "difficulty", "validity"]
Better = Literal["higher", "lower"]
Scope = Literal["split", "cross", "pooled", "scores", "near_duplicates", "semantic_duplicates"]
DIMENSIONS: tuple[Dimension, ...] = ("reliability", "difficulty", "validity")
#: The scopes that :func:`~benchcheck.metrics.compute.compute_stats` computes.
STATS_SCOPES: tuple[Scope, ...] = ("split", "cross", "pooled", "scores")


@dataclass(frozen=True)
class Preparation:
    """A value several metrics of one split need, computed once per split by its caller.

    ``function(split)`` computes it; metrics that declare it take it as the keyword
    argument ``name`` (and compute it themselves when called without it).
    """

    name: str
    function: Callable[[Split], Any]


@dataclass(frozen=True)
class IndicatorShare:
    """Adjust a metric that is the share of instances with a property (a 0/1 mean).

    ``indicator`` marks each instance of a split; it takes what the spec's function takes
    (the split, or the split and its references). Adjust draws round(target · size) marked
    instances and the rest unmarked, so the value lands within 1/(2·size) of the target.
    ``marked`` names a marked instance in messages ("leaked"); ``needs`` is the refusal when
    a cross-split metric has no reference split (``None``: none needed).
    """

    indicator: Callable[..., np.ndarray]
    marked: str
    needs: str | None = None


@dataclass(frozen=True)
class SurfaceShare:
    """Adjust a metric that is the share of a split's distinct entity surfaces with a property.

    ``flagged(split, references)`` returns the flagged surface hashes of the source split,
    fixed before the selection; the value on a subset is the share of its distinct surfaces
    that are flagged. ``marked`` and ``needs`` as for :class:`IndicatorShare`.
    """

    flagged: Callable[[Split, Sequence[Split]], set[int]]
    marked: str
    needs: str | None = None


@dataclass(frozen=True)
class LabelSpread:
    """Adjust a metric that is the spread of the label shares: adjust sets the label counts."""


#: How adjust builds a subset for a metric.
Adjuster = IndicatorShare | SurfaceShare | LabelSpread


@dataclass(frozen=True)
class MetricSpec:
    """How to compute, read, document and adjust one metric.

    ``tasks``: the task kinds it applies to. ``title`` and ``definition``: one line each,
    shown in results and cards. ``needs``: what it needs to be defined, completing "not
    defined here (needs …)" in the stats notes. ``references``: for ``cross`` metrics, the
    split names a target is compared with (``None``: every other split). ``prepared``:
    per-split values shared with other metrics (:class:`Preparation`). ``in_stats``: whether
    stats reports it (``False`` for the analyses' metrics and for an adjustment target that
    stats does not list). ``adjuster``: how :func:`~benchcheck.metrics.adjust.adjust` builds
    a subset for it, or ``None``.
    """

    name: str
    function: Callable[..., float | None]
    dimension: Dimension
    better: Better
    tasks: tuple[TaskKind, ...]
    scope: Scope
    title: str
    definition: str
    needs: str
    references: tuple[str, ...] | None = ()
    prepared: tuple[Preparation, ...] = ()
    in_stats: bool = True
    adjuster: Adjuster | None = None

    def __post_init__(self) -> None:
        if self.in_stats and self.scope not in STATS_SCOPES:
            raise ValueError(f"{self.name}: stats cannot compute a {self.scope!r} metric")
        if self.scope != "cross" and self.references != ():
            raise ValueError(f"{self.name}: only cross-split metrics have references")

    def references_in(
        self, dataset: Dataset, target: str, *, among: Sequence[str] | None = None
    ) -> list[Split]:
        """Return the reference splits of ``target`` in ``dataset`` (optionally only ``among``).

        The spec's ``references`` in their order, or every other split in the dataset's
        order when ``references`` is ``None``; never the target itself.
        """
        names = dataset.split_names if self.references is None else self.references
        return [
            dataset[n]
            for n in names
            if n in dataset and n != target and (among is None or n in among)
        ]
