"""Paths of the diagnostic sample data shipped with benchcheck (CC0; see its README)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["sample_predictions_path", "sample_suite_path"]


def _sample_dir() -> Path:
    return Path(str(resources.files("benchcheck") / "sample_data" / "diagnostic"))


def sample_suite_path() -> Path:
    """Path of the shipped demo suite (45 pairs, both directions, all four categories).

    >>> sample_suite_path().name
    'suite.jsonl'
    """
    return _sample_dir() / "suite.jsonl"


def sample_predictions_path() -> Path:
    """Path of the shipped predictions of the rule-based overlap baseline on the demo suite.

    >>> sample_predictions_path().name
    'overlap_baseline_predictions.jsonl'
    """
    return _sample_dir() / "overlap_baseline_predictions.jsonl"
