"""Item response theory for a benchmark: 1PL/2PL fits, abilities with standard errors.

The fit is the ``mirt`` package (``pip install 'benchcheck[irt]'``, MIT; a Python port of
R's mirt with a Rust back end): marginal maximum likelihood by EM over Gauss–Hermite
quadrature (21 points), abilities ``theta ~ N(0, 1)`` in the population. Chosen over the
alternatives after fitting the same simulated 2PL data with known parameters (see
``docs/items.md`` for the figures):

* ``girth`` 0.8.0 (MIT, numpy/scipy only; last release 2021-11): the same MML estimates as
  mirt to three decimals on 30 items × 1,000 examinees, but 3.3 s there against 0.3 s, and
  no result after 300 s on 2,000 items × 50 models (an item-by-item Python loop);
* ``py-irt`` 0.7.1 (MIT, 2026-03): variational Bayes in Pyro, pins pandas < 3 and
  typer < 0.15 (it cannot be installed beside benchcheck), 207 s on the 30 × 1,000 case
  with item difficulties 2.5 × farther from the truth (RMSE 0.45 against 0.18);
* ``mirt`` 1.2.0 (MIT, 2026-10): 1.0 s for a 2PL on 10,000 items × 50 models (without item
  standard errors, which this module does not report).

The model: ``P(correct) = sigma(a_i (theta_j - b_i))``; the 1PL is mirt's: ``a_i = 1`` for
every item with ``theta ~ N(0, 1)`` (a Rasch model on that fixed scale). Each model's
ability is its maximum-likelihood estimate given the fitted items, with the standard error
``1 / sqrt(I(theta))`` from the test information (:mod:`benchcheck.stats.irt`); a model
with every item right (or wrong) has no finite estimate (``null``). Items that every model
gets right or wrong carry no information about any difference between the models and are
left out of the fit (counted in ``excluded``).

The scale is identified by the N(0, 1) population: with a few dozen models it is the
scale of *these* models, so compare thetas with each other, not across benchmarks.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck.errors import UsageError, require
from benchcheck.items.matrix import ItemMatrix
from benchcheck.stats import ctt
from benchcheck.stats import irt as formulas

__all__ = ["IRT_MODELS", "Ability", "IrtFit", "fit_irt"]

IRT_MODELS = ("2pl", "1pl")


@dataclass(frozen=True)
class Ability:
    """One model's ability estimate and its standard error (``None`` when not finite)."""

    theta: float | None
    se: float | None


@dataclass(frozen=True)
class IrtFit:
    """A 1PL/2PL fit: item parameters, abilities, and what they say about the ranking.

    ``information`` is the test information ``I(theta) = sum_i a_i^2 P_i (1 - P_i)`` on a
    grid of abilities from -3 to 3. ``separating`` lists the items that separate the top
    ``top`` models most, with the
    information each gives over their ability range (:func:`information_between`);
    ``items_needed`` gives, for each pair of neighbours in ability order, how many items
    like these separate them at ``confidence``.
    """

    model: str
    library: str
    item_ids: tuple[str, ...]
    a: tuple[float, ...]
    b: tuple[float, ...]
    models: tuple[str, ...]
    abilities: tuple[Ability, ...]
    excluded: dict[str, int]
    converged: bool
    n_iterations: int | None
    log_likelihood: float | None
    top: tuple[str, ...]
    separating: tuple[tuple[str, float], ...]
    items_needed: tuple[dict[str, Any], ...]
    confidence: float
    notes: tuple[str, ...]
    information: tuple[tuple[float, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the ``irt`` object of ``items --json``."""
        return {
            "model": self.model,
            "library": self.library,
            "converged": self.converged,
            "n_iterations": self.n_iterations,
            "log_likelihood": self.log_likelihood,
            "excluded": dict(self.excluded),
            "abilities": {
                n: {"theta": ab.theta, "se": ab.se}
                for n, ab in zip(self.models, self.abilities, strict=True)
            },
            "items": [
                {"id": i, "a": a, "b": b}
                for i, a, b in zip(self.item_ids, self.a, self.b, strict=True)
            ],
            "separating_items": {
                "models": list(self.top),
                "items": [{"id": i, "information": v} for i, v in self.separating],
            },
            "items_needed": {"confidence": self.confidence, "pairs": list(self.items_needed)},
            "test_information": [{"theta": t, "information": v} for t, v in self.information],
            "notes": list(self.notes),
        }


def _finite(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def fit_irt(
    matrix: ItemMatrix,
    *,
    model: str = "2pl",
    top: int = 2,
    n_separating: int = 10,
    confidence: float = 0.95,
    max_iter: int = 500,
    tol: float = 1e-4,
) -> IrtFit:
    """Fit a 1PL or 2PL model to a 0/1 matrix; abilities, separating items, items needed.

    Raises :class:`UsageError` for partial credit (the 1PL/2PL are models of right/wrong
    answers), an unknown ``model``, or fewer than two informative items.
    """
    if model not in IRT_MODELS:
        raise UsageError(f"{{irt}} must be one of {list(IRT_MODELS)}, got {model!r}")
    if not 0 < confidence < 1:
        raise UsageError(f"{{confidence}} must be in (0, 1), got {confidence}")
    if top < 2:
        raise UsageError(f"the number of top models must be >= 2, got {top}")
    x = matrix.scores
    if not ctt.is_dichotomous(x):
        raise UsageError("IRT 1PL/2PL needs 0/1 scores; this matrix has partial credit")
    p = x.mean(axis=1)
    informative = (p > 0) & (p < 1)
    excluded = {"every model right": int((p == 1).sum()), "every model wrong": int((p == 0).sum())}
    if informative.sum() < 2:
        raise UsageError(
            f"IRT needs at least two items that some models get right and others wrong; "
            f"this matrix has {int(informative.sum())}"
        )
    mirt = require("mirt", "irt")
    data = x[informative].T.astype(np.int64)  # mirt: examinees × items
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mirt.fit_mirt(
            data,
            model=model.upper(),
            compute_standard_errors=False,
            max_iter=max_iter,
            tol=tol,
        )
    a = np.asarray(res.model.discrimination, dtype=float).ravel()
    b = np.asarray(res.model.difficulty, dtype=float).ravel()
    totals = data.sum(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = mirt.fscores(res, data, method="ML")
    theta = np.asarray(scores.theta, dtype=float).ravel()
    abilities = []
    notes = []
    for j, name in enumerate(matrix.models):
        if totals[j] in (0, data.shape[1]):
            abilities.append(Ability(None, None))
            which = "every" if totals[j] else "no"
            notes.append(f"{name} answered {which} informative item right: no finite ability")
            continue
        info = float(formulas.test_information(theta[j], a, b))
        abilities.append(
            Ability(_finite(theta[j]), _finite(1 / math.sqrt(info)) if info > 0 else None)
        )
    item_ids = tuple(i for i, keep in zip(matrix.item_ids, informative, strict=True) if keep)
    ranked = sorted(
        (j for j, ab in enumerate(abilities) if ab.theta is not None),
        key=lambda j: (-(abilities[j].theta or 0.0), matrix.models[j]),
    )
    top_idx = ranked[:top]
    separating: tuple[tuple[str, float], ...] = ()
    if len(top_idx) >= 2:
        hi = float(abilities[top_idx[0]].theta or 0.0)
        lo = float(abilities[top_idx[-1]].theta or 0.0)
        between = formulas.information_between(a, b, lo, hi)
        order = np.lexsort((np.arange(len(between)), -between))[:n_separating]
        separating = tuple((item_ids[int(k)], float(between[k])) for k in order)
    needed = []
    for u, v in zip(ranked, ranked[1:], strict=False):
        ta, tb = float(abilities[u].theta or 0.0), float(abilities[v].theta or 0.0)
        n = formulas.items_needed(ta, tb, a, b, confidence=confidence)
        needed.append(
            {
                "a": matrix.models[u],
                "b": matrix.models[v],
                "theta_difference": ta - tb,
                "items_needed": None if not math.isfinite(n) else int(n),
                "separated_now": bool(math.isfinite(n) and n <= len(item_ids)),
            }
        )
    version = getattr(mirt, "__version__", "?")
    return IrtFit(
        model=model,
        library=f"mirt {version}",
        item_ids=item_ids,
        a=tuple(float(v) for v in a),
        b=tuple(float(v) for v in b),
        models=matrix.models,
        abilities=tuple(abilities),
        excluded=excluded,
        converged=bool(getattr(res, "converged", True)),
        n_iterations=getattr(res, "n_iterations", None),
        log_likelihood=_finite(float(getattr(res, "log_likelihood", math.nan))),
        top=tuple(matrix.models[j] for j in top_idx),
        separating=separating,
        items_needed=tuple(needed),
        confidence=confidence,
        notes=tuple(notes),
        information=tuple(
            (float(t), float(formulas.test_information(float(t), a, b)))
            for t in np.linspace(-3.0, 3.0, 13)
        ),
    )
