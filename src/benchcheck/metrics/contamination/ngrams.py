r"""Rolling hashes of every token n-gram, by prefix sums (a few passes, whatever n is).

The hash of the n tokens with hashes :math:`h_i, \dots, h_{i+n-1}` is the polynomial

.. math::  H_i = \sum_{j=0}^{n-1} h_{i+j} B^{n-1-j} \bmod 2^{64}

with an odd base B. With :math:`S_k = \sum_{t<k} h_t B^{-t}` (``cumsum``; :math:`B^{-1}`
exists modulo :math:`2^{64}` because B is odd), :math:`H_i = B^{i+n-1}(S_{i+n} - S_i)`:
four vector passes for any n, where hashing each window's n terms costs 2n. Two n-grams
that differ in one token always hash differently (B is invertible); otherwise a collision
has probability about :math:`2^{-64}` per pair, and every hit is confirmed token by token
(:mod:`benchcheck.metrics.contamination.scan`).

Written with numpy because no library computes rolling hashes over an array of integers.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["ngram_hashes", "rolling_hashes"]

_BASE = 0x9E3779B97F4A7C15  # odd
_BLOCK = 1 << 20  # windows hashed per block: the power tables stay 8 MB each


@lru_cache(maxsize=1)
def _powers(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``B**k`` and ``B**-k`` modulo 2**64 for ``k < size``."""
    up = np.full(size, _BASE, dtype=np.uint64)
    down = np.full(size, pow(_BASE, -1, 1 << 64), dtype=np.uint64)
    up[0] = down[0] = 1
    with np.errstate(over="ignore"):
        np.cumprod(up, out=up)
        np.cumprod(down, out=down)
    return up, down


def rolling_hashes(h: np.ndarray, n: int) -> np.ndarray:
    """Polynomial hash of every window of ``n`` consecutive values of ``h`` (uint64).

    >>> h = np.array([3, 1, 4, 1, 5], dtype=np.uint64)
    >>> r = rolling_hashes(h, 2)
    >>> int(r[1]) == (1 * _BASE + 4) % 2**64, bool(r[0] == rolling_hashes(h[:2], 2)[0])
    (True, True)
    """
    total = h.size - n + 1
    if total <= 0:
        return np.zeros(0, np.uint64)
    up, down = _powers(_BLOCK + n)
    out = np.empty(total, np.uint64)
    with np.errstate(over="ignore"):
        for a in range(0, total, _BLOCK):
            b = min(total, a + _BLOCK)
            m = b - a + n - 1  # values of h the windows starting in [a, b) read
            s = np.empty(m + 1, np.uint64)
            s[0] = 0
            np.multiply(h[a : a + m], down[:m], out=s[1:])
            np.cumsum(s, out=s)
            win = s[n:] - s[: m + 1 - n]
            win *= up[n - 1 : n - 1 + (b - a)]
            out[a:b] = win
    return out


def ngram_hashes(h: np.ndarray, lengths: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Hash every n-gram inside each document; return (hashes, index of each first token).

    ``h`` holds the token hashes of the documents one after the other, ``lengths`` the
    tokens of each document: an n-gram never crosses a document boundary.

    >>> hashes, at = ngram_hashes(np.arange(5, dtype=np.uint64), np.array([3, 2]), 2)
    >>> at.tolist(), bool(hashes[2] == rolling_hashes(np.arange(3, 5, dtype=np.uint64), 2)[0])
    ([0, 1, 3], True)
    """
    if h.size < n:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    ends = np.cumsum(lengths)
    # A window starting at t is inside its document iff t + n <= that document's end.
    end_of = np.repeat(ends, lengths)[: h.size - n + 1]
    starts = np.flatnonzero(np.arange(end_of.size) + n <= end_of)
    return rolling_hashes(h, n)[starts], starts
