"""The adjustment procedure: validate, pick the selection the metric's adjuster names, measure.

Which metrics can be adjusted, and how, is the table's ``adjuster`` field
(:mod:`benchcheck.metrics.table`); this module knows no metric by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from benchcheck.data.model import Dataset, Split
from benchcheck.errors import UsageError
from benchcheck.metrics.adjust.indicator import select_indicator
from benchcheck.metrics.adjust.labels import select_label_counts
from benchcheck.metrics.adjust.result import Adjustment, Subset
from benchcheck.metrics.adjust.shift import shift
from benchcheck.metrics.adjust.subsets import instance_lengths, length_bins, subset_split
from benchcheck.metrics.adjust.surfaces import select_surfaces
from benchcheck.metrics.compute import split_value
from benchcheck.metrics.spec import IndicatorShare, LabelSpread, MetricSpec, SurfaceShare
from benchcheck.metrics.table import BY_NAME, METRICS


def adjustable(task: str | None = None) -> list[str]:
    """List the metrics the table gives an adjuster (for one task kind), in table order.

    >>> adjustable("pair")
    ['leakage_ratio', 'label_imbalance_degree']
    """
    return [s.name for s in METRICS if s.adjuster is not None and (task is None or task in s.tasks)]


def _spec(metric: str, task: str) -> MetricSpec:
    spec = BY_NAME.get(metric)
    if spec is None or spec.adjuster is None:
        raise UsageError(f"cannot adjust {metric!r}; expected one of {', '.join(adjustable())}")
    if task not in spec.tasks:
        raise UsageError(f"{metric} applies to {', '.join(spec.tasks)} datasets, not {task}")
    return spec


def _references(spec: MetricSpec, dataset: Dataset, split: str) -> list[Split]:
    """Return the splits a cross-split metric compares ``split`` with; refuse if it needs one."""
    if spec.scope != "cross":
        return []
    refs = spec.references_in(dataset, split)
    needs = getattr(spec.adjuster, "needs", None)
    if not refs and needs is not None:
        raise UsageError(f"{spec.name} needs {needs.format(split=split)}")
    return refs


def _mark(spec: MetricSpec, function: Any, split: Split, refs: list[Split]) -> Any:
    """Call an adjuster's function with what the spec's function takes."""
    return function(split, refs) if spec.scope == "cross" else function(split)


def _value(
    spec: MetricSpec, sub: Split, refs: list[Split], flagged: set[int] | None
) -> float | None:
    """Measure a subset: the flagged share for surface metrics, else the spec's function."""
    if flagged is not None:
        assert sub.spans is not None  # SurfaceShare metrics are NER metrics
        surfaces = set(sub.spans.get_column("surface_hash").to_list())
        return len(surfaces & flagged) / len(surfaces) if surfaces else None
    if spec.scope == "cross":
        return spec.function(sub, refs)
    return split_value(spec, sub, {})


def _flagged(spec: MetricSpec, src: Split, refs: list[Split]) -> set[int] | None:
    adjuster = spec.adjuster
    return _mark(spec, adjuster.flagged, src, refs) if isinstance(adjuster, SurfaceShare) else None


def measure(dataset: Dataset, split: str, metric: str, rows: Sequence[int]) -> float | None:
    """Compute the metric on the subset ``rows`` of ``split`` as adjust measures it.

    A surface-share metric counts the subset's surfaces among those flagged on the whole
    split (a property fixed before selection); any other metric is the table's function on
    the subset (against the split's references for a cross-split metric).
    """
    spec = _spec(metric, dataset.task)
    refs = _references(spec, dataset, split)
    src = dataset[split]
    return _value(spec, subset_split(src, rows), refs, _flagged(spec, src, refs))


def _granularity(spec: MetricSpec, src: Split, rows: np.ndarray) -> float:
    """Half the smallest step the metric can take on this subset (the reachable tolerance)."""
    import polars as pl

    if isinstance(spec.adjuster, IndicatorShare):
        return 0.5 / max(rows.size, 1)
    if isinstance(spec.adjuster, SurfaceShare):
        spans = src.spans
        assert spans is not None  # SurfaceShare metrics are NER metrics
        chosen = spans.filter(pl.col("sentence").is_in(pl.Series(rows, dtype=pl.UInt32).implode()))
        return 0.5 / max(chosen.get_column("surface_hash").n_unique(), 1)
    return 0.0


def _default_size(spec: MetricSpec, src: Split, refs: list[Split], targets: Sequence[float]) -> int:
    adjuster = spec.adjuster
    if not isinstance(adjuster, IndicatorShare):
        return src.n // 2
    flag = _mark(spec, adjuster.indicator, src, refs)
    pos, neg = int(flag.sum()), int((~flag).sum())
    size = src.n
    for t in targets:
        if t > 0:
            size = min(size, int(np.floor(pos / t + 1e-9)))
        if t < 1:
            size = min(size, int(np.floor(neg / (1 - t) + 1e-9)))
    return size


def default_size(dataset: Dataset, split: str, metric: str, targets: Sequence[float]) -> int:
    """Return the largest size reaching every target (indicator metrics), else n // 2."""
    spec = _spec(metric, dataset.task)
    return _default_size(spec, dataset[split], _references(spec, dataset, split), targets)


def adjust(
    dataset: Dataset,
    *,
    split: str,
    metric: str,
    targets: Sequence[float],
    size: int | None = None,
    seed: int = 0,
    tolerance: float = 0.02,
) -> Adjustment:
    """Build one subset of ``split`` per target, all of ``size`` instances (see the package doc).

    Raises :class:`UsageError` naming the reason when a target is out of reach (its achieved
    value would differ from the target by more than ``tolerance``, or the split lacks the
    instances it needs). ``size`` defaults to the largest size reaching every target
    (indicator metrics) or half the split.
    """
    spec = _spec(metric, dataset.task)
    if split not in dataset:
        raise UsageError(f"no split {split!r}; the dataset has {dataset.split_names}")
    if not targets:
        raise UsageError("give at least one target value")
    for t in targets:
        if not 0.0 <= t <= 1.0:
            raise UsageError(f"targets are shares in [0, 1], got {t}")
    src = dataset[split]
    refs = _references(spec, dataset, split)
    if size is None:
        size = _default_size(spec, src, refs, targets)
    if size <= 0 or size > src.n:
        raise UsageError(
            f"size must be in 1..{src.n} (the {split} split's size), got {size}"
            + (" (no size reaches every target)" if size <= 0 else "")
        )
    rng = np.random.default_rng(seed)
    bins = length_bins(instance_lengths(src))
    share = np.bincount(bins, minlength=4) / max(src.n, 1)
    adjuster = spec.adjuster
    flag = (
        _mark(spec, adjuster.indicator, src, refs) if isinstance(adjuster, IndicatorShare) else None
    )
    flagged = _flagged(spec, src, refs)
    subsets: list[Subset] = []
    for t in targets:
        reason = ""
        if isinstance(adjuster, IndicatorShare):
            assert flag is not None
            rows = select_indicator(flag, t, size, bins, share, rng, adjuster.marked)
        elif isinstance(adjuster, LabelSpread):
            rows = select_label_counts(src, t, size, bins, share, rng)
        else:
            assert isinstance(adjuster, SurfaceShare) and flagged is not None
            info: dict[str, int] = {}
            rows = select_surfaces(src, flagged, t, size, bins, share, rng, info)
            what = adjuster.marked
            reason = (
                f" (the split has {info['pos']} sentences whose entities are all {what}, "
                f"{info['neg']} with none {what}, {info['mix']} mixed and {info['null']} "
                "without entities)"
            )
        achieved = _value(spec, subset_split(src, rows), refs, flagged)
        if achieved is None:
            raise UsageError(f"{metric} is not defined on the subset (no entity in it)")
        allowed = max(tolerance, _granularity(spec, src, rows))
        if abs(achieved - t) > allowed + 1e-12:
            raise UsageError(
                f"target {t} for {metric} is out of reach at size {size}: the closest subset "
                f"found reaches {achieved:.4f} (tolerance {allowed:.4f}){reason}; try a smaller "
                "{size} or a target nearer the split's own value"
            )
        subsets.append(
            Subset(
                target=t,
                achieved=achieved,
                rows=tuple(rows.tolist()),
                shift=shift(dataset, split, rows),
            )
        )
    source_value = _value(spec, subset_split(src, range(src.n)), refs, flagged)
    return Adjustment(
        metric=metric,
        split=split,
        size=size,
        seed=seed,
        source_value=source_value,
        subsets=tuple(subsets),
        notes=(),
    )
