"""Item analysis of a benchmark (Classical Test Theory): which items are broken, how reliable.

Methods.md section 4. Per item: difficulty, corrected item–total correlation (the
*discrimination*), the upper–lower 27% index, the uncorrected point-biserial and alpha if
the item is deleted (formulas in :mod:`benchcheck.stats.ctt`). Per benchmark: KR-20 (0/1
scores), Cronbach's alpha with a bootstrap interval over items, and the standard error of
measurement.

*Suspect* items, the prime label-error candidates (a label error makes the strong models
"wrong" and the weak ones "right"): negative discrimination, discrimination at most the
``min_discrimination`` threshold, and items every model gets wrong. Items every model gets
right are not suspects (they are uninformative, not broken); their discrimination is
undefined (``null``). :func:`review_frame` turns the suspects into the flags table that
``benchcheck review export`` writes for blind review.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck.errors import UsageError
from benchcheck.items.matrix import ItemMatrix
from benchcheck.stats import ctt

__all__ = ["ItemAnalysis", "ItemStat", "Reliability", "analyse_items", "review_frame"]

#: Why an item is listed: the first rule that applies, in this order.
REASONS = (
    "every model wrong",
    "negative discrimination",
    "low discrimination",
)


@dataclass(frozen=True)
class ItemStat:
    """One item's statistics; ``None`` where a statistic is undefined for the item."""

    id: str
    difficulty: float
    discrimination: float | None
    upper_lower_index: float | None
    point_biserial: float | None
    alpha_if_deleted: float | None
    flag: str | None
    note: str | None
    curve: tuple[tuple[float, float], ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the item's entry of ``items --json`` (the contract's keys first)."""
        out: dict[str, Any] = {
            "id": self.id,
            "difficulty": self.difficulty,
            "discrimination": self.discrimination,
            "upper_lower_index": self.upper_lower_index,
            "point_biserial": self.point_biserial,
            "alpha_if_deleted": self.alpha_if_deleted,
            "flag": self.flag,
            "note": self.note,
        }
        if self.curve is not None:
            out["curve"] = [{"rest_score": r, "p": q} for r, q in self.curve]
        return out


@dataclass(frozen=True)
class Reliability:
    """KR-20, Cronbach's alpha with its bootstrap interval over items, and the SEM."""

    kr20: float | None
    cronbach_alpha: float | None
    ci: tuple[float | None, float | None]
    sem: float | None
    confidence: float
    n_resamples: int
    n_undefined: int
    seed: int
    note: str | None

    def to_json(self) -> dict[str, Any]:
        """Return the ``reliability`` object of ``items --json``."""
        return {
            "kr20": self.kr20,
            "cronbach_alpha": self.cronbach_alpha,
            "ci": list(self.ci),
            "sem": self.sem,
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "n_resamples_undefined": self.n_undefined,
            "seed": self.seed,
            "note": self.note,
        }


@dataclass(frozen=True)
class ItemAnalysis:
    """The CTT item analysis of one score matrix."""

    n_items: int
    n_models: int
    models: tuple[str, ...]
    model_totals: tuple[float, ...]
    dichotomous: bool
    reliability: Reliability
    items: tuple[ItemStat, ...]
    min_discrimination: float
    counts: dict[str, int]
    notes: tuple[str, ...]

    def suspects(self) -> list[ItemStat]:
        """Return the flagged items, worst first (every model wrong, then by discrimination)."""
        order = {r: k for k, r in enumerate(REASONS)}
        flagged = [s for s in self.items if s.flag is not None]
        return sorted(
            flagged,
            key=lambda s: (
                order[s.flag or ""],
                s.discrimination if s.discrimination is not None else -math.inf,
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """Return the item-analysis keys of ``items --json`` (``irt`` is added by the run)."""
        return {
            "n_items": self.n_items,
            "n_models": self.n_models,
            "scoring": "dichotomous" if self.dichotomous else "partial credit",
            "models": [
                {"name": n, "total": t, "score": t / self.n_items}
                for n, t in zip(self.models, self.model_totals, strict=True)
            ],
            "reliability": self.reliability.to_json(),
            "min_discrimination": self.min_discrimination,
            "counts": dict(self.counts),
            "items": [s.to_json() for s in self.items],
            "notes": list(self.notes),
        }


def _opt(v: float) -> float | None:
    return None if not math.isfinite(v) else float(v)


def analyse_items(
    matrix: ItemMatrix,
    *,
    min_discrimination: float = 0.1,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    fraction: float = 0.27,
) -> ItemAnalysis:
    """CTT statistics of every item and the benchmark's reliability.

    ``min_discrimination``: items whose corrected item–total correlation is at most this
    are flagged ("low discrimination"; below 0 "negative discrimination"). ``fraction`` is
    the upper–lower groups' share of models (Kelley's 27%). The reliability interval is a
    percentile bootstrap over items (``n_resamples``, ``seed``).

    >>> from benchcheck.items.matrix import item_matrix
    >>> m = item_matrix(["q1", "q2", "q3", "q4"], ["A", "B", "C", "D", "E"],
    ...                 [[1, 1, 1, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 1, 0], [0, 0, 0, 1, 1]])
    >>> a = analyse_items(m, n_resamples=100)
    >>> [(s.id, s.flag) for s in a.suspects()]
    [('q4', 'negative discrimination')]
    """
    if not -1 <= min_discrimination <= 1:
        raise UsageError(f"{{min_discrimination}} must be in [-1, 1], got {min_discrimination}")
    if not 0 < confidence < 1:
        raise UsageError(f"{{confidence}} must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise UsageError(f"{{bootstrap}} (resamples) must be >= 1, got {n_resamples}")
    if not 0 < fraction <= 0.5:
        raise UsageError(f"the upper–lower fraction must be in (0, 0.5], got {fraction}")
    x = matrix.scores
    dich = ctt.is_dichotomous(x)
    p = ctt.difficulty(x)
    r = ctt.corrected_item_total(x)
    ul = ctt.upper_lower_index(x, fraction=fraction)
    pb = ctt.item_total(x)
    aid = ctt.alpha_if_deleted(x)
    alpha = ctt.cronbach_alpha(x)
    k20 = ctt.kr20(x) if dich else math.nan
    notes = list(matrix.notes)
    rel_note = None
    totals = x.sum(axis=0)
    if np.all(totals == totals[0]):
        rel_note = (
            "every model has the same total: reliability is undefined (no variance between models)"
        )
    elif x.shape[0] < 2:
        rel_note = "one item only: reliability is undefined"
    elif not dich:
        rel_note = "partial-credit scores: KR-20 is defined for 0/1 items only; see alpha"
    boot = ctt.reliability_bootstrap(x, n_resamples=n_resamples, confidence=confidence, seed=seed)
    rel = Reliability(
        _opt(k20),
        _opt(alpha),
        (_opt(boot.low), _opt(boot.high)),
        _opt(ctt.sem(x, alpha)),
        confidence,
        n_resamples,
        boot.n_undefined,
        seed,
        rel_note,
    )
    m = x.shape[1]
    total = x.sum(axis=0)  # once: each suspect's curve takes its item out of it
    items = []
    counts: Counter[str] = Counter()
    for i, item_id in enumerate(matrix.item_ids):
        note = None
        flag = None
        if p[i] == 1:
            note = "every model right: discrimination undefined"
            counts["every model right"] += 1
        elif p[i] == 0:
            note = "every model wrong: discrimination undefined"
            flag = "every model wrong"
        elif not math.isfinite(r[i]):
            note = "the other items' totals are equal: discrimination undefined"
        elif r[i] < 0:
            flag = "negative discrimination"
        elif r[i] <= min_discrimination:
            flag = "low discrimination"
        curve = None
        if flag is not None:
            counts[flag] += 1
            curve = _item_total_curve(x, i, total)
        items.append(
            ItemStat(
                item_id,
                float(p[i]),
                _opt(r[i]),
                _opt(ul[i]),
                _opt(pb[i]),
                _opt(aid[i]),
                flag,
                note,
                curve,
            )
        )
    if m < 5:
        notes.append(
            f"only {m} models: item discrimination is a correlation over {m} values and "
            "very unstable; read it as a hint"
        )
    return ItemAnalysis(
        n_items=x.shape[0],
        n_models=m,
        models=matrix.models,
        model_totals=tuple(float(t) for t in totals),
        dichotomous=dich,
        reliability=rel,
        items=tuple(items),
        min_discrimination=min_discrimination,
        counts={k: counts.get(k, 0) for k in ("every model right", *REASONS)},
        notes=tuple(notes),
    )


def _item_total_curve(
    x: np.ndarray, i: int, total: np.ndarray, groups: int = 5
) -> tuple[tuple[float, float], ...]:
    """Empirical item–total curve of item ``i``: models in ``groups`` groups by rest score.

    Models are sorted by their total on the other items (``total - x[i]``, ``total`` the
    column sums of ``x``; ties in column order) and split into at most ``groups``
    near-equal groups; each point is the group's mean rest score and its share right on
    item ``i``. A working item rises from left to right.
    """
    rest = total - x[i]
    order = np.lexsort((np.arange(x.shape[1]), rest))
    parts = np.array_split(order, min(groups, x.shape[1]))
    return tuple((float(rest[g].mean()), float(x[i, g].mean())) for g in parts if g.size)


def review_frame(
    analysis: ItemAnalysis,
    matrix: ItemMatrix,
    texts: dict[str, Sequence[str]],
    *,
    limit: int | None = None,
) -> dict[str, list[Any]]:
    """Columns of a flags table for ``benchcheck review export``: the suspects, worst first.

    Every item of the matrix is a row (as in a ``flag`` output); suspects have
    ``flagged = True`` and ``rank`` 1, 2, … (worst first, at most ``limit``). ``llm_label``
    holds the models' majority answer (the alternative label a reviewer weighs),
    ``confidence`` the share of models giving it, ``reason`` why the item is listed.
    ``texts`` maps text columns (``text`` or ``text_a``/``text_b``) to values in matrix
    order. Needs a matrix built from predictions (labels and answers).
    """
    if matrix.labels is None or matrix.predictions is None:
        raise UsageError(
            "{to_review} needs the dataset and the models' predictions (labels and texts); "
            "a score matrix alone has neither"
        )
    suspects = analysis.suspects()
    if limit is not None:
        suspects = suspects[:limit]
    rank = {s.id: k + 1 for k, s in enumerate(suspects)}
    reason = {s.id: s.flag for s in suspects}
    stat = {s.id: s for s in analysis.items}
    cols: dict[str, list[Any]] = {
        "id": list(matrix.item_ids),
        **{k: list(v) for k, v in texts.items()},
    }
    cols["label"] = list(matrix.labels)
    majority, share = [], []
    for i in range(matrix.n_items):
        votes = Counter(matrix.predictions[n][i] for n in matrix.models)
        top = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        majority.append(top[0])
        share.append(top[1] / matrix.n_models)
    cols["llm_label"] = majority
    cols["confidence"] = share
    cols["difficulty"] = [stat[i].difficulty for i in matrix.item_ids]
    cols["discrimination"] = [stat[i].discrimination for i in matrix.item_ids]
    cols["disagree"] = [m != lab for m, lab in zip(majority, matrix.labels, strict=True)]
    cols["flagged"] = [i in rank for i in matrix.item_ids]
    cols["rank"] = [rank.get(i) for i in matrix.item_ids]
    cols["reason"] = [reason.get(i) for i in matrix.item_ids]
    return cols
