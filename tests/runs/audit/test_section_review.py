"""Section ``review``: the gold labels' error rate, agreement per bin and ensemble curve.

Each key holds exactly what its command gives on the same files (``error-rate``, ``bins``,
``ensemble-curve``); the curve needs this audit's judgments, so it appears only when the
label-error section judged the examples.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _review_case import StubJudge, review_case

from benchcheck.data.columns import Columns
from benchcheck.io.canonical import dumps
from benchcheck.labels.flags import DEFAULT_BINS
from benchcheck.runs.audit import AuditInputs, TableInput, render_results, run_audit
from benchcheck.runs.error_rate import run_error_rate
from benchcheck.runs.labels import run_bins, run_ensemble_curve

PAIR = Columns(text_a="text_a", text_b="text_b")


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return review_case(tmp_path_factory.mktemp("review"))


def _plain(payload: dict) -> dict:
    """A command's JSON as results.json holds it (canonical, no schema_version)."""
    return {k: v for k, v in json.loads(dumps(payload)).items() if k != "schema_version"}


def _status(results: dict) -> tuple[str, str]:
    return next((a["status"], a["detail"]) for a in results["analyses"] if a["name"] == "review")


def test_skipped_without_gold(case) -> None:
    report = run_audit(AuditInputs(table=TableInput(str(case["data"]), PAIR), judge=None))
    assert _status(report.results) == (
        "skipped",
        "no --gold labels given (benchcheck review import -o)",
    )
    assert "error_rate" not in report.results


def test_gold_gives_the_commands_figures(case) -> None:
    table = TableInput(str(case["data"]), PAIR, gold=str(case["gold"]))
    report = run_audit(AuditInputs(table=table, judge=None, resamples=200, seed=4))
    results = json.loads(dumps(report.results))
    expected_bins = run_bins(case["gold"], bins=DEFAULT_BINS, bootstrap=200, seed=4)
    assert results["error_rate"] == _plain(run_error_rate(case["gold"]).to_json())
    assert results["bin_agreement"] == _plain(expected_bins.to_json())
    assert "ensemble_curve" not in results  # no judgments in this audit
    rate = results["error_rate"]
    assert _status(results) == (
        "ok",
        f"error rate {rate['error_rate']:.3f} ({rate['errors']}/{rate['sample']} reviewed); "
        f"{len(DEFAULT_BINS) - 1} bins",
    )
    # the experts answered the truth: every reviewed flag of a planted flip sided with the LLM
    assert rate["errors"] > 0 and rate["error_rate"] == rate["errors"] / rate["sample"]
    page, md = render_results(results)
    assert '<section id="review"><h2>Expert review</h2>' in page
    assert "agreement per bin" in page and "ensemble size curves" not in page
    assert "## Expert review" in md and "### Ensemble-size curve" not in md


def test_the_audit_s_judgments_give_the_ensemble_curve(case, tmp_path, monkeypatch) -> None:
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod
    from benchcheck.judges.run import AUDIT_PROMPTS
    from benchcheck.runs.judge import run_judge
    from benchcheck.runs.judging import JudgeSetup

    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: StubJudge())
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")
    table = TableInput(str(case["data"]), PAIR, gold=str(case["gold"]))
    results = json.loads(dumps(run_audit(AuditInputs(table=table, seed=2)).results))
    # the same judge through `benchcheck judge`, then `benchcheck ensemble-curve`
    judged = run_judge(
        case["data"],
        columns=PAIR,
        setup=JudgeSetup(("stub",), use_cache=False),
        prompts=AUDIT_PROMPTS,
        output=tmp_path / "j.parquet",
    )
    assert judged.output is not None
    curve = run_ensemble_curve(tmp_path / "j.parquet", case["gold"], seed=2).to_json()
    assert results["ensemble_curve"] == _plain(curve)
    assert [p["size"] for p in results["ensemble_curve"]["points"]] == [1, 2]
    assert _status(results)[1].endswith("; ensemble curve")
    page, md = render_results(results)
    assert "ensemble size curves" in page and "### Ensemble-size curve" in md
    # the rate the calibrated error scores expected before review, beside the reviewed one
    before = results["before_review"]
    assert before == results["label_errors"]["expected_errors"]
    assert before["rate"] == pytest.approx(before["expected"] / before["n"], rel=1e-12)
    assert "<h3>Error rate: before and after review</h3>" in page
    rows = md.split("### Error rate: before and after review\n", 1)[1].split("\n\n", 1)[0]
    rate = results["error_rate"]
    assert f"| expected before review | {before['rate']:.4f} |" in rows
    assert f"| reviewed sample | {rate['error_rate']:.4f} |" in rows
