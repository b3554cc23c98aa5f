"""Structural checks of multiple-choice questions: each counted, each question listed.

On an ``mcq`` split table (``id``, ``text``, ``options``, ``key``; see
:mod:`benchcheck.data.mcq`), one pass per question:

* ``empty_option``: an option that is empty or only whitespace;
* ``key_on_empty_option``: the key names such an option;
* ``duplicate_options``: two options with exactly the same text (whitespace stripped);
* ``options_differ_by_case_or_space``: two options that differ, but not once case is folded
  and whitespace removed ("Paris" / "paris ", "New York" / "NewYork");
* ``option_repeats_question``: an option equal to the question (case and whitespace
  folded);
* ``all_or_none_of_the_above``: an option such as "all of the above", "none of these",
  "both A and B" — legitimate, but the options whose meaning depends on the others
  (and on their order), a known source of keys that shuffling or editing breaks.

A key outside the options never reaches a check: the reader refuses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import polars as pl

from benchcheck.data.mcq import letter

__all__ = ["CHECKS", "McqCheckRow", "McqChecks", "check_mcq"]

CHECKS = (
    "empty_option",
    "key_on_empty_option",
    "duplicate_options",
    "options_differ_by_case_or_space",
    "option_repeats_question",
    "all_or_none_of_the_above",
)

_ABOVE = re.compile(
    r"\b(all|none|any|neither|both)\s+(of\s+)?(the\s+)?(above|these|those|options|answers|choices"
    r"|of\s+them)\b|\bboth\s+[A-E]\s+and\s+[A-E]\b|^\s*[A-E]\s+and\s+[A-E]\s*$",
    re.IGNORECASE,
)


def _fold(text: str) -> str:
    """Case folded with every whitespace removed.

    >>> _fold(" New  York ")
    'newyork'
    """
    return "".join(text.casefold().split())


@dataclass(frozen=True)
class McqCheckRow:
    """One question a check found: the split, its id, line, the check and the options met."""

    split: str
    id: str
    line: int
    check: str
    options: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        """Return the row as JSON (options as letters)."""
        return {
            "split": self.split,
            "id": self.id,
            "line": self.line,
            "check": self.check,
            "options": list(self.options),
        }


@dataclass(frozen=True)
class McqChecks:
    """Counts per check (questions, not options) and the questions found, in file order."""

    n_questions: int
    counts: dict[str, int] = field(default_factory=dict)
    rows: tuple[McqCheckRow, ...] = ()

    def to_json(self) -> dict[str, object]:
        """Return the counts (every check, 0 included) and the rows."""
        return {
            "n_questions": self.n_questions,
            "counts": {c: self.counts.get(c, 0) for c in CHECKS},
            "rows": [r.to_json() for r in self.rows],
        }


def _question_checks(question: str, options: list[str], key: int) -> dict[str, list[int]]:
    """Return the checks one question fails, each with the 0-based options involved.

    >>> found = _question_checks("Pick", ["Paris", "paris ", "", "None of the above"], 2)
    >>> found["key_on_empty_option"], found["options_differ_by_case_or_space"]
    ([2], [0, 1])
    >>> list(found)[0], found["all_or_none_of_the_above"]
    ('empty_option', [3])
    """
    found: dict[str, list[int]] = {}
    stripped = [o.strip() for o in options]
    empty = [i for i, o in enumerate(stripped) if not o]
    if empty:
        found["empty_option"] = empty
        if key in empty:
            found["key_on_empty_option"] = [key]
    dup = sorted({i for i, o in enumerate(stripped) if o and stripped.count(o) > 1})
    if dup:
        found["duplicate_options"] = dup
    folded = [_fold(o) for o in options]
    near = sorted(
        {
            i
            for i, f in enumerate(folded)
            for j, g in enumerate(folded)
            if i != j and f and f == g and stripped[i] != stripped[j]
        }
    )
    if near:
        found["options_differ_by_case_or_space"] = near
    q = _fold(question)
    repeat = [i for i, f in enumerate(folded) if f and f == q]
    if repeat:
        found["option_repeats_question"] = repeat
    above = [i for i, o in enumerate(options) if _ABOVE.search(o)]
    if above:
        found["all_or_none_of_the_above"] = above
    return found


def check_mcq(tables: dict[str, pl.DataFrame]) -> McqChecks:
    """Run every check over the ``mcq`` split tables (split name → table)."""
    counts = dict.fromkeys(CHECKS, 0)
    rows: list[McqCheckRow] = []
    n = 0
    for split, table in tables.items():
        n += table.height
        for rec in table.select("id", "line", "text", "options", "key").iter_rows(named=True):
            for check, idx in _question_checks(rec["text"], rec["options"], rec["key"]).items():
                counts[check] += 1
                rows.append(
                    McqCheckRow(
                        split=split,
                        id=rec["id"],
                        line=rec["line"],
                        check=check,
                        options=tuple(letter(i) for i in idx),
                    )
                )
    return McqChecks(n_questions=n, counts=counts, rows=tuple(rows))
