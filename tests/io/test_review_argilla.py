"""The Argilla files of a review package, read by Argilla's own SDK (marker ``apps``).

argilla 2.8.0 is installed in its own virtual environment (its pins are not ours);
``apps/argilla_check.py`` runs there: ``rg.Settings.from_json`` reads ``argilla/settings.json``,
``rg.Record.from_dict`` every record into a dataset of those settings, two users' answers
are added as ``rg.Response`` objects and the records' ``to_dict()`` is the export that
``benchcheck review import`` reads back. No server runs: argilla-server needs Elasticsearch
or OpenSearch (docs/labels.md).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import polars as pl
import pytest
from _apps import ARGILLA, app_venv, apps_enabled

from benchcheck.cli import main
from benchcheck.sample_data import PAIR_SAMPLE

pytestmark = [
    pytest.mark.apps,
    pytest.mark.skipif(not apps_enabled(), reason="installs Argilla: BENCHCHECK_APPS=1"),
]
CHECK = Path(__file__).parent / "apps" / "argilla_check.py"
ONE, TWO = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"


def test_argilla_sdk_reads_the_package_and_its_export_comes_back(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = pl.read_ndjson(PAIR_SAMPLE)
    flipped = {"p08", "p10", "p18"}
    flags = data.select(
        "id",
        pl.col("grounding").alias("text_a"),
        pl.col("generated_text").alias("text_b"),
        pl.col("label").cast(pl.String),
    ).with_columns(
        pl.when(pl.col("id").is_in(flipped))
        .then(pl.when(pl.col("label") == "1").then(pl.lit("0")).otherwise(pl.lit("1")))
        .otherwise(pl.col("label"))
        .alias("llm_label"),
    )
    flags = flags.with_columns((pl.col("llm_label") != pl.col("label")).alias("flagged"))
    flags.write_ndjson("flags.jsonl")
    assert main(["review", "export", "flags.jsonl", "--audit-sample", "2", "-o", "review"]) == 0
    key = pl.read_ndjson("review/key.jsonl").filter(pl.col("review_id").is_not_null())
    truth = {
        r: ({"0": "1", "1": "0"}[lab] if i in flipped else lab)
        for r, i, lab in key.select("review_id", "id", "label").iter_rows()
    }
    rids = sorted(truth)
    answers = {
        ONE: dict(truth),
        TWO: {**truth, rids[0]: {"0": "1", "1": "0"}[truth[rids[0]]], rids[1]: None},
    }
    Path("answers.json").write_text(json.dumps(answers))

    python = app_venv(ARGILLA, tmp_path) / "python"
    done = subprocess.run(
        [str(python), str(CHECK), "review", "answers.json", "argilla_export.json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["fields"] == ["text_a", "text_b"] and seen["use_markdown"] == [False, False]
    assert seen["question"] == "label" and seen["question_type"] == "LabelQuestion"
    assert seen["labels"] == ["0", "1"]
    assert seen["metadata"] == [["content_hash", "TermsMetadataProperty", False]]
    shown = json.loads(Path("review/argilla/records.json").read_text())
    assert seen["records"] == [r["id"] for r in shown]  # the blind order survives
    assert seen["metadata_of_first"] == shown[0]["metadata"]

    assert main(["review", "import", "argilla_export.json", "--key", "review/key.jsonl",
                 "--consensus", "adjudicator", "--adjudicator", f"argilla_export@{ONE}",
                 "-o", "gold.jsonl", "--json", "summary.json"]) == 0  # fmt: skip
    summary = json.loads(Path("summary.json").read_text())
    assert summary["experts"] == [f"argilla_export@{ONE}", f"argilla_export@{TWO}"]
    assert summary["status_counts"]["adjudicated"] == 2  # one disagreement, one discarded
    assert summary["audited"] == 2
    gold = pl.read_ndjson("gold.jsonl").filter(pl.col("review_id").is_not_null())
    assert dict(gold.select("review_id", "gold").iter_rows()) == truth
    assert sorted(gold.filter(pl.col("error"))["id"].to_list()) == sorted(flipped)
