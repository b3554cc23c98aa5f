"""Data larger than memory: ``benchcheck convert`` (CoNLL → Parquet shards).

``benchcheck leakage`` is :mod:`benchcheck.runs.leakage`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchcheck.io.shards import ShardFolder

__all__ = ["run_convert"]


def run_convert(
    data: str | Path | None,
    output: str | Path,
    *,
    splits: Mapping[str, str] | None = None,
    chunk_bytes: int | None = None,
) -> ShardFolder:
    """Convert CoNLL splits into a new folder of Parquet shards (never over an existing one)."""
    from benchcheck.io.convert import convert

    return convert(data, output, splits=dict(splits or {}) or None, chunk_bytes=chunk_bytes)
