"""An independent, plain-Python implementation of the NER statistics (issue 2's definitions).

Nothing here imports benchcheck: sentences are (tokens, tags) tuples, entities come from
seqeval's ``get_entities``, and every metric is written with sets, Counters and ``statistics``.
"""

from __future__ import annotations

import statistics
from collections import Counter
from itertools import combinations
from pathlib import Path

from seqeval.metrics.sequence_labeling import get_entities

Sentence = tuple[tuple[str, ...], tuple[str, ...]]


def write_conll(path: Path, sentences: list[Sentence]) -> Path:
    """One ``token tag`` line per token, a blank line between sentences."""
    blocks = ["\n".join(f"{t} {g}" for t, g in zip(*s, strict=True)) for s in sentences]
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


def entities(sentence: Sentence) -> list[tuple[str, str]]:
    """(surface, type) of each mention, surfaces joined by one space."""
    tokens, tags = sentence
    return [(" ".join(tokens[s : e + 1]), t) for t, s, e in get_entities(list(tags))]


def redundancy(split: list[Sentence]) -> float | None:
    if not split:
        return None
    pairs = sum(1 for a, b in combinations(split, 2) if a == b)
    return pairs / len(split)


def duplicate_ratio(split: list[Sentence]) -> float | None:
    return None if not split else (len(split) - len(set(split))) / len(split)


def entity_ambiguity_degree(split: list[Sentence]) -> float | None:
    if not split:
        return None
    return 1 - _n_ambiguous(split) / len(split)


def _n_ambiguous(split: list[Sentence]) -> int:
    types: dict[str, set[str]] = {}
    for sentence in split:
        for surface, label in entities(sentence):
            types.setdefault(surface, set()).add(label)
    return sum(1 for t in types.values() if len(t) > 1)


def ambiguous_entity_ratio(split: list[Sentence]) -> float | None:
    surfaces = {surface for s in split for surface, _ in entities(s)}
    return None if not surfaces else _n_ambiguous(split) / len(surfaces)


def entity_density(split: list[Sentence]) -> float | None:
    if not split:
        return None
    values = [len({surface for surface, _ in entities(s)}) / len(s[0]) for s in split]
    return sum(values) / len(values)


def entity_imbalance_degree(split: list[Sentence]) -> float | None:
    counts = Counter(label for s in split for _, label in entities(s))
    if not counts:
        return None
    total = sum(counts.values())
    return statistics.pstdev([c / total for c in counts.values()])


def entity_null_rate(split: list[Sentence]) -> float | None:
    if not split:
        return None
    return sum(1 for s in split if not entities(s)) / len(split)


SPLIT_METRICS = {
    "redundancy": redundancy,
    "duplicate_ratio": duplicate_ratio,
    "entity_ambiguity_degree": entity_ambiguity_degree,
    "ambiguous_entity_ratio": ambiguous_entity_ratio,
    "entity_density": entity_density,
    "entity_imbalance_degree": entity_imbalance_degree,
    "entity_null_rate": entity_null_rate,
}


def _leak(splits: dict[str, list[Sentence]], key) -> float | None:  # type: ignore[no-untyped-def]
    if "test" not in splits or not ({"train", "dev"} & set(splits)) or not splits["test"]:
        return None
    seen = {key(s) for name in ("train", "dev") for s in splits.get(name, [])}
    return sum(1 for s in splits["test"] if key(s) in seen) / len(splits["test"])


def leakage_ratio(splits: dict[str, list[Sentence]]) -> float | None:
    return _leak(splits, lambda s: s)


def text_leakage_ratio(splits: dict[str, list[Sentence]]) -> float | None:
    return _leak(splits, lambda s: s[0])


def _unseen(splits: dict[str, list[Sentence]], typed: bool) -> float | None:
    if "test" not in splits or "train" not in splits:
        return None

    def values(split: list[Sentence]) -> set:
        return {e if typed else e[0] for s in split for e in entities(s)}

    test, train = values(splits["test"]), values(splits["train"])
    return None if not test else len(test - train) / len(test)


def unseen_entity_ratio(splits: dict[str, list[Sentence]]) -> float | None:
    return _unseen(splits, typed=False)


def unseen_entity_ratio_typed(splits: dict[str, list[Sentence]]) -> float | None:
    return _unseen(splits, typed=True)


CROSS_METRICS = {
    "leakage_ratio": leakage_ratio,
    "text_leakage_ratio": text_leakage_ratio,
    "unseen_entity_ratio": unseen_entity_ratio,
    "unseen_entity_ratio_typed": unseen_entity_ratio_typed,
}


def model_differentiation(scores: list[float]) -> float | None:
    return None if not scores else statistics.pstdev(scores)


def stats(splits: dict[str, list[Sentence]]) -> tuple[dict, dict]:
    """(per split {metric: value}, dataset {metric: value}) as benchcheck's JSON lays them out."""
    per_split = {
        name: {"n_instances": len(split), **{k: f(split) for k, f in SPLIT_METRICS.items()}}
        for name, split in splits.items()
    }
    dataset = {}
    for key in SPLIT_METRICS:
        values = [row[key] for row in per_split.values() if row[key] is not None]
        dataset[key] = sum(values) / len(values) if values else None
    dataset.update({k: f(splits) for k, f in CROSS_METRICS.items()})
    return per_split, dataset
