"""Score NER predictions against the test split with seqeval: micro F1 (Eq. 7), per sentence.

Per sentence: exact match, the per-item score of the audit's contamination table.
"""

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

    check_aligned(gold, predicted)
    return float(f1_score(sentences_of(gold), sentences_of(predicted)))


def sentence_exact_match(gold: Split, predicted: Split) -> list[float]:
    r"""Per sentence, 1.0 when the predicted entities equal the gold ones, else 0.0.

    .. math:: s_i = [E(\hat y_i) = E(y_i)]

    with :math:`E(y)` the set of (type, first token, last token) entities seqeval reads from a
    tag sequence (``seqeval.metrics.sequence_labeling.get_entities``, the reading of
    :func:`seqeval_f1`): sentence-level exact match, a per-item score in [0, 1] whose mean is
    the share of sentences tagged without an error (micro F1 does not decompose over
    sentences). A sentence with no entity in either is a match. The splits must be aligned
    as for :func:`seqeval_f1`.

    >>> import polars as pl
    >>> def split(tags):
    ...     tokens = pl.DataFrame({"sentence": [0, 0, 1], "tag": tags})
    ...     table = pl.DataFrame({"x_hash": [1, 2], "line": [1, 4]})
    ...     return Split("test", "t.conll", table, tokens)
    >>> sentence_exact_match(split(["B-PER", "O", "O"]), split(["B-PER", "O", "B-LOC"]))
    [1.0, 0.0]
    """
    from seqeval.metrics.sequence_labeling import get_entities

    check_aligned(gold, predicted)
    return [
        float(set(get_entities(g)) == set(get_entities(p)))
        for g, p in zip(sentences_of(gold), sentences_of(predicted), strict=True)
    ]


def check_aligned(gold: Split, predicted: Split) -> None:
    """Refuse predictions whose sentences are not the gold split's, naming the first that is not.

    Sentences compare by their tokens (``x_hash``), in order.
    """
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
