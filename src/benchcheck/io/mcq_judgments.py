"""Read the judgments of ``benchcheck judge --task mcq``, aligned to the questions.

One row per question × judge: ``id``, ``judge`` and ``p_A``, ``p_B``, … (the judge's
P(option), null past the question's last option). Each judge becomes one soft annotator
(a distribution over the options), as an lm-eval log's model is. A row whose option count
or probabilities do not fit its question, a question judged twice by one judge, or ids
that do not join (:func:`benchcheck.data.ids.check_join`) are :class:`InputError`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchcheck.data.ids import check_join
from benchcheck.data.mcq import LETTERS
from benchcheck.errors import InputError
from benchcheck.io.tables import read_rows

__all__ = ["read_mcq_judgments"]


def read_mcq_judgments(
    path: str | Path,
    ids: Sequence[str],
    options: Sequence[Sequence[str]],
    *,
    data_file: str | None = None,
) -> tuple[tuple[str, ...], np.ndarray]:
    """Return the judges (``judge:<name>``) and their P(option), (questions × judges × K)."""
    path = Path(path)
    frame = read_rows(path)
    missing = [c for c in ("id", "judge", "p_A", "p_B") if c not in frame.columns]
    if missing:
        raise InputError(
            f"not MCQ judgments (benchcheck judge of a multiple-choice benchmark): no column "
            f"{missing[0]!r}",
            path=path,
        )
    lines = (
        frame.get_column("__line__").to_list()
        if "__line__" in frame.columns
        else list(range(1, frame.height + 1))
    )
    index = {q: i for i, q in enumerate(ids)}
    k_max = max(len(o) for o in options)
    p_cols = [c for c in (f"p_{LETTERS[k]}" for k in range(len(LETTERS))) if c in frame.columns]
    judge_names = [str(j) for j in frame.get_column("judge").to_list()]
    judges = list(dict.fromkeys(judge_names))
    at = {j: n for n, j in enumerate(judges)}
    probs = np.zeros((len(ids), len(judges), k_max))
    seen_ids = [str(q) for q in frame.get_column("id").to_list()]
    done: set[tuple[int, int]] = set()
    for row, (qid, judge, values) in enumerate(
        zip(seen_ids, judge_names, frame.select(p_cols).iter_rows(), strict=True)
    ):
        if qid not in index:
            continue
        i = index[qid]
        k = len(options[i])
        given = [v for v in values if v is not None]
        p = np.array(values[:k], dtype=float) if len(given) == k else None
        if (
            p is None
            or any(v is None for v in values[:k])
            or not all(math.isfinite(x) and x >= 0 for x in p)
            or abs(p.sum() - 1.0) > 1e-3
        ):
            raise InputError(
                f"judge {judge!r}: expected P(option) for the {k} options of question {qid!r}, "
                "summing to 1",
                path=path,
                line=int(lines[row]),
            )
        if (i, at[judge]) in done:
            raise InputError(
                f"question {qid!r} judged twice by {judge!r}", path=path, line=int(lines[row])
            )
        done.add((i, at[judge]))
        probs[i, at[judge], :k] = p / p.sum()
    check_join(
        list(ids),
        list(dict.fromkeys(seen_ids)),
        left_name="the data",
        right_name="the judgments",
        path=path,
        left_file=data_file,
    )
    return tuple(f"judge:{j}" for j in judges), probs
