"""benchcheck.write_report: the report folder from Python, the same bytes the CLI writes."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from _golden import without_wall_clock

import benchcheck
from benchcheck.cli import main
from benchcheck.errors import UsageError
from benchcheck.io.typed import ShapeError
from benchcheck.runs.audit import (
    AuditInputs,
    AuditReport,
    NerInput,
    render_results,
    run_audit,
    write_report,
)
from benchcheck.sample_data import NER_SAMPLE

HEAD = {"title": "t", "inputs": {"data": "café"}, "analyses": []}


def test_public_name() -> None:
    assert benchcheck.write_report is write_report
    assert "write_report" in benchcheck.__all__


def test_folder_by_hand(tmp_path: Path) -> None:
    results = {**HEAD, "kappa": float("nan"), "n": 2}  # keys no section declares: kept
    flagged = pl.DataFrame(
        {"rank": [1, 2], "id": ["b", "a"], "text": ["x, y", "é"], "confidence": [0.9, 0.75]}
    )
    written = write_report(AuditReport(results, flagged=flagged), tmp_path / "new")
    names = ["results.json", "report.html", "report.md", "flagged.csv", "flagged.jsonl"]
    assert written == [tmp_path / "new" / n for n in names]
    text = (tmp_path / "new" / "results.json").read_text(encoding="utf-8")
    assert text == (
        '{\n  "schema_version": "1.0",\n  "title": "t",\n  "inputs": {\n    "data": "café"\n'
        '  },\n  "analyses": [],\n  "kappa": null,\n  "n": 2\n}\n'
    )
    html, markdown = render_results(json.loads(text))
    assert (tmp_path / "new" / "report.html").read_text(encoding="utf-8") == html
    assert (tmp_path / "new" / "report.md").read_text(encoding="utf-8") == markdown
    assert (tmp_path / "new" / "flagged.csv").read_text(encoding="utf-8") == (
        'rank,id,text,confidence\n1,b,"x, y",0.9\n2,a,é,0.75\n'
    )
    assert (tmp_path / "new" / "flagged.jsonl").read_text(encoding="utf-8") == (
        '{"rank": 1, "id": "b", "text": "x, y", "confidence": 0.9}\n'
        '{"rank": 2, "id": "a", "text": "é", "confidence": 0.75}\n'
    )
    # an existing report is never replaced without force
    with pytest.raises(UsageError, match="already holds results.json"):
        write_report(AuditReport(results), tmp_path / "new")
    assert (tmp_path / "new" / "results.json").read_text(encoding="utf-8") == text


def test_stale_flag_files_go_only_if_the_earlier_report_wrote_them(tmp_path: Path) -> None:
    flagged = pl.DataFrame({"rank": [1], "id": ["a"], "confidence": [0.9]})
    write_report(AuditReport(dict(HEAD), flagged=flagged), tmp_path / "r")
    listed = {**HEAD, "label_errors": {"files": ["flagged.csv", "flagged.jsonl"]}}
    (tmp_path / "r" / "results.json").write_text(json.dumps(listed))  # as the audit lists them
    # a later audit that flagged nothing leaves no stale flagged files behind
    written = write_report(AuditReport(dict(HEAD)), tmp_path / "r", force=True)
    assert [p.name for p in written] == ["results.json", "report.html", "report.md"]
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "report.html",
        "report.md",
        "results.json",
    ]
    # a flagged.csv the report did not write (the user's own) is never removed
    (tmp_path / "r" / "flagged.csv").write_text("mine")
    (tmp_path / "r" / "notes.txt").write_text("mine too")
    write_report(AuditReport(dict(HEAD)), tmp_path / "r", force=True)
    assert (tmp_path / "r" / "flagged.csv").read_text() == "mine"
    assert (tmp_path / "r" / "notes.txt").read_text() == "mine too"


def test_report_never_writes_over_an_input(tmp_path: Path) -> None:
    data = tmp_path / "report.md"
    data.write_text("the user's notes")
    report = AuditReport(dict(HEAD), sources=(str(data),))
    with pytest.raises(UsageError, match="input"):
        write_report(report, tmp_path, force=True)
    assert data.read_text() == "the user's notes"


def test_cli_writes_what_the_library_writes(tmp_path: Path) -> None:
    assert main(["audit", str(NER_SAMPLE), "-o", str(tmp_path / "cli")]) == 0
    write_report(run_audit(AuditInputs(ner=NerInput(str(NER_SAMPLE)))), tmp_path / "lib")
    # the same results but for the tagger's measured seconds (NER label errors), which the
    # report does not show
    cli, lib = ((tmp_path / d / "results.json").read_text("utf-8") for d in ("cli", "lib"))
    assert without_wall_clock(cli) == without_wall_clock(lib)
    for name in ("report.html", "report.md"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "lib" / name).read_bytes()
    assert sorted(p.name for p in (tmp_path / "cli").iterdir()) == sorted(
        p.name for p in (tmp_path / "lib").iterdir()
    )


def test_results_that_break_a_section_s_type_are_not_written(tmp_path: Path) -> None:
    broken = {**HEAD, "stats": {"task": "ner"}}
    with pytest.raises(ShapeError, match=r"\$\.stats\.dataset: expected a string or null, missing"):
        write_report(AuditReport(broken), tmp_path / "r")
    assert not (tmp_path / "r").exists()
