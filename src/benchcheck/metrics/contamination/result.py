"""The contamination result: per item, per subset, per model; its canonical JSON.

:func:`leakage_result` turns a finished scan (:class:`~.scan.ScanState`, all shards merged)
into a :class:`LeakageResult`. The JSON (``to_json``) is the contract of
``benchcheck leakage --json``:

- ``parameters``: the definition used (overlap, n, min_length, skip, the two cut-offs),
  near-duplicate settings, ``max_matches`` and the normalisation;
- ``corpus``: files, documents and tokens read;
- ``buckets``: items in each of Llama 2's four subsets (they overlap: clean + not_clean =
  not_dirty + dirty = all items); ``partition``: items per bucket;
- ``metrics``: shares of items with an exact match, a normalised match, any overlap, a near
  match, any of these (``contaminated_rate``), in the dirty subset; the mean overlap;
- ``histogram``: items per overlap decile (``[0, 0.1)`` … ``[0.9, 1]``);
- ``items[]``: ``id``, ``n_tokens``, ``overlap`` (0–1), ``bucket``, ``subsets``,
  ``exact_matches``, ``normalised_matches``, ``n_matches`` (matched spans) and
  ``matches[]`` (the first ``max_matches`` in corpus order: ``file``, ``row`` (0-based
  record in the file), ``id`` (with a corpus id column), ``offset`` and ``item_offset``
  (0-based token positions), ``length`` (tokens)); with near-duplicates ``near_matches``
  and ``near[]`` (``file``, ``row``, ``id``, ``jaccard``);
- ``scores`` (with model scores): :class:`~.scores.ScoreTable`.

Where the work ran (the nodes of a Ray run) is kept on the result but is no part of the JSON,
so both engines give the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from benchcheck.metrics.contamination.index import TestIndex
from benchcheck.metrics.contamination.overlap import (
    BUCKETS,
    SUBSETS,
    Definition,
    bucket_of,
    subset_masks,
)
from benchcheck.metrics.contamination.scan import ScanState
from benchcheck.metrics.contamination.scores import ScoreTable

__all__ = ["ItemLeak", "LeakageResult", "Match", "NearMatch", "item_overlap", "leakage_result"]

T = TypeVar("T")

NORMALISATION = (
    "NFKC, casefold; tokens: words of letters, digits and '_' (with their marks), one token "
    "per character of scripts written without spaces; punctuation, symbols and spaces dropped"
)


@dataclass(frozen=True)
class Match:
    """A matched span: where in the corpus and where in the item, and how long."""

    file: str
    row: int
    id: str | None
    offset: int
    item_offset: int
    length: int

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object."""
        out: dict[str, Any] = {"file": self.file, "row": self.row}
        if self.id is not None:
            out["id"] = self.id
        out.update(offset=self.offset, item_offset=self.item_offset, length=self.length)
        return out


@dataclass(frozen=True)
class NearMatch:
    """A corpus document whose token set is near the item's (Jaccard ≥ the threshold)."""

    file: str
    row: int
    id: str | None
    jaccard: float

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object."""
        out: dict[str, Any] = {"file": self.file, "row": self.row}
        if self.id is not None:
            out["id"] = self.id
        out["jaccard"] = self.jaccard
        return out


@dataclass(frozen=True)
class ItemLeak:
    """One test item's contamination."""

    id: str
    n_tokens: int
    overlap: float
    bucket: str
    subsets: tuple[str, ...]
    exact_matches: int
    normalised_matches: int
    n_matches: int
    matches: tuple[Match, ...] = ()
    near_matches: int | None = None
    near: tuple[NearMatch, ...] = ()

    @property
    def contaminated(self) -> bool:
        """Any exact, normalised or near match, or any overlap."""
        return bool(
            self.exact_matches or self.normalised_matches or self.overlap or self.near_matches
        )

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object."""
        out: dict[str, Any] = {
            "id": self.id,
            "n_tokens": self.n_tokens,
            "overlap": self.overlap,
            "bucket": self.bucket,
            "subsets": list(self.subsets),
            "exact_matches": self.exact_matches,
            "normalised_matches": self.normalised_matches,
            "n_matches": self.n_matches,
            "matches": [m.to_json() for m in self.matches],
        }
        if self.near_matches is not None:
            out["near_matches"] = self.near_matches
            out["near"] = [m.to_json() for m in self.near]
        return out


@dataclass(frozen=True)
class LeakageResult:
    """Contamination of a test set by a corpus (see the module doc)."""

    definition: Definition
    max_matches: int
    corpus_files: tuple[str, ...]
    corpus_documents: int
    corpus_tokens: int
    items: tuple[ItemLeak, ...]
    near: dict[str, Any] | None = None
    scores: ScoreTable | None = None
    #: Where each corpus unit was scanned (Ray node ids); not in the JSON.
    nodes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def overlaps(self) -> np.ndarray:
        """Each item's overlap."""
        return np.array([i.overlap for i in self.items], dtype=float)

    def buckets(self) -> dict[str, int]:
        """Items in each of Llama 2's four subsets (they overlap)."""
        d = self.definition
        masks = subset_masks(self.overlaps, d.clean_below, d.dirty_from)
        return {k: int(masks[k].sum()) for k in SUBSETS}

    def histogram(self) -> dict[str, list[Any]]:
        """Items per overlap decile, the last one closed: ``[0.9, 1]``."""
        edges = [k / 10 for k in range(11)]
        counts, _ = np.histogram(self.overlaps, bins=np.array(edges))
        return {"edges": edges, "counts": [int(c) for c in counts]}

    def metrics(self) -> dict[str, float | None]:
        """Dataset-level shares (``None`` without items)."""
        m = len(self.items)

        def share(k: int) -> float | None:
            return k / m if m else None

        out = {
            "exact_rate": share(sum(i.exact_matches > 0 for i in self.items)),
            "normalised_rate": share(sum(i.normalised_matches > 0 for i in self.items)),
            "overlap_rate": share(sum(i.overlap > 0 for i in self.items)),
        }
        if self.near is not None:
            out["near_rate"] = share(sum(bool(i.near_matches) for i in self.items))
        out["contaminated_rate"] = share(sum(i.contaminated for i in self.items))
        out["dirty_rate"] = share(self.buckets()["dirty"])
        out["mean_overlap"] = float(self.overlaps.mean()) if m else None
        return out

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON object."""
        d = self.definition
        short_below = d.min_length if d.overlap == "tokens" else d.n
        params: dict[str, Any] = {
            "definition": d.name,
            "overlap": d.overlap,
            "n": d.n,
            "min_length": d.min_length,
            "skip": d.skip,
            "clean_below": d.clean_below,
            "dirty_from": d.dirty_from,
            "max_matches": self.max_matches,
            "normalisation": NORMALISATION,
        }
        if self.near is not None:
            params["near"] = dict(self.near)
        partition = {b: 0 for b in BUCKETS}
        for i in self.items:
            partition[i.bucket] += 1
        out: dict[str, Any] = {
            "parameters": params,
            "corpus": {
                "files": len(self.corpus_files),
                "documents": self.corpus_documents,
                "tokens": self.corpus_tokens,
            },
            "n_items": len(self.items),
            "n_short_items": sum(i.n_tokens < (short_below or 0) for i in self.items),
            "buckets": self.buckets(),
            "partition": partition,
            "metrics": self.metrics(),
            "histogram": self.histogram(),
            "items": [i.to_json() for i in self.items],
        }
        if self.scores is not None:
            out["scores"] = self.scores.to_json()
        return out


def item_overlap(index: TestIndex, state: ScanState, overlap: str) -> np.ndarray:
    """Each item's overlap share (see :mod:`~.overlap`): covered tokens or found n-grams."""
    item = index.item_of_token
    k = index.n_items
    if overlap == "tokens":
        hit = np.bincount(item[state.covered], minlength=k)
        total = index.item_len
    else:
        hit = np.bincount(item[state.found & index.gram_first], minlength=k)
        total = index.n_ngrams()
    return np.where(total > 0, hit / np.maximum(total, 1), 0.0)


def _by_item(
    n_items: int, cols: dict[str, np.ndarray], make: Callable[[int, dict[str, np.ndarray]], T]
) -> list[list[T]]:
    """Group record ``k`` (built by ``make(k, cols)``) under its item, in record order."""
    out: list[list[T]] = [[] for _ in range(n_items)]
    for k in range(cols["item"].size):
        out[int(cols["item"][k])].append(make(k, cols))
    return out


def leakage_result(
    index: TestIndex,
    state: ScanState,
    definition: Definition,
    *,
    ids: Sequence[str],
    unit_files: Sequence[str],
    files: Sequence[str],
    max_matches: int,
    scores: ScoreTable | None = None,
    nodes: Sequence[str] = (),
) -> LeakageResult:
    """Assemble the result of a finished scan (``unit_files``: the file of each unit)."""
    d = definition
    overlap = item_overlap(index, state, d.overlap)
    buckets = bucket_of(overlap, d.clean_below, d.dirty_from)
    masks = subset_masks(overlap, d.clean_below, d.dirty_from)
    member = np.stack([masks[s] for s in SUBSETS], axis=1)
    per_item = _by_item(
        len(ids),
        state.matches,
        lambda k, c: Match(
            file=unit_files[int(c["unit"][k])],
            row=int(c["row"][k]),
            id=state.match_ids[k],
            offset=int(c["doc_offset"][k]),
            item_offset=int(c["item_offset"][k]),
            length=int(c["length"][k]),
        ),
    )
    near_items = _by_item(
        len(ids),
        state.near_matches,
        lambda k, c: NearMatch(
            file=unit_files[int(c["unit"][k])],
            row=int(c["row"][k]),
            id=state.near_ids[k],
            jaccard=float(c["jaccard"][k]),
        ),
    )
    with_near = index.near is not None
    items = tuple(
        ItemLeak(
            id=ids[k],
            n_tokens=int(index.item_len[k]),
            overlap=float(overlap[k]),
            bucket=buckets[k],
            subsets=tuple(s for s, inside in zip(SUBSETS, member[k], strict=True) if inside),
            exact_matches=int(state.exact[k]),
            normalised_matches=int(state.normalised[k]),
            n_matches=int(state.spans[k]),
            matches=tuple(per_item[k]),
            near_matches=int(state.near[k]) if with_near else None,
            near=tuple(near_items[k]),
        )
        for k in range(len(ids))
    )
    near = None
    if index.near is not None:
        nn = index.near
        near = {
            "threshold": nn.threshold,
            "num_perm": nn.num_perm,
            "bands": nn.bands,
            "rows": nn.rows,
            "seed": nn.seed,
        }
    return LeakageResult(
        definition=d,
        max_matches=max_matches,
        corpus_files=tuple(files),
        corpus_documents=state.documents,
        corpus_tokens=state.tokens,
        items=items,
        near=near,
        scores=scores,
        nodes=tuple(nodes),
    )
