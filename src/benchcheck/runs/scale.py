"""Data larger than memory: ``benchcheck convert`` (CoNLL → Parquet shards).

``benchcheck leakage`` is :mod:`benchcheck.runs.leakage`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchcheck.io.output import OutputFolder
    from benchcheck.io.shards import ShardFolder

__all__ = ["run_convert"]


def run_convert(
    data: str | Path | None,
    output: str | Path,
    *,
    splits: Mapping[str, str] | None = None,
    chunk_bytes: int | None = None,
    folder: OutputFolder | None = None,
) -> ShardFolder:
    """Convert CoNLL splits into a folder of Parquet shards.

    ``folder`` is the output as claimed (:meth:`benchcheck.io.output.Outputs.folder`, the
    folder owned whole): an existing one is replaced whole only where the claim allows it.
    """
    from benchcheck.io.convert import convert

    return convert(
        data,
        output,
        splits=dict(splits or {}) or None,
        chunk_bytes=chunk_bytes,
        folder=folder,
    )
