r"""The expert review of multiple-choice flags: answers, gold keys and the error rates.

A reviewer of a multiple-choice question (``review export`` of ``flag --task mcq``) answers
the letter of the correct option, or a verdict: ``none`` (no option is correct), ``several``
(more than one is) or ``unclear`` (the question cannot be answered as written).
:func:`normalize_answer` reads the ways people write these (``b``, ``A, C``, ``no correct
option``); :func:`check_mcq_answers` refuses a letter past the question's options. The gold
table of ``review import`` then says per question (:func:`mcq_gold_kinds`):

* ``error_kind`` — ``ok`` (gold = the key), ``wrong_key`` (gold is another option),
  ``no_correct``, ``several_correct``, ``unclear`` (the verdicts), null (no gold: unresolved
  or never reviewed);
* ``wrong_key`` — gold is an option other than the key (null without gold).

:func:`mcq_error_rates` gives two error rates, overall and per group (subject): **any
error** (gold ≠ key: the generic ``error`` of the review) and **wrong key** (gold is
another option; a verdict counts as not a wrong key). Each is the review's two figures,
computed by the generic machinery on a view of the gold table: the paper's lower bound,
Clopper–Pearson over the reviewed flags plus the questions the detector left alone
(:func:`benchcheck.labels.analysis.gold_error_rate`, with the finite population correction
where a population is given), and, with an audit sample, the stratified estimate
:math:`\hat p = \sum_h (N_h/N)\, k_h/n_h` with exact hypergeometric intervals per stratum
(sampling without replacement: the finite population correction built in) combined by
MOVER (:func:`benchcheck.labels.error_rate.stratified_gold_error_rate`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.mcq import LETTERS
from benchcheck.errors import InputError, UsageError
from benchcheck.stats.intervals import ErrorRateResult
from benchcheck.stats.stratified import StratifiedErrorRate

__all__ = [
    "DEFINITIONS",
    "VERDICTS",
    "McqErrorRates",
    "check_mcq_answers",
    "corrected_keys",
    "is_mcq_key",
    "mcq_error_rates",
    "mcq_gold_kinds",
    "mcq_review_labels",
    "normalize_answer",
]

#: The reviewer's verdicts besides a letter → the error kind they make.
VERDICTS = {"none": "no_correct", "several": "several_correct", "unclear": "unclear"}

#: The error rates of a multiple-choice review.
DEFINITIONS = ("any_error", "wrong_key")

_SYNONYMS = {
    "none": "none",
    "no correct": "none",
    "no correct option": "none",
    "no correct answer": "none",
    "none correct": "none",
    "several": "several",
    "several correct": "several",
    "multiple": "several",
    "multiple correct": "several",
    "unclear": "unclear",
    "unclear question": "unclear",
}
_LETTER_LIST = re.compile(r"[A-Za-z](?:\s*[,;/&+ ]\s*[A-Za-z])*")


def normalize_answer(text: str) -> str:
    """Return a reviewer's answer as a letter or a verdict (unknown text is returned as is).

    >>> [normalize_answer(x) for x in ("b", " C ", "A, C", "a;a", "No correct option")]
    ['B', 'C', 'several', 'A', 'none']
    >>> normalize_answer("Several correct"), normalize_answer("maybe")
    ('several', 'maybe')
    """
    stripped = text.strip()
    lower = " ".join(stripped.lower().replace("-", " ").replace("_", " ").split())
    if lower in _SYNONYMS:
        return _SYNONYMS[lower]
    if _LETTER_LIST.fullmatch(stripped):
        letters = {c.upper() for c in stripped if c.isalpha()}
        return letters.pop() if len(letters) == 1 else "several"
    return stripped


def is_mcq_key(key: pl.DataFrame) -> bool:
    """Whether a review key comes from ``flag --task mcq`` (a list column ``options``)."""
    return "options" in key.columns and isinstance(key.schema["options"], pl.List)


def mcq_review_labels(key: pl.DataFrame) -> tuple[str, ...]:
    """Return the answers a reader accepts: any letter, the verdicts.

    Every letter passes the reader, so that :func:`check_mcq_answers` can say which
    options the question has.

    >>> mcq_review_labels(pl.DataFrame({"options": [["a", "b"]]}))[-5:]
    ('Y', 'Z', 'none', 'several', 'unclear')
    """
    return (*LETTERS, *VERDICTS)


def check_mcq_answers(key: pl.DataFrame, experts: Sequence[Any]) -> None:
    """Refuse an answer letter that names no option of its question (file and line).

    ``experts`` are :class:`benchcheck.labels.review.ExpertLabels` (``labels``, ``source``,
    ``lines``).
    """
    rows = key.filter(pl.col("review_id").is_not_null())
    n_options = dict(
        zip(rows["review_id"].to_list(), rows["options"].list.len().to_list(), strict=True)
    )
    for e in experts:
        for rid, answer in e.labels.items():
            if answer is None or answer in VERDICTS or rid not in n_options:
                continue
            n = n_options[rid]
            if LETTERS.index(answer) >= n:
                raise InputError(
                    f"the answer names no option: this question has {n} options "
                    f"(A–{LETTERS[n - 1]}), or answer none, several or unclear",
                    path=e.source,
                    line=e.lines.get(rid),
                    got=answer,
                )


def mcq_gold_kinds(gold: pl.DataFrame) -> pl.DataFrame:
    """Add ``error_kind`` and ``wrong_key`` to a gold table of a multiple-choice review.

    >>> g = pl.DataFrame({"label": ["A", "A", "B", "C"], "gold": ["A", "C", "none", None]})
    >>> mcq_gold_kinds(g).select("error_kind", "wrong_key").rows()
    [('ok', False), ('wrong_key', True), ('no_correct', False), (None, None)]
    """
    g, k = pl.col("gold").cast(pl.String), pl.col("label").cast(pl.String)
    verdict = pl.col("gold").cast(pl.String).replace_strict(VERDICTS, default=None)
    kind = (
        pl.when(g.is_null())
        .then(None)
        .when(g == k)
        .then(pl.lit("ok"))
        .when(g.is_in(list(VERDICTS)))
        .then(verdict)
        .otherwise(pl.lit("wrong_key"))
    )
    return gold.with_columns(kind.alias("error_kind")).with_columns(
        pl.when(g.is_null()).then(None).otherwise(pl.col("error_kind") == "wrong_key")
        .alias("wrong_key")
    )  # fmt: skip


def corrected_keys(labels: Sequence[str | None], gold: Sequence[str | None]) -> np.ndarray:
    """Return each corrected key: gold's option index, ``-1`` for a verdict, else the key.

    A question without gold (unresolved, never reviewed) keeps its key.

    >>> corrected_keys(["A", "A", "B", "C"], ["A", "C", "none", None]).tolist()
    [0, 2, -1, 2]
    """
    out = []
    for k, g in zip(labels, gold, strict=True):
        chosen = k if g is None else g
        out.append(-1 if chosen in VERDICTS else LETTERS.index(str(chosen)))
    return np.array(out, dtype=np.int64)


def _view(gold: pl.DataFrame, definition: str) -> pl.DataFrame:
    """Return the gold table as the generic error rate reads it for ``definition``."""
    if definition == "any_error":
        return gold
    g = pl.col("gold").cast(pl.String)
    return gold.with_columns(
        pl.when(g.is_in(list(VERDICTS))).then(pl.col("label").cast(pl.String)).otherwise(g)
        .alias("gold")
    )  # fmt: skip


@dataclass(frozen=True)
class McqScopeRate:
    """One error rate of one scope (all questions, or one group)."""

    questions: int
    lower_bound: ErrorRateResult
    stratified: StratifiedErrorRate | None
    stratified_note: str | None

    def to_json(self) -> dict[str, Any]:
        """Return the lower bound's figures and the stratified estimate (or why there is none)."""
        out: dict[str, Any] = {"questions": self.questions, **self.lower_bound.to_dict()}
        out.pop("schema_version", None)
        out["stratified"] = None if self.stratified is None else self.stratified.to_dict()
        if self.stratified_note is not None:
            out["stratified_note"] = self.stratified_note
        return out


@dataclass(frozen=True)
class McqErrorRates:
    """Any-error and wrong-key rates, overall and per group, and the reviewed error kinds."""

    overall: Mapping[str, McqScopeRate]
    by_group: Mapping[str, Mapping[str, McqScopeRate]]
    kinds: Mapping[str, int]
    excluded: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON of ``error-rate --task mcq``."""
        return {
            "task": "mcq",
            "error_kinds": dict(self.kinds),
            "excluded": dict(self.excluded),
            "overall": {d: r.to_json() for d, r in self.overall.items()},
            "by_group": {
                g: {d: r.to_json() for d, r in rates.items()} for g, rates in self.by_group.items()
            },
        }


def _scope(
    frame: pl.DataFrame, *, population: int | None, confidence: float, method: str
) -> dict[str, McqScopeRate]:
    from benchcheck.labels.analysis import gold_error_rate
    from benchcheck.labels.error_rate import stratified_gold_error_rate

    out = {}
    for d in DEFINITIONS:
        view = _view(frame, d)
        low, _ = gold_error_rate(view, population=population, confidence=confidence)
        est, _, note = stratified_gold_error_rate(view, confidence=confidence, method=method)
        out[d] = McqScopeRate(frame.height, low, est, note)
    return out


def mcq_error_rates(
    gold: pl.DataFrame,
    *,
    population: int | None = None,
    confidence: float = 0.95,
    method: str = "midp",
) -> McqErrorRates:
    """Any-error and wrong-key rates of a multiple-choice gold table, overall and per group.

    ``gold`` is ``review import``'s table (``label``, ``gold``, ``status``, ``group``, and
    ``stratum`` with an audit sample). ``population`` (the benchmark's questions, where the
    gold table covers fewer) corrects the overall lower bound; each group's figures cover
    its questions in the gold table. A group whose sample is empty (every question
    unresolved) is left out.
    """
    from benchcheck.labels.analysis import gold_error_rate

    overall = _scope(gold, population=population, confidence=confidence, method=method)
    _, excluded = gold_error_rate(gold, confidence=confidence)
    by_group: dict[str, dict[str, McqScopeRate]] = {}
    if "group" in gold.columns:
        groups = sorted({g for g in gold["group"].cast(pl.String).to_list() if g is not None})
        for name in groups:
            part = gold.filter(pl.col("group").cast(pl.String) == name)
            try:
                by_group[name] = _scope(part, population=None, confidence=confidence, method=method)
            except UsageError:  # no question of the group has a gold label
                continue
    kinds = mcq_gold_kinds(gold)["error_kind"].drop_nulls().value_counts(sort=True)
    counts = {str(k): int(n) for k, n in kinds.iter_rows()}
    return McqErrorRates(overall, by_group, counts, excluded)
