"""The words and numbers every rendering shows beside flags of the embedded default judge.

Input: the ``default_judge`` block of ``label_errors`` in ``results.json``
(:func:`benchcheck.io.judge_quality.default_judge_note`). The HTML page, ``report.md`` and
the terminal all show the same sentences and the same table, built here.

>>> note = {"judge": {"model": "M", "parameters": "1.5B", "quantisation": "Q4",
...         "device": "CPU"}, "planted_rate": 0.1, "draws": 50, "source": "s",
...         "defaults": {"detector": "llm", "calibration": "prior", "threshold": 0.5,
...                      "flag_rule": "threshold"},
...         "datasets": {"d": {"n": 10, "auc": 0.8, "ap": 0.3, "ap_p10": 0.2, "ap_p90": 0.4,
...                            "p_at_k": 0.25, "flag_rate": 0.3, "flag_precision": 0.2,
...                            "flag_recall": 0.7, "raw_ensemble_ap": 0.29}}}
>>> quality_rows(note)
[['d', '10', '0.80', '0.30 [0.20–0.40]', '0.25', '0.30 / 0.20 / 0.70']]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchcheck.report.numbers import num, pct
from benchcheck.report.provenance import benchmark_source

__all__ = [
    "QUALITY_HEAD",
    "detail",
    "intro",
    "quality_rows",
    "strong_judge_lines",
    "verdict",
]

QUALITY_HEAD = [
    "dataset",
    "n",
    "ROC AUC ↑",
    "AP ↑ [p10–p90]",
    "P@k ↑",
    "default flags: rate / precision ↑ / recall ↑",
]


def intro(note: Mapping[str, Any]) -> str:
    """Say what the judge is, in one sentence."""
    j = note["judge"]
    return (
        f"These flags come from the embedded default judge, {j['model']} ({j['parameters']} "
        f"parameters, {j['quantisation']}, on {j['device']}): a small model that runs "
        "offline anywhere, a first pass — not a judge to trust flag by flag."
    )


def verdict(note: Mapping[str, Any]) -> str:
    """Say how it measured, in one sentence (the table follows)."""
    d = note["defaults"]
    rate = note["planted_rate"]
    return (
        f"Measured with these defaults (detector {d['detector']}, calibration "
        f"{d['calibration']}, flag rule {d['flag_rule']} at {num(d['threshold'], 2)}) on real "
        f"pair datasets with {pct(rate)} of the labels flipped on purpose (the same number from "
        f"each class; mean over {note['draws']} seeded draws; {benchmark_source(note['source'])}). "
        f"A random "
        f"ranking has AP ≈ {num(rate, 2)}; P@k = precision among the k highest error scores "
        "(k = errors planted)."
        + (
            f" Not re-measured with these defaults, so not shown: {', '.join(earlier)}."
            if (earlier := note.get("not_quoted"))
            else ""
        )
    )


def quality_rows(note: Mapping[str, Any]) -> list[list[str]]:
    """One row per benchmark dataset, cells as text (see :data:`QUALITY_HEAD`)."""
    rows = []
    for name, q in note["datasets"].items():
        rows.append(
            [
                str(name),
                num(q["n"]),
                num(q["auc"], 2),
                f"{num(q['ap'], 2)} [{num(q['ap_p10'], 2)}–{num(q['ap_p90'], 2)}]",
                num(q["p_at_k"], 2),
                " / ".join(num(q[k], 2) for k in ("flag_rate", "flag_precision", "flag_recall")),
            ]
        )
    return rows


def strong_judge_lines(note: Mapping[str, Any]) -> tuple[str, list[str]]:
    """Return the advice and the commands for a strong judge (OpenAI-compatible server)."""
    s = note["strong_judge"]
    return (
        "For flags worth an expert's time, use a strong judge: any OpenAI-compatible server "
        "— vLLM on a GPU, llama.cpp's server, Ollama or a hosted API. Serve a model, then "
        "audit with it (or judge, then flag):",
        [s["serve"], s["audit"], s["judge"]],
    )


def detail(note: Mapping[str, Any]) -> str:
    """Say it in one line (the audit's terminal summary of the label-error analysis).

    The AP and P@k ranges are the smallest and largest over the benchmark's datasets.
    """
    j = note["judge"]
    qs = list(note["datasets"].values())

    def span(key: str) -> str:
        vals = [q[key] for q in qs if q[key] is not None]
        return f"{num(min(vals), 2)}–{num(max(vals), 2)}" if vals else "—"

    return (
        f"embedded default judge {j['model']} ({j['parameters']}, {j['quantisation']}, "
        f"{j['device']}): on {len(qs)} real pair datasets with {pct(note['planted_rate'])} "
        f"planted label errors its default detector reaches AP {span('ap')}, P@k {span('p_at_k')} "
        f"(a random ranking: {num(note['planted_rate'], 2)}; report: 'How good is this "
        f"judge?'). A strong judge: {note['strong_judge']['audit']}"
    )
