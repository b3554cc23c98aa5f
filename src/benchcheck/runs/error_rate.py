"""``benchcheck error-rate``: the paper's lower bound, the stratified estimate, a review plan.

:func:`run_error_rate` reads a gold file (or takes counts) and returns an :class:`ErrorRateRun`:

* ``lower_bound`` — the paper's figure, unchanged: Clopper–Pearson with the finite
  population correction over the reviewed flags plus the examples the LLM agrees with
  (:func:`benchcheck.labels.analysis.gold_error_rate`);
* ``stratified`` — with an audit sample, the whole dataset's error rate (disputed +
  undisputed strata, exact per-stratum intervals, MOVER combination) and the flags' recall
  (:func:`benchcheck.labels.error_rate.stratified_gold_error_rate`);
* ``plan`` — with ``plan`` (a target interval width), the reviews per stratum that give it;
* ``posterior`` — with a gold file of a crowd-model consensus (``posterior_<label>``
  columns), the same sample with each error a probability: expected errors, their spread,
  and the interval (:func:`benchcheck.labels.analysis.gold_posterior_error_rate`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchcheck._progress import Progress, step
from benchcheck.errors import InputError, UsageError
from benchcheck.labels.error_rate import StrataCounts
from benchcheck.stats.intervals import ErrorRateResult, PosteriorErrorRate
from benchcheck.stats.stratified import METHODS, ReviewPlan, StratifiedErrorRate

__all__ = ["ErrorRateRun", "run_error_rate"]


@dataclass(frozen=True)
class ErrorRateRun:
    """The error-rate figures of one gold file (or of counts)."""

    lower_bound: ErrorRateResult
    excluded: Mapping[str, int] = field(default_factory=dict)
    stratified: StratifiedErrorRate | None = None
    strata: StrataCounts | None = None
    stratified_note: str | None = None
    plan: ReviewPlan | None = None
    gold: str | None = None
    posterior: PosteriorErrorRate | None = None
    sample_parts: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON of ``error-rate --json``: the paper's keys first, as before.

        ``sample_parts`` (with a gold file) says what the sample is: ``reviewed`` examples
        and ``llm_agrees`` examples counted correct without review.
        """
        out: dict[str, Any] = dict(self.lower_bound.to_dict())
        if self.sample_parts:
            out["sample_parts"] = dict(self.sample_parts)
        if self.excluded:
            out["excluded"] = dict(self.excluded)
        if self.gold is not None:
            out["stratified"] = None if self.stratified is None else self.stratified.to_dict()
            if self.stratified is not None and self.strata is not None:
                out["stratified"]["unresolved"] = dict(
                    zip(("disputed", "undisputed"), self.strata.unresolved, strict=True)
                )
            if self.stratified_note is not None:
                out["stratified_note"] = self.stratified_note
        if self.plan is not None:
            out["plan"] = self.plan.to_dict()
        if self.posterior is not None:
            out["posterior"] = self.posterior.to_dict()
        return out


def run_error_rate(
    gold: str | Path | None = None,
    *,
    errors: int | None = None,
    sample: int | None = None,
    population: int | None = None,
    confidence: float = 0.95,
    method: str = "midp",
    plan: float | None = None,
    anticipated: Mapping[str, float] | None = None,
    progress: Progress | None = None,
) -> ErrorRateRun:
    """Error-rate figures of a gold file, or the paper's interval of ``errors``/``sample``.

    ``population`` is the dataset size for the finite population correction of the lower
    bound; for the stratified estimate it must equal the gold file's examples (the strata
    sizes come from the file). ``plan`` asks for the reviews per stratum whose expected
    interval is at most that wide (``anticipated`` error rates per stratum optional).
    ``progress`` is told the steps (reading, each estimate).
    """
    from benchcheck.io.label_files import read_gold
    from benchcheck.labels.analysis import (
        gold_error_rate,
        gold_posterior_error_rate,
        gold_sample_parts,
    )
    from benchcheck.labels.error_rate import (
        plan_gold_reviews,
        strata_counts,
        stratified_gold_error_rate,
    )
    from benchcheck.stats.intervals import error_rate_interval

    if not 0 < confidence < 1:
        raise UsageError(f"{{confidence}} must be in (0, 1), got {confidence}")
    if method not in METHODS:
        raise UsageError(f"{{method}} must be one of {list(METHODS)}, got {method!r}")
    if plan is not None and not 0 < plan < 1:
        raise UsageError(f"{{plan}} (an interval width) must be in (0, 1), got {plan}")
    if gold is None:
        if errors is None or sample is None:
            raise UsageError("give a gold file, or both {errors} and {sample}")
        if plan is not None:
            raise UsageError("{plan} needs a gold file (its strata and reviews)")
        if population is not None and population < sample:
            raise UsageError(f"{{population}} ({population}) is smaller than {{sample}} ({sample})")
        try:
            res = error_rate_interval(errors, sample, population, confidence=confidence)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return ErrorRateRun(res)
    if errors is not None or sample is not None:
        raise UsageError("give either a gold file or {errors}/{sample}, not both")
    step(progress, f"reading {gold}")
    frame = read_gold(gold)  # labels as single values, ids unique (io.label_files)
    try:
        step(progress, "lower bound of the error rate")
        res, left = gold_error_rate(frame, population=population, confidence=confidence)
        parts = gold_sample_parts(frame)
        step(progress, "expected errors (Poisson-binomial)")
        soft = gold_posterior_error_rate(frame, population=population, confidence=confidence)
        step(progress, "stratified estimate")
        est, counts, note = stratified_gold_error_rate(
            frame,
            population=population if population == frame.height else None,
            confidence=confidence,
            method=method,
        )
        if est is not None and population is not None and population != frame.height:
            est, note = (
                None,
                (
                    f"population ({population}) differs from the {frame.height} examples of the "
                    "gold file: the stratified estimate covers the gold file's examples only"
                ),
            )
        planned = None
        if plan is not None:
            if counts is None:
                counts = strata_counts(frame)  # names the missing stratum column
            planned = plan_gold_reviews(
                counts, width=plan, anticipated=anticipated, confidence=confidence, method=method
            )
    except InputError as exc:
        if exc.path is None:
            raise InputError(exc.message, path=gold, line=exc.line, got=exc.got) from None
        raise
    return ErrorRateRun(res, left, est, counts, note, planned, str(gold), soft, parts)
