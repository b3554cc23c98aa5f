"""benchcheck.write_report: the report folder from Python, the same bytes the CLI writes."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

import benchcheck
from benchcheck.audit import AuditInputs, AuditReport, run_audit
from benchcheck.cli import main
from benchcheck.report.folder import write_report
from benchcheck.report.html import render_html
from benchcheck.report.markdown import render_markdown
from benchcheck.sample_data import NER_SAMPLE


def test_public_name() -> None:
    assert benchcheck.write_report is write_report
    assert "write_report" in benchcheck.__all__


def test_folder_by_hand(tmp_path: Path) -> None:
    results = {"title": "t", "notes": ["café"], "kappa": float("nan"), "n": 2}
    flagged = pl.DataFrame(
        {"rank": [1, 2], "id": ["b", "a"], "text": ["x, y", "é"], "confidence": [0.9, 0.75]}
    )
    written = write_report(AuditReport(results, flagged=flagged), tmp_path / "new")
    names = ["results.json", "report.html", "report.md", "flagged.csv", "flagged.jsonl"]
    assert written == [tmp_path / "new" / n for n in names]
    text = (tmp_path / "new" / "results.json").read_text(encoding="utf-8")
    assert text == (
        '{\n  "schema_version": "1.0",\n  "title": "t",\n  "notes": [\n    "café"\n  ],\n'
        '  "kappa": null,\n  "n": 2\n}\n'
    )
    canonical = json.loads(text)
    assert (tmp_path / "new" / "report.html").read_text(encoding="utf-8") == render_html(canonical)
    assert (tmp_path / "new" / "report.md").read_text(encoding="utf-8") == render_markdown(
        canonical
    )
    assert (tmp_path / "new" / "flagged.csv").read_text(encoding="utf-8") == (
        'rank,id,text,confidence\n1,b,"x, y",0.9\n2,a,é,0.75\n'
    )
    assert (tmp_path / "new" / "flagged.jsonl").read_text(encoding="utf-8") == (
        '{"rank": 1, "id": "b", "text": "x, y", "confidence": 0.9}\n'
        '{"rank": 2, "id": "a", "text": "é", "confidence": 0.75}\n'
    )
    # a later audit that flagged nothing leaves no stale flagged files behind
    assert write_report(AuditReport(results), tmp_path / "new") == written[:3]
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == sorted(names[:3])


def test_cli_writes_what_the_library_writes(tmp_path: Path) -> None:
    assert main(["audit", str(NER_SAMPLE), "-o", str(tmp_path / "cli")]) == 0
    write_report(run_audit(AuditInputs(ner=str(NER_SAMPLE))), tmp_path / "lib")
    for name in ("results.json", "report.html", "report.md"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "lib" / name).read_bytes()
    assert sorted(p.name for p in (tmp_path / "cli").iterdir()) == sorted(
        p.name for p in (tmp_path / "lib").iterdir()
    )
