"""Locality-sensitive hashing of MinHash signatures: band parameters, band keys, candidates.

(b, r) are chosen as datasketch's ``MinHashLSH`` does (:func:`lsh_params`); each band's
rows hash to one key (:func:`band_keys`); docs sharing a key in a band are candidates
(:func:`candidate_pairs`): all pairs in a bucket of at most 32 members, a star plus a chain
in a larger one, linear in its size.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from benchcheck._hashset import unique_sorted
from benchcheck.data.hashing import mix64
from benchcheck.errors import UsageError


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
    n = np.int64(max(int(active.size), 1))
    code = np.zeros(0, dtype=np.int64)  # u·n + v of the pairs so far, sorted, unique
    for links in band_links(keys, group, active, first, all_pairs_up_to=all_pairs_up_to):
        # Deduplicated band by band: bands often repeat a pair, and b copies of all links
        # would be the peak of memory.
        code = unique_sorted(np.concatenate([code, links[:, 0] * n + links[:, 1]]))
    return np.stack([code // n, code % n], axis=1)


def band_links(
    keys: np.ndarray,
    group: np.ndarray,
    active: np.ndarray,
    first: np.ndarray | None = None,
    *,
    all_pairs_up_to: int = _ALL_PAIRS_UP_TO,
) -> Iterator[np.ndarray]:
    """Yield the candidate links of one band at a time (as :func:`candidate_pairs` makes them).

    Each band gives at most ``c·(c − 1)/2 / c`` = 15.5 links per member for buckets of up to
    ``c`` = 32 members and 2 per member in larger ones: a band's links are at most
    ``(c − 1)/2 · n``, whatever the threshold. All bands together may hold ``b`` times as
    many (``b`` = 75 bands at threshold 0.05): a caller that verifies and merges band by
    band (:func:`benchcheck.metrics.neardup.lexical.near_duplicates`) stays within one
    band's links. Unique ``(u, v)`` pairs of the band, sorted, as an int64 ``(k, 2)`` array.
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
    for key in keys:
        k = key[idx] ^ salt
        order = np.argsort(k, kind="stable")  # idx order kept inside a bucket
        ks, ds = k[order], idx[order]
        u, v = _bucket_links(ds, np.r_[True, ks[1:] != ks[:-1]], all_pairs_up_to)
        del k, order, ks, ds
        same_group = group[u] == group[v]  # else a 64-bit key collision
        code = unique_sorted(u[same_group] * n + v[same_group])
        del u, v, same_group
        yield np.stack([code // n, code % n], axis=1)
