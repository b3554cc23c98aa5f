"""Readers of the test-theory commands: predictions, flags, precisions, residual rates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcheck.errors import InputError, UsageError
from benchcheck.io.items import read_flags, read_precision, read_predictions, read_residual
from benchcheck.items.noise import BinPrecision


def test_predictions_errors_name_the_line(tmp_path: Path) -> None:
    p = tmp_path / "a.jsonl"
    p.write_text('{"id": "1", "pred": "0"}\n{"id": "2", "pred": null}\n')
    with pytest.raises(InputError, match=r"a.jsonl:2: model 'A' has no prediction for item '2'"):
        read_predictions("A", p)
    p.write_text('{"id": "1", "pred": "0"}\n{"id": "1", "pred": "1"}\n')
    with pytest.raises(InputError, match=r"a.jsonl:2: id given twice"):
        read_predictions("A", p)
    c = tmp_path / "b.csv"
    c.write_text("id,score\n1,0.7\n2,0.2\n")
    assert read_predictions("B", c, positive="1", labels=["0", "1"]) == {"1": "1", "2": "0"}
    with pytest.raises(UsageError, match="score only"):
        read_predictions("B", c)


def test_flags_keep_flagged_rows_with_bin(tmp_path: Path) -> None:
    f = tmp_path / "flags.csv"
    f.write_text('id,label,llm_label,flagged,bin\n1,0,1,true,"[0.9, 0.95)"\n2,0,0,false,\n')
    assert read_flags(f) == {"1": ("1", "[0.9, 0.95)")}
    (tmp_path / "bad.csv").write_text("id,label\n1,0\n")
    with pytest.raises(InputError, match="not a flags file"):
        read_flags(tmp_path / "bad.csv")


def test_precision_from_a_number_and_from_bins_json(tmp_path: Path) -> None:
    assert read_precision("0.8") == {"*": BinPrecision(0.8, 1 - 0.8, fixed=True)}
    path = tmp_path / "bins.json"
    path.write_text(
        json.dumps(
            {
                "bins": [
                    {"bin": "[0.9, 1]", "n": 10, "with_llm": 0.7, "with_original": 0.2},
                    {"bin": "[0.5, 0.9)", "n": 0, "with_llm": None, "with_original": None},
                ]
            }
        )
    )
    got = read_precision(str(path))
    assert got["[0.9, 1]"] == BinPrecision(7, 2, 1)
    assert got["[0.5, 0.9)"] == BinPrecision(0, 0, 0)
    with pytest.raises(UsageError, match=r"\[0, 1\]"):
        read_precision("1.5")


def test_residual_rate_forms(tmp_path: Path) -> None:
    assert read_residual("0.03") == 0.03
    assert read_residual("4/200") == (4, 200)
    path = tmp_path / "er.json"
    path.write_text(json.dumps({"errors": 12, "sample": 200, "error_rate": 0.06}))
    assert read_residual(str(path)) == (12, 200)
    with pytest.raises(UsageError, match="errors <= sample"):
        read_residual("5/3")
