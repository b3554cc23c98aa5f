"""Review numbers that add up (issue 33, item 6): export, import, error-rate, flag histogram.

A synthetic pair set with planted flips goes through the real commands with one expert
and an audit sample; every count the commands print is checked against the files
themselves (counted here with polars), so no number is taken on trust.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl
import pytest

from benchcheck.cli import main
from benchcheck.runs.flag import FlagOptions, run_flag

sys.path.insert(0, str(Path(__file__).parent))
from _labels_synth import make_case, write_jsonl  # noqa: E402


def _run(capsys, *argv: str) -> dict:
    """Run a command with --json - and return its JSON (exit code 0 required)."""
    capsys.readouterr()
    assert main([*argv, "--json", "-"]) == 0, argv
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def case(tmp_path):
    data, judgments, truth, _ = make_case(60, flip_rate=0.2, seed=3)
    write_jsonl(data, tmp_path / "data.jsonl")
    judgments.write_parquet(tmp_path / "j.parquet")
    return tmp_path, {i: str(t) for i, t in zip(data["id"], truth, strict=True)}


def test_one_expert_review_numbers_add_up(case, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    d, truth = case
    flags = _run(
        capsys,
        "flag",
        str(d / "j.parquet"),
        "--data",
        str(d / "data.jsonl"),
        "-o",
        str(d / "flags.jsonl"),
    )
    n_flagged = flags["summary"]["flagged"]
    assert n_flagged >= 3
    # the histogram counts every flag
    assert sum(flags["summary"]["flagged_by_bin"].values()) == n_flagged
    exported = _run(
        capsys,
        "review",
        "export",
        str(d / "flags.jsonl"),
        "--experts",
        "1",
        "--audit-sample",
        "5",
        "-o",
        str(d / "review"),
    )
    assert exported["n_items"] == n_flagged + 5
    key = pl.read_ndjson(d / "review" / "key.jsonl")
    rid_to_id = dict(zip(key["review_id"], key["id"], strict=True))
    sheet = pl.read_csv(d / "review" / "expert_a.csv", infer_schema=False)
    answers = [truth[rid_to_id[r]] for r in sheet["review_id"]]
    # leave the first flag unanswered: one unresolved review
    blank = next(
        k
        for k, r in enumerate(sheet["review_id"])
        if key.filter(pl.col("review_id") == r)["stratum"][0] == "disputed"
    )
    answers[blank] = ""
    sheet.with_columns(pl.Series("label", answers)).write_csv(d / "review" / "expert_a.csv")
    imported = _run(
        capsys, "review", "import", str(d / "review" / "expert_a.csv"), "-o", str(d / "gold.jsonl")
    )
    gold = pl.read_ndjson(d / "gold.jsonl")
    # one reviewer: their label, never "experts_agree"
    assert "experts_agree" not in imported["status_counts"]
    assert imported["status_counts"]["one_expert"] == n_flagged + 5 - 1
    assert imported["unresolved"] == 1
    decided = gold.filter((pl.col("stratum") == "disputed") & pl.col("gold").is_not_null())
    assert imported["flags_decided"] == decided.height == n_flagged - 1
    assert imported["sided_with_llm"] == int((decided["gold"] == decided["llm_label"]).sum())
    assert imported["sided_with_original"] == int((decided["gold"] == decided["label"]).sum())
    assert (
        imported["sided_with_llm"]
        + imported["sided_with_original"]
        + imported["sided_with_neither"]
        == imported["flags_decided"]
    )
    assert imported["audited"] == 5
    rate = _run(capsys, "error-rate", str(d / "gold.jsonl"))
    # the sample says what it is made of: the reviewed flags, and the examples the LLM
    # agrees with (counted correct without review, as the paper does)
    agrees = gold.filter(
        (pl.col("stratum") == "undisputed") & (pl.col("llm_label") == pl.col("label"))
    ).height
    assert rate["sample_parts"] == {"reviewed": decided.height, "llm_agrees": agrees}
    assert rate["sample"] == decided.height + agrees
    assert rate["excluded"]["unresolved"] == imported["unresolved"]
    assert rate["sample"] + sum(rate["excluded"].values()) == gold.height
    # the terminal says it too, and at 80 columns the strata keep their names
    capsys.readouterr()
    assert main(["error-rate", str(d / "gold.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "of which reviewed" in out and "counted correct" in out
    assert "undisputed" in out and "undisput…" not in out


def test_export_of_no_flags_refuses_or_says_so(case, capsys):
    d, _ = case
    run_flag(
        d / "j.parquet",
        d / "data.jsonl",
        options=FlagOptions(threshold=1.0, flag_rule="threshold"),
        output=d / "flags.jsonl",
    )
    assert not pl.read_ndjson(d / "flags.jsonl")["flagged"].any()
    capsys.readouterr()
    assert main(["review", "export", str(d / "flags.jsonl"), "-o", str(d / "review")]) == 2
    err = capsys.readouterr().err
    assert "nothing to review" in err and "--audit-sample" in err
    assert len(err.strip().splitlines()) == 1
    assert not (d / "review").exists()  # no empty package
    assert (
        main(
            [
                "review",
                "export",
                str(d / "flags.jsonl"),
                "--audit-sample",
                "3",
                "-o",
                str(d / "review"),
            ]
        )
        == 0
    )
    assert "audit sample only" in capsys.readouterr().out
    assert pl.read_csv(d / "review" / "expert_a.csv").height == 3


def test_flag_histogram_counts_flags_below_the_first_edge(case):
    d, _ = case
    run = run_flag(d / "j.parquet", d / "data.jsonl", options=FlagOptions(budget=20))
    by_bin = run.summary.flagged_by_bin
    assert sum(by_bin.values()) == run.summary.flagged == 20
    low = int((run.flagged()["error_score"] < 0.5).sum())
    assert low > 0 and by_bin["< 0.5"] == low
