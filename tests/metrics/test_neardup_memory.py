"""The near-duplicate search's memory said before it starts, and refused past the memory left.

The estimate is the formula of :mod:`benchcheck.metrics.neardup.memory` (checked by hand
here); ``benchmarks/neardup_memory_bound.py`` measures it against the peak RSS.
"""

from __future__ import annotations

import resource

import polars as pl
import pytest

from benchcheck import _memory
from benchcheck.data.model import Dataset, Split
from benchcheck.errors import UsageError
from benchcheck.metrics.neardup import lexical, memory, near_duplicates
from benchcheck.metrics.neardup.memory import check_search_memory, search_peak_bytes


def _ds(texts: list[str]) -> Dataset:
    table = pl.DataFrame({"id": [str(i) for i in range(len(texts))], "text": texts})
    return Dataset(task="classification", splits={"train": Split("train", "train", table)})


def test_the_estimate_by_hand():
    # 10 texts, 30 words, 200 bytes, 128 permutations, 75 bands: 155 links at most a band
    resident = (64 << 20) + 200 + 10 * (4 * 128 + 8 * 75 + 30) + 16 * 30
    band = max(56 * 10 + 80 * 155, 40 * 155 + 60 * 30)  # 12,960 vs 8,000
    assert search_peak_bytes(10, 30, 200, bands=75, num_perm=128) == resident + band


def test_refused_before_the_search_naming_the_estimate_and_the_limit(monkeypatch):
    texts = ["a b c", "a b d", "x y"]
    peak = search_peak_bytes(3, 8, 13, bands=75, num_perm=128)
    monkeypatch.setattr(lexical, "shingles", lambda *a, **k: pytest.fail("the search started"))
    with pytest.raises(UsageError) as info:
        near_duplicates(_ds(texts), threshold=0.05, memory_limit=peak - 1)
    assert str(info.value) == (
        "the near-duplicate search over 3 texts at threshold 0.05 (75 bands) may take up to "
        f"{peak / 2**20:.1f} MiB, more than the {(peak - 1) / 2**20:.1f} MiB of memory "
        "available (the system's, or ulimit -v's); raise the threshold (fewer bands) or "
        "search fewer texts"
    )


def test_at_the_limit_the_search_runs():
    texts = ["a b c", "a b d", "x y"]
    peak = search_peak_bytes(3, 8, 13, bands=75, num_perm=128)
    result = near_duplicates(_ds(texts), threshold=0.05, memory_limit=peak)
    assert result.splits["train"]["n_clusters"] == 1  # {a b c, a b d}: Jaccard 2/4


def test_the_default_limit_is_the_memory_available(monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 20)
    with pytest.raises(UsageError, match="more than the 1.0 MiB of memory available"):
        check_search_memory(3, 8, 13, bands=75, num_perm=128, threshold=0.05)
    monkeypatch.setattr(memory, "available_memory", lambda: None)  # unknown: not refused
    assert check_search_memory(3, 8, 13, bands=75, num_perm=128, threshold=0.05) > 64 << 20


def test_available_memory_respects_the_address_space_limit(monkeypatch):
    with open("/proc/self/status", encoding="ascii") as fh:
        used = next(int(x.split()[1]) * 1024 for x in fh if x.startswith("VmSize:"))
    monkeypatch.setattr(resource, "getrlimit", lambda _: (used + (100 << 20), -1))
    left = _memory.available_memory()
    assert left is not None and left <= 100 << 20
