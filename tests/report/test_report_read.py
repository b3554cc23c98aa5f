"""report.canonical.read_results: what `benchcheck report` accepts, and how it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchcheck.cli import main
from benchcheck.errors import InputError
from benchcheck.io.canonical import SCHEMA_VERSION, dumps, read_results


def test_reads_back_what_dumps_writes(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(dumps({"n": 3, "kappa": float("nan"), "label": "é"}), encoding="utf-8")
    assert read_results(path) == {
        "schema_version": SCHEMA_VERSION,
        "n": 3,
        "kappa": None,
        "label": "é",
    }


def test_accepts_a_later_minor_version(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"schema_version": "1.7", "x": 1}', encoding="utf-8")
    assert read_results(str(path)) == {"schema_version": "1.7", "x": 1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"schema_version": "1.0",\n"x": }', "r.json:2: invalid JSON"),
        ('{"x": 1}', "r.json: expected a results.json object with a 'schema_version' key"),
        ('[{"schema_version": "1.0"}]', "expected a results.json object"),
        (
            '{"schema_version": "2.0"}',
            "r.json: unsupported schema_version; this benchcheck reads 1.x (got '2.0')",
        ),
    ],
)
def test_refusals_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_results(path)
    assert message in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nope.json: file not found"):
        read_results(tmp_path / "nope.json")


def test_report_command_exits_2_with_one_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"schema_version": "2.1"}', encoding="utf-8")
    assert main(["report", str(path), "-o", str(tmp_path / "out.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unsupported schema_version" in err[0] and str(path) in err[0]
    assert not (tmp_path / "out.html").exists()
