"""The near-duplicate search's estimated peak memory against its measured peak RSS.

Each size runs in a fresh process: the dataset is built, the peak RSS counter is reset
(``/proc/self/clear_refs``), :func:`benchcheck.metrics.neardup.near_duplicates` runs, and
the peak RSS above the RSS before the call is compared with
:func:`benchcheck.metrics.neardup.memory.search_peak_bytes` (the bound the search checks
against the memory available). Linux only. The CLI's allocator setting
(:func:`benchcheck._memory.keep_freed_memory`) is applied, as the command does.

Two corpora: ``vocab12`` (8 words drawn from a 12-word vocabulary: issue 37's case, many
large buckets), and ``groups32`` (groups of 32 equal texts: every band's buckets of 32,
the 15.5 links a text the bound assumes).

Run: python benchmarks/neardup_memory_bound.py --sizes 50000 100000 200000 --threshold 0.05
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time


def _status(key: str) -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(x.split()[1]) * 1024 for x in fh if x.startswith(key))


def _one(n: int, corpus: str, threshold: float) -> dict:
    import numpy as np
    import polars as pl

    from benchcheck._memory import keep_freed_memory

    keep_freed_memory()
    from benchcheck.data.model import Dataset, Split
    from benchcheck.metrics.neardup import near_duplicates
    from benchcheck.metrics.neardup.lsh import lsh_params
    from benchcheck.metrics.neardup.memory import search_peak_bytes

    rng = np.random.default_rng(1)
    if corpus == "vocab12":
        words = np.array([f"w{i}" for i in range(12)])[rng.integers(0, 12, size=(n, 8))]
        texts = [" ".join(row) for row in words]
    else:  # groups of 32 equal texts of 8 distinct words
        texts = [" ".join(f"g{i // 32}w{j}" for j in range(8)) for i in range(n)]
    table = pl.DataFrame({"id": [str(i) for i in range(n)], "text": texts})
    data = Dataset(task="classification", splits={"train": Split("train", "train", table)})
    del texts, table
    bands, _ = lsh_params(threshold, 128)
    n_words = 8 * n
    text_bytes = sum(len(t) for t in data["train"].table["text"].to_list())
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")
    before = _status("VmRSS:")
    start = time.perf_counter()
    near_duplicates(data, threshold=threshold, memory_limit=1 << 60)
    seconds = time.perf_counter() - start
    peak = _status("VmHWM:") - before
    bound = search_peak_bytes(n, n_words, text_bytes, bands=bands, num_perm=128)
    return {
        "n": n,
        "corpus": corpus,
        "bands": bands,
        "peak_mb": peak / 1e6,
        "bound_mb": bound / 1e6,
        "bound_over_peak": bound / peak,
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50_000, 100_000, 200_000])
    parser.add_argument("--threshold", type=float, default=0.05)
    parser.add_argument("--corpora", nargs="+", default=["vocab12", "groups32"])
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(int(args.one[0]), args.one[1], args.threshold)))
        return
    for corpus in args.corpora:
        for n in args.sizes:
            argv = [sys.executable, __file__, "--one", str(n), corpus]
            out = subprocess.run(
                [*argv, "--threshold", str(args.threshold)],
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(out.stdout)
            print(
                f"{r['corpus']:8} n={r['n']:>8,} bands={r['bands']:>3} peak {r['peak_mb']:8.1f} MB"
                f"  bound {r['bound_mb']:8.1f} MB  bound/peak {r['bound_over_peak']:.2f}"
                f"  {r['seconds']:.1f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
