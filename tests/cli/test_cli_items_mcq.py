"""``benchcheck items --task mcq --answers``: item analysis on the models' answers (issue 35)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchcheck.cli import main

# Keys all A. Models' answers -> scores (1 = the key):
#   q1: A A B -> 1 1 0     q2: A B B -> 1 0 0     q3: A A A -> 1 1 1     q4: B A A -> 0 1 1
ANSWERS = {"q1": "AAB", "q2": "ABB", "q3": "AAA", "q4": "BAA"}


def _write(tmp_path: Path, *, drop: tuple[str, str] | None = None) -> tuple[Path, Path]:
    data = tmp_path / "q.csv"
    data.write_text(
        "id,question,A,B,C,answer\n"
        + "".join(f"{q},Question {q}?,x{q},y{q},z{q},A\n" for q in ANSWERS)
    )
    answers = tmp_path / "answers.csv"
    rows = [
        f"{q},m{j + 1},{a}"
        for q, line in ANSWERS.items()
        for j, a in enumerate(line)
        if (q, f"m{j + 1}") != drop
    ]
    answers.write_text("id,model,answer\n" + "\n".join(rows) + "\n")
    return data, answers


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_items_mcq_hand_computed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data, answers = _write(tmp_path)
    rc, out, err = _run(
        capsys, "items", data, "--task", "mcq", "--answers", answers, "--json", "-",
        "--irt", "none", "--bootstrap", "50",
    )  # fmt: skip
    assert rc == 0, err
    got = json.loads(out)
    assert (got["n_items"], got["n_models"]) == (4, 3)
    q4 = next(i for i in got["items"] if i["id"] == "q4")
    assert q4["difficulty"] == pytest.approx(2 / 3)
    # corrected item-total r: item (0, 1, 1) vs rest totals (3, 2, 1) = -3 / sqrt(12)
    assert q4["discrimination"] == pytest.approx(-3 / math.sqrt(12))
    # point-biserial on the totals (3, 3, 2): -1/3 / (6/9) = -0.5
    assert q4["point_biserial"] == pytest.approx(-0.5)
    assert q4["flag"] == "negative discrimination"
    assert got["counts"]["every model right"] == 1  # q3
    # the same numbers as the 0/1 matrix given whole (the items analysis is reused)
    matrix = tmp_path / "m.csv"
    matrix.write_text(
        "id,m1,m2,m3\n"
        + "".join(
            f"{q},{','.join('1' if a == 'A' else '0' for a in line)}\n"
            for q, line in ANSWERS.items()
        )
    )
    rc, out2, err = _run(
        capsys, "items", "--matrix", matrix, "--json", "-", "--irt", "none", "--bootstrap", "50"
    )
    assert rc == 0, err
    assert got["items"] == json.loads(out2)["items"]


def test_items_mcq_missing_answer_needs_intersect(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data, answers = _write(tmp_path, drop=("q2", "m3"))
    rc, out, err = _run(capsys, "items", data, "--task", "mcq", "--answers", answers)
    assert rc == 2
    (line,) = err.strip().splitlines()
    assert "q.csv" in line and "'m3' has no prediction for item 'q2'" in line
    assert "--intersect" in line
    rc, out, err = _run(
        capsys, "items", data, "--task", "mcq", "--answers", answers, "--intersect",
        "--json", "-", "--irt", "none", "--bootstrap", "50",
    )  # fmt: skip
    assert rc == 0, err
    got = json.loads(out)
    assert got["n_items"] == 3 and got["dropped"] == {"m1": 1, "m2": 1, "m3": 0}


@pytest.mark.parametrize(
    ("argv", "where"),
    [
        (["--task", "mcq"], "--task mcq and the models' --answers go together"),
        (["--answers", "ANSWERS"], "--task mcq and the models' --answers go together"),
        (["--task", "ner", "--answers", "ANSWERS"], "--task of items: mcq"),
    ],
)
def test_items_mcq_bad_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], where: str
) -> None:
    data, answers = _write(tmp_path)
    argv = [str(answers) if a == "ANSWERS" else a for a in argv]
    rc, _, err = _run(capsys, "items", data, *argv)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and where in err, err


def test_items_mcq_answer_outside_the_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data, answers = _write(tmp_path)
    answers.write_text(answers.read_text().replace("q1,m3,B", "q1,m3,E"))
    rc, _, err = _run(capsys, "items", data, "--task", "mcq", "--answers", answers)
    assert rc == 2
    (line,) = err.strip().splitlines()
    assert "answers.csv:" in line and "outside the 3 options" in line
