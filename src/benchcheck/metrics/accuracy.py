"""Accuracy (Eq. 2): a seeded human sample per split, and its scoring.

:func:`draw_sample` draws what annotators judge; :func:`score_annotations` scores their
judgements (read by :func:`benchcheck.io.accuracy.read_accuracy_sample`): per split, the
share of sampled instances judged correct by a majority of the annotators who judged it,
and the mean pairwise Cohen's kappa
(:func:`benchcheck.stats.agreement.cohen_kappa`). The paper trusts the figure only when the
mean kappa exceeds 0.75. A pair whose kappa is undefined (both annotators gave one and the
same judgement throughout: 0/0) has kappa ``None``, as everywhere in benchcheck.
Beside it, Krippendorff's alpha over all annotators at once, missing judgements allowed
(:func:`benchcheck.stats.agreement.krippendorff_alpha`, nominal: the judgements are 0/1),
with a seeded bootstrap interval over instances.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck.data.model import Dataset
from benchcheck.stats.agreement import cohen_kappa, krippendorff_alpha, krippendorff_alpha_ci

KAPPA_THRESHOLD = 0.75


def draw_sample(dataset: Dataset, *, per_split: int, seed: int) -> list[dict[str, Any]]:
    """Draw up to ``per_split`` instances from each split without replacement (seeded).

    Each row carries the tokens, tags and decoded entities, and an empty ``annotations``
    object for the annotators to fill with ``{"name": true|false}``.
    """
    if per_split < 1:
        raise ValueError("per_split must be at least 1")
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for split in dataset:
        chosen = np.sort(rng.choice(split.n, size=min(per_split, split.n), replace=False))
        assert split.tokens is not None and split.spans is not None
        tokens = split.tokens.group_by("sentence", maintain_order=True).agg("token", "tag")
        for k in chosen.tolist():
            ents = split.spans.filter(split.spans["sentence"] == k)
            rows.append(
                {
                    "id": f"{split.name}:{k}",
                    "split": split.name,
                    "sentence": k,
                    "line": int(split.table["line"][k]),
                    "tokens": tokens["token"][k].to_list(),
                    "tags": tokens["tag"][k].to_list(),
                    "entities": [
                        [int(s), int(e), str(t), str(x)]
                        for s, e, t, x in ents.select("start", "end", "type", "surface").iter_rows()
                    ],
                    "annotations": {},
                }
            )
    return rows


@dataclass(frozen=True)
class SplitAccuracy:
    """Accuracy of one split's sample and the agreement behind it."""

    n: int
    accuracy: float | None
    kappa_mean: float | None
    kappa_pairs: dict[str, float | None]
    annotators: tuple[str, ...]
    krippendorff_alpha: float | None = None
    krippendorff_alpha_ci: tuple[float, float] | None = None


def alpha_of(items: Iterable[dict[str, int]], *, seed: int = 0) -> tuple[float | None, Any]:
    """Krippendorff's alpha (nominal) of judged instances and its bootstrap interval.

    >>> alpha_of([{"a": 1, "b": 1}, {"a": 0, "b": 0}, {"a": 1}])[0]
    1.0
    """
    rows = [list(item.values()) for item in items]
    return krippendorff_alpha(rows), krippendorff_alpha_ci(rows, seed=seed)


def score_annotations(rows: Iterable[tuple[str, dict[str, int]]]) -> dict[str, SplitAccuracy]:
    """Accuracy (Eq. 2) and mean pairwise Cohen's kappa per split.

    An instance is correct when more than half of the annotators who judged it say so (a
    tie counts as not correct). Kappa for a pair of annotators uses the instances both
    judged; a pair with fewer than two such instances has no kappa (``None``), nor has a
    pair whose kappa is undefined (both gave one and the same judgement on every shared
    instance, the rule of :mod:`benchcheck.stats.agreement`). Such pairs are left out of
    the mean, which is ``None`` when no pair has a kappa.

    >>> rows = [({"a": 1, "b": 1}), ({"a": 0, "b": 1}), ({"a": 0, "b": 0})]
    >>> r = score_annotations([("test", judged) for judged in rows])
    >>> r["test"].accuracy, round(r["test"].kappa_mean, 4)
    (0.3333333333333333, 0.4)
    """
    by_split: dict[str, list[dict[str, int]]] = {}
    for split, judged in rows:
        by_split.setdefault(split, []).append(judged)
    out = {}
    for split, items in by_split.items():
        names = sorted({a for item in items for a in item})
        correct = [sum(item.values()) * 2 > len(item) for item in items]
        pairs: dict[str, float | None] = {}
        for a, b in itertools.combinations(names, 2):
            x = [item[a] for item in items if a in item and b in item]
            y = [item[b] for item in items if a in item and b in item]
            pairs[f"{a}|{b}"] = cohen_kappa(x, y) if len(x) >= 2 else None
        kappas = [k for k in pairs.values() if k is not None]
        alpha, alpha_ci = alpha_of(items)
        out[split] = SplitAccuracy(
            n=len(items),
            accuracy=float(np.mean(correct)) if items else None,
            kappa_mean=float(np.mean(kappas)) if kappas else None,
            kappa_pairs=pairs,
            annotators=tuple(names),
            krippendorff_alpha=alpha,
            krippendorff_alpha_ci=alpha_ci,
        )
    return out
