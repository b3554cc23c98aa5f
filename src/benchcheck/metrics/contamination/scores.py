r"""What contamination does to the scores: each model on Llama 2's subsets, and the ranks.

Given each model's per-item score :math:`X_i` (1/0 for a right/wrong answer, or a partial
credit in [0, 1]) on all N items, for every subset S of :data:`~.overlap.SUBSETS` with
:math:`n = |S| > 0`:

- the subset's mean :math:`\bar X_S` and its items' mean overlap (Table 51's "Avg.
  Contam. %");
- Llama 2's statistic (Touvron et al. 2023, App. A.6)

  .. math:: Z_n = (\bar X_S - \mu_n) / \sigma_n

  with :math:`\mu_n = \mu` and :math:`\sigma_n = \sigma / \sqrt{n}` the mean and standard
  deviation of the mean of n items drawn at random (μ and σ² the mean and population
  variance of X over all N items). The paper calls contamination effective when all four
  subsets have :math:`|Z_n| > 2`. Its Table 51 fits this formula (HellaSwag, 70B, dirty:
  μ = 0.825, n = 848, :math:`\bar X` = 0.922 give 7.43; printed 7.42), so that is ``z``;
  ``z_fpc`` adds the finite population correction :math:`\sqrt{(N-n)/(N-1)}` to σ_n (the
  subset is drawn without replacement from the N items), which the paper does not use;

and, per model: the **clean − dirty difference** of means with a seeded percentile bootstrap
interval (the two subsets resampled independently, ``scipy.stats.bootstrap``); GPT-3's
relative difference (clean − all) / all (Brown et al. 2020, Table C.1); the model's **rank**
on all items, on the clean and on the dirty subset (1 = best, ties share the best rank),
and whether any rank on the clean subset differs from the rank on all items.

Edge rules: a statistic of an empty subset is ``None``; ``z`` is ``None`` when σ = 0,
``z_fpc`` also when n = N; the interval is ``None`` when either subset has fewer than two items.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck.metrics.contamination.overlap import SUBSETS, subset_masks

__all__ = ["ModelContamination", "ScoreTable", "SubsetScore", "contamination_scores", "z_score"]


@dataclass(frozen=True)
class SubsetScore:
    """One model on one subset."""

    subset: str
    n: int
    mean_overlap: float | None
    score: float | None
    z: float | None
    z_fpc: float | None

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object."""
        return {
            "n": self.n,
            "mean_overlap": self.mean_overlap,
            "score": self.score,
            "z": self.z,
            "z_fpc": self.z_fpc,
        }


@dataclass(frozen=True)
class ModelContamination:
    """One model: its score on all items and on each subset, the difference, its ranks."""

    model: str
    score: float
    subsets: tuple[SubsetScore, ...]
    clean_minus_dirty: float | None
    interval: tuple[float, float] | None
    clean_vs_all: float | None
    rank_all: int
    rank_clean: int | None
    rank_dirty: int | None

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object."""
        return {
            "model": self.model,
            "score": self.score,
            "subsets": {s.subset: s.to_json() for s in self.subsets},
            "clean_minus_dirty": self.clean_minus_dirty,
            "interval": None if self.interval is None else list(self.interval),
            "clean_vs_all": self.clean_vs_all,
            "rank": {"all": self.rank_all, "clean": self.rank_clean, "dirty": self.rank_dirty},
        }


@dataclass(frozen=True)
class ScoreTable:
    """The score table of every model (see the module doc)."""

    models: tuple[ModelContamination, ...]
    confidence: float
    resamples: int
    seed: int

    @property
    def ranking_changes(self) -> bool:
        """Whether some model ranks differently on the clean subset than on all items."""
        return any(m.rank_clean not in (None, m.rank_all) for m in self.models)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object."""
        return {
            "confidence": self.confidence,
            "resamples": self.resamples,
            "seed": self.seed,
            "ranking_changes": self.ranking_changes,
            "models": [m.to_json() for m in self.models],
        }


def z_score(
    subset_mean: float, mu: float, sigma: float, n: int, population: int
) -> tuple[float | None, float | None]:
    """Llama 2's :math:`Z_n` and the variant with the finite population correction.

    >>> z, z_fpc = z_score(0.922, 0.825, math.sqrt(0.825 * 0.175), 848, 10042)
    >>> round(z, 2), round(z_fpc, 2)
    (7.43, 7.77)
    """
    if sigma == 0 or n == 0:
        return None, None
    se = sigma / math.sqrt(n)
    z = (subset_mean - mu) / se
    if n >= population or population < 2:
        return z, None
    return z, (subset_mean - mu) / (se * math.sqrt((population - n) / (population - 1)))


def _difference_interval(
    clean: np.ndarray, dirty: np.ndarray, confidence: float, resamples: int, seed: int
) -> tuple[float, float] | None:
    from scipy import stats

    if clean.size < 2 or dirty.size < 2:  # scipy resamples samples of two or more
        return None
    if np.all(clean == clean[0]) and np.all(dirty == dirty[0]):
        d = float(clean[0] - dirty[0])
        return (d, d)

    def diff(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        return a.mean(axis=axis) - b.mean(axis=axis)  # type: ignore[no-any-return]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap(
            (clean, dirty),
            diff,
            paired=False,
            vectorized=True,
            n_resamples=resamples,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _ranks(scores: dict[str, float | None]) -> dict[str, int | None]:
    """1 = best; ties share the best rank; ``None`` stays ``None``."""
    known = {k: v for k, v in scores.items() if v is not None}
    return {
        k: None if v is None else 1 + sum(w > v for w in known.values()) for k, v in scores.items()
    }


def contamination_scores(
    scores: Mapping[str, np.ndarray],
    overlap: np.ndarray,
    *,
    clean_below: float,
    dirty_from: float,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> ScoreTable:
    """Score every model on Llama 2's subsets of the items (see the module doc).

    ``scores`` maps a model to its per-item scores, in the order of ``overlap``.

    >>> t = contamination_scores({"m": np.array([1, 0, 1, 1.0])}, np.array([0, 0, 0.9, 1]),
    ...                          clean_below=0.2, dirty_from=0.8, resamples=50)
    >>> m = t.models[0]
    >>> m.score, m.subsets[0].score, m.subsets[3].score, m.clean_minus_dirty
    (0.75, 0.5, 1.0, -0.5)
    """
    overlap = np.asarray(overlap, dtype=float)
    masks = subset_masks(overlap, clean_below, dirty_from)
    population = overlap.size
    rows: dict[str, dict[str, Any]] = {}
    for model, values in scores.items():
        x = np.asarray(values, dtype=float)
        mu, sigma = float(x.mean()), float(x.std())
        subs = []
        for name in SUBSETS:
            m = masks[name]
            n = int(m.sum())
            mean = float(x[m].mean()) if n else None
            z, z_fpc = (None, None) if mean is None else z_score(mean, mu, sigma, n, population)
            subs.append(
                SubsetScore(name, n, float(overlap[m].mean()) if n else None, mean, z, z_fpc)
            )
        by = {s.subset: s for s in subs}
        clean, dirty = by["clean"].score, by["dirty"].score
        rows[model] = {
            "score": mu,
            "subsets": tuple(subs),
            "clean_minus_dirty": None if clean is None or dirty is None else clean - dirty,
            "interval": _difference_interval(
                x[masks["clean"]], x[masks["dirty"]], confidence, resamples, seed
            ),
            "clean_vs_all": None if clean is None or mu == 0 else (clean - mu) / mu,
        }
    rank_all = _ranks({k: v["score"] for k, v in rows.items()})
    rank_clean = _ranks({k: v["subsets"][0].score for k, v in rows.items()})
    rank_dirty = _ranks({k: v["subsets"][3].score for k, v in rows.items()})
    models = tuple(
        ModelContamination(
            model=k,
            rank_all=rank_all[k] or 0,
            rank_clean=rank_clean[k],
            rank_dirty=rank_dirty[k],
            **v,
        )
        for k, v in rows.items()
    )
    return ScoreTable(models, confidence, resamples, seed)
