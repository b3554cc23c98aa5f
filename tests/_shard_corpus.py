"""Random CoNLL corpora and the stats text of a dataset: shared by the shard and Ray tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchcheck.io.canonical import dumps
from benchcheck.metrics.compute import compute_stats

TAGS = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "E-LOC", "S-ORG", "I-ORG"]


def random_conll(rng: np.random.Generator, n_sent: int, *, docstart: bool = False) -> str:
    """Random sentences over a small vocabulary (repeats and leaks happen), any tag order."""
    vocab = ["a", "b", "c", "EU", '"', "NA", "null", "d\u00a0e", "x"]
    out = []
    if docstart:
        out.append("-DOCSTART- -X- O O\n")
    for _ in range(n_sent):
        k = int(rng.integers(1, 7))
        words = rng.choice(vocab, size=k)
        tags = rng.choice(TAGS, size=k)
        out.append("".join(f"{w} {t}\n" for w, t in zip(words, tags, strict=True)))
    return "\n".join(out)


def _stats_text(dataset) -> str:
    return dumps(compute_stats(dataset).to_json())


def _write_split_files(folder: Path, rng: np.random.Generator, sizes=(60, 15, 20)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, n in zip(("train", "dev", "test"), sizes, strict=True):
        (folder / f"{name}.txt").write_text(random_conll(rng, n, docstart=True), encoding="utf-8")
    return folder
