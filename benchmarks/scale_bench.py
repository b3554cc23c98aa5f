"""Scale: ``benchcheck stats`` wall time and peak memory at 1M, 3M and 10M sentences.

Generates (once, cached in benchmarks/_data/) CoNLL corpora of N training sentences plus
N/10 test sentences (~14 tokens each, Zipf vocabulary with ``"``/``NA``/``null`` tokens,
entities of 1-3 tokens from a Zipf list of surfaces, 2% repeated training sentences, 5%
test sentences copied from train), written block by block so that generation itself runs
in bounded memory. Then, each in a fresh process (peak RSS: the child's ``VmHWM``):

1. ``benchcheck stats DIR`` (embedded engine, CoNLL read in chunks, no token table) at each
   size: wall seconds, peak RSS, seconds and MB per million sentences, and the growth of the
   per-million cost from the smallest to the largest size (linear scaling keeps it ~1);
2. exactness on the smallest corpus: the whole-file in-memory read (``keep_tokens=True``,
   one chunk per file) against the chunked read, compared as canonical JSON text;
3. ``benchcheck convert`` once per size, and ``stats`` over the shards;
4. with ``--ray``: ``stats --engine ray`` over the smallest corpus' shards on a local cluster
   of 1 and of 2 CPUs (same JSON as the embedded engine is checked);
5. with ``--leakage``: ``benchcheck leakage`` of 2,000 test sentences (5% copied from train)
   against the 1M training sentences written as a text corpus in 8 Parquet shards (the
   corpus-scale benchmark with a raw limit and planted coverage is ``leakage_bench.py``);
6. with ``--judge N``: judging N synthetic pairs (one prompt, no cache) with the small
   offline model: embedded llama.cpp on one thread, then Ray with 1 and 2 one-CPU actors
   (judgements/s; the probabilities are checked equal).

Medians of ``--repeat`` runs; the machine's load average is printed beside the numbers.

    python benchmarks/scale_bench.py [--sizes 1000000,3000000,10000000] [--repeat 3] [--ray]
    python benchmarks/scale_bench.py --sizes 0 --judge 48
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
TYPES = ("PER", "ORG", "LOC", "MISC")
BLOCK = 200_000

# Runs in a fresh interpreter: time the whole command (imports included), report peak RSS.
# Peak RSS is VmHWM of this process: ru_maxrss would carry the parent's peak across exec.
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
mode, args = sys.argv[1], sys.argv[2:]
if mode == "cli":
    from benchcheck.cli import main
    rc = main(args)
else:  # "whole" / "chunked" read of a folder's CoNLL files, canonical JSON to args[1]
    from pathlib import Path
    from benchcheck.cli._common import dumps
    from benchcheck.data.model import Dataset
    from benchcheck.io.conll import read_conll
    from benchcheck.io.load import discover_splits
    from benchcheck.metrics.compute import compute_stats
    folder = Path(args[0])
    def read(name, path):
        if mode == "whole":  # one chunk per file, token table kept: the plain in-memory read
            size = path.stat().st_size + 1
            return read_conll(path, name=name, keep_tokens=True, chunk_bytes=size)
        return read_conll(path, name=name, keep_tokens=False)
    splits = {k: read(k, p) for k, p in discover_splits(folder).items()}
    ds = Dataset(task="ner", splits=splits, name=folder.name)
    open(args[1], "w").write(dumps(compute_stats(ds).to_json()))
    rc = 0
wall = time.perf_counter() - t0
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
print(json.dumps({"rc": rc, "wall_s": wall, "rss_mb": int(hwm.split()[1]) / 1024}))
"""


def generate(folder: Path, n_train: int, n_test: int, seed: int = 0) -> None:
    """Write train.txt and test.txt into ``folder``, block by block (vectorised)."""
    rng = np.random.default_rng(seed)
    vocab_words = [f"w{i}" for i in range(50_000)] + ['"', "NA", "null", "nan"]
    vocab = np.array([f"{w} O\n" for w in vocab_words], dtype=object)
    zipf = 1.0 / np.arange(1, vocab.size + 1)
    zipf /= zipf.sum()
    n_surf = 200_000
    surf_len = rng.choice([1, 2, 3], size=n_surf, p=[0.6, 0.3, 0.1])
    surf_type = rng.integers(0, 4, size=n_surf)
    szipf = 1.0 / np.arange(1, n_surf + 1) ** 0.9
    szipf /= szipf.sum()
    # Each surface pre-rendered under each type (a few mentions carry another type).
    rendered = np.array(
        [
            [
                "".join(f"E{s}x{j} {'B' if j == 0 else 'I'}-{t}\n" for j in range(surf_len[s]))
                for t in TYPES
            ]
            for s in range(n_surf)
        ],
        dtype=object,
    )

    def block(k: int) -> np.ndarray:
        n_words = rng.integers(8, 21, size=k)
        n_ent = rng.poisson(1.3, size=k)
        words = vocab[rng.choice(vocab.size, size=int(n_words.sum()), p=zipf)]
        ents = rng.choice(n_surf, size=int(n_ent.sum()), p=szipf)
        etype = (surf_type[ents] + (rng.random(ents.size) < 0.03)) % 4
        items = np.concatenate([words, rendered[ents, etype]])
        owner = np.concatenate([np.repeat(np.arange(k), n_words), np.repeat(np.arange(k), n_ent)])
        order = np.lexsort((rng.random(items.size), owner))  # shuffle within each sentence
        items, owner = items[order], owner[order]
        first = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        return np.add.reduceat(items, first)  # one string per sentence, ending in "\n"

    folder.mkdir(parents=True, exist_ok=True)
    pool: list[np.ndarray] = []
    with open(folder / "train.txt", "w", encoding="utf-8") as f:
        done = 0
        while done < n_train:
            sents = block(min(BLOCK, n_train - done))
            dup = np.flatnonzero(rng.random(sents.size) < 0.02)
            sents[dup] = sents[rng.integers(0, sents.size, size=dup.size)]
            f.write(("\n" if done else "") + "\n".join(sents))
            if len(pool) < 4:
                pool.append(sents[rng.integers(0, sents.size, size=min(sents.size, 50_000))])
            done += sents.size
    leak_pool = np.concatenate(pool)
    with open(folder / "test.txt", "w", encoding="utf-8") as f:
        done = 0
        while done < n_test:
            sents = block(min(BLOCK, n_test - done))
            leak = np.flatnonzero(rng.random(sents.size) < 0.05)
            sents[leak] = leak_pool[rng.integers(0, leak_pool.size, size=leak.size)]
            f.write(("\n" if done else "") + "\n".join(sents))
            done += sents.size


def corpus(n: int) -> Path:
    folder = DATA / f"scale_{n}"
    if not (folder / ".done").exists():
        t = time.perf_counter()
        generate(folder, n, n // 10)
        (folder / ".done").write_text("")
        print(f"generated {folder.name} in {time.perf_counter() - t:.0f} s", flush=True)
    return folder


def shards_of(n: int, folder: Path) -> Path:
    out = DATA / f"scale_{n}.parquet"
    if not out.exists():
        r = child("cli", ["convert", str(folder), "-o", str(out)])
        print(f"converted {folder.name}: {r['wall_s']:.1f} s, {r['rss_mb']:.0f} MB", flush=True)
    return out


def child(mode: str, args: list[str]) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, mode, *args], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} {args} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median_run(mode: str, args: list[str], repeat: int) -> dict[str, float]:
    runs = [child(mode, args) for _ in range(repeat)]
    return {
        "wall_s": statistics.median(r["wall_s"] for r in runs),
        "rss_mb": max(r["rss_mb"] for r in runs),
        "runs": [round(r["wall_s"], 2) for r in runs],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000000,3000000,10000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ray", action="store_true", help="add the Ray rows (needs ray[data])")
    parser.add_argument("--skip-exact", action="store_true")
    parser.add_argument("--judge", type=int, default=0, help="pairs to judge (0: skip)")
    parser.add_argument("--leakage", action="store_true", help="time benchcheck leakage")
    opts = parser.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",") if int(s) > 0]
    if opts.judge:
        judge_rows(opts.judge)
    if opts.leakage:
        leakage_rows(opts.repeat)
    if not sizes:
        return
    out_json = DATA / "scale_out"
    out_json.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {os.getloadavg()}, cpus: {os.cpu_count()}", flush=True)
    rows = []
    for n in sizes:
        folder = corpus(n)
        mb = sum(p.stat().st_size for p in folder.glob("*.txt")) / 1e6
        total = n + n // 10
        r = median_run(
            "cli", ["stats", str(folder), "--json", str(out_json / f"conll_{n}.json")], opts.repeat
        )
        sh = shards_of(n, folder)
        s = median_run(
            "cli", ["stats", str(sh), "--json", str(out_json / f"shards_{n}.json")], opts.repeat
        )
        same = (out_json / f"conll_{n}.json").read_bytes() == (
            out_json / f"shards_{n}.json"
        ).read_bytes()
        rows.append((n, total, mb, r, s, same))
        print(
            f"{n:>10,} train + {n // 10:,} test ({mb:,.0f} MB): CoNLL {r['wall_s']:.1f} s "
            f"{r['rss_mb']:,.0f} MB peak {r['runs']} | shards {s['wall_s']:.1f} s "
            f"{s['rss_mb']:,.0f} MB peak {s['runs']} | shards JSON identical: {same} "
            f"| load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    print("\nper million sentences (train + test):")
    base = None
    for n, total, _mb, r, s, _same in rows:
        per = r["wall_s"] / (total / 1e6)
        per_s = s["wall_s"] / (total / 1e6)
        base = base or per
        print(
            f"  {n:>10,}: CoNLL {per:.2f} s/M (x{per / base:.2f} of smallest), "
            f"{r['rss_mb'] / (total / 1e6):.0f} MB/M peak; shards {per_s:.2f} s/M"
        )
    if not opts.skip_exact and sizes:
        n = sizes[0]
        folder = corpus(n)
        a = child("whole", [str(folder), str(out_json / "whole.json")])
        b = child("chunked", [str(folder), str(out_json / "chunked.json")])
        same = (out_json / "whole.json").read_bytes() == (out_json / "chunked.json").read_bytes()
        print(
            f"\nexactness at {n:,}: whole read (keep_tokens=True) {a['wall_s']:.1f} s "
            f"{a['rss_mb']:,.0f} MB vs chunked {b['wall_s']:.1f} s {b['rss_mb']:,.0f} MB; "
            f"identical JSON: {same}",
            flush=True,
        )
    if opts.ray:
        n = sizes[0]
        sh = shards_of(n, corpus(n))
        ref = (out_json / f"shards_{n}.json").read_bytes()
        for cpus in (1, 2):
            target = out_json / f"ray_{cpus}.json"
            r = median_run(
                "cli",
                [
                    "stats",
                    str(sh),
                    "--engine",
                    "ray",
                    "--ray-cpus",
                    str(cpus),
                    "--json",
                    str(target),
                ],
                opts.repeat,
            )
            print(
                f"ray {cpus} CPU(s) at {n:,}: {r['wall_s']:.1f} s (driver peak "
                f"{r['rss_mb']:,.0f} MB) {r['runs']}; JSON identical to embedded: "
                f"{target.read_bytes() == ref} | load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    print(f"load average at end: {os.getloadavg()}")


def leakage_rows(repeat: int, n: int = 1_000_000) -> None:
    """Contamination of 2,000 test sentences against the 1M training sentences as text."""
    import polars as pl

    shards = shards_of(n, corpus(n))
    text_dir = DATA / f"scale_{n}_text"
    test_file = DATA / f"scale_{n}_test2000.jsonl"
    if not text_dir.exists():
        text_dir.mkdir()
        for split, target in (("train", None), ("test", test_file)):
            rows = pl.scan_parquet(str(shards / split / "*.parquet"))
            docs = (
                rows.group_by("sentence", maintain_order=True)
                .agg(pl.col("token").str.join(" ").alias("text"))
                .collect()
            )
            if target is None:
                size = -(-docs.height // 8)
                for k in range(8):
                    docs.slice(k * size, size).select("text").write_parquet(
                        text_dir / f"part-{k:05d}.parquet"
                    )
            else:
                docs.head(2000).select(
                    pl.col("sentence").cast(pl.String).alias("id"), "text"
                ).write_ndjson(target)
    out = DATA / "scale_out" / "leakage.json"
    r = median_run(
        "cli",
        [
            "leakage",
            "--test",
            str(test_file),
            "--corpus",
            str(text_dir / "*.parquet"),
            "--json",
            str(out),
        ],
        repeat,
    )
    m = json.loads(out.read_text())["metrics"]
    print(
        f"leakage: 2,000 items vs {n:,} documents in 8 shards: {r['wall_s']:.1f} s, "
        f"{r['rss_mb']:,.0f} MB peak {r['runs']}; exact {m['exact_rate']:.4f}, normalised "
        f"{m['normalised_rate']:.4f}, any 10-gram span {m['overlap_rate']:.4f}, dirty "
        f"{m['dirty_rate']:.4f} | load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def judge_rows(n_pairs: int, model: str = "qwen2.5-coder-0.5b-instruct") -> None:
    """Judgements/s: embedded llama.cpp (1 thread) vs Ray with 1 and 2 one-CPU actors."""
    import polars as pl

    from benchcheck.engine.ray_engine import connect
    from benchcheck.engine.ray_judge import RayJudge
    from benchcheck.judges.llama_cpp import LlamaCppJudge
    from benchcheck.judges.prompts import select_prompts
    from benchcheck.judges.run import judge_frame

    rng = np.random.default_rng(0)
    nouns = ["bakery", "river", "council", "engine", "garden", "museum", "harbour", "school"]
    verbs = ["opens", "closes", "floods", "expands", "moves", "sells", "grows", "fails"]
    a = [f"The {rng.choice(nouns)} {rng.choice(verbs)} at {k % 12 + 1}." for k in range(n_pairs)]
    b = [f"The {rng.choice(nouns)} {rng.choice(verbs)}." for _ in range(n_pairs)]
    frame = pl.DataFrame({"id": [str(k) for k in range(n_pairs)], "text_a": a, "text_b": b})
    prompts = select_prompts("nli")
    opts = {"n_threads": 1, "n_ctx": 512}
    local = LlamaCppJudge(model, **opts)
    t = time.perf_counter()
    ref = judge_frame(frame, [local], prompts)
    base = n_pairs / (time.perf_counter() - t)
    local.close()
    print(
        f"judging {n_pairs} pairs, embedded llama.cpp 1 thread: {base:.2f} judgements/s "
        f"(model load excluded) | load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    connect(None, 2)
    for actors in (1, 2):
        t = time.perf_counter()
        judge = RayJudge(f"llama-cpp:{model}", actors=actors, options=opts, batch_size=8)
        got = judge_frame(frame, [judge], prompts, batch_size=10**9)
        wall = time.perf_counter() - t
        same = got.select("p_0", "p_1").equals(ref.select("p_0", "p_1"))
        print(
            f"ray {actors} actor(s): {n_pairs / wall:.2f} judgements/s including actor start "
            f"and model loads ({wall:.1f} s); same probabilities: {same} "
            f"| load {os.getloadavg()[0]:.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
