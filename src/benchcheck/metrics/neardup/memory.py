"""The near-duplicate search's memory, said before it starts: an upper estimate of its peak.

Counted from the arrays :func:`~benchcheck.metrics.neardup.lexical.near_duplicates` holds at
once, for ``n`` texts of ``W`` words in all (``T`` bytes), ``P`` permutations and ``b``
bands, with one band's candidate links at their most, ``L = 15.5·n`` (all pairs of buckets
of up to 32 members: ``(32 − 1)/2`` links a text; larger buckets give 2):

    peak ≈ 64 MiB + T + n·(4·P + 8·b + 30) + 16·W + max(56·n + 80·L, 40·L + 60·W)

- 64 MiB fixed: the libraries the search loads (SciPy's graph routines) and the
  allocator's slack (measured: 65-70 MB at 20,000 texts);
- resident through the search: the normalised texts (``T``), the signatures (4 bytes a
  permutation), the band keys (8 a band), hashes, split codes and clusters (30 a text),
  the shingles' document and hash (16 a word);
- one band at its peak: its sorted keys and their order (56 a text) and the links being
  made and deduplicated (80 bytes a link: the ends of each bucket's runs, then two int64
  ends, their codes and a sort; 76 measured on buckets of 32), or the
  links kept (40 a link) while the exact Jaccard verification ranks the shingles of the
  texts involved (60 a word at most).

The bound is a worst case: a vocabulary of 12 words at threshold 0.05 fills few buckets
of 32, and its measured peaks are below it; groups of 32 equal texts fill every band's
buckets (``benchmarks/neardup_memory_bound.py``, docs/metrics/near_duplicates.md).
"""

from __future__ import annotations

from benchcheck._memory import available_memory
from benchcheck.errors import UsageError

__all__ = ["check_search_memory", "search_peak_bytes"]

#: most candidate links a text gets in one band: (32 − 1) / 2 (see :mod:`~.lsh`)
LINKS_PER_TEXT = 15.5
#: bytes the search takes whatever its size (libraries it loads, the allocator's slack)
_FIXED = 64 << 20


def search_peak_bytes(n: int, words: int, text_bytes: int, *, bands: int, num_perm: int) -> int:
    """Estimate the search's peak bytes from above (the module's formula).

    >>> search_peak_bytes(1_000, 8_000, 40_000, bands=75, num_perm=128)
    69714864
    """
    links = LINKS_PER_TEXT * n
    resident = _FIXED + text_bytes + n * (4 * num_perm + 8 * bands + 30) + 16 * words
    band = max(56 * n + 80 * links, 40 * links + 60 * words)
    return int(resident + band)


def _size(nbytes: float) -> str:
    """Bytes in GiB or MiB, one decimal.

    >>> _size(3 << 29), _size(5 << 20)
    ('1.5 GiB', '5.0 MiB')
    """
    if nbytes >= 1 << 30:
        return f"{nbytes / 2**30:.1f} GiB"
    return f"{nbytes / 2**20:.1f} MiB"


def check_search_memory(
    n: int,
    words: int,
    text_bytes: int,
    *,
    bands: int,
    num_perm: int,
    threshold: float,
    limit: int | None = None,
) -> int:
    """Refuse a search whose estimated peak passes ``limit``; return the estimate.

    ``limit`` defaults to the memory available now (the system's ``MemAvailable`` or what
    ``ulimit -v`` still leaves, the less); where neither is known nothing is refused.
    """
    peak = search_peak_bytes(n, words, text_bytes, bands=bands, num_perm=num_perm)
    limit = available_memory() if limit is None else limit
    if limit is not None and peak > limit:
        raise UsageError(
            f"the near-duplicate search over {n:,} texts at threshold {threshold} ({bands} "
            f"bands) may take up to {_size(peak)}, more than the {_size(limit)} of memory "
            "available (the system's, or ulimit -v's); raise the threshold (fewer bands) or "
            "search fewer texts"
        )
    return peak
