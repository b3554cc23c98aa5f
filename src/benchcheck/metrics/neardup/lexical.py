"""The near-duplicate analysis: normalised matching and MinHash-LSH, verified by exact Jaccard.

:func:`near_duplicates` runs it over every split; the four metrics it reports are in the
metric table (scope ``near_duplicates``), whose functions read them from the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from benchcheck._hashset import member, unique_sorted
from benchcheck.data.hashing import string_hash
from benchcheck.data.model import Dataset
from benchcheck.errors import UsageError
from benchcheck.metrics.neardup.components import components, split_clusters
from benchcheck.metrics.neardup.jaccard import exact_jaccard
from benchcheck.metrics.neardup.lsh import band_keys, band_links, candidate_pairs, lsh_params
from benchcheck.metrics.neardup.memory import check_search_memory
from benchcheck.metrics.neardup.minhash import minhash_signatures, shingles
from benchcheck.metrics.neardup.normalise import input_texts, instance_ids, normalise


@dataclass(frozen=True)
class NearDuplicates:
    """Near-duplicate statistics of a dataset (JSON through :meth:`to_json`)."""

    threshold: float
    num_perm: int
    bands: int
    rows: int
    ngram: int
    seed: int
    splits: dict[str, dict[str, Any]]
    metrics: dict[str, float | None]
    clusters: list[dict[str, Any]] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)
    truncated: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON block (``near_duplicates`` of the stats result)."""
        return {
            "parameters": {
                "threshold": self.threshold,
                "num_perm": self.num_perm,
                "bands": self.bands,
                "rows": self.rows,
                "ngram": self.ngram,
                "seed": self.seed,
                "normalisation": "NFKC, casefold, whitespace collapsed",
            },
            "metrics": dict(self.metrics),
            "splits": {k: dict(v) for k, v in self.splits.items()},
            "clusters": list(self.clusters),
            "leaks": list(self.leaks),
            "truncated": dict(self.truncated),
        }


def near_duplicates(
    dataset: Dataset,
    *,
    threshold: float = 0.8,
    num_perm: int = 128,
    seed: int = 1,
    ngram: int = 1,
    max_clusters: int = 1000,
    false_negative_weight: float = 0.9,
    memory_limit: int | None = None,
) -> NearDuplicates:
    """Normalised and MinHash-LSH near-duplicates within each split and test → train/dev.

    ``normalized_duplicate_ratio`` and ``near_duplicate_ratio`` are analogues of the
    duplicate reading of Eq. 1, ``normalized_leakage_ratio`` and ``near_leakage_ratio`` of
    Eq. 3 on the input (see the package doc).
    ``max_clusters`` caps the clusters and leaks listed in the output (the largest first);
    the metrics always count all of them. Edge rules: ratios are ``None`` for an empty split;
    the leakage ratios are ``None`` without a test split and a train or dev split.

    Before the search its peak memory is estimated from above
    (:func:`~benchcheck.metrics.neardup.memory.search_peak_bytes`, from the number of texts,
    words and bands) and a search past ``memory_limit`` (default: the memory available now)
    is refused with both named, a :class:`UsageError`, instead of growing until killed.
    """
    if not 0.0 < threshold <= 1.0:
        raise UsageError(f"the near-duplicate threshold must be in (0, 1], got {threshold}")
    if num_perm < 2:
        raise UsageError(f"num_perm must be at least 2, got {num_perm}")
    names = dataset.split_names
    texts, split_of, ids = [], [], []
    for k, name in enumerate(names):
        t = input_texts(dataset[name])
        texts.append(t)
        split_of.append(np.full(t.len(), k, dtype=np.int64))
        ids.extend(instance_ids(dataset[name]))
    all_text = normalise(pl.concat(texts)) if texts else pl.Series([], dtype=pl.String)
    split_code = np.concatenate(split_of) if split_of else np.zeros(0, np.int64)
    n = all_text.len()
    bands, rows = lsh_params(threshold, num_perm, false_negative_weight)
    words = int(all_text.str.count_matches(" ", literal=True).sum() or 0) + n
    text_bytes = int(all_text.str.len_bytes().sum() or 0)
    check_search_memory(
        n,
        words,
        text_bytes,
        bands=bands,
        num_perm=num_perm,
        threshold=threshold,
        limit=memory_limit,
    )
    norm_hash = string_hash(all_text)

    doc, sh = shingles(all_text, ngram=ngram)
    sig = minhash_signatures(doc, sh, n, num_perm=num_perm, seed=seed)
    keys = band_keys(sig, bands, rows)
    has_shingles = np.zeros(n, dtype=bool)
    has_shingles[doc] = True

    # Within each split. Equal normalised texts are near-duplicates (even with no word at
    # all); then band by band, each band's candidates not yet in one cluster are verified
    # and merged, the clusters kept as one star each (fewer than n links): memory holds one
    # band's links, never all bands' (issue 37: at a low threshold on small-vocabulary text
    # all bands' candidates passed 4 GB). The clusters are those of all verified links.
    comp = components(candidate_pairs(norm_hash[None, :], split_code, np.ones(n, dtype=bool)), n)
    for links in band_links(keys, split_code, has_shingles):
        links = links[comp[links[:, 0]] != comp[links[:, 1]]]
        if links.size:
            links = links[exact_jaccard(links, doc, sh) >= threshold]
        if links.size:
            comp = components(np.concatenate([_stars(comp), links]), n)
    splits: dict[str, dict[str, Any]] = {}
    clusters: list[dict[str, Any]] = []
    for k, name in enumerate(names):
        members = np.flatnonzero(split_code == k)
        if members.size == 0:
            splits[name] = {
                "near_duplicate_ratio": None,
                "normalized_duplicate_ratio": None,
                "n_clusters": 0,
            }
            continue
        ratio, found = split_clusters(name, comp[members], [ids[m] for m in members])
        splits[name] = {
            "near_duplicate_ratio": ratio,
            "normalized_duplicate_ratio": (members.size - unique_sorted(norm_hash[members]).size)
            / members.size,
            "n_clusters": len(found),
        }
        clusters.extend(found)
    clusters.sort(key=lambda cl: (-cl["size"], cl["split"], cl["ids"][0]))

    # Test → train/dev.
    metrics: dict[str, float | None] = {}
    for name in ("near_duplicate_ratio", "normalized_duplicate_ratio"):
        vals = [s[name] for s in splits.values() if s[name] is not None]
        metrics[name] = float(np.mean(vals)) if vals else None
    metrics["near_leakage_ratio"] = None
    metrics["normalized_leakage_ratio"] = None
    leaks: list[dict[str, Any]] = []
    leaked = np.zeros(n, dtype=bool)
    ref_codes = [names.index(r) for r in ("train", "dev") if r in names]
    if "test" in names and ref_codes and (split_code == names.index("test")).any():
        test_code = names.index("test")
        is_test = split_code == test_code
        is_ref = np.isin(split_code, ref_codes)
        side = np.where(is_ref, 0, 1)
        same = candidate_pairs(
            norm_hash[None, :], np.zeros(n, np.int64), is_test | is_ref, first=is_ref
        )
        # Band by band as within the splits: every leaked test input is marked, and the
        # matches are kept only for the leaks listed (the first max_clusters test inputs).
        leaks_of = _Leaks(n, max_clusters)
        leaks_of.add(same[(side[same[:, 0]] == 0) & (side[same[:, 1]] == 1)])
        active = (is_test | is_ref) & has_shingles
        for links in band_links(keys, np.zeros(n, np.int64), active, first=is_ref):
            links = leaks_of.unknown(links[(side[links[:, 0]] == 0) & (side[links[:, 1]] == 1)])
            if links.size:
                leaks_of.add(links[exact_jaccard(links, doc, sh) >= threshold])
        cross, leaked = leaks_of.pairs, leaks_of.leaked
        test_idx = np.flatnonzero(is_test)
        metrics["near_leakage_ratio"] = float(leaked[test_idx].mean())
        metrics["normalized_leakage_ratio"] = float(
            member(norm_hash[test_idx], norm_hash[is_ref]).mean()
        )
        by_test: dict[int, list[int]] = {}
        for u, v in cross.tolist():
            by_test.setdefault(v, []).append(u)
        for v in sorted(by_test):
            leaks.append(
                {
                    "test_id": ids[v],
                    "matches": [
                        {"split": names[split_code[u]], "id": ids[u]} for u in sorted(by_test[v])
                    ],
                }
            )
    truncated = {}
    if len(clusters) > max_clusters:
        truncated["clusters"] = len(clusters)
        clusters = clusters[:max_clusters]
    if "test" in names and ref_codes and int(leaked.sum()) > max_clusters:
        truncated["leaks"] = int(leaked.sum())
        leaks = leaks[:max_clusters]
    return NearDuplicates(
        threshold=threshold,
        num_perm=num_perm,
        bands=bands,
        rows=rows,
        ngram=ngram,
        seed=seed,
        splits=splits,
        metrics=metrics,
        clusters=clusters,
        leaks=leaks,
        truncated=truncated,
    )


def _stars(comp: np.ndarray) -> np.ndarray:
    """Link each node to the first node of its component: one star per cluster (k, 2).

    >>> _stars(np.array([0, 1, 0, 2, 2])).tolist()
    [[0, 2], [3, 4]]
    """
    n = comp.size
    root = np.full(int(comp.max(initial=-1)) + 1, n, dtype=np.int64)
    np.minimum.at(root, comp, np.arange(n, dtype=np.int64))
    head = root[comp]
    others = np.flatnonzero(head != np.arange(n))
    return np.stack([head[others], others], axis=1)


class _Leaks:
    """Verified test → train/dev links gathered band by band, memory bounded.

    Every leaked test input is marked (``leaked``: the metric counts all of them); the
    links themselves are kept only for the first ``keep`` leaked test inputs (by index),
    the ones the result lists, so what is kept never passes ``keep`` inputs' matches.
    """

    def __init__(self, n: int, keep: int) -> None:
        self.n = np.int64(max(n, 1))
        self.keep = keep
        self.leaked = np.zeros(n, dtype=bool)
        self.code = np.zeros(0, dtype=np.int64)  # u·n + v of the kept links, sorted

    @property
    def pairs(self) -> np.ndarray:
        return np.stack([self.code // self.n, self.code % self.n], axis=1)

    def _last(self) -> int:
        """Return the last test input whose links are kept (all while few enough leak)."""
        marked = np.flatnonzero(self.leaked)
        return int(marked[self.keep - 1]) if marked.size > self.keep else int(self.n)

    def unknown(self, links: np.ndarray) -> np.ndarray:
        """Return the links still worth verifying (not kept yet; their test input listed).

        A link of a test input already known to leak and past the listed ones changes
        nothing: it is not verified again.
        """
        if not links.size:
            return links
        v = links[:, 1]
        useful = ~self.leaked[v] | (v <= self._last())
        links = links[useful]
        return links[~member(links[:, 0] * self.n + links[:, 1], self.code)]

    def add(self, links: np.ndarray) -> None:
        """Add verified links."""
        if not links.size:
            return
        self.leaked[links[:, 1]] = True
        code = unique_sorted(np.concatenate([self.code, links[:, 0] * self.n + links[:, 1]]))
        self.code = code[code % self.n <= self._last()]


def near_duplicate_ratio(result: NearDuplicates) -> float | None:
    """Near-duplicate ratio: (n − clusters) / n of each split, mean over the splits.

    Two inputs are near-duplicates when the Jaccard similarity of their normalised word
    n-gram sets is at least the analysis's threshold (or their normalised texts are equal);
    clusters are connected components, singletons included: the duplicate reading of
    Eq. 1 for near-copies. Read from :func:`near_duplicates`' result. Edge rule: ``None``
    when every split is empty.
    """
    return result.metrics["near_duplicate_ratio"]


def normalized_duplicate_ratio(result: NearDuplicates) -> float | None:
    """Normalised duplicate ratio: (n − distinct normalised inputs) / n, mean over the splits.

    Inputs compared after NFKC, case-folding and collapsed whitespace: the duplicate
    reading of Eq. 1 on normalised text. Read from :func:`near_duplicates`' result.
    Edge rule: ``None`` when every split is empty.
    """
    return result.metrics["normalized_duplicate_ratio"]


def near_leakage_ratio(result: NearDuplicates) -> float | None:
    """Near leakage ratio: share of test inputs with a near-duplicate in train or dev.

    Eq. 3 on the input, with near-duplication (Jaccard ≥ threshold) for equality. Read
    from :func:`near_duplicates`' result. Edge rule: ``None`` without a non-empty test split
    and a train or dev split.
    """
    return result.metrics["near_leakage_ratio"]


def normalized_leakage_ratio(result: NearDuplicates) -> float | None:
    """Normalised leakage ratio: share of test inputs whose normalised text is in train or dev.

    Eq. 3 on the normalised input. Read from :func:`near_duplicates`' result. Edge rule:
    ``None`` without a non-empty test split and a train or dev split.
    """
    return result.metrics["normalized_leakage_ratio"]
