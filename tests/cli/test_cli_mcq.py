"""``benchcheck flag --task mcq --answers`` end to end, and its bad inputs (issue 35)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcheck.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _bad(capsys: pytest.CaptureFixture[str], *argv: object, where: str) -> str:
    rc, out, err = _run(capsys, *argv)
    assert rc == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and where in lines[0], err
    assert "Traceback" not in out + err
    return lines[0]


@pytest.fixture
def mcq(tmp_path: Path) -> tuple[Path, Path]:
    # 40 questions, 4 options, key A; 8 models. Models answer the key, except on q07
    # (all say C: a wrong key) and on a few scattered (model, question) pairs.
    data = tmp_path / "test.jsonl"
    rows = [
        {
            "id": f"q{i:02d}",
            "question": f"Question {i}?",
            "choices": ["a", "b", "c", "d"] if i != 3 else ["a", "b", "b", "None of the above"],
            "answer": "A",
            "subject": "s1" if i < 20 else "s2",
        }
        for i in range(40)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers = tmp_path / "answers.csv"
    lines = ["id,model,answer"]
    for i in range(40):
        for j in range(8):
            a = "C" if i == 7 else ("B" if (i * 7 + j * 3) % 11 == 0 else "A")
            lines.append(f"q{i:02d},m{j},{a}")
    answers.write_text("\n".join(lines) + "\n")
    return data, answers


def test_flag_mcq_end_to_end(capsys: pytest.CaptureFixture[str], tmp_path: Path, mcq) -> None:
    data, answers = mcq
    out_file = tmp_path / "flags.jsonl"
    rc, out, err = _run(
        capsys, "flag", "--data", data, "--task", "mcq", "--answers", answers,
        "-o", out_file, "--json", "-",
    )  # fmt: skip
    assert rc == 0, err
    payload = json.loads(out)
    assert payload["summary"]["n_questions"] == 40
    assert payload["summary"]["flagged"] == 1
    top = payload["top"][0]
    assert (top["id"], top["label"], top["proposed_answer"], top["kind"]) == (
        "q07",
        "A",
        "C",
        "wrong_key",
    )
    assert top["key_share"] == 0.0
    assert payload["checks"]["counts"]["duplicate_options"] == 1
    assert payload["checks"]["counts"]["all_or_none_of_the_above"] == 1
    assert payload["answers"]["models"] == [f"m{j}" for j in range(8)]
    assert payload["by_group"]["s1"]["n"] == 20 and payload["by_group"]["s1"]["flagged"] == 1
    rank = payload["ranking_with_proposed_keys"]
    assert (rank["keys_changed"], rank["removed"], rank["questions_corrected"]) == (1, 0, 40)
    rows = [json.loads(x) for x in out_file.read_text().splitlines()]
    assert len(rows) == 40
    assert rows[7]["rank"] == 1 and rows[7]["flagged"] is True
    assert rows[0]["options"] == ["a", "b", "c", "d"] and rows[0]["group"] == "s1"


def test_flag_mcq_csv_output_keeps_options_as_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mcq
) -> None:
    data, answers = mcq
    out_file = tmp_path / "flags.csv"
    rc, _, err = _run(
        capsys, "flag", "--data", data, "--task", "mcq", "--answers", answers, "-o", out_file
    )
    assert rc == 0, err
    second = out_file.read_text().splitlines()[1]
    assert '"[""a"", ""b"", ""c"", ""d""]"' in second


def test_key_naming_no_option_is_refused_and_nothing_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mcq
) -> None:
    _, answers = mcq
    data = tmp_path / "bad.jsonl"
    data.write_text(
        json.dumps({"id": "q00", "question": "?", "choices": ["a", "b"], "answer": "A"})
        + "\n"
        + json.dumps({"id": "q01", "question": "?", "choices": ["a", "b"], "answer": "E"})
        + "\n"
    )
    out_file = tmp_path / "flags.jsonl"
    line = _bad(
        capsys, "flag", "--data", data, "--task", "mcq", "--answers", answers, "-o", out_file,
        where=f"{data}:2",
    )  # fmt: skip
    assert "the key names no option" in line
    assert not out_file.exists()


def test_answer_outside_the_options_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mcq
) -> None:
    data, answers = mcq
    text = answers.read_text().replace("q05,m2,A", "q05,m2,F")
    answers.write_text(text)
    out_file = tmp_path / "flags.jsonl"
    n = text.splitlines().index("q05,m2,F") + 1
    line = _bad(
        capsys, "flag", "--data", data, "--task", "mcq", "--answers", answers, "-o", out_file,
        where=f"{answers}:{n}",
    )  # fmt: skip
    assert "answers outside the 4 options" in line
    assert not out_file.exists()


def test_answers_need_task_mcq(capsys: pytest.CaptureFixture[str], mcq) -> None:
    data, answers = mcq
    rc, _, err = _run(capsys, "flag", "--data", data, "--answers", answers)
    assert rc != 0 and "--answers are read with --task mcq" in err


def test_review_export_shows_lettered_options_blind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mcq
) -> None:
    data, answers = mcq
    flags = tmp_path / "flags.jsonl"
    rc, _, err = _run(
        capsys, "flag", "--data", data, "--task", "mcq", "--answers", answers, "-o", flags
    )
    assert rc == 0, err
    rows = [json.loads(x) for x in flags.read_text().splitlines()]
    assert rows[7]["llm_label"] == "C" and rows[0]["llm_label"] == "A"  # proposal / key
    assert rows[0]["text"] == "Question 0?\nA. a\nB. b\nC. c\nD. d"
    review = tmp_path / "review"
    rc, _, err = _run(
        capsys, "review", "export", flags, "-o", review, "--experts", "1",
        "--labels", "A,B,C,D,none,several,unclear",
    )  # fmt: skip
    assert rc == 0, err
    sheet = (review / "expert_a.csv").read_text()
    assert sheet.splitlines()[0] == "review_id,content_hash,text,label"
    assert "Question 7?\nA. a\nB. b\nC. c\nD. d" in sheet
    assert "wrong_key" not in sheet and "proposed" not in sheet
