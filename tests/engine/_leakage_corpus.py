"""A small corpus in every shard format with pieces of test items planted: the Ray tests'."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa


def leakage_corpus(folder: Path, rng: np.random.Generator, *, docs_per_shard=400, words=60) -> Path:
    """Random shards in every format, with copies and pieces of the test items planted."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = np.array([f"w{k}" for k in range(500)])
    items = [" ".join(rng.choice(vocab, 40)) for _ in range(30)]
    (folder.parent / "test.jsonl").write_text(
        "".join(json.dumps({"id": f"t{k}", "text": t}) + "\n" for k, t in enumerate(items))
    )

    def shard(k):
        docs = [" ".join(rng.choice(vocab, words)) for _ in range(docs_per_shard)]
        for j in range(0, docs_per_shard, 37):
            toks = items[(j + k) % 30].split()
            a = int(rng.integers(0, 25))
            docs[j] = f"x {' '.join(toks[a : a + 15 + j % 20])} y " + docs[j]
        return docs

    pl.DataFrame({"text": shard(0)}).write_parquet(folder / "a.parquet", row_group_size=100)
    rows = "".join(json.dumps({"text": d}) + "\n" for d in shard(1)).encode()
    (folder / "b.jsonl.gz").write_bytes(gzip.compress(rows))
    with (
        pa.OSFile(str(folder / "c.jsonl.zst"), "wb") as f,
        pa.CompressedOutputStream(f, "zstd") as z,
    ):
        z.write("".join(json.dumps({"text": d}) + "\n" for d in shard(2)).encode())
    pl.DataFrame({"text": shard(3)}).write_parquet(folder / "d.parquet")
    return folder
