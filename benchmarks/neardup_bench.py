"""Near-duplicate speed, memory and recall: benchcheck's vectorised MinHash-LSH vs datasketch.

Synthetic texts (Zipf vocabulary, 15–30 words) with planted near-copies: a copy with one
word replaced, or with its casing and spacing changed. Both sides get the same normalised
word sets, 128 permutations and threshold 0.8; the baseline is the straightforward
datasketch path (``MinHash.bulk`` + ``MinHashLSH`` insert + query), measured in the same run.
Recall = share of planted (original, copy) pairs reported as near-duplicates.

Run: python benchmarks/neardup_bench.py --n 100000            (speed + recall vs baseline)
     python benchmarks/neardup_bench.py --n 1000000 --no-baseline   (peak memory at 1M)
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np
import polars as pl


def make_texts(n: int, *, planted: float = 0.02, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """Return n texts and the (original, copy) index pairs planted among them."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{k}" for k in range(200_000)])
    n_copies = int(n * planted)
    n_base = n - n_copies
    lengths = rng.integers(15, 31, size=n_base)
    ranks = np.minimum(rng.zipf(1.3, size=int(lengths.sum())) - 1, vocab.size - 1)
    # Shift by a random offset so that short texts rarely share most of their words.
    words = vocab[
        (ranks + rng.integers(0, vocab.size, size=ranks.size) * (ranks > 50)) % vocab.size
    ]
    cuts = np.cumsum(lengths)[:-1]
    docs = [" ".join(w) for w in np.split(words, cuts)]
    originals = rng.choice(n_base, size=n_copies, replace=False)
    copies = []
    for k, o in enumerate(originals):
        toks = docs[o].split(" ")
        if k % 2 == 0:
            toks[rng.integers(len(toks))] = f"changed{k}"
            copies.append(" ".join(toks))
        else:
            copies.append("  ".join(t.upper() if j % 3 == 0 else t for j, t in enumerate(toks)))
    texts = docs + copies
    pairs = np.stack([originals, np.arange(n_base, n)], axis=1)
    return texts, pairs


def run_benchcheck(texts: list[str], seed: int) -> tuple[float, set[tuple[int, int]]]:
    from benchcheck.data.model import Dataset, Split
    from benchcheck.metrics.neardup import near_duplicates

    table = pl.DataFrame({"id": [str(i) for i in range(len(texts))], "text": texts})
    ds = Dataset(task="classification", splits={"train": Split("train", "-", table)})
    t0 = time.perf_counter()
    res = near_duplicates(ds, threshold=0.8, num_perm=128, seed=seed, max_clusters=10**9)
    wall = time.perf_counter() - t0
    found = set()
    for cl in res.clusters:
        ids = sorted(int(i) for i in cl["ids"])
        found.update((a, b) for a in ids for b in ids if a < b) if len(ids) < 50 else None
    return wall, found


def run_datasketch(texts: list[str], seed: int) -> tuple[float, set[tuple[int, int]]]:
    from datasketch import MinHash, MinHashLSH

    from benchcheck.metrics.neardup import normalise

    t0 = time.perf_counter()
    norm = normalise(pl.Series(texts)).to_list()
    sets = [[w.encode() for w in set(t.split(" "))] for t in norm]
    sketches = MinHash.bulk(sets, num_perm=128, seed=seed)
    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    for i, m in enumerate(sketches):
        lsh.insert(i, m)
    found = set()
    for i, m in enumerate(sketches):
        for j in lsh.query(m):
            if j != i:
                found.add((min(i, j), max(i, j)))
    return time.perf_counter() - t0, found


def recall(found: set[tuple[int, int]], pairs: np.ndarray) -> float:
    """Share of planted pairs reported."""
    return float(np.mean([(int(a), int(b)) in found for a, b in pairs]))


def main() -> None:
    """Measure and print the ratio against the baseline."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    texts, pairs = make_texts(args.n)
    print(f"{args.n} texts, {len(pairs)} planted near-copies")
    ours, base = [], []
    for r in range(args.repeat):
        wall, found = run_benchcheck(texts, seed=r + 1)
        ours.append(wall)
        print(f"benchcheck  run {r}: {wall:7.2f} s  recall {recall(found, pairs):.4f}")
        if not args.no_baseline:
            wall_b, found_b = run_datasketch(texts, seed=r + 1)
            base.append(wall_b)
            print(f"datasketch  run {r}: {wall_b:7.2f} s  recall {recall(found_b, pairs):.4f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"median benchcheck {statistics.median(ours):.2f} s; peak RSS (process) {peak:.2f} GB")
    if base:
        ratio = statistics.median(base) / statistics.median(ours)
        print(f"median datasketch {statistics.median(base):.2f} s; speed-up {ratio:.1f}x")


if __name__ == "__main__":
    main()
