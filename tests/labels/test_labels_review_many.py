"""Many reviewers: consensus rules, crowd-model gold with posteriors, and bad answer files.

Five reviewers of accuracy 0.95 / 0.9 / 0.8 / 0.7 / 0.55 label a 300-item review (flags of a
synthetic pair file) in their exported sheets; the rules are checked against the truth.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from benchcheck.cli import main
from benchcheck.errors import InputError, UsageError
from benchcheck.io.tables import read_rows
from benchcheck.runs.review import run_review_export, run_review_import

ACCURACY = (0.95, 0.9, 0.8, 0.7, 0.55)
NAMES = tuple(f"expert_{c}" for c in "abcde")


def _review(tmp_path: Path, n: int = 300, seed: int = 0) -> dict[str, str]:
    """Export ``n`` flagged pairs to five experts who answer with ``ACCURACY``; the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n).astype(str)
    flags = pl.DataFrame(
        {
            "id": [f"x{i:03d}" for i in range(n)],
            "text_a": [f"premise {i}" for i in range(n)],
            "text_b": [f"claim {i}" for i in range(n)],
            "label": [("1" if t == "0" else "0") if i % 3 == 0 else t for i, t in enumerate(truth)],
            "llm_label": [("0" if t == "0" else "1") for t in truth],
            "confidence": [0.9] * n,
        }
    ).with_columns(pl.lit(True).alias("flagged"))  # every pair goes to review
    run_review_export(flags, tmp_path, experts=5, seed=1)
    right = dict(zip(flags["id"], truth, strict=True))
    key = {r["review_id"]: r["id"] for r in read_rows(tmp_path / "key.jsonl").to_dicts()}
    for name, acc in zip(NAMES, ACCURACY, strict=True):
        sheet = pl.read_csv(tmp_path / f"{name}.csv", infer_schema=False)
        answers = []
        for rid in sheet["review_id"]:
            t = right[key[rid]]
            answers.append(t if rng.random() < acc else {"0": "1", "1": "0"}[t])
        sheet.with_columns(pl.Series("label", answers)).write_csv(tmp_path / f"{name}.csv")
    return right


def _accuracy(gold: pl.DataFrame, truth: dict[str, str]) -> float:
    rows = gold.filter(pl.col("gold").is_not_null())
    return float(np.mean([truth[i] == g for i, g in rows.select("id", "gold").iter_rows()]))


def test_consensus_rules_on_five_reviewers(tmp_path):
    truth = _review(tmp_path)
    files = [tmp_path / f"{n}.csv" for n in NAMES]
    unanimous = run_review_import(files)
    majority = run_review_import(files, consensus="majority")
    crowd = run_review_import(files, consensus="dawid-skene")
    adjudicated = run_review_import(files, consensus="adjudicator", adjudicator="expert_a")
    n = unanimous.summary.n_reviewed
    # unanimous leaves every disagreement open; the others decide (5 binary answers: no tie)
    assert unanimous.summary.status_counts["unresolved"] > 0.5 * n
    assert majority.summary.status_counts["unresolved"] == 0
    assert crowd.summary.status_counts["unresolved"] == 0
    assert adjudicated.summary.status_counts["unresolved"] == 0
    # the crowd model weighs reviewers by accuracy: it beats the majority vote
    acc_majority, acc_crowd = _accuracy(majority.gold, truth), _accuracy(crowd.gold, truth)
    assert acc_crowd > acc_majority
    fitted = crowd.summary.crowd
    for name, acc in zip(NAMES, ACCURACY, strict=True):
        assert fitted.accuracy[name] == pytest.approx(acc, abs=0.07)  # 300 items: ±0.07
    post = crowd.gold.filter(pl.col("review_id").is_not_null())
    assert (post["posterior_0"] + post["posterior_1"] - 1).abs().max() < 1e-9
    assert crowd.to_json()["crowd_model"]["method"] == "dawid-skene"
    assert "labels" not in crowd.to_json()["crowd_model"]  # posteriors go to the gold file
    # the adjudicator's label decides exactly the disagreements
    votes = adjudicated.gold.filter(pl.col("status") == "adjudicated")
    assert (votes["gold"] == votes["expert_a"]).all()
    assert unanimous.summary.agreement_before["krippendorff_alpha"] is not None


def test_crowd_gold_feeds_error_rate_with_posteriors(tmp_path):
    _review(tmp_path, n=120)
    files = [str(tmp_path / f"{n}.csv") for n in NAMES]
    gold = tmp_path / "gold.jsonl"
    argv = ["review", "import", *files, "--consensus", "dawid-skene", "-o", str(gold)]
    assert main(argv) == 0
    out = tmp_path / "er.json"
    assert main(["error-rate", str(gold), "--population", "1000", "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    frame = pl.read_ndjson(gold)
    reviewed = frame.filter(pl.col("gold").is_not_null())
    p_error = [1 - row[f"posterior_{row['label']}"] for row in reviewed.iter_rows(named=True)]
    soft = payload["posterior"]
    assert soft["expected_errors"] == pytest.approx(sum(p_error))
    assert soft["sample"] == payload["sample"] == reviewed.height
    assert soft["ci"][0] <= soft["error_rate"] <= soft["ci"][1]
    hard_errors = payload["errors"]
    assert abs(soft["expected_errors"] - hard_errors) < 0.1 * reviewed.height


def test_bad_answer_files_one_line_exit_2_nothing_written(tmp_path, capsys):
    _review(tmp_path, n=30)
    key = str(tmp_path / "key.jsonl")
    sheet = pl.read_csv(tmp_path / "expert_a.csv", infer_schema=False)
    ls_task = [
        {"data": {"review_id": r, "content_hash": h},
         "annotations": [{"completed_by": 7, "result": [{"value": {"choices": [lab]}}]}]}
        for r, h, lab in sheet.select("review_id", "content_hash", "label").iter_rows()
    ]  # fmt: skip
    cases = {
        # an export of another project: a review id the key does not have
        "other_project.json": [
            {**ls_task[0], "data": {"review_id": "r9999", "content_hash": "0" * 16}}
        ],
        # an answer outside the label set
        "outside.json": [
            {
                **ls_task[0],
                "annotations": [{"completed_by": 7, "result": [{"value": {"choices": ["maybe"]}}]}],
            }
        ],  # fmt: skip
        # a reviewer who skipped every task (JSON-MIN lists nothing of a skipped task)
        "skipped_all.json": [
            {**t, "annotations": [{"completed_by": 7, "was_cancelled": True, "result": []}]}
            for t in ls_task
        ],
    }
    expected = {
        "other_project.json": "review_id not in the review key",
        "outside.json": "label must be one of",
        "skipped_all.json": "answered nothing",
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(content))
        out = tmp_path / f"gold_{name}.jsonl"
        assert main(["review", "import", str(path), "--key", key, "-o", str(out)]) == 2, name
        err = capsys.readouterr().err
        assert expected[name] in err, err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        assert not out.exists()


def test_consensus_option_errors(tmp_path):
    _review(tmp_path, n=20)
    files = [tmp_path / f"{n}.csv" for n in NAMES[:2]]
    with pytest.raises(UsageError, match="none of the experts"):
        run_review_import(files, consensus="adjudicator", adjudicator="expert_z")
    with pytest.raises(UsageError, match="goes with"):
        run_review_import(files, adjudicator="expert_a")
    with pytest.raises(UsageError, match="must be one of"):
        run_review_import(files, consensus="loudest")
    # a sheet exported but never filled is refused, naming the file
    blank = pl.read_csv(tmp_path / "expert_c.csv", infer_schema=False)
    blank.with_columns(pl.lit("").alias("label")).write_csv(tmp_path / "expert_c.csv")
    with pytest.raises(InputError, match="answered nothing") as exc:
        run_review_import([*files, tmp_path / "expert_c.csv"])
    assert str(exc.value.path).endswith("expert_c.csv")
