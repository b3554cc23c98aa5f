"""runs.stats: one pipeline behind `benchcheck stats`, `compare` and the audit's statistics."""

from __future__ import annotations

import json

import pytest

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.errors import UsageError
from benchcheck.io.canonical import dumps
from benchcheck.io.load import load
from benchcheck.io.source import DataSource
from benchcheck.metrics.compute import compute_stats
from benchcheck.runs.audit import AuditInputs, NerInput, run_audit
from benchcheck.runs.stats import NearDuplicateOptions, run_compare, run_stats
from benchcheck.sample_data import NER_SAMPLE, PAIR_SAMPLE


def test_plain_run_is_compute_stats():
    run = run_stats(DataSource(str(NER_SAMPLE)))
    assert run.to_json() == compute_stats(load(NER_SAMPLE)).to_json()
    assert run.buckets is None and run.near_duplicates is None


def test_cli_audit_and_library_give_one_object(tmp_path):
    """`stats --json`, the run and the audit's statistics: one JSON, predictions too."""
    pred = tmp_path / "pred.txt"
    pred.write_bytes((NER_SAMPLE / "test.txt").read_bytes())  # a perfect model
    out = tmp_path / "s.json"
    assert (
        main(["stats", str(NER_SAMPLE), "--predictions", f"oracle={pred}", "--json", str(out)]) == 0
    )
    cli = json.loads(out.read_text())
    run = run_stats(DataSource(str(NER_SAMPLE)), predictions={"oracle": str(pred)})
    assert cli == json.loads(dumps(run.to_json()))
    assert cli["model_scores"] == {"oracle": 100.0}
    assert cli["buckets"]["oracle"]["all"]["f1"] == 1.0
    audit = run_audit(
        AuditInputs(ner=NerInput(str(NER_SAMPLE), predictions={"oracle": str(pred)}), judge=None)
    )
    # The audit shows bundled paths as benchcheck:sample_data/..., as stats does.
    assert json.loads(dumps(audit.results["stats"])) == cli


def test_pair_stats_and_near_duplicates():
    src = DataSource(
        str(PAIR_SAMPLE), task="pair", columns=Columns(text_a="grounding", text_b="generated_text")
    )
    run = run_stats(src, near_duplicates=NearDuplicateOptions(threshold=0.8, seed=1))
    js = run.to_json()
    assert js["task"] == "pair" and "near_duplicates" in js
    assert js["near_duplicates"]["parameters"]["threshold"] == 0.8


def test_usage_errors_before_reading():
    with pytest.raises(UsageError, match="give either scores or predictions"):
        run_stats(DataSource("missing/"), scores={"a": 1.0}, predictions={"m": "x"})
    with pytest.raises(UsageError, match="at least one dataset"):
        run_compare({})


def test_compare_is_stats_per_dataset():
    res = run_compare({"a": DataSource(str(NER_SAMPLE)), "b": DataSource(str(NER_SAMPLE))})
    js = res.to_json()
    assert list(js["datasets"]) == ["a", "b"]
    assert js["datasets"]["a"] == compute_stats(load(NER_SAMPLE)).to_json()
