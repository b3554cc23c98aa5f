"""Difficulty metrics (Statistical dataset evaluation, Sec. 4.2): does it challenge models.

An entity value is the entity's surface: two values match when their token sequences are
equal (case kept), compared through 64-bit hashes of the sequences. A value is shown as its
tokens joined by one space, without one beside a script written without spaces (``北京``,
not ``北 京``; see :func:`benchcheck.data.scripts.join_tokens`). Its type is its label.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import polars as pl

from benchcheck._hashset import member, unique_sorted
from benchcheck.data.model import Dataset, Split
from benchcheck.io._ner import mix64, string_hash
from benchcheck.metrics.registry import register


def _spans(split: Split) -> pl.DataFrame:
    if split.spans is None:
        raise ValueError(f"split {split.name!r} has no entity spans (not an NER split)")
    return split.spans


#: e* of the last few span tables seen (Eq. 5 and its variant both need it); keyed by the
#: table's identity, holding the table so that the id cannot be reused while cached.
_E_STAR: OrderedDict[int, tuple[pl.DataFrame, int]] = OrderedDict()


def _n_ambiguous(split: Split) -> int:
    """e*: the number of distinct entity surfaces labelled with two or more types."""
    spans = _spans(split)
    hit = _E_STAR.get(id(spans))
    if hit is not None and hit[0] is spans:
        return hit[1]
    value = 0
    if spans.height:
        n_types = spans.group_by("surface_hash").agg(pl.col("type").n_unique()).get_column("type")
        value = int((n_types > 1).sum())
    _E_STAR[id(spans)] = (spans, value)
    while len(_E_STAR) > 8:
        _E_STAR.popitem(last=False)
    return value


@register(
    dimension="difficulty",
    better="higher",
    tasks=("ner",),
    scope="split",
    title="Entity ambiguity degree",
    definition="Eq. 5: 1 − e*/n, e* = entity values labelled with more than one type.",
)
def entity_ambiguity_degree(split: Split) -> float | None:
    """Entity Ambiguity Degree, Eq. 5 as written: 1 − e*(D) / n.

    e*(D) is the number of distinct entity surfaces labelled with more than one type in the
    split and n its number of instances. The paper's text calls higher values "more
    ambiguous", which this formula contradicts (more ambiguous surfaces lower it); see
    :func:`ambiguous_entity_ratio` for the variant that grows with ambiguity. Edge rule:
    ``None`` for n = 0.

    Entity values match when their token sequences are equal (case kept); a value is shown
    as its tokens joined by one space, without one beside a script written without spaces
    (``北京``).
    """
    if split.n == 0:
        return None
    return 1.0 - _n_ambiguous(split) / split.n


@register(
    dimension="difficulty",
    better="higher",
    tasks=("ner",),
    scope="split",
    title="Ambiguous entity ratio",
    definition="e* / number of distinct entity values: the share of entity values with 2+ types.",
)
def ambiguous_entity_ratio(split: Split) -> float | None:
    """Share of distinct entity surfaces labelled with more than one type (variant of Eq. 5).

    Edge rule: ``None`` when the split has no entity.

    Entity values match when their token sequences are equal (case kept); a value is shown
    as its tokens joined by one space, without one beside a script written without spaces
    (``北京``).
    """
    spans = _spans(split)
    distinct = spans.get_column("surface_hash").n_unique()
    if distinct == 0:
        return None
    return _n_ambiguous(split) / distinct


@register(
    dimension="difficulty",
    better="higher",
    tasks=("ner",),
    scope="split",
    title="Entity density",
    definition="Eq. 6: mean over sentences of (distinct entity values in it) / (its tokens).",
)
def entity_density(split: Split) -> float | None:
    """Entity Density ("text complexity"), Eq. 6: Σ_i |e(y_i)| / (n · m_i).

    |e(y_i)| counts the distinct entity surfaces of sentence i (e(y) is a set) and m_i its
    tokens. Edge rule: ``None`` for n = 0.

    Entity values match when their token sequences are equal (case kept); a value is shown
    as its tokens joined by one space, without one beside a script written without spaces
    (``北京``).
    """
    if split.n == 0:
        return None
    spans = _spans(split)
    per_sentence = np.zeros(split.n, dtype=np.float64)
    if spans.height:
        sentence = spans.get_column("sentence").to_numpy()
        surface = spans.get_column("surface_hash").to_numpy()
        per_sentence = np.bincount(
            sentence[_first_in_sentence(sentence, surface)], minlength=split.n
        ).astype(np.float64)
    tokens = split.table.get_column("n_tokens").to_numpy()
    return float(np.mean(per_sentence / tokens))


def _first_in_sentence(sentence: np.ndarray, surface: np.ndarray, *, window: int = 8) -> np.ndarray:
    """Mark each span whose surface did not occur earlier in its sentence.

    Spans come sorted by sentence. Sentences with at most ``window`` spans are checked by
    comparing each span with the ``window`` spans before it (vectorised, no sort, no hash
    table); the few longer sentences go through a lexsort. Same marks as a distinct count
    over (sentence, surface) pairs, in O(n · window) time and O(n) memory.
    """
    n = sentence.size
    first = np.ones(n, dtype=bool)
    if n == 0:
        return first
    counts = np.bincount(sentence)
    long_ = counts[sentence] > window
    for k in range(1, min(window, n - 1) + 1):
        dup = (sentence[k:] == sentence[:-k]) & (surface[k:] == surface[:-k])
        first[k:] &= ~dup
    if long_.any():
        idx = np.flatnonzero(long_)
        order = idx[np.lexsort((surface[idx], sentence[idx]))]
        keep = np.ones(order.size, dtype=bool)
        keep[1:] = (sentence[order][1:] != sentence[order][:-1]) | (
            surface[order][1:] != surface[order][:-1]
        )
        first[idx] = False
        first[order[keep]] = True
    return first


_K_TYPE = np.uint64(0xD6E8FEB86659FD93)


def _entity_keys(split: Split, typed: bool) -> np.ndarray:
    """One uint64 per entity mention: its surface hash, mixed with its type name if typed.

    Type names (not the split's own Enum codes) are hashed, so keys compare across splits.
    """
    spans = _spans(split)
    surface = spans.get_column("surface_hash").to_numpy()
    if not typed:
        return surface
    types = spans.get_column("type")
    if isinstance(types.dtype, pl.Enum):  # hash each category once
        name_key = mix64(string_hash(types.dtype.categories) ^ _K_TYPE)
        return mix64(surface ^ name_key[types.to_physical().to_numpy()])
    return mix64(surface ^ mix64(string_hash(types.cast(pl.String)) ^ _K_TYPE))


def _unseen(dataset: Dataset, typed: bool) -> float | None:
    if "test" not in dataset or "train" not in dataset:
        return None
    test = unique_sorted(_entity_keys(dataset["test"], typed))
    if test.size == 0:
        return None
    seen = member(test, _entity_keys(dataset["train"], typed))
    return float(test.size - int(seen.sum())) / test.size


@register(
    dimension="difficulty",
    better="higher",
    tasks=("ner",),
    scope="cross",
    title="Unseen entity ratio",
    definition="Eq. 4: |e(Te) − e(Tr)| / |e(Te)| over sets of entity values (test vs train).",
)
def unseen_entity_ratio(dataset: Dataset) -> float | None:
    """Unseen Entity Ratio, Eq. 4: abs(e(y_Te) − e(y_Tr)) / abs(e(y_Te)).

    Sets of entity surfaces (types ignored), test against train only. Edge rule: ``None``
    when the dataset lacks a train or test split or the test split has no entity.

    Entity values match when their token sequences are equal (case kept); a value is shown
    as its tokens joined by one space, without one beside a script written without spaces
    (``北京``).
    """
    return _unseen(dataset, typed=False)


@register(
    dimension="difficulty",
    better="higher",
    tasks=("ner",),
    scope="cross",
    title="Unseen entity ratio (typed)",
    definition="Eq. 4 over (entity value, type) pairs.",
)
def unseen_entity_ratio_typed(dataset: Dataset) -> float | None:
    """Eq. 4 over (surface, type) pairs.

    A surface seen in train only with another type counts as unseen.

    Edge rule as :func:`unseen_entity_ratio`.
    """
    return _unseen(dataset, typed=True)


@register(
    dimension="difficulty",
    better="higher",
    tasks=("ner", "classification", "pair"),
    scope="scores",
    title="Model differentiation",
    definition="Eq. 7: population standard deviation of k models' scores on the dataset.",
)
def model_differentiation(scores: list[float]) -> float | None:
    """Model Differentiation, Eq. 7: the standard deviation of k models' scores (ddof = 0).

    The paper recommends the top five published scores. Edge rule: ``None`` for no score;
    0.0 for one.

    >>> round(model_differentiation([93.1, 92.8, 92.4, 91.9, 91.0]), 4)
    0.7392
    """
    if not scores:
        return None
    return float(np.std(np.asarray(scores, dtype=np.float64), ddof=0))
