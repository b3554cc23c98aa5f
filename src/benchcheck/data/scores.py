"""One model's outputs on a test set, as read: ids with a score and/or a predicted label."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelScores"]


@dataclass(frozen=True)
class ModelScores:
    """One model's outputs on a test set: a score for the positive label and/or a prediction.

    ``source`` and ``lines`` (one per id) name the file and the lines in errors
    (:func:`benchcheck.io.scores.read_model_scores` fills them).
    """

    name: str
    ids: tuple[str, ...]
    score: tuple[float, ...] | None
    pred: tuple[str, ...] | None
    source: str | None = None
    lines: tuple[int, ...] | None = None
