"""Statistics of classification and pair datasets (methods.md section 1, beyond NER).

The exact-match reliability metrics (redundancy, duplicate ratio, leakage ratio, text leakage
ratio) are generic over any split with ``x_hash``/``xy_hash`` and live in
:mod:`benchcheck.metrics.reliability`. This module adds what has no NER counterpart or a
different one: label imbalance (the analogue of Eq. 8), label conflicts (the analogue of
entity ambiguity, Eq. 5: one input carrying several labels), input lengths, and, for pair
datasets, duplicates and leakage of each side alone.

Inputs are compared through 64-bit hashes of the exact strings (see
:mod:`benchcheck.io.tables`); near-copies are :mod:`benchcheck.metrics.neardup`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from benchcheck._hashset import varies_within
from benchcheck.data.hashing import string_hash
from benchcheck.data.model import Split
from benchcheck.metrics._common import duplicates_over_n, leak_share, leaked_mask, share_std

_TEXT = ("classification", "pair", "mcq")


def label_shares(split: Split) -> dict[str, float]:
    """Share of the split's instances carrying each label, by label name (sorted)."""
    counts = split.table.get_column("label").value_counts(name="c").sort("label")
    total = counts["c"].sum()
    return {str(k): c / total for k, c in zip(counts["label"], counts["c"], strict=True)}


def label_imbalance_degree(split: Split) -> float | None:
    """Label imbalance degree (Eq. 8 with labels for entity types): std (ddof = 0) of P(l).

    P(l) is the share of the split's instances labelled l, over the labels occurring in the
    split: sqrt(Σ_l (P(l) − 1/v)² / v) for v labels. 0 for a balanced split (or one label).
    Edge rule: ``None`` for n = 0.

    >>> import polars as pl
    >>> s = Split("t", "-", pl.DataFrame({"label": ["a", "a", "a", "b"]}))
    >>> label_imbalance_degree(s)
    0.25
    """
    if split.n == 0:
        return None
    return share_std(split.table.get_column("label"))


def _conflicts(tables: list[pl.DataFrame]) -> float | None:
    """Share of distinct ``x_hash`` values whose rows carry 2+ labels (labels compared by hash)."""
    x = np.concatenate([t.get_column("x_hash").to_numpy() for t in tables])
    if x.size == 0:
        return None
    labels = np.concatenate([string_hash(t.get_column("label")) for t in tables])
    conflicting, distinct = varies_within(x, labels)
    return conflicting / distinct


def label_conflict_ratio(split: Split) -> float | None:
    """Label conflict ratio: |{x : x occurs with 2+ distinct labels}| / |{distinct x}|.

    The analogue of the ambiguous entity ratio (Eq. 5's variant): an identical input (text,
    or ordered text pair) labelled differently is either an annotation error or an
    unanswerable instance, hence reliability, lower is better. Edge rule: ``None`` for n = 0.

    >>> import polars as pl
    >>> t = pl.DataFrame({"x_hash": [1, 1, 2, 3, 3], "label": ["a", "b", "a", "c", "c"]})
    >>> round(label_conflict_ratio(Split("t", "-", t)), 4)
    0.3333
    """
    return _conflicts([split.table])


def label_conflict_ratio_across(splits: Sequence[Split]) -> float | None:
    """Label conflict ratio over the union of the given splits (all of a dataset's).

    A test text labelled differently in train counts as a conflict.

    Edge rule: ``None`` when the splits hold no instance.
    """
    tables = [s.table for s in splits]
    return _conflicts(tables) if tables else None


def _mean(split: Split, column: str) -> float | None:
    return None if split.n == 0 else float(split.table.get_column(column).mean())  # type: ignore[arg-type]


def mean_length(split: Split) -> float | None:
    """Mean input length in whitespace tokens (m_i of the paper's notation), over the split.

    Longer inputs are read as harder (the paper's text-complexity view, Eq. 6). Edge rule:
    ``None`` for n = 0.
    """
    return _mean(split, "n_tokens")


def mean_length_a(split: Split) -> float | None:
    """Mean length of the first text (premise, grounding) in whitespace tokens.

    Edge rule: ``None`` for n = 0.
    """
    return _mean(split, "n_tokens_a")


def mean_length_b(split: Split) -> float | None:
    """Mean length of the second text (hypothesis, generated text) in whitespace tokens.

    Edge rule: ``None`` for n = 0.
    """
    return _mean(split, "n_tokens_b")


def text_a_duplicate_ratio(split: Split) -> float | None:
    """(n − distinct text_a) / n. Often high by design (one premise, several hypotheses).

    Edge rule: ``None`` for n = 0.
    """
    return duplicates_over_n(split.table.get_column("a_hash"))


def text_b_duplicate_ratio(split: Split) -> float | None:
    """(n − distinct text_b) / n. Edge rule: ``None`` for n = 0."""
    return duplicates_over_n(split.table.get_column("b_hash"))


def text_a_leakage_ratio(target: Split, references: Sequence[Split]) -> float | None:
    """Eq. 3 on the first text alone: share of target instances whose text_a is a reference's.

    The paper's test split against train and dev. Includes leaked pairs; see
    :func:`partial_leakage_ratio` for a side leaked without its pair. Edge rule as
    :func:`~benchcheck.metrics.reliability.leakage_ratio`.
    """
    return leak_share(target, references, "a_hash")


def text_b_leakage_ratio(target: Split, references: Sequence[Split]) -> float | None:
    """Eq. 3 on the second text alone (target against reference text_b). Edge rule as Eq. 3."""
    return leak_share(target, references, "b_hash")


def partial_leakage_ratio(target: Split, references: Sequence[Split]) -> float | None:
    """Share of target pairs whose pair (text_a, text_b) is in no reference but one side is.

    The paper's test split against train and dev. A leaked premise with a new hypothesis:
    reported apart from the leaked pair (``text_leakage_ratio``). Edge rule as Eq. 3.
    """
    pair, a, b = (leaked_mask(target, references, c) for c in ("x_hash", "a_hash", "b_hash"))
    if pair is None or a is None or b is None:
        return None
    return float(((a | b) & ~pair).mean())


def length_stats(split: Split) -> dict[str, Any]:
    """Length statistics in whitespace tokens: per text column, min/mean/median/p95/max.

    For pair splits the keys are ``text_a`` and ``text_b``; for classification ``text``.
    """
    columns = {"text": "n_tokens", "text_a": "n_tokens_a", "text_b": "n_tokens_b"}
    out: dict[str, Any] = {}
    for key, col in columns.items():
        if col not in split.table.columns:
            continue
        v = split.table.get_column(col).to_numpy()
        if v.size == 0:
            out[key] = None
            continue
        median, p95 = np.percentile(v, [50, 95])  # one partition for both
        out[key] = {
            "min": int(v.min()),
            "mean": float(v.mean()),
            "median": float(median),
            "p95": float(p95),
            "max": int(v.max()),
        }
    return out
