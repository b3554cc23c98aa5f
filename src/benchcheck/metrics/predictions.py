"""Score NER predictions against the test split with seqeval (micro F1), for Eq. 7."""

from __future__ import annotations

from collections.abc import Mapping

from benchcheck.data.model import Dataset, Split
from benchcheck.errors import InputError, UsageError


def sentences_of(split: Split) -> list[list[str]]:
    """Return the split's tag sequences, one list per sentence."""
    assert split.tokens is not None  # NER splits always carry tokens
    grouped = split.tokens.group_by("sentence", maintain_order=True).agg("tag")
    return grouped.get_column("tag").to_list()


def seqeval_f1(gold: Split, predicted: Split) -> float:
    """Micro-averaged F1 (seqeval's default mode) of ``predicted`` tags against ``gold``.

    The two files must hold the same sentences with the same tokens, in the same order;
    otherwise an :class:`InputError` names the first sentence that differs.
    """
    from seqeval.metrics import f1_score

    n = min(gold.n, predicted.n)
    g = gold.table.get_column("x_hash").head(n)
    p = predicted.table.get_column("x_hash").head(n)
    differs = (g != p).arg_true()
    if differs.len():
        k = int(differs[0])
        raise InputError(
            f"sentence {k + 1} does not have the same tokens as the {gold.name} split (its line "
            f"{int(gold.table['line'][k])})",
            path=predicted.source,
            line=int(predicted.table["line"][k]),
        )
    if predicted.n > gold.n:
        raise InputError(
            f"predictions have {predicted.n} sentences, the {gold.name} split has {gold.n}: "
            f"sentence {gold.n + 1} has no counterpart",
            path=predicted.source,
            line=int(predicted.table["line"][gold.n]),
        )
    if predicted.n < gold.n:
        raise InputError(
            f"predictions end after {predicted.n} sentences (the last starts here), the "
            f"{gold.name} split has {gold.n}; its sentence {n + 1} is at its line "
            f"{int(gold.table['line'][n])}",
            path=predicted.source,
            line=int(predicted.table["line"][n - 1]),
        )
    return float(f1_score(sentences_of(gold), sentences_of(predicted)))


def score_predictions(gold: Split, predicted: Mapping[str, Split]) -> dict[str, float]:
    """Seqeval micro F1 × 100 (the unit of published scores) of each model's predicted split."""
    return {name: 100.0 * seqeval_f1(gold, split) for name, split in predicted.items()}


def test_split(dataset: Dataset) -> Split:
    """The split predictions are scored on: ``test``; a clear error without one."""
    if "test" not in dataset:
        raise UsageError("{predictions} are scored on the test split, and this dataset has none")
    return dataset["test"]


def score_test_predictions(dataset: Dataset, predicted: Mapping[str, Split]) -> dict[str, float]:
    """:func:`score_predictions` on the dataset's test split (:func:`test_split`)."""
    return score_predictions(test_split(dataset), predicted)
