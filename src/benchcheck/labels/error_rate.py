"""The whole dataset's error rate from a gold file with an audit sample (two strata).

A gold file from ``review import`` after an export with an audit sample has a ``stratum``
per example (``disputed`` = flagged, ``undisputed`` = the rest). Per stratum:
``N_h`` = its examples in the gold file, ``n_h`` = its reviewed examples with a gold label
(reviewed but ``unresolved`` ones are left out and counted), ``k_h`` = those whose gold
label differs from the original. :func:`benchcheck.stats.stratified.stratified_error_rate`
does the rest (estimate, MOVER interval, recall of the flags), and
:func:`benchcheck.stats.stratified.plan_reviews` the planning.

Leaving unresolved reviews out assumes they are as often errors as the resolved ones of
their stratum; their count is reported so that a reader can judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from benchcheck.errors import InputError, UsageError
from benchcheck.labels.review import STRATA
from benchcheck.stats.stratified import (
    ReviewPlan,
    StratifiedErrorRate,
    plan_reviews,
    stratified_error_rate,
)

__all__ = ["StrataCounts", "plan_gold_reviews", "strata_counts", "stratified_gold_error_rate"]


@dataclass(frozen=True)
class StrataCounts:
    """Examples, resolved reviews, errors and unresolved reviews per stratum (:data:`STRATA`)."""

    population: tuple[int, ...]
    reviewed: tuple[int, ...]
    errors: tuple[int, ...]
    unresolved: tuple[int, ...]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping, by stratum name."""
        return {
            name: {"population": p, "reviewed": r, "errors": e, "unresolved": u}
            for name, p, r, e, u in zip(
                STRATA, self.population, self.reviewed, self.errors, self.unresolved, strict=True
            )
        }


def strata_counts(gold: pl.DataFrame) -> StrataCounts:
    """Count each stratum of a gold file (needs ``stratum``, ``review_id``, ``label``, ``gold``).

    >>> g = pl.DataFrame({"stratum": ["disputed", "undisputed", "undisputed"],
    ...                   "review_id": ["r1", "r2", None], "label": ["1", "0", "0"],
    ...                   "gold": ["0", "0", "0"]})
    >>> strata_counts(g)
    StrataCounts(population=(1, 2), reviewed=(1, 1), errors=(1, 0), unresolved=(0, 0))
    """
    need = [c for c in ("stratum", "review_id", "label", "gold") if c not in gold.columns]
    if need:
        raise InputError(f"the gold file lacks column(s) {need} for the stratified estimate")
    bad = gold.filter(~pl.col("stratum").is_in(list(STRATA)))
    if bad.height:
        line = int(bad["__line__"][0]) if "__line__" in bad.columns else None
        raise InputError(f"stratum must be one of {list(STRATA)}", line=line, got=bad["stratum"][0])
    pop, rev, err, unres = [], [], [], []
    for name in STRATA:
        part = gold.filter(pl.col("stratum") == name)
        seen = part.filter(pl.col("review_id").is_not_null())
        done = seen.filter(pl.col("gold").is_not_null())
        pop.append(part.height)
        rev.append(done.height)
        err.append(int((done["gold"].cast(pl.String) != done["label"].cast(pl.String)).sum()))
        unres.append(seen.height - done.height)
    return StrataCounts(tuple(pop), tuple(rev), tuple(err), tuple(unres))


def _population(counts: StrataCounts, population: int | None) -> None:
    total = sum(counts.population)
    if population is not None and population != total:
        raise UsageError(
            f"{{population}} ({population}) differs from the {total} examples of the gold "
            "file: the audit sample speaks for the examples that were flagged and sampled, "
            "so the stratified estimate covers exactly those"
        )


def stratified_gold_error_rate(
    gold: pl.DataFrame,
    *,
    population: int | None = None,
    confidence: float = 0.95,
    method: str = "midp",
) -> tuple[StratifiedErrorRate | None, StrataCounts | None, str | None]:
    """Return the stratified estimate of a gold file, or ``None`` and the reason why not.

    Returns ``(estimate, counts, reason)``: no ``stratum`` column (an export without an audit
    sample from an older benchcheck) gives ``(None, None, reason)``; a stratum with examples
    but no resolved review gives ``(None, counts, reason)``.
    """
    if "stratum" not in gold.columns:
        return None, None, "the gold file has no stratum column: export with an audit sample"
    counts = strata_counts(gold)
    _population(counts, population)
    for name, p, r in zip(STRATA, counts.population, counts.reviewed, strict=True):
        if p > 0 and r == 0:
            what = "audit sample" if name == "undisputed" else "review of the flags"
            return None, counts, f"no {name} example was reviewed with a gold label (no {what})"
    est = stratified_error_rate(
        counts.errors,
        counts.reviewed,
        counts.population,
        names=STRATA,
        flagged=STRATA[0],
        confidence=confidence,
        method=method,
    )
    return est, counts, None


def plan_gold_reviews(
    counts: StrataCounts,
    *,
    width: float,
    anticipated: Mapping[str, float] | None = None,
    confidence: float = 0.95,
    method: str = "midp",
) -> ReviewPlan:
    """Reviews per stratum for an expected interval ``width``, from a gold file's counts.

    Anticipated error rates: ``anticipated[stratum]`` where given, else the stratum's
    ``(k + 1/2) / (n + 1)`` (the Jeffreys posterior mean: never 0 or 1, so a stratum with
    no error found yet still gets reviews); a stratum with examples, no review and no
    anticipated rate is an error naming the parameter.
    """
    given = dict(anticipated or {})
    unknown = [k for k in given if k not in STRATA]
    if unknown:
        raise UsageError(f"{{anticipated}}: unknown stratum {unknown[0]!r}; use {list(STRATA)}")
    rates = []
    for name, p, n, k in zip(
        STRATA, counts.population, counts.reviewed, counts.errors, strict=True
    ):
        if name in given:
            rate = given[name]
            if not 0 < rate < 1:
                raise UsageError(f"{{anticipated}}: the {name} rate must be in (0, 1), got {rate}")
        elif n > 0:
            rate = (k + 0.5) / (n + 1)
        elif p > 0:
            raise UsageError(
                f"no {name} example is reviewed yet: give its anticipated error rate "
                f"({{anticipated}} {name}=RATE)"
            )
        else:
            rate = 0.5  # an empty stratum: no reviews are planned for it
        rates.append(rate)
    return plan_reviews(
        counts.population,
        rates,
        width=width,
        reviewed=counts.reviewed,
        names=STRATA,
        confidence=confidence,
        method=method,
    )
