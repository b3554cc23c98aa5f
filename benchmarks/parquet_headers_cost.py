"""What reading every Parquet page header costs on a normal ~100 MB file (issue 37, item 3).

Writes ``benchmarks/_data/headers_100mb.parquet`` once (1.9M rows: a text of 40-120
characters drawn from a 5,000-word vocabulary, an int64, a float64, a list of 3-12 tags;
zstd, pyarrow's defaults: 1 MiB pages), then times, best of ``--repeat`` runs each:

- ``headers``: :func:`benchcheck.io._parquet_pages.check_page_headers` alone (every
  column chunk's page headers read and checked);
- ``check``: :func:`benchcheck.io._decoded.check_parquet_decoded`, headers included;
- ``read``: :func:`benchcheck.io._decoded.read_parquet_bounded`, headers included;
- ``pyarrow``: ``pyarrow.parquet.read_table``, for scale.

Usage: ``python benchmarks/parquet_headers_cost.py [--repeat 5]``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from benchcheck.io._decoded import _refuse, check_parquet_decoded, read_parquet_bounded
from benchcheck.io._parquet_pages import _chunks, check_page_headers, chunk_pages

DATA = Path(__file__).parent / "_data" / "headers_100mb.parquet"
ROWS = 1_900_000


def build(path: Path) -> None:
    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i:04d}{'x' * (i % 7)}" for i in range(5_000)])
    words = rng.integers(0, len(vocab), size=(ROWS, 12))
    lengths = rng.integers(5, 13, size=ROWS)
    text = [" ".join(vocab[row[:n]]) for row, n in zip(words, lengths, strict=True)]
    tags = [vocab[row[: n - 2]].tolist() for row, n in zip(words[:, ::-1], lengths, strict=True)]
    table = pa.table(
        {
            "text": text,
            "n": rng.integers(0, 1 << 40, ROWS),
            "x": rng.random(ROWS),
            "tags": tags,
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd")


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not DATA.exists():
        build(DATA)
    meta = pq.ParquetFile(DATA)
    md = meta.metadata
    with open(DATA, "rb") as handle:
        pages = sum(len(list(chunk_pages(handle, c.start, c.length))) for c in _chunks(meta, None))
    decoded = sum(
        md.row_group(i).column(j).total_uncompressed_size
        for i in range(md.num_row_groups)
        for j in range(md.num_columns)
    )
    print(
        f"{DATA.name}: {DATA.stat().st_size / 1e6:.1f} MB on disk, {decoded / 1e6:.1f} MB "
        f"uncompressed pages, {md.num_row_groups} row groups, {md.num_columns} leaf columns, "
        f"{pages} pages"
    )
    limit = 1 << 40
    runs = {
        "headers": lambda: check_page_headers(
            DATA, pq.ParquetFile(DATA), names=None, limit=limit, refuse=_refuse
        ),
        "check": lambda: check_parquet_decoded(DATA, limit=limit),
        "read": lambda: read_parquet_bounded(DATA, limit=limit),
        "pyarrow": lambda: pq.read_table(DATA),
    }
    for name, fn in runs.items():
        print(f"{name:8s} {best(fn, args.repeat) * 1e3:9.1f} ms (best of {args.repeat})")


if __name__ == "__main__":
    main()
