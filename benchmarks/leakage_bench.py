"""Contamination at corpus scale: speed against the raw limit, and planted coverage recovered.

A generated corpus (``--gb`` of text; Zipf vocabulary of 50,000 words, documents of about 400
words, Parquet shards of ~128 MB of text, or ``--format jsonl.zst``) and a test set of
``--items`` items of 200–300 words. Copies of test items are planted with known token
coverage: 200 items each at 5, 25, 50, 90 and 100% (a contiguous segment of the item, its
casing and punctuation changed), and 100 full copies with 3 substituted words (covered 100%
with Llama 2's skip budget of 4); every other item is nowhere in the corpus.

In the same run, each a fresh process with its peak RSS (``_harness.timed``):

1. **raw limit** — read the shards, split words (polars ``str.split`` on spaces), hash
   them (polars) and hash every 10-gram (the rolling hash benchcheck uses): nothing else;
2. **benchcheck embedded** — ``benchcheck leakage`` (Llama 2's definition);
3. with ``--ray``: the same on a local Ray cluster of 2 CPUs (``--engine ray``);
4. with ``--two-nodes``: on a two-node cluster on loopback (two ``ray start`` processes of
   one CPU each), started and stopped by this script;
5. with ``--peer``: datatrove's n-gram decontamination filter (``requirements/bench-leakage.txt``;
   whitespace words, its own normalisation, 10-grams) and a plain Python set-of-hashes
   script, on the first ``--peer-mb`` of the corpus (they run at Python speed): MB/s.

Quality, from benchcheck's JSON: mean absolute error of each planted item's overlap against
its planted share, bucket accuracy (clean < 0.2, dirty >= 0.8; no planted share lies within
0.02 of a cut-off), and the unplanted items found clean. The JSON of every engine is
compared byte for byte.

The machine is shared: the load average is printed beside every number; the ratios (against
the raw limit measured in the same run) are what to compare across machines.

Run: python benchmarks/leakage_bench.py --gb 0.2                  (a quick check)
     nice -n 10 python benchmarks/leakage_bench.py --gb 5 --ray --two-nodes --peer --clean
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import timed  # noqa: E402

HERE = Path(__file__).resolve().parent
LEVELS = (0.05, 0.25, 0.5, 0.9, 1.0)
PER_LEVEL = 200
PERTURBED = 100
SHARD_BYTES = 128 << 20

RAW_LIMIT = r"""
import json, sys, time
import numpy as np, polars as pl, pyarrow as pa
from benchcheck.io.corpus import corpus_files, corpus_units, read_unit
from benchcheck.metrics.contamination.ngrams import rolling_hashes
t0 = time.perf_counter()
n, tokens, check = 10, 0, 0
for unit in corpus_units(corpus_files(sys.argv[1]), column="text"):
    for batch in read_unit(unit, column="text", batch_mb=32):
        h = pl.Series(batch.texts).str.split(" ").explode().hash().to_numpy()
        g = rolling_hashes(h, n)
        tokens += h.size
        check ^= int(g[-1]) if g.size else 0
print(json.dumps({"tokens": tokens, "s": time.perf_counter() - t0}))
"""

PEER = (
    "import sys; sys.path.insert(0, {here!r}); import _leakage_peers as p; p.{name}(*sys.argv[1:])"
)


# ------------------------------------------------------------------------ the corpus


def vocabulary(rng: np.random.Generator, size: int = 50_000) -> tuple[np.ndarray, np.ndarray]:
    """Distinct lower-case words of 2-10 letters, and their Zipf (s = 1.1) cumulative shares."""
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", np.uint8)
    words: set[str] = set()
    while len(words) < size:
        lengths = rng.integers(2, 11, size)
        codes = rng.choice(letters, int(lengths.sum()))
        flat = codes.tobytes().decode()
        at = 0
        for ln in lengths.tolist():
            words.add(flat[at : at + ln])
            at += ln
    vocab = np.array(sorted(words)[:size])
    rng.shuffle(vocab)
    p = 1.0 / np.arange(1, size + 1) ** 1.1
    return vocab, np.cumsum(p / p.sum())


def _sample(rng, cdf, k):
    return np.minimum(np.searchsorted(cdf, rng.random(k)), cdf.size - 1)


def _styled(rng, words: list[str]) -> str:
    """Change casing and punctuation: the tokens stay the same."""
    out = []
    for w in words:
        r = rng.random()
        w = w.upper() if r < 0.1 else w.capitalize() if r < 0.3 else w
        out.append(w + ("," if rng.random() < 0.08 else "." if rng.random() < 0.04 else ""))
    return " ".join(out)


def make_test(rng, vocab, cdf, n_items: int) -> list[list[str]]:
    lengths = rng.integers(200, 301, n_items)
    ids = _sample(rng, cdf, int(lengths.sum()))
    words = vocab[ids]
    return [list(w) for w in np.split(words, np.cumsum(lengths)[:-1])]


def plants(rng, items: list[list[str]]) -> list[dict]:
    """Which items are planted, how, and the share of their tokens each plant covers."""
    order = rng.permutation(len(items))
    out, k = [], 0
    for level in LEVELS:
        for _ in range(PER_LEVEL):
            i = int(order[k])
            k += 1
            m = len(items[i])
            length = max(10, round(level * m))
            start = int(rng.integers(0, m - length + 1))
            words = items[i][start : start + length]
            out.append(
                {"item": i, "level": level, "share": length / m, "text": _styled(rng, words)}
            )
    for _ in range(PERTURBED):
        i = int(order[k])
        k += 1
        words = list(items[i])
        for pos in (15, 60, 120):  # 3 substitutions, none in the first 10 tokens nor at the end
            words[pos] = "zzsubstituted"
        out.append({"item": i, "level": "perturbed", "share": 1.0, "text": _styled(rng, words)})
    return out


def write_corpus(folder: Path, gb: float, fmt: str, n_items: int, seed: int = 0) -> dict:
    """Write test.jsonl, the shards and manifest.json (the plants); reuse them if present."""
    import polars as pl
    import pyarrow as pa

    manifest = folder / "manifest.json"
    want = {"gb": gb, "format": fmt, "items": n_items, "seed": seed}
    if manifest.exists():
        meta = json.loads(manifest.read_text())
        if meta["params"] == want:
            return meta
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "corpus").mkdir(parents=True)
    rng = np.random.default_rng(seed)
    vocab, cdf = vocabulary(rng)
    items = make_test(rng, vocab, cdf, n_items)
    with (folder / "test.jsonl").open("w", encoding="utf-8") as f:
        for k, words in enumerate(items):
            f.write(json.dumps({"id": f"item{k}", "text": " ".join(words)}) + "\n")
    planted = plants(rng, items)
    total = int(gb * (1 << 30))
    n_shards = max(1, -(-total // SHARD_BYTES))
    where = rng.integers(0, n_shards, len(planted))
    word_bytes = np.char.str_len(vocab).astype(np.int64) + 1  # with the space after it
    mean_word = float((np.diff(np.r_[0, cdf]) * word_bytes).sum())
    written = 0
    t0 = time.perf_counter()
    for s in range(n_shards):
        size = min(SHARD_BYTES, total - written)
        n_words = int(size / mean_word)
        lengths = np.maximum(20, rng.lognormal(5.8, 0.6, n_words // 300 + 2).astype(np.int64))
        lengths = lengths[np.cumsum(lengths) <= n_words]
        words = pl.Series(vocab)[_sample(rng, cdf, int(lengths.sum()))]
        doc = np.repeat(np.arange(lengths.size), lengths)
        texts = (
            pl.DataFrame({"doc": doc, "w": words})
            .group_by("doc", maintain_order=True)
            .agg(pl.col("w"))
            .select(pl.col("w").list.join(" ").alias("text"))
            .get_column("text")
        )
        mine = [p for p, w in zip(planted, where, strict=True) if w == s]
        if mine:
            rows = rng.choice(texts.len(), len(mine), replace=False)
            old = texts.gather(rows).to_list()
            new = []
            for p, text in zip(mine, old, strict=True):
                cut = text.find(" ", len(text) // 2)
                new.append(f"{text[:cut]} {p['text']} {text[cut + 1 :]}")
                p["shard"], p["row"] = s, int(rows[len(new) - 1])
            texts = texts.scatter(rows, pl.Series(new))
        written += int(texts.str.len_bytes().sum())
        frame = pl.DataFrame({"id": [f"s{s}d{k}" for k in range(texts.len())], "text": texts})
        if fmt == "parquet":
            frame.write_parquet(folder / "corpus" / f"part-{s:05d}.parquet", row_group_size=20_000)
        else:
            path = folder / "corpus" / f"part-{s:05d}.jsonl.zst"
            with pa.OSFile(str(path), "wb") as f, pa.CompressedOutputStream(f, "zstd") as z:
                z.write(frame.write_ndjson().encode())
        print(
            f"  shard {s + 1}/{n_shards}: {written / 1e9:.2f} GB of text, "
            f"{time.perf_counter() - t0:.0f} s",
            flush=True,
        )
    meta = {
        "params": want,
        "text_bytes": written,
        "disk_bytes": sum(p.stat().st_size for p in (folder / "corpus").iterdir()),
        "plants": [{k: v for k, v in p.items() if k != "text"} for p in planted],
    }
    manifest.write_text(json.dumps(meta))
    return meta


# ------------------------------------------------------------------------ quality


def quality(payload: dict, meta: dict) -> dict:
    """MAE of planted shares, bucket accuracy, unplanted items found clean."""
    overlap = {i["id"]: i["overlap"] for i in payload["items"]}
    bucket = {i["id"]: i["bucket"] for i in payload["items"]}

    def expected_bucket(share: float) -> str:
        return "clean" if share < 0.2 else "dirty" if share >= 0.8 else "between"

    errors, right, by_level = [], 0, {}
    planted_ids = set()
    for p in meta["plants"]:
        key = f"item{p['item']}"
        planted_ids.add(key)
        err = abs(overlap[key] - p["share"])
        errors.append(err)
        right += bucket[key] == expected_bucket(p["share"])
        by_level.setdefault(str(p["level"]), []).append(err)
    others = [k for k in overlap if k not in planted_ids]
    return {
        "mae": float(np.mean(errors)),
        "max_error": float(np.max(errors)),
        "mae_by_level": {k: float(np.mean(v)) for k, v in by_level.items()},
        "bucket_accuracy": right / len(meta["plants"]),
        # unplanted items: in the clean bucket, and with no overlap at all (Zipf text repeats
        # runs of its most frequent words: a chance 10-gram is a true match, not an error)
        "unplanted_clean_bucket": float(np.mean([bucket[k] == "clean" for k in others])),
        "unplanted_no_overlap": float(np.mean([overlap[k] == 0 for k in others])),
    }


# ------------------------------------------------------------------------ runs


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def benchcheck_cmd(folder: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-c", "import sys; from benchcheck.cli import main; sys.exit(main())",
        "leakage",
        "--test", str(folder / "test.jsonl"), "--corpus", str(folder / "corpus"),
        "--json", str(out), "--force", *extra,
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gb", type=float, default=5.0, help="GB of corpus text")
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--format", choices=("parquet", "jsonl.zst"), default="parquet")
    parser.add_argument("--data", type=Path, default=HERE / "_data" / "leakage")
    parser.add_argument("--ray", action="store_true", help="a local Ray cluster of 2 CPUs")
    parser.add_argument("--two-nodes", action="store_true", help="two ray start nodes")
    parser.add_argument("--peer", action="store_true", help="datatrove / set-of-hashes peers")
    parser.add_argument("--peer-mb", type=int, default=300)
    parser.add_argument("--clean", action="store_true", help="delete the corpus at the end")
    opts = parser.parse_args()
    folder = opts.data / f"{opts.gb:g}gb-{opts.format}-{opts.items}"
    print(f"cpus {os.cpu_count()}, {load()}", flush=True)
    t0 = time.perf_counter()
    meta = write_corpus(folder, opts.gb, opts.format, opts.items)
    print(
        f"corpus: {meta['text_bytes'] / 1e9:.2f} GB of text ({meta['disk_bytes'] / 1e9:.2f} GB "
        f"on disk, {opts.format}), {opts.items} test items, {len(meta['plants'])} planted "
        f"({time.perf_counter() - t0:.0f} s to make or find)",
        flush=True,
    )
    gb_text = meta["text_bytes"] / 1e9
    rows = []

    def row(name, wall, peak, note=""):
        rows.append((name, wall, peak))
        base = rows[0][1]
        print(
            f"{name:28s} {wall:8.1f} s {gb_text * 1e3 / wall:7.1f} MB/s  x{wall / base:5.2f} of "
            f"raw  peak {peak:7.0f} MB  {note} | {load()}",
            flush=True,
        )

    wall, peak, out = timed([sys.executable, "-c", RAW_LIMIT, str(folder / "corpus")])
    row("raw limit (read+split+hash)", wall, peak, f"{json.loads(out)['tokens']:,} tokens")
    outputs = {}
    out_e = folder / "embedded.json"
    wall, peak, _ = timed(benchcheck_cmd(folder, out_e))
    outputs["embedded"] = out_e
    payload = json.loads(out_e.read_text())
    q = quality(payload, meta)
    row(
        "benchcheck embedded", wall, peak, f"MAE {q['mae']:.4f}, buckets {q['bucket_accuracy']:.3f}"
    )
    print(f"  quality: {json.dumps(q)}", flush=True)
    if opts.ray:
        out_r = folder / "ray.json"
        wall, peak, _ = timed(benchcheck_cmd(folder, out_r, "--engine", "ray", "--ray-cpus", "2"))
        outputs["ray (local, 2 CPUs)"] = out_r
        row("benchcheck ray, 2 CPUs", wall, peak, "driver RSS only")
    if opts.two_nodes:
        sys.path.insert(0, str(HERE.parent / "tests" / "engine"))
        from _ray_nodes import two_nodes  # the tests' two-node loopback cluster

        with two_nodes() as (address, env, _):
            out_n = folder / "two_nodes.json"
            saved = dict(os.environ)
            os.environ.update(env)
            try:
                cmd = benchcheck_cmd(folder, out_n, "--engine", "ray", "--address", address)
                wall, peak, _ = timed(cmd)
            finally:
                os.environ.clear()
                os.environ.update(saved)
            outputs["ray (two nodes)"] = out_n
            row("benchcheck ray, 2 nodes", wall, peak, "driver RSS only")
    base = outputs["embedded"].read_bytes()
    for name, path in outputs.items():
        print(f"  JSON of {name} identical to embedded: {path.read_bytes() == base}")
    if opts.peer:
        limit = opts.peer_mb << 20
        test = str(folder / "test.jsonl")
        peers = [("plain Python set of hashes", "set_of_hashes")]
        try:
            import datatrove  # noqa: F401

            peers.insert(0, ("datatrove NGramsDecontFilter", "datatrove_filter"))
        except ImportError:
            print("  datatrove not installed (requirements/bench-leakage.txt): skipped")
        emb_rate = gb_text * 1e3 / rows[1][1]
        for name, func in peers:
            code = PEER.format(here=str(HERE), name=func)
            cmd = [sys.executable, "-c", code, str(folder / "corpus"), test, str(limit)]
            wall, peak, out = timed(cmd)
            res = json.loads(out)
            rate = res["bytes"] / 1e6 / res["s"]
            print(
                f"{name:28s} {rate:7.2f} MB/s on {res['bytes'] / 1e6:.0f} MB (+{res['index_s']:.0f} s "
                f"to index the items; "
                f"benchcheck embedded {emb_rate / rate:.1f}x faster), peak {peak:.0f} MB, "
                f"{res['dirty_docs']} documents flagged | {load()}",
                flush=True,
            )
    if opts.clean:
        shutil.rmtree(folder)
        print(f"deleted {folder}")


if __name__ == "__main__":
    main()
