r"""``benchcheck judge --task mcq``: each judge's P(option) for every multiple-choice question.

The judge reads the question with lettered options (:func:`benchcheck.judges.prompts.
mcq_prompt`) and its P(option) comes from the letters' log-probabilities (the judges'
one interface, caching and engines). Language models prefer some answer positions
(Zheng et al. 2024, "Large Language Models Are Not Robust Multiple Choice Selectors"), so
each question is asked ``rotations`` times with its options cyclically shifted (rotation
:math:`r` shows option :math:`(i + r) \bmod K` at letter :math:`i`), and the probabilities
are mapped back to the original options and averaged:

.. math:: P(o) = \frac{1}{R} \sum_{r=0}^{R-1} P_r(\text{letter } (o - r) \bmod K).

With :math:`R = K` every option is shown once at every letter (the cyclic-permutation
debiasing of the paper). The judgments table has one row per question × judge: ``id``,
``judge``, ``prompt`` (``mcq``), ``n_options``, ``rotations`` and ``p_A``, ``p_B``, … (the
original options' probabilities; null past a question's last option) —
``benchcheck flag --task mcq --judgments`` reads it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.mcq import LETTERS, McqColumns, lettered
from benchcheck.errors import UsageError
from benchcheck.runs.judging import JudgeSetup, Progress

__all__ = ["McqJudgeRun", "mcq_rotation_text", "run_mcq_judge"]


def mcq_rotation_text(question: str, options: list[str], rotation: int) -> str:
    """Return the question with its options shifted by ``rotation`` and lettered.

    >>> print(mcq_rotation_text("2 + 2?", ["3", "4", "5"], 1))
    2 + 2?
    A. 4
    B. 5
    C. 3
    """
    k = len(options)
    return lettered(question, [options[(i + rotation) % k] for i in range(k)])


@dataclass(frozen=True)
class McqJudgeRun:
    """The judgments (one row per question × judge) and what producing them cost."""

    judgments: pl.DataFrame
    rotations: int | None
    n_requests: int
    n_cached: int
    wall_seconds: float
    output: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the JSON of ``benchcheck judge --task mcq --json``."""
        return {
            "command": "judge",
            "task": "mcq",
            "output": self.output,
            "judges": sorted(set(self.judgments["judge"].to_list())),
            "prompts": ["mcq"],
            "questions": int(self.judgments["id"].n_unique()),
            "rotations": self.rotations if self.rotations is not None else "every option",
            "requests": self.n_requests,
            "cached": self.n_cached,
            "wall_seconds": self.wall_seconds,
        }


def run_mcq_judge(
    data: str,
    *,
    columns: McqColumns | None = None,
    setup: JudgeSetup | None = None,
    rotations: int | None = None,
    progress: Progress | None = None,
    output: str | Path | None = None,
) -> McqJudgeRun:
    """Judge every question of ``data`` with every judge (module docstring).

    ``rotations`` (None: a question's option count, every option at every letter; 1: the
    original order only) must be at least 1.
    """
    from benchcheck.judges.prompts import mcq_prompt
    from benchcheck.judges.run import judge_frame
    from benchcheck.runs.mcq_flag import load_mcq

    if rotations is not None and rotations < 1:
        raise UsageError(f"{{rotations}} must be at least 1, got {rotations}")
    _, table = load_mcq(data, columns)
    ids = table.get_column("id").to_list()
    questions = table.get_column("text").to_list()
    options = table.get_column("options").to_list()
    k_max = max(len(o) for o in options)
    by_k: dict[int, list[int]] = {}
    for i, o in enumerate(options):
        by_k.setdefault(len(o), []).append(i)
    setup = setup or JudgeSetup()
    probs: dict[str, np.ndarray] = {}
    n_requests = n_cached = 0
    with setup.open() as (judges, store):
        start = time.perf_counter()
        for k, members in sorted(by_k.items()):
            n_rot = k if rotations is None else min(rotations, k)
            frame = pl.DataFrame(
                {
                    "id": [f"{ids[i]}@{r}" for r in range(n_rot) for i in members],
                    "text": [
                        mcq_rotation_text(questions[i], options[i], r)
                        for r in range(n_rot)
                        for i in members
                    ],
                }
            )
            got = judge_frame(frame, judges, [mcq_prompt(k)], cache=store, progress=progress)
            n_requests += got.height
            n_cached += int(got.get_column("cached").sum())
            shown = got.select([f"p_{LETTERS[c]}" for c in range(k)]).to_numpy()
            for judge in got.get_column("judge").unique(maintain_order=True).to_list():
                acc = probs.setdefault(judge, np.full((len(ids), k_max), np.nan))
                rows = got.get_column("judge").to_numpy() == judge
                block = shown[rows].reshape(n_rot, len(members), k)
                mean = np.zeros((len(members), k))
                for r in range(n_rot):  # letter c showed option (c + r) mod K
                    mean[:, (np.arange(k) + r) % k] += block[r]
                acc[members, :k] = mean / n_rot
        wall = time.perf_counter() - start
    parts = []
    n_options = np.array([len(o) for o in options])
    for judge, p in probs.items():
        cols: dict[str, Any] = {
            "id": ids,
            "judge": [judge] * len(ids),
            "prompt": ["mcq"] * len(ids),
            "n_options": n_options,
            "rotations": np.minimum(n_options, rotations or k_max),
        }
        for c in range(k_max):
            cols[f"p_{LETTERS[c]}"] = pl.Series(p[:, c]).fill_nan(None)
        parts.append(pl.DataFrame(cols))
    judgments = pl.concat(parts, how="vertical")
    if output is not None:
        from benchcheck.io.tables import write_rows

        write_rows(judgments, str(output))
    return McqJudgeRun(
        judgments=judgments,
        rotations=rotations,
        n_requests=n_requests,
        n_cached=n_cached,
        wall_seconds=wall,
        output=None if output is None else str(output),
    )
