"""Where a dataset comes from and how to read it, as one frozen value (:class:`DataSource`).

A run takes a :class:`DataSource` instead of the readers' keyword arguments, so the command
line, the audit and Python callers describe a dataset the same way, and a run can name its
inputs (:attr:`DataSource.inputs`) to the output guard before any work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from benchcheck.data.columns import Columns
from benchcheck.data.mcq import McqColumns
from benchcheck.errors import UsageError
from benchcheck.io._options import NerOptions

if TYPE_CHECKING:
    from benchcheck.data.model import Dataset

__all__ = ["DataSource"]

TASKS = ("ner", "classification", "pair", "mcq")


@dataclass(frozen=True)
class DataSource:
    """A dataset to read: a folder or file (``path``) or named split files (``splits``).

    Attributes
    ----------
    path, splits
        Exactly one: a dataset folder / file / saved HuggingFace dataset, or split name →
        file.
    task
        ``ner``, ``classification``, ``pair`` or ``mcq``.
    columns
        The text, label and id columns of classification and pair tables.
    scheme, strict
        NER: the tagging scheme to force (``None`` detects it), and whether invalid tag
        transitions are errors instead of being repaired.
    label_names
        Names for integer labels (classification, pair) or ``ner_tags`` indices (NER JSONL).
    mcq
        Multiple-choice questions: the question, options, key, group and id columns
        (:class:`~benchcheck.data.mcq.McqColumns`).
    ner
        NER: the file format (``None`` detects it), the offset formats' tokeniser and span
        policies, and entity-type renaming (:class:`~benchcheck.io.formats.NerOptions`).

    >>> from benchcheck.sample_data import NER_SAMPLE
    >>> DataSource(str(NER_SAMPLE)).load().split_names
    ['train', 'dev', 'test']
    >>> DataSource("a.conll", task="nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: unknown task 'nope'; expected 'ner', ..., 'pair' or 'mcq'

    """

    path: str | None = None
    splits: Mapping[str, str] = field(default_factory=dict)
    task: str = "ner"
    columns: Columns = field(default_factory=Columns)
    scheme: str | None = None
    strict: bool = False
    label_names: tuple[str, ...] | None = None
    ner: NerOptions = field(default_factory=NerOptions)
    mcq: McqColumns = field(default_factory=McqColumns)

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise UsageError(
                f"unknown task {self.task!r}; expected 'ner', 'classification', 'pair' or 'mcq'"
            )
        if self.scheme is not None:
            object.__setattr__(self, "scheme", self.scheme.upper())
        object.__setattr__(self, "splits", MappingProxyType(dict(self.splits)))
        if self.label_names is not None:
            object.__setattr__(self, "label_names", tuple(self.label_names))

    @property
    def inputs(self) -> tuple[str, ...]:
        """Every path this source reads (for the output guard)."""
        if self.path is not None and self.path.startswith("hf:"):
            return ()  # a Hub dataset: no local path to guard
        lists = tuple(self.ner.split_lists.values())
        return ((self.path,) if self.path is not None else tuple(self.splits.values())) + lists

    def load(self, *, keep_tokens: bool = True) -> Dataset:
        """Read the dataset (see :func:`benchcheck.io.load.load`).

        ``keep_tokens=False`` reads NER files in bounded memory without their token table,
        which every statistic but predictions and near-duplicates can do without.
        """
        from benchcheck.io.load import load

        return load(
            self.path,
            splits=dict(self.splits) or None,
            task=self.task,
            scheme=self.scheme,
            strict=self.strict,
            label_names=self.label_names,
            columns=self.columns.given(),
            keep_tokens=keep_tokens,
            ner=self.ner,
            mcq=self.mcq,
        )
