"""``benchcheck audit`` is a thin layer over runs.audit.run_audit: options in, files out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.diagnostics import sample_predictions_path
from benchcheck.io.canonical import dumps
from benchcheck.runs.audit import AuditInputs, NerInput, SuiteInput, TableInput, run_audit
from benchcheck.sample_data import DIAGNOSTIC_SAMPLE, NER_SAMPLE, PAIR_SAMPLE


def _cli(tmp_path: Path, *argv: str) -> tuple[int, str]:
    rc = main(["audit", *argv, "-o", str(tmp_path)])
    text = (tmp_path / "results.json").read_text(encoding="utf-8") if rc == 0 else ""
    return rc, text


def test_samples_run_equals_the_library_on_the_same_inputs(tmp_path: Path) -> None:
    rc, text = _cli(tmp_path, "--no-judge", "--seed", "2")
    assert rc == 0
    inputs = AuditInputs(
        ner=NerInput(str(NER_SAMPLE)),
        table=TableInput(str(PAIR_SAMPLE), Columns(text_a="grounding", text_b="generated_text")),
        judge=None,
        suite=SuiteInput(
            str(DIAGNOSTIC_SAMPLE), {"overlap-baseline": str(sample_predictions_path())}
        ),
        seed=2,
    )
    assert text == dumps(run_audit(inputs).results)


def test_options_become_inputs(tmp_path: Path) -> None:
    splits = [f"{n}={NER_SAMPLE / f'{n}.txt'}" for n in ("train", "test")]
    argv = [a for s in splits for a in ("--split", s)]
    rc, text = _cli(tmp_path, *argv, "--scores", "93,91", "--compare", f"again={NER_SAMPLE}")
    assert rc == 0
    inputs = AuditInputs(
        ner=NerInput(
            splits={n: str(NER_SAMPLE / f"{n}.txt") for n in ("train", "test")},
            scores={"model_1": 93.0, "model_2": 91.0},
            compare={"again": str(NER_SAMPLE)},
        )
    )
    assert text == dumps(run_audit(inputs).results)
    assert json.loads(text)["stats"]["model_scores"] == {"model_1": 93.0, "model_2": 91.0}


def test_bad_scores_are_reported_before_reading_the_data(tmp_path: Path, capsys) -> None:
    rc = main(["audit", str(tmp_path / "missing"), "--scores", "93,abc", "-o", str(tmp_path)])
    assert rc == 2
    assert "--scores expects comma-separated numbers, got 'abc'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--split", "train"], "--split expects NAME=VALUE, got 'train'"),
        (["--compare", "x"], "--compare expects NAME=VALUE, got 'x'"),
        (["--text-a", "a", "--text-b", "b"], "name the data file these options apply to (DATA)"),
        (["--text-a", "a"], "--text-a and --text-b go together: give both"),
    ],
)
def test_option_errors_exit_2_with_the_option_named(tmp_path, capsys, argv, message) -> None:
    assert main(["audit", *argv, "-o", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists()


def test_scheme_in_any_case_reads_the_predictions_too(tmp_path: Path) -> None:
    # --scheme iob2 was capitalised for the dataset but not for the prediction files, which
    # then failed with "unknown tagging scheme" (stats capitalises it once for both).
    rc, text = _cli(
        tmp_path,
        str(NER_SAMPLE),
        "--scheme",
        "iob2",
        "--predictions",
        f"gold={NER_SAMPLE / 'test.txt'}",
    )
    assert rc == 0
    assert json.loads(text)["stats"]["model_scores"] == {"gold": 100.0}
