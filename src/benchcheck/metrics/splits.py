"""Per-split views of a NER dataset that the audit report draws (views, not metrics of the table).

- :func:`split_overlap`: leakage and unseen-entity ratios of each evaluation split against
  the splits before it (dev against train, test against train and dev), with each
  cross-split metric of the table taking the split as its target;
- :func:`entity_types`: entity mentions per type and split, the shares whose standard
  deviation is the Entity Imbalance Degree (Eq. 8).

Both return the JSON blocks ``split_overlap`` and ``entity_types`` of ``results.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from benchcheck.data.model import Dataset
from benchcheck.metrics.compute import TARGET
from benchcheck.metrics.table import stats_specs

#: Splits in evaluation order: each is compared with the ones before it.
ORDER = ("train", "dev", "test")


def split_overlap(
    dataset: Dataset, *, test_metrics: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Leakage and unseen-entity ratios of each evaluation split against the earlier ones.

    Every cross-split metric of the table that stats reports for the dataset's task
    (leakage, Eq. 3; unseen entities, Eq. 4) is given for ``dev`` against ``train`` and for
    ``test`` against ``train`` and ``dev``: each metric takes the split as its target and
    those of its references that come before it. The ``test`` row holds the values of
    :func:`benchcheck.metrics.compute.compute_stats`; pass its ``metrics`` as
    ``test_metrics`` to reuse them instead of computing them again.

    Edge rule: a split is left out when a split it is compared with is missing (no ``dev``
    row without ``train``, no ``test`` row without ``train`` or ``dev``).

    >>> from benchcheck.io.load import load
    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> rows = split_overlap(load(NER_SAMPLE))["rows"]
    >>> [(r["split"], r["against"], r["leakage_ratio"]) for r in rows]
    [('dev', ['train'], 0.0), ('test', ['train', 'dev'], 0.25)]
    """
    cross = [s for s in stats_specs(dataset.task) if s.scope == "cross"]
    rows: list[dict[str, Any]] = []
    for k, target in enumerate(ORDER):
        earlier = [n for n in ORDER[:k] if n in dataset]
        if target not in dataset or not earlier:
            continue
        row: dict[str, Any] = {"split": target, "against": earlier}
        if target == TARGET and test_metrics is not None:
            row.update({s.name: test_metrics.get(s.name) for s in cross})
        else:
            split = dataset[target]
            for s in cross:
                row[s.name] = s.function(split, s.references_in(dataset, target, among=earlier))
        rows.append(row)
    return {"rows": rows}


def entity_types(dataset: Dataset) -> dict[str, Any]:
    """Count entity mentions per type and split (counts and shares), types by frequency.

    ``types`` lists every type by its number of mentions over all splits, most frequent
    first (ties by name); ``splits.<name>`` holds ``counts`` and ``shares`` (count / ``n``)
    by type name, and ``n``, the split's number of mentions. The population standard
    deviation of a split's shares is its Entity Imbalance Degree (Eq. 8).

    Edge rule: a split without entity mentions has empty ``counts`` and ``shares`` and
    ``n`` 0.

    >>> from benchcheck.io.load import load
    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> out = entity_types(load(NER_SAMPLE))
    >>> out["types"], out["splits"]["test"]["counts"], out["splits"]["test"]["n"]
    (['LOC', 'ORG', 'PER', 'MISC'], {'LOC': 7, 'ORG': 5, 'PER': 4}, 16)
    """
    totals: dict[str, int] = {}
    splits: dict[str, dict[str, Any]] = {}
    for split in dataset:
        if split.spans is None or split.spans.height == 0:
            splits[split.name] = {"counts": {}, "shares": {}, "n": 0}
            continue
        counts = split.spans.group_by(pl.col("type").cast(pl.String)).len().sort("type").rows()
        n = sum(c for _, c in counts)
        splits[split.name] = {
            "counts": {t: int(c) for t, c in counts},
            "shares": {t: c / n for t, c in counts},
            "n": n,
        }
        for t, c in counts:
            totals[t] = totals.get(t, 0) + int(c)
    types = sorted(totals, key=lambda t: (-totals[t], t))
    return {"types": types, "splits": splits}
