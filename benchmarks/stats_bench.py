"""Speed and memory of ``benchcheck stats`` on a large synthetic CoNLL corpus.

Generates (once, cached in benchmarks/_data/) 1,000,000 training + 100,000 test sentences
of ~14 tokens (Zipf vocabulary with ``"``/``NA``/``null`` tokens, entities drawn from a Zipf
list of surfaces with a few ambiguous ones, 2% repeated training sentences, 5% test
sentences copied from train), then times, in the same run:

1. the raw limit: read the files, split into sentence blocks, xxh3-hash every block;
2. a straightforward pandas implementation of the same metrics (hash each sentence,
   group-by), as a user would write it;
3. benchcheck: ``load`` + ``compute_stats`` in a fresh process (and the full CLI);

and prints the ratios, medians of ``--repeat`` runs, and each path's peak RSS. The same
paths run on a second corpus written by the shared generator ``gen_corpus.py 1000000 DIR``
(tab-separated, ~110 MB; give its path with ``--gen-corpus``, default
``../shared/tools/gen_corpus.py`` beside the repository), and an offset-format case reads
1,000,000 doccano JSON lines of ~25 words (``--offsets``). Data lives in benchmarks/_data/.

    python benchmarks/stats_bench.py [--train 1000000] [--test 100000] [--repeat 3]
        [--gen-corpus PATH] [--skip-pandas] [--offsets 1000000] [--only conll,gen,offsets]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _harness import median_of

HERE = Path(__file__).resolve().parent
TYPES = ("PER", "ORG", "LOC", "MISC")


def generate(folder: Path, n_train: int, n_test: int, seed: int = 0) -> None:
    """Write train.txt and test.txt (token, tag) into ``folder``."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(50_000)] + ['"', "NA", "null", "nan"], dtype=object)
    zipf = 1.0 / np.arange(1, vocab.size + 1)
    zipf /= zipf.sum()
    n_surfaces = 200_000
    surf_len = rng.choice([1, 2, 3], size=n_surfaces, p=[0.6, 0.3, 0.1])
    surf_type = rng.integers(0, 4, size=n_surfaces)
    szipf = 1.0 / np.arange(1, n_surfaces + 1) ** 0.9
    szipf /= szipf.sum()

    def sentence_lines(k: int) -> list[str]:
        lengths = rng.integers(8, 21, size=k)
        words = rng.choice(vocab, size=int(lengths.sum()), p=zipf)
        n_ent = rng.poisson(1.3, size=k)
        ents = rng.choice(n_surfaces, size=int(n_ent.sum()), p=szipf)
        flip = rng.random(ents.size) < 0.03  # a few surfaces carry another type
        out, w, e = [], 0, 0
        for i in range(k):
            toks = [f"{t} O" for t in words[w : w + lengths[i]]]
            w += lengths[i]
            for _ in range(n_ent[i]):
                s = ents[e]
                typ = TYPES[(surf_type[s] + flip[e]) % 4]
                e += 1
                span = [f"E{s}x{j} {'B' if j == 0 else 'I'}-{typ}" for j in range(surf_len[s])]
                at = int(rng.integers(0, len(toks) + 1))
                toks[at:at] = span
            out.append("\n".join(toks))
        return out

    train = sentence_lines(n_train)
    dup = rng.random(n_train) < 0.02
    src = rng.integers(0, n_train, size=int(dup.sum()))
    train = np.array(train, dtype=object)
    train[np.flatnonzero(dup)] = train[src]
    test = np.array(sentence_lines(n_test), dtype=object)
    leak = rng.random(n_test) < 0.05
    test[np.flatnonzero(leak)] = train[rng.integers(0, n_train, size=int(leak.sum()))]
    folder.mkdir(parents=True, exist_ok=True)
    for name, sents in (("train", train), ("test", test)):
        (folder / f"{name}.txt").write_text("\n\n".join(sents) + "\n", encoding="utf-8")


RAW = r"""
import sys, xxhash
seen = set()
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        blocks = f.read().split(b'\n\n')
    hashes = [xxhash.xxh3_64_intdigest(b) for b in blocks]
    seen.update(hashes)
print(len(seen))
"""

PANDAS = r"""
import sys, csv, numpy as np, pandas as pd
frames = {}
for name, path in (("train", sys.argv[1]), ("test", sys.argv[2])):
    df = pd.read_csv(path, sep=" ", header=None, names=["token", "tag"], skip_blank_lines=False,
                     quoting=csv.QUOTE_NONE, keep_default_na=False, na_values=[], dtype=str)
    blank = df["token"].eq("") | df["token"].isna()
    df["sent"] = blank.cumsum()
    df = df[~blank].copy()
    df["pos"] = df.groupby("sent").cumcount()
    df["th"] = pd.util.hash_pandas_object(df["token"], index=False).to_numpy()
    df["gh"] = pd.util.hash_pandas_object(df["token"] + "\t" + df["tag"], index=False).to_numpy()
    mult = pd.util.hash_pandas_object(df["pos"], index=False).to_numpy()
    df["thp"] = df["th"].to_numpy() * mult
    df["ghp"] = df["gh"].to_numpy() * mult
    sent = df.groupby("sent").agg(x=("thp", "sum"), xy=("ghp", "sum"), m=("token", "size"))
    # entities (IOB2): B starts; I continues
    pre = df["tag"].str[0]
    typ = df["tag"].str[2:]
    start = (pre == "B") | ((pre == "I") & ((df["sent"] != df["sent"].shift()) | (typ != typ.shift()) | (pre.shift() == "O")))
    ent_id = start.cumsum().where(pre != "O")
    ents = df[ent_id.notna()].assign(eid=ent_id[ent_id.notna()]).groupby("eid").agg(
        sent=("sent", "first"), surface=("token", " ".join), type=("tag", lambda t: t.iloc[0][2:]))
    n = len(sent)
    counts = sent.groupby("xy").size()
    redundancy = float((counts * (counts - 1) / 2).sum() / n)
    types_per = ents.groupby("surface")["type"].nunique()
    ambiguity = 1 - (types_per > 1).sum() / n
    dens = ents.groupby("sent")["surface"].nunique().reindex(sent.index, fill_value=0) / sent["m"]
    shares = ents["type"].value_counts(normalize=True)
    frames[name] = (sent, ents, redundancy, ambiguity, float(dens.mean()), float(shares.std(ddof=0)),
                    float((ents.groupby("sent").size().reindex(sent.index, fill_value=0) == 0).mean()))
train, test = frames["train"], frames["test"]
leak = float(test[0]["xy"].isin(set(train[0]["xy"])).mean())
te, tr = set(test[1]["surface"]), set(train[1]["surface"])
print({"leakage": leak, "unseen": len(te - tr) / len(te), "redundancy": train[2], "null_rate": train[6]})
"""

BENCHCHECK = r"""
import sys, json
from benchcheck.io.load import load
from benchcheck.metrics.compute import compute_stats
r = compute_stats(load(sys.argv[1], keep_tokens=False)).to_json()
print(json.dumps({k: r["metrics"][k] for k in ("leakage_ratio", "unseen_entity_ratio")}))
"""


OFFSETS = r"""
import sys, json
from benchcheck.io.load import load
from benchcheck.metrics.compute import compute_stats
d = load(sys.argv[1], keep_tokens=False)
r = compute_stats(d).to_json()
s = r["splits"]["train"]
print(json.dumps({"n": s["n_instances"], "tokens": s["n_tokens"], "entities": s["n_entities"]}))
"""


def generate_offsets(path: Path, n: int, seed: int = 0) -> None:
    """Write ``n`` doccano JSON lines of 20-30 words (Zipf), 0-3 entity spans each."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(30_000)]
    zipf = 1.0 / np.arange(1, len(vocab) + 1)
    zipf /= zipf.sum()
    names = [f"E{i}" for i in range(50_000)]
    lengths = rng.integers(20, 31, size=n)
    words = rng.choice(len(vocab), size=int(lengths.sum()), p=zipf)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        w, buf = 0, []
        for i in range(n):
            toks = [vocab[j] for j in words[w : w + lengths[i]]]
            w += lengths[i]
            at = sorted(rng.choice(len(toks) - 1, size=int(rng.integers(0, 4)), replace=False))
            for a in at:
                toks[a] = names[int(rng.integers(0, len(names)))]
            starts = np.cumsum([0] + [len(t) + 1 for t in toks[:-1]])
            spans = [[int(starts[a]), int(starts[a]) + len(toks[a]), TYPES[a % 4]] for a in at]
            buf.append(json.dumps({"text": " ".join(toks), "label": spans}))
            if len(buf) >= 50_000:
                f.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            f.write("\n".join(buf) + "\n")


def _load() -> str:
    try:
        return os.getloadavg().__repr__()
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


def _console_script() -> str:
    """The ``benchcheck`` script installed beside this interpreter (what a venv runs).

    Not the first one on PATH: a version manager's shim there (pyenv's) re-resolves the
    interpreter on every call, 0.1-0.2 s that are not benchcheck's.
    """
    beside = Path(sys.executable).with_name("benchcheck")
    return str(beside) if beside.exists() else "benchcheck"


def _compare(folder: Path, files: list[str], args: argparse.Namespace) -> dict:
    """Time raw / benchcheck / CLI (/ pandas) on one corpus folder; return the summary."""
    py = sys.executable
    results: dict[str, dict[str, float]] = {}
    paths = [
        ("raw", [py, "-c", RAW, *files]),
        ("benchcheck", [py, "-c", BENCHCHECK, str(folder)]),
        (
            "benchcheck_cli",
            [_console_script(), "stats", str(folder), "--json", "/dev/null", "--force"],
        ),
    ]
    if not args.skip_pandas:
        paths.append(("pandas", [py, "-c", PANDAS, *files]))
    load_before = _load()
    for name, cmd in paths:
        results[name], out = median_of(cmd, args.repeat if name != "pandas" else 1)
        print(
            f"{name:15s} median {results[name]['median_s']:7.2f} s  ({out[:90]})", file=sys.stderr
        )
    raw = results["raw"]["median_s"]
    bc = results["benchcheck"]["median_s"]
    summary = {
        "corpus_mb": round(sum(Path(f).stat().st_size for f in files) / 1e6, 1),
        "results": results,
        "benchcheck_over_raw": round(bc / raw, 2),
        "benchcheck_cli_over_raw": round(results["benchcheck_cli"]["median_s"] / raw, 2),
        "load_average_before_after": [load_before, _load()],
    }
    if "pandas" in results:
        summary["pandas_over_benchcheck"] = round(results["pandas"]["median_s"] / bc, 2)
    return summary


def main() -> None:
    """Generate the corpora if needed, time the paths on each, print ratios."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", type=int, default=1_000_000)
    parser.add_argument("--test", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-pandas", action="store_true")
    parser.add_argument(
        "--gen-corpus",
        type=Path,
        default=HERE.parent.parent / "shared" / "tools" / "gen_corpus.py",
        help="the shared generator gen_corpus.py (its 1M corpus is the second case)",
    )
    parser.add_argument("--offsets", type=int, default=1_000_000, help="doccano records")
    parser.add_argument("--only", default="conll,gen,offsets")
    args = parser.parse_args()
    only = set(args.only.split(","))
    summary: dict[str, object] = {}
    if "conll" in only:
        folder = HERE / "_data" / f"conll_{args.train}_{args.test}"
        if not (folder / "test.txt").exists():
            t = time.perf_counter()
            generate(folder, args.train, args.test)
            print(f"generated {folder.name} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        files = [str(folder / "train.txt"), str(folder / "test.txt")]
        summary["stats_bench_corpus"] = _compare(folder, files, args)
    if "gen" in only:
        folder = HERE / "_data" / "gen_1m"
        if not (folder / "test_1m.conll").exists():
            if not args.gen_corpus.exists():
                print(f"skipped the gen_corpus case: no {args.gen_corpus}", file=sys.stderr)
            else:
                subprocess.run(
                    [sys.executable, str(args.gen_corpus), "1000000", str(folder)], check=True
                )
        if (folder / "test_1m.conll").exists():
            files = [str(folder / "train_1m.conll"), str(folder / "test_1m.conll")]
            summary["gen_corpus_1m"] = _compare(folder, files, args)
    if "offsets" in only:
        path = HERE / "_data" / "doccano" / f"train_{args.offsets}.jsonl"
        if not path.exists():
            generate_offsets(path, args.offsets)
        load_before = _load()
        result, out = median_of([sys.executable, "-c", OFFSETS, str(path)], args.repeat)
        summary["offsets_doccano"] = {
            "records": args.offsets,
            "file_mb": round(path.stat().st_size / 1e6, 1),
            "result": result,
            "read": json.loads(out),
            "load_average_before_after": [load_before, _load()],
        }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
