"""Model rankings under label noise: score intervals and the probability that two models swap.

Methods.md section 4, last point. A benchmark's labels are partly wrong; which ones is
uncertain. This module draws plausible *true* labelings and scores every model on each:

* an item with a reviewed gold label keeps it (certain);
* a *flagged* item (the LLM ensemble disputes its label, ``benchcheck flag``) in
  confidence bin ``c`` is truly the LLM's label with probability ``q_c``, truly the
  original with ``r_c``, and otherwise another label (uniformly among the rest, for
  multi-class data). ``q_c`` and ``r_c`` are what the blind review measured in that bin
  (:func:`benchcheck.labels.analysis.bin_agreement`), drawn per replicate from their
  Dirichlet posterior ``Dir(k_llm + 1/2, k_orig + 1/2[, k_other + 1/2])`` (Jeffreys) so
  that a bin reviewed on 5 examples is as uncertain as it should be; or a prior the user
  gives (fixed values);
* every other item is wrong with the *residual* error rate ``e`` (the rate among items no
  flag covers, measured on a random sample of them; 0 when not given), drawn per replicate
  from ``Beta(errors + 1/2, sample - errors + 1/2)`` when it comes as counts, and a wrong
  item's true label is uniform among the other labels.

Replicate ``r`` gives each model a score ``s_m^r`` (accuracy, or F1 of a positive label).
Reported per model: the *reference* score (on the reference labels: gold where reviewed,
the original elsewhere — the labels a leaderboard would use), the interval of ``s_m^r``
(percentiles), and the interval of its rank. Per pair of models ``A`` ranked above ``B``
on the reference labels: the flip probability ``P(s_A^r < s_B^r) + P(s_A^r = s_B^r) / 2``
(``null`` when they tie on the reference labels). With gold labels only (no flag, no
residual rate) the truth is certain: intervals shrink to points, flip probabilities are 0,
and the ranking is :func:`benchcheck.labels.remedies.rerank`'s ranking on gold labels.

``resample_items`` also draws the items with replacement in each replicate, so the
intervals add the sampling error of a finite test to the label uncertainty.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck._progress import Progress, count
from benchcheck.errors import InputError, UsageError
from benchcheck.labels.remedies import rank_of

__all__ = [
    "BinPrecision",
    "ModelInterval",
    "NoiseModel",
    "NoiseRanking",
    "rank_under_noise",
]

METRICS = ("accuracy", "f1")


@dataclass(frozen=True)
class BinPrecision:
    """What the review found in one confidence bin: counts (posterior drawn) or fixed shares.

    Counts: ``with_llm``, ``with_original``, ``other`` reviewed flags. Fixed (a prior the
    user gives): ``fixed=True`` and ``with_llm``/``with_original`` the probabilities.
    """

    with_llm: float
    with_original: float
    other: float = 0.0
    fixed: bool = False

    def __post_init__(self) -> None:
        vals = (self.with_llm, self.with_original, self.other)
        if any(v < 0 or not math.isfinite(v) for v in vals):
            raise UsageError(f"bin precision values must be finite and >= 0, got {vals}")
        if self.fixed and self.with_llm + self.with_original > 1 + 1e-9:
            raise UsageError(
                f"{{precision}}: P(LLM label) + P(original) must be <= 1, got "
                f"{self.with_llm} + {self.with_original}"
            )


@dataclass(frozen=True)
class NoiseModel:
    """Where the truth is uncertain and how: flags with bin precisions, a residual rate.

    ``flagged`` maps an item id to ``(llm_label, bin)``; ``precision`` a bin to its
    :class:`BinPrecision` (the key ``"*"`` applies to every bin not listed); ``gold`` an id
    to its reviewed label; ``residual`` is ``(errors, sample)`` counts or a fixed rate.
    """

    flagged: Mapping[str, tuple[str, str | None]]
    precision: Mapping[str, BinPrecision]
    gold: Mapping[str, str]
    residual: tuple[int, int] | float | None = None


@dataclass(frozen=True)
class ModelInterval:
    """One row of the leaderboard."""

    name: str
    score: float
    expected: float
    interval: tuple[float, float]
    rank: int
    rank_interval: tuple[int, int]
    could_swap_with: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the model's entry of ``rank --json`` (the contract's keys first)."""
        return {
            "name": self.name,
            "score": self.score,
            "interval": list(self.interval),
            "rank": self.rank,
            "expected_score": self.expected,
            "rank_interval": list(self.rank_interval),
            "could_swap_with": list(self.could_swap_with),
        }


@dataclass(frozen=True)
class NoiseRanking:
    """Per-model score intervals and pairwise flip probabilities under label uncertainty."""

    metric: str
    positive: str | None
    n_items: int
    models: tuple[ModelInterval, ...]
    flip_probability: dict[str, float | None]
    n_resamples: int
    confidence: float
    seed: int
    resample_items: bool
    swap_threshold: float
    uncertainty: dict[str, Any]
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the ``rank --json`` keys: ``models`` (best first) and ``flip_probability``."""
        return {
            "metric": self.metric,
            "positive": self.positive,
            "n_items": self.n_items,
            "models": [m.to_json() for m in self.models],
            "flip_probability": dict(self.flip_probability),
            "n_resamples": self.n_resamples,
            "confidence": self.confidence,
            "seed": self.seed,
            "resample_items": self.resample_items,
            "swap_threshold": self.swap_threshold,
            "uncertainty": dict(self.uncertainty),
            "notes": list(self.notes),
        }


def _scores(
    truth: np.ndarray, preds: np.ndarray, weights: np.ndarray | None, metric: str, pos: int
) -> np.ndarray:
    """Scores of every model on each replicate: truth (R × n), preds (M × n) → (R × M)."""
    w = np.ones(truth.shape, dtype=float) if weights is None else weights
    eq = truth[:, None, :] == preds[None, :, :]
    if metric == "accuracy":
        return np.asarray((eq * w[:, None, :]).sum(axis=2) / w.sum(axis=1)[:, None])
    t_pos = (truth == pos)[:, None, :]
    p_pos = (preds == pos)[None, :, :]
    ww = w[:, None, :]
    tp = ((t_pos & p_pos) * ww).sum(axis=2)
    fp = ((~t_pos & p_pos) * ww).sum(axis=2)
    fn = ((t_pos & ~p_pos) * ww).sum(axis=2)
    den = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)
    return np.asarray(f1)


def rank_under_noise(
    ids: Sequence[str],
    labels: Sequence[str],
    predictions: Mapping[str, Sequence[str]],
    noise: NoiseModel,
    *,
    metric: str = "accuracy",
    positive: str | None = None,
    label_set: Sequence[str] | None = None,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    resample_items: bool = False,
    swap_threshold: float = 0.05,
    chunk: int = 50,
    progress: Progress | None = None,
) -> NoiseRanking:
    """Draw plausible true labelings (see the module docstring) and score every model.

    ``predictions`` maps a model to its predicted labels in ``ids`` order. ``metric`` is
    ``accuracy`` or ``f1`` (of ``positive``). ``label_set`` lists every label (default: the
    labels seen in the data, the flags and the gold labels). ``progress`` counts the draws
    (each ``chunk`` of them).

    >>> noise = NoiseModel(flagged={"c": ("0", None)},
    ...                    precision={"*": BinPrecision(1.0, 0.0, fixed=True)}, gold={})
    >>> r = rank_under_noise(["a", "b", "c"], ["1", "1", "1"],
    ...                      {"A": ["1", "1", "1"], "B": ["1", "1", "0"]}, noise, n_resamples=10)
    >>> [(m.name, m.score, m.interval) for m in r.models]
    [('A', 1.0, (0.6666666666666666, 0.6666666666666666)), ('B', 0.6666666666666666, (1.0, 1.0))]
    >>> r.flip_probability
    {'A|B': 1.0}
    """
    if metric not in METRICS:
        raise UsageError(f"{{metric}} must be one of {list(METRICS)}, got {metric!r}")
    if not 0 < confidence < 1:
        raise UsageError(f"{{confidence}} must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise UsageError(f"{{draws}} must be >= 1, got {n_resamples}")
    if not 0 <= swap_threshold <= 1:
        raise UsageError(f"{{swap_threshold}} must be in [0, 1], got {swap_threshold}")
    ids = [str(i) for i in ids]
    n = len(ids)
    if n == 0:
        raise InputError("no item to rank the models on")
    if len(predictions) < 2:
        raise UsageError(f"ranking needs at least two models, got {len(predictions)}")
    names = list(predictions)
    for name in names:
        if len(predictions[name]) != n:
            raise ValueError(
                f"model {name!r} has {len(predictions[name])} predictions for {n} items"
            )
    seen = set(map(str, labels)) | {lab for lab, _ in noise.flagged.values()}
    seen |= set(noise.gold.values())
    labs = list(label_set) if label_set is not None else sorted(seen)
    missing = sorted(seen - set(labs))
    if missing:
        raise InputError(f"labels {missing} are not among the label set {labs}")
    code = {lab: k for k, lab in enumerate(labs)}
    n_labels = len(labs)
    if metric == "f1":
        if positive is None:
            raise UsageError("{positive} is needed for F1")
        if positive not in code:
            raise UsageError(f"{{positive}} {positive!r} is not among the labels {labs}")
    pos = code.get(positive, -1) if positive is not None else -1
    orig = np.array([code[str(v)] for v in labels], dtype=np.int64)
    index = {i: k for k, i in enumerate(ids)}
    unknown = [i for i in list(noise.gold) + list(noise.flagged) if i not in index]
    if unknown:
        raise InputError("flag or gold label for an id the data does not have", got=unknown[0])
    # predictions outside the label set never match any truth: code -1
    preds = np.array([[code.get(str(v), -1) for v in predictions[m]] for m in names])

    reference = orig.copy()
    gold_mask = np.zeros(n, dtype=bool)
    for i, g in noise.gold.items():
        reference[index[i]] = code[g]
        gold_mask[index[i]] = True
    flag_idx = np.array(
        [index[i] for i in noise.flagged if not gold_mask[index[i]]], dtype=np.int64
    )
    flag_llm = np.array(
        [code[noise.flagged[i][0]] for i in noise.flagged if not gold_mask[index[i]]],
        dtype=np.int64,
    )
    flag_bin = [noise.flagged[i][1] for i in noise.flagged if not gold_mask[index[i]]]
    notes: list[str] = []
    bins = sorted({b or "" for b in flag_bin})
    bin_of = np.array([bins.index(b or "") for b in flag_bin], dtype=np.int64)
    bin_prec: list[BinPrecision] = []
    for b in bins:
        prec = noise.precision.get(b) or noise.precision.get("*")
        if prec is None:
            notes.append(
                f"bin {b or '(none)'}: no review and no prior: its precision is drawn from "
                "the Jeffreys prior (flat between 'LLM right' and 'original right')"
            )
            prec = BinPrecision(0.0, 0.0)
        bin_prec.append(prec)
    resid_mask = ~gold_mask
    resid_mask[flag_idx] = False
    resid_idx = np.flatnonzero(resid_mask)
    residual = noise.residual
    if residual is not None and n_labels < 2:
        raise UsageError("a residual error rate needs at least two labels")
    rng = np.random.default_rng(seed)
    q = (1 - confidence) / 2
    all_scores = np.empty((n_resamples, len(names)))
    count(progress, 0, n_resamples)
    for start in range(0, n_resamples, chunk):
        r = min(chunk, n_resamples - start)
        truth = np.broadcast_to(reference, (r, n)).copy()
        if flag_idx.size:
            shares = np.empty((r, len(bins), 3))
            for k, prec in enumerate(bin_prec):
                if prec.fixed:
                    shares[:, k] = (
                        prec.with_llm,
                        prec.with_original,
                        1 - prec.with_llm - prec.with_original,
                    )
                else:
                    alpha = [prec.with_llm + 0.5, prec.with_original + 0.5]
                    if n_labels > 2:
                        alpha.append(prec.other + 0.5)
                        shares[:, k] = rng.dirichlet(alpha, size=r)
                    else:
                        shares[:, k, :2] = rng.dirichlet(alpha, size=r)
                        shares[:, k, 2] = 0.0
            u = rng.random((r, flag_idx.size))
            s = shares[:, bin_of]  # r × flags × 3
            llm = u < s[:, :, 0]
            keep = ~llm & (u < s[:, :, 0] + s[:, :, 1])
            other = ~llm & ~keep
            vals = np.where(llm, flag_llm[None, :], orig[flag_idx][None, :])
            if other.any():
                vals = np.where(
                    other, _other_label(rng, orig[flag_idx], flag_llm, n_labels, r), vals
                )
            truth[:, flag_idx] = vals
        if residual is not None and resid_idx.size:
            if isinstance(residual, tuple):
                e_k, e_n = residual
                rate = rng.beta(e_k + 0.5, e_n - e_k + 0.5, size=(r, 1))
            else:
                rate = np.full((r, 1), float(residual))
            wrong = rng.random((r, resid_idx.size)) < rate
            if wrong.any():
                shift = rng.integers(1, n_labels, size=(r, resid_idx.size))
                flipped = (reference[resid_idx][None, :] + shift) % n_labels
                truth[:, resid_idx] = np.where(wrong, flipped, truth[:, resid_idx])
        weights = None
        if resample_items:
            draw = rng.integers(0, n, size=(r, n))
            flat = (np.arange(r)[:, None] * n + draw).ravel()  # counts per resample
            weights = np.bincount(flat, minlength=r * n).reshape(r, n).astype(float)
        all_scores[start : start + r] = _scores(truth, preds, weights, metric, pos)
        count(progress, start + r, n_resamples)
    ref_scores = _scores(reference[None, :], preds, None, metric, pos)[0]
    ref_rank = rank_of(dict(zip(names, ref_scores.tolist(), strict=True)))
    rep_ranks = np.array(
        [list(rank_of(dict(zip(names, row.tolist(), strict=True))).values()) for row in all_scores]
    )
    flips: dict[str, float | None] = {}
    order = sorted(range(len(names)), key=lambda j: (ref_rank[names[j]], names[j]))
    for ja, jb in itertools.combinations(order, 2):
        key = f"{names[ja]}|{names[jb]}"
        if ref_scores[ja] == ref_scores[jb]:
            flips[key] = None
            continue
        d = all_scores[:, ja] - all_scores[:, jb]
        sign = 1.0 if ref_scores[ja] > ref_scores[jb] else -1.0
        flips[key] = float(np.mean(d * sign < 0) + 0.5 * np.mean(d == 0))
    rows = []
    for j in order:
        name = names[j]
        lo, hi = np.quantile(all_scores[:, j], [q, 1 - q])
        rlo, rhi = np.quantile(rep_ranks[:, j], [q, 1 - q])
        swaps = []
        for k in order:
            if k == j:
                continue
            a, b = (
                (names[j], names[k])
                if (names[j] + "|" + names[k]) in flips
                else (names[k], names[j])
            )
            p = flips.get(f"{a}|{b}")
            if p is None or p >= swap_threshold:
                swaps.append(names[k])
        rows.append(
            ModelInterval(
                name,
                float(ref_scores[j]),
                float(all_scores[:, j].mean()),
                (float(lo), float(hi)),
                int(ref_rank[name]),
                (int(math.floor(rlo)), int(math.ceil(rhi))),
                tuple(swaps),
            )
        )
    uncertainty = {
        "gold": int(gold_mask.sum()),
        "flagged_uncertain": int(flag_idx.size),
        "flagged_with_gold": int(sum(1 for i in noise.flagged if gold_mask[index[i]])),
        "residual_items": int(resid_idx.size) if residual is not None else 0,
        "residual_rate": (
            {"errors": residual[0], "sample": residual[1]}
            if isinstance(residual, tuple)
            else residual
        ),
        "bins": {
            (b or "(none)"): {
                "n_flags": int((bin_of == k).sum()),
                "with_llm": p.with_llm,
                "with_original": p.with_original,
                "other": p.other,
                "kind": "fixed prior" if p.fixed else "review counts (Dirichlet posterior)",
            }
            for k, (b, p) in enumerate(zip(bins, bin_prec, strict=True))
        },
    }
    if flag_idx.size == 0 and residual is None:
        notes.append(
            "no uncertain label (no flag without gold, no residual error rate): the truth is "
            "certain, intervals are points"
        )
    return NoiseRanking(
        metric=metric,
        positive=positive,
        n_items=n,
        models=tuple(rows),
        flip_probability=flips,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        resample_items=resample_items,
        swap_threshold=swap_threshold,
        uncertainty=uncertainty,
        notes=tuple(notes),
    )


def _other_label(
    rng: np.random.Generator, orig: np.ndarray, llm: np.ndarray, n_labels: int, r: int
) -> np.ndarray:
    """Draw labels uniformly among those neither original nor the LLM's (r × flags)."""
    out = np.empty((r, orig.size), dtype=np.int64)
    for k in range(orig.size):
        rest = [c for c in range(n_labels) if c not in (orig[k], llm[k])]
        out[:, k] = rng.choice(rest, size=r) if rest else orig[k]
    return out
