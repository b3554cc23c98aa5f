"""The dataset model."""

from benchcheck.data.model import SPLIT_ALIASES, TASK_KINDS, Dataset, Split, TaskKind

__all__ = ["SPLIT_ALIASES", "TASK_KINDS", "Dataset", "Split", "TaskKind"]
