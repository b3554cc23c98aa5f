"""Difficulty metrics (Statistical dataset evaluation, Sec. 4.2): does it challenge models.

An entity value is the entity's surface string (its tokens joined by one space, case kept);
its type is its label. Sets of surfaces are compared through their 64-bit hashes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from benchcheck._hashset import member, unique_sorted
from benchcheck.data.hashing import mix64, string_hash
from benchcheck.data.model import Split


def _spans(split: Split) -> pl.DataFrame:
    if split.spans is None:
        raise ValueError(f"split {split.name!r} has no entity spans (not an NER split)")
    return split.spans


def n_ambiguous(split: Split) -> int:
    """e* of Eq. 5: the number of distinct entity surfaces labelled with two or more types.

    Eq. 5 and its variant both need it; :func:`~benchcheck.metrics.compute.compute_stats`
    computes it once per split and passes it to both (the table's ``prepared``).
    """
    spans = _spans(split)
    if not spans.height:
        return 0
    n_types = spans.group_by("surface_hash").agg(pl.col("type").n_unique()).get_column("type")
    return int((n_types > 1).sum())


def entity_ambiguity_degree(split: Split, *, e_star: int | None = None) -> float | None:
    """Entity Ambiguity Degree, Eq. 5 as written: 1 − e*(D) / n.

    e*(D) is the number of distinct entity surfaces labelled with more than one type in the
    split and n its number of instances. The paper's text calls higher values "more
    ambiguous", which this formula contradicts (more ambiguous surfaces lower it); see
    :func:`ambiguous_entity_ratio` for the variant that grows with ambiguity. ``e_star``:
    e*(D) when the caller has it (:func:`n_ambiguous`). Edge rule: ``None`` for n = 0.
    """
    if split.n == 0:
        return None
    return 1.0 - (n_ambiguous(split) if e_star is None else e_star) / split.n


def ambiguous_entity_ratio(split: Split, *, e_star: int | None = None) -> float | None:
    """Share of distinct entity surfaces labelled with more than one type (variant of Eq. 5).

    e* / (number of distinct surfaces); ``e_star`` as for :func:`entity_ambiguity_degree`.
    Edge rule: ``None`` when the split has no entity.
    """
    spans = _spans(split)
    distinct = spans.get_column("surface_hash").n_unique()
    if distinct == 0:
        return None
    return (n_ambiguous(split) if e_star is None else e_star) / distinct


def entity_density(split: Split) -> float | None:
    """Entity Density ("text complexity"), Eq. 6: Σ_i |e(y_i)| / (n · m_i).

    |e(y_i)| counts the distinct entity surfaces of sentence i (e(y) is a set) and m_i its
    tokens. Edge rule: ``None`` for n = 0.
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


def _unseen(target: Split, references: Sequence[Split], typed: bool) -> float | None:
    if not references:
        return None
    test = unique_sorted(_entity_keys(target, typed))
    if test.size == 0:
        return None
    reference = np.concatenate([_entity_keys(r, typed) for r in references])
    seen = member(test, reference)
    return float(test.size - int(seen.sum())) / test.size


def unseen_entity_ratio(target: Split, references: Sequence[Split]) -> float | None:
    """Unseen Entity Ratio, Eq. 4: abs(e(y_Te) − e(y_Tr)) / abs(e(y_Te)).

    Sets of entity surfaces (types ignored) of the target split (the paper's test) against
    the reference splits (the paper's train only). Edge rule: ``None`` when there is no
    reference split or the target split has no entity.

    >>> import polars as pl
    >>> def ner(name, hashes):
    ...     spans = pl.DataFrame({"surface_hash": hashes, "type": ["PER"] * len(hashes)})
    ...     return Split(name, "-", pl.DataFrame({"n": [0]}), spans=spans)
    >>> unseen_entity_ratio(ner("test", [1, 2, 2, 3, 4]), [ner("train", [1, 3])])
    0.5
    """
    return _unseen(target, references, typed=False)


def unseen_entity_ratio_typed(target: Split, references: Sequence[Split]) -> float | None:
    """Eq. 4 over (surface, type) pairs.

    A surface seen in the references only with another type counts as unseen.

    Edge rule as :func:`unseen_entity_ratio`.
    """
    return _unseen(target, references, typed=True)


def unseen_surfaces(target: Split, references: Sequence[Split]) -> set[int]:
    """Return the target's distinct surfaces (hashes) that no reference split has (Eq. 4's set)."""
    seen = {h for r in references for h in _spans(r).get_column("surface_hash").to_list()}
    return {h for h in _spans(target).get_column("surface_hash").to_list() if h not in seen}


def ambiguous_surfaces(target: Split, references: Sequence[Split]) -> set[int]:
    """Surfaces (hashes) labelled with two or more types over the target and references pooled.

    Types are compared by name, so splits with different type codes compare correctly.
    """
    spans = pl.concat(
        [
            _spans(s).select("surface_hash", pl.col("type").cast(pl.String))
            for s in (target, *references)
        ]
    )
    amb = spans.unique().group_by("surface_hash").len().filter(pl.col("len") > 1)
    return set(amb.get_column("surface_hash").to_list())


def ambiguous_entity_share(target: Split, references: Sequence[Split]) -> float | None:
    """Share of the target's distinct surfaces that are ambiguous across splits (variant of Eq. 5).

    A surface counts as ambiguous when it carries two or more types anywhere in the target
    and reference splits pooled (:func:`ambiguous_surfaces`); the paper's "test set with
    80% ambiguous entities" (Sec. 6.4) is read this way. Unlike
    :func:`ambiguous_entity_ratio`, a surface that is unambiguous in the test split but
    typed otherwise in train counts. Edge rule: ``None`` when the target has no entity.
    """
    surfaces = set(_spans(target).get_column("surface_hash").to_list())
    if not surfaces:
        return None
    return len(surfaces & ambiguous_surfaces(target, references)) / len(surfaces)


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
