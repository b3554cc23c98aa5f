"""The words and numbers every rendering shows below the NER label-error flags.

Input: the ``detector_quality`` block of ``ner_label_errors`` in ``results.json``
(:func:`benchcheck.io.ner_detector_quality.ner_detector_note`: the committed benchmark's
numbers, package data) and the run's own ``min_error_score``. The HTML page, ``report.md``
and the terminal all show the same sentences and the same compact table, built here — as
:mod:`benchcheck.report.judge_note` does for the pair judge.

>>> note = {"source": "s", "detector": "tagger", "planted_rate": 0.05,
...         "kinds": ["type", "boundary", "missing", "spurious"],
...         "settings": {"folds": 5, "min_error_score": 0.99},
...         "corpora": {"c": {"sentences": 1200, "entity_types": 3, "draws": 3, "ap": 0.6,
...                           "ap_random": 0.07, "flag_precision": 0.42, "flag_recall": None,
...                           "seconds_per_1k_sentences": 6.8,
...                           "ap_by_kind": {"type": 0.61, "boundary": 0.5, "missing": 0.3,
...                                          "spurious": 0.91}}}}
>>> quality_head(note)[3]
'AP ↑ type / boundary / missing / spurious'
>>> quality_rows(note)
[['c', '1,200', '0.60 (0.07)', '0.61 / 0.50 / 0.30 / 0.91', '0.42 / —']]
>>> threshold_note(note, 0.99), threshold_note(note, 0.995)[:60]
('', 'The benchmark flagged from error score 0.99, this run from 0')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchcheck.report.numbers import num, pct, short, thousands
from benchcheck.report.provenance import REPOSITORY, benchmark_source

__all__ = [
    "QUALITY_TITLE",
    "quality_head",
    "quality_rows",
    "threshold_note",
    "verdict",
]

QUALITY_TITLE = "How good is this detector?"
#: Where the method and every benchmark number are explained.
DOCS = "docs/labels.md"


def quality_head(note: Mapping[str, Any]) -> list[str]:
    """Return the table's column heads (the kinds as the note lists them)."""
    return [
        "corpus",
        "sentences",
        "mean AP ↑ (random)",
        "AP ↑ " + " / ".join(note["kinds"]),
        f"flags ≥ {short(note['settings']['min_error_score'])}: precision ↑ / recall ↑",
    ]


def quality_rows(note: Mapping[str, Any]) -> list[list[str]]:
    """One row per benchmark corpus, cells as text (see :func:`quality_head`)."""
    rows = []
    for name, q in note["corpora"].items():
        rows.append(
            [
                str(name),
                thousands(q["sentences"]),
                f"{num(q['ap'], 2)} ({num(q['ap_random'], 2)})",
                " / ".join(num(q["ap_by_kind"].get(k), 2) for k in note["kinds"]),
                f"{num(q['flag_precision'], 2)} / {num(q['flag_recall'], 2)}",
            ]
        )
    return rows


def verdict(note: Mapping[str, Any]) -> str:
    """Say how the numbers were measured and how to read them, briefly."""
    draws = sorted({int(q["draws"]) for q in note["corpora"].values()})
    span = str(draws[0]) if len(draws) == 1 else f"{draws[0]}–{draws[-1]}"
    return (
        f"Real corpora, {pct(note['planted_rate'])} of the entities given a planted error of "
        f"one kind, {span} seeded draws per corpus ({benchmark_source(note['source'])}); mean "
        "AP over the kinds, a random ranking's in parentheses. Precision counts only planted "
        "errors as true, so it is a lower bound. The method and every number are explained in "
        f"{DOCS} (“NER label errors without a model”), {REPOSITORY}."
    )


def threshold_note(note: Mapping[str, Any], min_error_score: float) -> str:
    """Say so when this run flags from another threshold than the benchmark did (else ``""``)."""
    measured = float(note["settings"]["min_error_score"])
    if abs(measured - float(min_error_score)) < 1e-12:
        return ""
    return (
        f"The benchmark flagged from error score {short(measured)}, this run from "
        f"{short(min_error_score)}: its flags' precision and recall differ (to measure them "
        "at this threshold, rerun benchmarks/ner_detect_bench.py, then "
        f"benchmarks/ner_detect_summary.py, {REPOSITORY})."
    )
