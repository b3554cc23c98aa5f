"""runs.flag: flags from judgments, the data's own columns kept, one JSON for CLI and library."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.io.tables import read_rows
from benchcheck.runs.flag import FlagOptions, flag_frames, run_flag


def _judgments(p1: dict[str, list[float]]) -> pl.DataFrame:
    rows = []
    for i, values in p1.items():
        for k, v in enumerate(values):
            rows.append({"id": i, "judge": "m", "prompt": f"p{k}", "p_0": 1 - v, "p_1": v})
    return pl.DataFrame(rows)


def test_hand_computed_flags():
    # ensemble p_1: a 0.1 (label 1 → flag, confidence 0.9), b 0.7 (agrees), c 0.45 (label 1 →
    # disagrees, confidence 0.55), d 0.95 (label 0 → flag, confidence 0.95)
    j = _judgments({"a": [0.0, 0.2], "b": [0.6, 0.8], "c": [0.4, 0.5], "d": [0.9, 1.0]})
    data = pl.DataFrame(
        {"id": ["a", "b", "c", "d"], "text": ["w", "x", "y", "z"], "label": ["1", "1", "1", "0"]}
    )
    run = flag_frames(j, data, options=FlagOptions(threshold=0.6))
    flagged = run.flagged()
    assert flagged["id"].to_list() == ["d", "a"]
    assert flagged["rank"].to_list() == [1, 2]
    assert flagged["confidence"].to_list() == pytest.approx([0.95, 0.9])
    assert run.summary.disagreements == 3 and run.summary.flagged == 2
    js = run.to_json(top=1)
    assert [r["id"] for r in js["top"]] == ["d"]
    assert js["summary"]["flag_rate"] == 0.5
    only_p0 = flag_frames(j, data, options=FlagOptions(threshold=0.6, prompts=("p0",)))
    # p0 alone: a 0.0, b 0.6, c 0.4, d 0.9 → flags a (1.0), d (0.9), c (0.6)
    assert only_p0.flagged()["id"].to_list() == ["a", "d", "c"]


def test_flags_file_keeps_the_data_columns(tmp_path):
    data = tmp_path / "data.jsonl"
    rows = [
        {
            "uid": "x1",
            "grounding": "The sky is blue.",
            "generated_text": "It is blue.",
            "label": 1,
            "source": "wiki",
        },
        {
            "uid": "x2",
            "grounding": "Cats purr.",
            "generated_text": "Dogs purr.",
            "label": 1,
            "source": "web",
        },
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    j = _judgments({"x1": [0.9], "x2": [0.05]})
    j.write_parquet(tmp_path / "j.parquet")
    run = run_flag(
        tmp_path / "j.parquet",
        data,
        columns=Columns(text_a="grounding", text_b="generated_text", id="uid"),
    )
    cols = run.flags.columns
    assert cols[:5] == ["uid", "grounding", "generated_text", "label", "source"]
    assert {"id", "text_a", "text_b", "llm_label", "confidence", "rank"} <= set(cols)
    assert run.flags["source"].to_list() == ["wiki", "web"]
    assert run.flagged()["uid"].to_list() == ["x2"]
    # The CLI writes the same table and refuses to write over the data or existing flags.
    out = tmp_path / "flags.jsonl"
    argv = [
        "flag",
        str(tmp_path / "j.parquet"),
        "--data",
        str(data),
        "--text-a",
        "grounding",
        "--text-b",
        "generated_text",
        "--id",
        "uid",
        "-o",
        str(out),
    ]
    assert main(argv) == 0
    written = read_rows(out)
    assert written.columns[:5] == cols[:5] and written["source"].to_list() == ["wiki", "web"]
    assert main(argv) == 2  # exists, no --force
    assert main([*argv, "--force"]) == 0
    before = data.read_bytes()
    assert main([*argv[:-1], str(data), "--force"]) == 2
    assert data.read_bytes() == before


def test_pred_probs_add_confident_learning():
    j = _judgments({str(i): [0.9 if i % 2 else 0.1] for i in range(40)})
    labels = ["1" if i % 2 else "0" for i in range(40)]
    labels[3] = "0"  # the judge and the model both say 1
    data = pl.DataFrame({"id": [str(i) for i in range(40)], "text": ["t"] * 40, "label": labels})
    probs = np.array([[0.05, 0.95] if i % 2 else [0.95, 0.05] for i in range(40)])
    run = flag_frames(j, data, pred_probs=probs)
    assert run.flags.filter(pl.col("cleanlab_issue"))["id"].to_list() == ["3"]
    assert run.confident_learning is not None and run.confident_learning.both == 1
