"""Exact statistics of a 1,000,000-row pair dataset against the raw read+hash limit.

Generates (once, cached in benchmarks/_data/) JSONL pair splits — train (1,000,000 rows),
test (100,000) — with ``premise``/``hypothesis``/``label`` fields, a premise reused by
several hypotheses, 2% repeated training rows and 5% test rows copied from train. Times,
each in a fresh process, medians of ``--repeat`` runs:

1. the raw limit: read the files, split into lines, xxh3-hash every line, keep a set;
2. benchcheck: ``load(task="pair")`` + ``compute_stats`` (every registered pair metric);
3. the command line: ``benchcheck stats DIR --task pair --json /dev/null``;

and prints the ratios (the issue's target: within 2×) and each path's peak RSS.

    python benchmarks/pair_bench.py [--train 1000000] [--test 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from _harness import median_of

HERE = Path(__file__).resolve().parent
LABELS = ("entailment", "neutral", "contradiction")


def generate(folder: Path, n_train: int, n_test: int, seed: int = 0) -> None:
    """Write train.jsonl and test.jsonl into ``folder``."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(50_000)] + ['"', "NA", "null", "é"], dtype=object)
    zipf = 1.0 / np.arange(1, vocab.size + 1)
    zipf /= zipf.sum()

    def texts(k: int, lo: int, hi: int) -> list[str]:
        lengths = rng.integers(lo, hi, size=k)
        words = rng.choice(vocab, size=int(lengths.sum()), p=zipf)
        return [" ".join(w) for w in np.split(words, np.cumsum(lengths)[:-1])]

    def rows(k: int) -> list[str]:
        premises = texts(k // 3 + 1, 12, 30)
        which = rng.integers(0, len(premises), size=k)
        hyps = texts(k, 5, 14)
        labels = rng.integers(0, 3, size=k)
        return [
            json.dumps(
                {"premise": premises[w], "hypothesis": h, "label": LABELS[y]}, ensure_ascii=False
            )
            for w, h, y in zip(which, hyps, labels, strict=True)
        ]

    train = np.array(rows(n_train), dtype=object)
    dup = rng.random(n_train) < 0.02
    train[np.flatnonzero(dup)] = train[rng.integers(0, n_train, size=int(dup.sum()))]
    test = np.array(rows(n_test), dtype=object)
    leak = rng.random(n_test) < 0.05
    test[np.flatnonzero(leak)] = train[rng.integers(0, n_train, size=int(leak.sum()))]
    folder.mkdir(parents=True, exist_ok=True)
    for name, lines in (("train", train), ("test", test)):
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


RAW = r"""
import sys, xxhash
seen = set()
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        lines = f.read().split(b'\n')
    seen.update(xxhash.xxh3_64_intdigest(b) for b in lines)
print(len(seen))
"""

BENCHCHECK = r"""
import sys, json
from benchcheck.io.load import load
from benchcheck.metrics.compute import compute_stats
r = compute_stats(load(sys.argv[1], task="pair")).to_json()
print(json.dumps({k: r["metrics"][k] for k in ("leakage_ratio", "text_a_leakage_ratio")}))
"""


def main() -> None:
    """Generate the data if needed, time both paths, print the ratio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", type=int, default=1_000_000)
    parser.add_argument("--test", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = HERE / "_data" / f"pairs_{args.train}_{args.test}"
    if not (folder / "test.jsonl").exists():
        t = time.perf_counter()
        generate(folder, args.train, args.test)
        print(f"generated {folder.name} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    files = [str(folder / "train.jsonl"), str(folder / "test.jsonl")]
    py = sys.executable
    results: dict[str, dict[str, float]] = {}
    for name, cmd in (
        ("raw", [py, "-c", RAW, *files]),
        ("benchcheck", [py, "-c", BENCHCHECK, str(folder)]),
        (
            "benchcheck_cli",
            ["benchcheck", "stats", str(folder), "--task", "pair", "--json", "/dev/null"],
        ),
    ):
        results[name], out = median_of(cmd, args.repeat)
        shown = out[:90].splitlines()[0] if out else ""
        print(f"{name:14s} median {results[name]['median_s']:7.2f} s  ({shown})", file=sys.stderr)
    summary = {
        "corpus_mb": round(sum(Path(f).stat().st_size for f in files) / 1e6, 1),
        "rows": args.train + args.test,
        "results": results,
        "benchcheck_over_raw": round(
            results["benchcheck"]["median_s"] / results["raw"]["median_s"], 2
        ),
        "benchcheck_cli_over_raw": round(
            results["benchcheck_cli"]["median_s"] / results["raw"]["median_s"], 2
        ),
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
