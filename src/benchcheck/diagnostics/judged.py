"""Diagnose an LLM directly: three-way NLI judgements on a suite → predicted labels.

Each example (premise = ``text_a``, hypothesis = ``text_b``) is scored with the ``nli3``
prompt of :mod:`benchcheck.judges.prompts` (answer 0 / 1 / 2 for entailment / neutral /
contradiction), reading label-token probabilities, never generated text; the predicted
label is the most probable one (ties: the first in label order). Judgements go through the
judges' cache, so a second run is free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchcheck.diagnostics.suite import DiagnosticSuite
from benchcheck.errors import UsageError

__all__ = ["judge_predictions"]


def judge_predictions(
    suite: DiagnosticSuite,
    judges: Sequence[Any],
    *,
    prompt: Any = None,
    cache: Any = None,
    progress: Any = None,
) -> dict[str, dict[str, str]]:
    """Return ``{judge label: {example id: predicted label}}`` for each judge on ``suite``.

    ``judges`` are :class:`benchcheck.judges.base.Judge` objects; ``prompt`` a
    :class:`~benchcheck.judges.prompts.PromptTemplate` whose labels are the suite's
    (default: the built-in ``nli3``).
    """
    from benchcheck.judges.prompts import BUILTIN_PROMPTS
    from benchcheck.judges.run import judge_frame

    template = prompt or BUILTIN_PROMPTS["nli3"]
    labels = list(template.labels)
    if set(suite.label_names) - set(labels):
        raise UsageError(
            f"prompt {template.name!r} answers {labels}; the suite uses {list(suite.label_names)}"
        )
    frame = suite.table.select("id", "text_a", "text_b")
    scored = judge_frame(frame, list(judges), [template], cache=cache, progress=progress)
    out: dict[str, dict[str, str]] = {}
    for row in scored.iter_rows(named=True):
        probs = [(row.get(f"p_{lab}") or 0.0) for lab in labels]
        best = max(range(len(labels)), key=lambda k: (probs[k], -k))
        out.setdefault(row["judge"], {})[row["id"]] = labels[best]
    return out
