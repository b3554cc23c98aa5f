"""Time and peak memory of ``benchcheck flag-spans`` on one very long sentence.

A gold CoNLL file whose single sentence has N tokens (an entity of 1–3 tokens about every
10 tokens, IOB2) and a model's CoNLL file with the same tokens, its spans perturbed: ~5% of
types changed, ~5% of boundaries moved, ~3% of entities dropped, ~3% spurious ones added.
Each size is run, in a fresh process each (:mod:`_harness`), by the paths below; each
reports its wall time (process start, imports and reading included: the new path imports
``benchcheck.labels``, whose package pulls in scikit-learn and SciPy, seconds on a loaded
machine), its peak RSS, and the seconds of the compare + review text + write step alone:

1. ``new``: ``read_conll`` both files, ``compare_spans`` + ``span_review_frame`` as
   shipped (span-key join, context-windowed review text), ``write_rows`` the JSONL;
2. ``old``: the same steps with the implementation as it stood before
   (``tests/labels/_ner_flags_reference.py``: every gold span joined with every predicted
   span of its sentence, the whole sentence text per flag), under an address-space limit
   (``--old-limit-gb``) so that it fails instead of taking the machine's memory;
3. ``cli``: ``benchcheck flag-spans GOLD --predictions PRED -o OUT.jsonl`` once (``--cli``).

    python benchmarks/flag_spans_bench.py --sizes 10000,40000,200000,2000000 --old-max 40000
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from _harness import median_of

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TYPES = ("PER", "ORG", "LOC", "MISC")

_RUN = r"""
import resource, sys
limit = int(float(sys.argv[4]) * 2**30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
if sys.argv[6] == "old":
    sys.path.insert(0, sys.argv[5])
    from _ner_flags_reference import compare_spans, span_review_frame, spans_from_split
else:
    from benchcheck.labels.ner_flags import compare_spans, span_review_frame, spans_from_split
import json, time
from benchcheck.io.conll import read_conll
from benchcheck.io.tables import write_rows
gold, pred = read_conll(sys.argv[1]), read_conll(sys.argv[2])
start = time.perf_counter()
try:
    flags = compare_spans(spans_from_split(gold), spans_from_split(pred))
    write_rows(span_review_frame(gold.tokens, flags), sys.argv[3])
    print(json.dumps({"flags": flags.height, "compare_write_s": time.perf_counter() - start}))
except MemoryError:
    print(json.dumps({"flags": "out of memory", "compare_write_s": time.perf_counter() - start}))
"""


def _spans(rng: np.random.Generator, n: int) -> list[tuple[int, int, str]]:
    spans, pos = [], 0
    while True:
        pos += int(rng.integers(4, 14))
        length = int(rng.choice([1, 2, 3], p=[0.6, 0.3, 0.1]))
        if pos + length > n:
            return spans
        spans.append((pos, pos + length, TYPES[int(rng.integers(len(TYPES)))]))
        pos += length


def _perturb(rng: np.random.Generator, spans: list[tuple[int, int, str]], n: int):
    out = []
    for a, b, t in spans:
        u = rng.random()
        if u < 0.03:
            continue  # dropped: a missing flag
        if u < 0.08:
            t = TYPES[(TYPES.index(t) + 1) % len(TYPES)]  # a type flag
        elif u < 0.13:
            b = min(n, b + 1)  # a boundary flag
        out.append((a, b, t))
    for _ in range(int(0.03 * len(spans))):  # spurious spans in the gaps
        a = int(rng.integers(0, n - 1))
        out.append((a, a + 1, "MISC"))
    out.sort()
    clean, end = [], -1
    for a, b, t in out:  # keep the spans disjoint, as CoNLL tags are
        if a >= end:
            clean.append((a, b, t))
            end = b
    return clean


def _write(path: Path, n: int, spans: list[tuple[int, int, str]]) -> None:
    tags = ["O"] * n
    for a, b, t in spans:
        tags[a] = f"B-{t}"
        for k in range(a + 1, b):
            tags[k] = f"I-{t}"
    with path.open("w", encoding="utf-8") as fh:
        fh.write("".join(f"w{i % 5000} {tag}\n" for i, tag in enumerate(tags)))
        fh.write("\n")


def generate(folder: Path, n: int, seed: int = 0) -> tuple[Path, Path]:
    """Write gold.conll and pred.conll with one sentence of ``n`` tokens."""
    rng = np.random.default_rng(seed)
    gold = _spans(rng, n)
    pred = _perturb(rng, gold, n)
    _write(folder / "gold.conll", n, gold)
    _write(folder / "pred.conll", n, pred)
    return folder / "gold.conll", folder / "pred.conll"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,40000,200000,2000000")
    parser.add_argument("--old-max", type=int, default=40000, help="largest size for old")
    parser.add_argument("--old-limit-gb", type=float, default=6.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--cli", action="store_true", help="also time the command once")
    args = parser.parse_args()
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            gold, pred = generate(folder, n)
            row: dict[str, object] = {"tokens": n}
            for impl in ("new", "old"):
                if impl == "old" and n > args.old_max:
                    continue
                out_file = folder / f"{impl}.jsonl"
                stats, out = median_of(
                    [
                        sys.executable,
                        "-c",
                        _RUN,
                        str(gold),
                        str(pred),
                        str(out_file),
                        str(args.old_limit_gb),
                        str(ROOT / "tests" / "labels"),
                        impl,
                    ],
                    args.repeat,
                )
                row[impl] = {**stats, **json.loads(out.splitlines()[-1])}
                if out_file.exists():
                    row[f"{impl}_output_mb"] = round(out_file.stat().st_size / 2**20, 1)
            if args.cli:
                cli, _ = median_of(
                    [
                        "benchcheck",
                        "flag-spans",
                        str(gold),
                        "--predictions",
                        str(pred),
                        "-o",
                        str(folder / "cli.jsonl"),
                        "--force",
                    ],
                    1,
                )
                row["cli"] = cli
            rows.append(row)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
