"""End to end with a real offline judge: judge -> flag -> blind review -> gold -> error rate.

A tiny pair dataset whose truth is obvious (a statement repeated vs contradicted), with a third
of its labels flipped on purpose. The real 0.5B Qwen judge (llama.cpp, offline bundle) scores
it; the flags it ranks most confident must hold a larger share of the injected flips than the
dataset does (the paper's claim: the higher the confidence, the more of the flags are errors).
"""

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from _labels_synth import cli_ok

MODEL = "qwen2.5-coder-0.5b-instruct"
COLOURS = ["red", "blue", "green", "yellow", "black", "white"]
OBJECTS = [
    "box",
    "car",
    "door",
    "hat",
    "cup",
    "bike",
    "kite",
    "ball",
    "lamp",
    "chair",
    "boat",
    "coat",
]


def _dataset(seed: int = 0):
    rows, truth = [], []
    for i, obj in enumerate(OBJECTS):
        c, d = COLOURS[i % 6], COLOURS[(i + 3) % 6]
        rows.append(
            {"id": f"{obj}-same", "text_a": f"The {obj} is {c}.", "text_b": f"The {obj} is {c}."}
        )
        truth.append(1)
        rows.append(
            {"id": f"{obj}-diff", "text_a": f"The {obj} is {c}.", "text_b": f"The {obj} is {d}."}
        )
        truth.append(0)
    truth = np.array(truth)
    rng = np.random.default_rng(seed)
    flip = np.zeros(len(rows), dtype=bool)
    flip[rng.choice(np.flatnonzero(truth == 1), 4, replace=False)] = True
    flip[rng.choice(np.flatnonzero(truth == 0), 4, replace=False)] = True
    for r, t, f in zip(rows, truth, flip, strict=True):
        r["label"] = int(1 - t if f else t)
    return rows, truth, flip


@pytest.mark.slow
def test_real_judge_flags_injected_flips(tmp_path, monkeypatch, capsys):
    pytest.importorskip("llama_cpp")
    from benchcheck.errors import JudgeUnavailable
    from benchcheck.judges.resolve import resolve_model

    try:
        resolve_model(MODEL)
    except JudgeUnavailable as exc:
        pytest.skip(f"offline model bundle not installed: {exc}")
    monkeypatch.chdir(tmp_path)
    rows, truth, flip = _dataset()
    Path("data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    cli_ok(
        "judge",
        "data.jsonl",
        "--judge",
        f"llama-cpp:{MODEL}",
        "--prompts",
        "document",
        "--text-a",
        "text_a",
        "--text-b",
        "text_b",
        "--label",
        "label",
        "--no-cache",
        "-o",
        "j.parquet",
    )
    cli_ok("flag", "j.parquet", "--data", "data.jsonl", "-o", "flags.jsonl", "--json", "flag.json")
    flags = pl.DataFrame([json.loads(x) for x in open("flags.jsonl")], infer_schema_length=None)
    is_flip = dict(zip([r["id"] for r in rows], flip, strict=True))
    flagged = flags.filter(pl.col("flagged")).sort("rank")
    assert flagged.height > 0
    base = flip.mean()
    # high confidence = the upper half of the flags by confidence
    top = flagged.filter(pl.col("confidence") >= flagged["confidence"].median())
    precision = np.mean([is_flip[i] for i in top["id"]])
    print(f"e2e: flags={flagged.height} top={top.height} precision={precision:.3f} base={base:.3f}")
    assert precision > base, (precision, base, top.select("id", "confidence").rows())
    # blind review by two "experts" who know the truth, then the error rate
    cli_ok("review", "export", "flags.jsonl", "-o", "review", "--seed", "1")
    key = {
        r["review_id"]: r["id"] for r in map(json.loads, open("review/key.jsonl")) if r["review_id"]
    }
    true_of = {r["id"]: str(t) for r, t in zip(rows, truth, strict=True)}
    for name in ("expert_a", "expert_b"):
        e = pl.read_csv(f"review/{name}.csv", infer_schema=False)
        e.with_columns(pl.Series("label", [true_of[key[r]] for r in e["review_id"]])).write_csv(
            f"review/{name}.csv"
        )
    cli_ok("review", "import", "review/expert_a.csv", "review/expert_b.csv", "-o", "gold.jsonl")
    cli_ok("error-rate", "gold.jsonl", "--population", "240", "--json", "er.json")
    er = json.loads(Path("er.json").read_text())
    flips_found = sum(is_flip[i] for i in flagged["id"])
    assert er["errors"] == flips_found and er["ci_fpc"][0] <= er["error_rate"] <= er["ci_fpc"][1]
