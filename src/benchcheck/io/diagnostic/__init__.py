"""Readers of diagnostic evaluation: suites, predictions on them, human annotations, pair files.

- :mod:`~benchcheck.io.diagnostic.suite`: the GLUE diagnostic TSV and JSONL suites, the
  taxonomy file (a suite with its tags resolved: :func:`benchcheck.runs.diagnose.load_suite`);
- :mod:`~benchcheck.io.diagnostic.predictions`: model predictions by id or row;
- :mod:`~benchcheck.io.diagnostic.annotations`: human annotations;
- :mod:`~benchcheck.io.diagnostic.pairs`: train/eval pair files of the partial-input audit.
"""

from benchcheck.io.diagnostic.annotations import read_annotations
from benchcheck.io.diagnostic.pairs import PairTexts, find_pair_splits, read_pairs
from benchcheck.io.diagnostic.predictions import (
    Predictions,
    read_model_predictions,
    read_predictions,
)
from benchcheck.io.diagnostic.suite import (
    NLI_LABELS,
    load_taxonomy,
    looks_like_suite,
    read_diagnostic,
    read_diagnostic_jsonl,
    read_glue_diagnostic_tsv,
    suite_label_names,
)

__all__ = [
    "NLI_LABELS",
    "PairTexts",
    "Predictions",
    "find_pair_splits",
    "load_taxonomy",
    "looks_like_suite",
    "read_annotations",
    "read_diagnostic",
    "read_diagnostic_jsonl",
    "read_glue_diagnostic_tsv",
    "read_model_predictions",
    "read_pairs",
    "read_predictions",
    "suite_label_names",
]
