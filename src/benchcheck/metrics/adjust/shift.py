"""How far a subset moved the rest of the distribution: lengths, entity types or labels.

Per subset: the mean length and the Kolmogorov–Smirnov statistic against the source
(:func:`scipy.stats.ks_2samp`), and the total variation distance of entity types (NER) or
labels (text tasks).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.model import Dataset
from benchcheck.metrics.adjust.subsets import instance_lengths


def shift(dataset: Dataset, split: str, rows: np.ndarray) -> dict[str, Any]:
    """Measure the shift of the subset ``rows`` of ``split`` against the whole split."""
    from scipy.stats import ks_2samp

    src = dataset[split]
    lengths = instance_lengths(src)
    sub = lengths[rows]
    out: dict[str, Any] = {
        "length_mean_source": float(lengths.mean()),
        "length_mean_subset": float(sub.mean()) if sub.size else None,
        "length_ks": float(ks_2samp(lengths, sub).statistic) if sub.size else None,
    }
    if dataset.task == "ner" and src.spans is not None:
        types = src.spans.select("sentence", pl.col("type").cast(pl.String))
        chosen = types.filter(pl.col("sentence").is_in(pl.Series(rows, dtype=pl.UInt32).implode()))
        out["entity_type_tvd"] = tvd(types.get_column("type"), chosen.get_column("type"))
        out["entity_null_rate_source"] = float((src.table["n_entities"] == 0).mean())  # type: ignore[arg-type]
        out["entity_null_rate_subset"] = (
            float((src.table["n_entities"].to_numpy()[rows] == 0).mean()) if rows.size else None
        )
    elif "label" in src.table.columns:
        lab = src.table.get_column("label")
        out["label_tvd"] = tvd(lab, lab.gather(rows))
    return out


def tvd(source: pl.Series, subset: pl.Series) -> float:
    """Total variation distance between the value shares of two series (same name)."""
    key = source.name
    p = source.value_counts(normalize=True, name="p")
    q = subset.value_counts(normalize=True, name="q")
    both = p.join(q, on=key, how="full", coalesce=True).fill_null(0.0).sort(key)
    return 0.5 * float((both["p"] - both["q"]).abs().sum())
