"""The test-theory sections of the audit: items, ranking, diff, and --fail-on."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.errors import UsageError
from benchcheck.io.canonical import dumps
from benchcheck.runs.audit import AuditInputs, TableInput, run_audit

sys.path.insert(0, str(Path(__file__).parents[2] / "cli"))
from test_cli_items import _write_case  # noqa: E402


def test_items_ranking_and_diff_sections(tmp_path: Path) -> None:
    files = _write_case(tmp_path, k=50, m=4)
    table = TableInput(
        str(tmp_path / "data.jsonl"),
        Columns(text_a="text_a", text_b="text_b"),
        predictions=files,
        error_rate="2/100",
    )
    inp = AuditInputs(table=table, judge=None, resamples=200)
    first = run_audit(inp).results
    status = {a["name"]: a["status"] for a in first["analyses"]}
    assert status["items"] == status["ranking"] == "ok" and status["diff"] == "skipped"
    assert first["items"]["n_items"] == 50 and first["rank"]["n_items"] == 50
    (tmp_path / "old.json").write_text(dumps(first))
    again = run_audit(dataclasses.replace(inp, baseline=str(tmp_path / "old.json")))
    diff = again.results["diff"]
    assert diff["n_changed"] == 0 and diff["n_values"] > 10


def test_one_model_skips_items_and_ranking_with_the_reason(tmp_path: Path) -> None:
    """Item analysis compares examinees: one model's predictions skip it, never fail."""
    files = _write_case(tmp_path, k=20, m=2)
    one = dict(list(files.items())[:1])
    table = TableInput(
        str(tmp_path / "data.jsonl"), Columns(text_a="text_a", text_b="text_b"), predictions=one
    )
    results = run_audit(AuditInputs(table=table, judge=None, resamples=50)).results
    detail = {a["name"]: (a["status"], a.get("detail")) for a in results["analyses"]}
    assert detail["items"] == ("skipped", "needs two or more models' --predictions (got one)")
    assert detail["ranking"][0] == "skipped"
    assert "items" not in results


def test_audit_gates_on_changes_against_its_baseline(tmp_path: Path) -> None:
    """``change(NAME)`` in ``audit --fail-on`` is new − old against ``--baseline``."""
    files = _write_case(tmp_path, k=30, m=3)
    table = TableInput(
        str(tmp_path / "data.jsonl"), Columns(text_a="text_a", text_b="text_b"), predictions=files
    )
    inp = AuditInputs(table=table, judge=None, resamples=50)
    (tmp_path / "old.json").write_text(dumps(run_audit(inp).results))
    again = dataclasses.replace(inp, baseline=str(tmp_path / "old.json"))
    gates = run_audit(again, fail_on="change(items.n_items)>=0,change(items.n_items)>0").gates
    assert [(g.path, g.value, g.failed) for g in gates] == [
        ("items.n_items", 0.0, True),  # 30 − 30 = 0 >= 0 holds: the gate fails
        ("items.n_items", 0.0, False),
    ]
    with pytest.raises(UsageError, match="needs two audits"):
        run_audit(inp, fail_on="change(items.n_items)>0")


def test_audit_fail_on_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _write_case(tmp_path, k=40, m=3)
    base = [
        "audit",
        str(tmp_path / "data.jsonl"),
        "--text-a",
        "text_a",
        "--text-b",
        "text_b",
        "--no-judge",
        *[a for n, f in files.items() for a in ("--predictions", f"{n}={f}")],
    ]
    code = main([*base, "-o", str(tmp_path / "r1"), "--fail-on", "cronbach_alpha<0.99"])
    assert code == 1
    assert "FAIL" in capsys.readouterr().err
    assert json.loads((tmp_path / "r1" / "results.json").read_text())["items"]
    assert main([*base, "-o", str(tmp_path / "r2"), "--fail-on", "cronbach_alpha<0"]) == 0
    assert main([*base, "-o", str(tmp_path / "r3"), "--fail-on", "alpha >> 1"]) == 2
    assert not (tmp_path / "r3").exists()
