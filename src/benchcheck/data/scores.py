"""One model's outputs on a test set, as read: ids with a score and/or a predicted label."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelScores"]


@dataclass(frozen=True)
class ModelScores:
    """One model's outputs on a test set: a score for the positive label and/or a prediction."""

    name: str
    ids: tuple[str, ...]
    score: tuple[float, ...] | None
    pred: tuple[str, ...] | None
