"""What issue 29's read-time checks cost: each reader with them against itself without them.

The checks that run on every read of well-formed data:

- table JSONL (polars' fast paths): every line writes each key once and no surrogate escape
  (``tables._keys_per_line``, one numpy pass over the bytes);
- msgspec line formats (doccano here): the count of ``":`` in the bytes against the keys
  the decoded records hold (``_spans.refuse_duplicate_keys``);
- every file: regular, readable, within the whole-read limit (``_text.check_readable``).

Both variants read the same generated files in the same process, alternating, ``--repeat``
times each; the script prints the medians and the ratio (checked / unchecked), with the load
average, so a quiet machine can re-run it. The files are written once into
``benchmarks/_data/reliability/``.

    python benchmarks/reliability_bench.py [--pairs 1000000] [--doccano 300000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data" / "reliability"
TYPES = ("PER", "ORG", "LOC", "MISC")


def write_pairs(path: Path, n: int, seed: int = 0) -> None:
    """``n`` pair records: id, premise, hypothesis (8-30 words), label."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(20_000)])
    labels = ("entailment", "neutral", "contradiction")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            a = " ".join(rng.choice(words, size=int(rng.integers(8, 31))))
            b = " ".join(rng.choice(words, size=int(rng.integers(4, 16))))
            row = {"id": f"p{i}", "premise": a, "hypothesis": b, "label": labels[i % 3]}
            f.write(json.dumps(row) + "\n")


def write_doccano(path: Path, n: int, seed: int = 0) -> None:
    """``n`` doccano records of 20-30 words with 0-3 spans (as stats_bench.py writes them)."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(30_000)]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for _ in range(n):
            toks = [words[j] for j in rng.integers(0, len(words), size=int(rng.integers(20, 31)))]
            at = sorted(rng.choice(len(toks) - 1, size=int(rng.integers(0, 4)), replace=False))
            starts = np.cumsum([0] + [len(t) + 1 for t in toks[:-1]])
            spans = [[int(starts[a]), int(starts[a]) + len(toks[a]), TYPES[a % 4]] for a in at]
            f.write(json.dumps({"text": " ".join(toks), "label": spans}) + "\n")


@contextmanager
def unchecked() -> Iterator[None]:
    """Switch the checks off (what the readers did before issue 29)."""
    from benchcheck.io import _spans, tables
    from benchcheck.io._text import count_newlines

    saved = (tables._keys_per_line, _spans.refuse_duplicate_keys)

    def lines(data: bytes, keys: int) -> int:  # the line count the fast paths took before
        return count_newlines(data) + (0 if data[-1:] == b"\n" else 1)

    tables._keys_per_line = lines  # type: ignore[assignment]
    _spans.refuse_duplicate_keys = lambda *a, **k: None  # type: ignore[assignment]
    try:
        yield
    finally:
        tables._keys_per_line, _spans.refuse_duplicate_keys = saved


def compare(read: Callable[[], object], repeat: int) -> dict[str, float]:
    """Median seconds of ``read`` with and without the checks, alternating; and the ratio."""
    checked, plain = [], []
    read()  # warm the page cache and the imports
    for _ in range(repeat):
        with unchecked():
            t = time.perf_counter()
            read()
            plain.append(time.perf_counter() - t)
        t = time.perf_counter()
        read()
        checked.append(time.perf_counter() - t)
    a, b = statistics.median(checked), statistics.median(plain)
    return {"checked_s": round(a, 4), "unchecked_s": round(b, 4), "ratio": round(a / b, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--doccano", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from benchcheck.io.formats import NerOptions, read_ner_file
    from benchcheck.io.tables import read_rows, read_text_split

    pairs = DATA / f"pairs_{args.pairs}.jsonl"
    doccano = DATA / f"doccano_{args.doccano}.jsonl"
    if not pairs.exists():
        write_pairs(pairs, args.pairs)
    if not doccano.exists():
        write_doccano(doccano, args.doccano)
    results = {
        "load_before": os.getloadavg(),
        "pair split (columns fast path)": compare(
            lambda: read_text_split(pairs, task="pair"), args.repeat
        ),
        "pair table (read_rows fast path)": compare(lambda: read_rows(pairs), args.repeat),
        "doccano (msgspec lines)": compare(
            lambda: read_ner_file(
                doccano, name="train", options=NerOptions("doccano"), keep_tokens=False
            ),
            args.repeat,
        ),
        "load_after": os.getloadavg(),
        "sizes_mb": {
            "pairs": round(pairs.stat().st_size / 2**20, 1),
            "doccano": round(doccano.stat().st_size / 2**20, 1),
        },
    }
    json.dump(results, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
