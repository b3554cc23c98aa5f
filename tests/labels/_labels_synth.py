"""Synthetic datasets and judgments for the labels tests (seeded, tiny)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl


def make_case(
    n: int = 60,
    flip_rate: float = 0.2,
    seed: int = 0,
    judges=("m1", "m2"),
    prompts=("nli", "doc"),
    strength: float = 2.0,
):
    """Return (data frame, judgments frame, true labels, flipped mask)."""
    rng = np.random.default_rng(seed)
    ids = [f"e{i:03d}" for i in range(n)]
    truth = rng.integers(0, 2, n)
    flipped = rng.random(n) < flip_rate
    original = np.where(flipped, 1 - truth, truth)
    data = pl.DataFrame(
        {
            "id": ids,
            "text_a": [f"grounding number {i}" for i in range(n)],
            "text_b": [f'claim {i}, "quoted"' for i in range(n)],
            "label": [int(v) for v in original],
        }
    )
    rows = []
    for j in judges:
        for p in prompts:
            z = strength * (2 * truth - 1) + rng.normal(0, 1.0, n)
            p1 = 1 / (1 + np.exp(-z))
            for i in range(n):
                rows.append(
                    {
                        "id": ids[i],
                        "judge": j,
                        "prompt": p,
                        "p_0": float(1 - p1[i]),
                        "p_1": float(p1[i]),
                        "logprob_0": float(np.log(1 - p1[i])),
                        "logprob_1": float(np.log(p1[i])),
                        "model": j,
                        "n_prompt_tokens": 20,
                        "seconds": 0.01,
                    }
                )
    return data, pl.DataFrame(rows), truth, flipped


def write_jsonl(frame: pl.DataFrame, path: Path) -> Path:
    import json

    with path.open("w", encoding="utf-8") as fh:
        for row in frame.iter_rows(named=True):
            fh.write(json.dumps(row) + "\n")
    return path


def cli_ok(*argv: str) -> None:
    """Run ``benchcheck argv...`` in-process and require exit code 0."""
    from benchcheck.cli import main

    rc = main(list(argv))
    assert rc == 0, f"benchcheck {' '.join(argv)} exited {rc}"
