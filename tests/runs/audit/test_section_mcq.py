"""``benchcheck audit --task mcq``: the multiple-choice section (issue 35).

Structural checks counted and listed, near-duplicate questions (question and options),
and with the models' answers the expected wrong keys overall and per group with their
interval, the flags with the proposed key and the models' vote, ``mcq_flags.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st

from benchcheck.cli import main
from benchcheck.runs.mcq_audit import expected_wrong, run_mcq_audit


def _write(tmp_path: Path) -> tuple[Path, Path]:
    # 40 questions, key A; q11 repeats q10 word for word but keys B; q03 has a duplicate
    # option and "None of the above". 8 models answer A, except all answer C on q07 and a
    # few scattered B (never on q07, q10, q11: 7 of 8 say A on q11, see below).
    rows = []
    for i in range(40):
        rows.append(
            {
                "id": f"q{i:02d}",
                "question": "Question 10?" if i == 11 else f"Question {i}?",
                "choices": ["a", "b", "b", "None of the above"] if i == 3 else ["a", "b", "c", "d"],
                "answer": "B" if i == 11 else "A",
                "subject": "s1" if i < 20 else "s2",
            }
        )
    data = tmp_path / "test.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = ["id,model,answer"]
    for i in range(40):
        for j in range(8):
            a = "C" if i == 7 else ("B" if (i * 7 + j * 3) % 11 == 0 else "A")
            lines.append(f"q{i:02d},m{j},{a}")
    answers = tmp_path / "answers.csv"
    answers.write_text("\n".join(lines) + "\n")
    return data, answers


def test_expected_wrong_is_clopper_pearson_when_every_score_is_sure() -> None:
    # p in {0, 1}: the count is known (3 of 20) and the interval is Clopper–Pearson's.
    p = np.array([1.0] * 3 + [0.0] * 17)
    out = expected_wrong(p)
    assert out["expected_wrong_keys"] == 3 and out["rate"] == 0.15
    assert out["ci"][0] == pytest.approx(st.beta.ppf(0.025, 3, 18), abs=1e-9)
    assert out["ci"][1] == pytest.approx(st.beta.ppf(0.975, 4, 17), abs=1e-9)


def test_section_values(tmp_path: Path) -> None:
    data, answers = _write(tmp_path)
    run = run_mcq_audit(str(data), [str(answers)])
    j = run.to_json()
    assert j["n_questions"] == 40 and j["n_groups"] == 2 and j["not_run"] == []
    s = j["structure"]
    assert s["counts"]["duplicate_options"] == 1 and s["counts"]["all_or_none_of_the_above"] == 1
    assert [(r["id"], r["check"], r["options"]) for r in s["rows"]] == [
        ("q03", "duplicate_options", ["B", "C"]),
        ("q03", "all_or_none_of_the_above", ["D"]),
    ]
    nd = j["near_duplicates"]
    assert nd["n_clusters"] == 1 and nd["n_clusters_keys_differ"] == 1
    (cl,) = nd["clusters"]
    assert cl["ids"] == ["q10", "q11"] and cl["key_texts"] == ["a", "b"] and not cl["same_key"]
    assert nd["near_duplicate_ratio"] == pytest.approx(1 / 40)  # (40 - 39 clusters) / 40
    a = j["answers"]
    score = run.flag_run.detection.error_score  # type: ignore[union-attr]
    assert a["overall"]["expected_wrong_keys"] == pytest.approx(score.sum())
    s1 = next(g for g in a["by_group"] if g["group"] == "s1")
    assert s1["expected_wrong_keys"] == pytest.approx(score[:20].sum())
    assert s1["ci"][0] <= s1["rate"] <= s1["ci"][1]
    assert (a["n_flags"], s1["flagged"]) == (2, 2)
    first, second = a["flags"]
    assert (first["id"], first["key"], first["proposed_answer"]) == ("q07", "A", "C")
    assert first["votes"] == {"A": 0.0, "B": 0.0, "C": 8.0, "D": 0.0}
    # q11: (11*7 + 3j) % 11 == 0 for j = 0 only -> m0 says B (the key), 7 models say A
    assert (second["id"], second["key"], second["proposed_answer"]) == ("q11", "B", "A")
    assert second["votes"] == {"A": 7.0, "B": 1.0, "C": 0.0, "D": 0.0}
    flags = run.flags()
    assert flags is not None and flags.get_column("id").to_list() == ["q07", "q11"]


def test_near_duplicates_compare_the_options_too(tmp_path: Path) -> None:
    # One stem, different options: 4 shared words of 12 (Jaccard 1/3 < 0.8), not duplicates.
    rows = [
        {"id": "a", "question": "Which is true?", "choices": ["red", "blue", "green", "pink"],
         "answer": 0},
        {"id": "b", "question": "Which is true?", "choices": ["dog", "cat", "cow", "pig"],
         "answer": 1},
        {"id": "c", "question": "which is  TRUE?", "choices": ["Red", "blue", "green", "pink"],
         "answer": 0},
    ]  # fmt: skip
    data = tmp_path / "q.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    nd = run_mcq_audit(str(data)).to_json()["near_duplicates"]
    assert [c["ids"] for c in nd["clusters"]] == [["a", "c"]]
    assert nd["clusters"][0]["same_key"]  # "red" and "Red": the same option text, folded


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_audit_cli_writes_the_section_and_the_flags_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data, answers = _write(tmp_path)
    out = tmp_path / "report"
    rc, _, err = _run(capsys, "audit", data, "--task", "mcq", "--answers", answers, "-o", out)
    assert rc == 0, err
    results = json.loads((out / "results.json").read_text())
    status = {a["name"]: a["status"] for a in results["analyses"]}
    assert status["mcq"] == "ok" and status["label errors"] == "skipped"
    assert status["items"] == "ok"  # the answers' 0/1 matrix: 40 questions x 8 models
    assert (results["items"]["n_items"], results["items"]["n_models"]) == (40, 8)
    assert results["mcq"]["answers"]["n_flags"] == 2
    rows = [json.loads(x) for x in (out / "mcq_flags.jsonl").read_text().splitlines()]
    assert [(r["id"], r["proposed_answer"], r["votes"]) for r in rows] == [
        ("q07", "C", [0.0, 0.0, 8.0, 0.0]),
        ("q11", "A", [7.0, 1.0, 0.0, 0.0]),
    ]
    html = (out / "report.html").read_text()
    assert 'id="mcq-flags"' in html and "C 8" in html and "A 7 · B 1" in html
    md = (out / "report.md").read_text()
    assert "## Multiple-choice questions" in md and "| 1 | q07 | s1 | A | C |" in md
    # the flags file is a review export input as it is
    rc, _, err = _run(
        capsys, "review", "export", out / "mcq_flags.jsonl", "-o", tmp_path / "rev",
        "--experts", "1", "--labels", "A,B,C,D,none,several,unclear",
    )  # fmt: skip
    assert rc == 0, err
    # again without answers: the section says what it could not do; the stale flags go
    rc, _, err = _run(capsys, "audit", data, "--task", "mcq", "-o", out, "--force")
    assert rc == 0, err
    results = json.loads((out / "results.json").read_text())
    assert results["mcq"]["answers"] is None
    assert {a["name"]: a["status"] for a in results["analyses"]}["items"] == "skipped"
    assert "--answers FILE" in results["mcq"]["not_run"][0]
    assert not (out / "mcq_flags.jsonl").exists()
    assert "answer keys not checked" in (out / "report.html").read_text()


@pytest.mark.parametrize(
    ("argv", "where"),
    [
        (["--answers", "ANSWERS"], "--answers and the multiple-choice columns need --task mcq"),
        (["--task", "mcq", "--text", "question"], "--task mcq reads its own columns"),
        (["--task", "ner"], "--task of audit: mcq"),
    ],
)
def test_audit_cli_bad_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], where: str
) -> None:
    data, answers = _write(tmp_path)
    argv = [str(answers) if a == "ANSWERS" else a for a in argv]
    rc, out, err = _run(capsys, "audit", data, *argv, "-o", tmp_path / "r")
    assert rc == 2 and len(err.strip().splitlines()) == 1 and where in err, err
    assert not (tmp_path / "r").exists()


def test_audit_cli_answer_outside_the_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data, answers = _write(tmp_path)
    answers.write_text(answers.read_text().replace("q05,m2,A", "q05,m2,F"))
    rc, out, err = _run(capsys, "audit", data, "--task", "mcq", "--answers", answers, "-o",
                        tmp_path / "r")  # fmt: skip
    assert rc == 2, err
    (line,) = err.strip().splitlines()
    assert "answers.csv:" in line and "outside the 4 options" in line
    assert not (tmp_path / "r").exists()


def test_docs_mcq_audit_lines_run_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/mcq.md's audit, review export of its flags and items lines, run as written."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[2] / "docs"))
    from test_doc_commands import doc_commands

    wanted = (
        ("audit", "mmlu_test.csv", "--task", "mcq"),
        ("review", "export", "report/mcq_flags.jsonl"),
        ("items", "mmlu_test.csv", "--task", "mcq"),
    )
    lines = [
        argv
        for where, argv in doc_commands()
        if where.startswith("docs/mcq.md:") and any(tuple(argv[: len(w)]) == w for w in wanted)
    ]
    assert [a[0] for a in lines] == ["audit", "review", "items"]
    # MMLU's headerless CSV (ids: the row numbers) and a long answers table: 4 models
    # answer the key (B) but all say C on question 3.
    monkeypatch.chdir(tmp_path)
    Path("mmlu_test.csv").write_text(
        "".join(f"Question {i}?,w{i},r{i},x{i},y{i},B\n" for i in range(30))
    )
    answers = ["id,model,answer"]
    for i in range(30):
        for j in range(4):
            answers.append(f"{i},m{j},{'C' if i == 3 else ('A' if (i + j) % 7 == 0 else 'B')}")
    Path("answers.csv").write_text("\n".join(answers) + "\n")
    for argv in lines:
        rc, _, err = _run(capsys, *argv)
        assert rc == 0, (argv, err)
    flags = [json.loads(x) for x in Path("report/mcq_flags.jsonl").read_text().splitlines()]
    assert [(f["id"], f["label"], f["proposed_answer"]) for f in flags] == [("3", "B", "C")]
    assert Path("review/expert_b.csv").is_file() and Path("items/items.json").is_file()


def test_keys_most_models_dispute_are_listed_when_the_score_leaves_them_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Only q07 (8 of 8 say C, key A) and q11 (7 of 8 say A, key B) have another option with
    # more votes than the key (the scattered B answers are one per question at most).
    data, answers = _write(tmp_path)
    base = run_mcq_audit(str(data), [str(answers)]).to_json()["answers"]
    s07, s11 = (f["error_score"] for f in base["flags"])
    assert base["n_disputed_not_flagged"] == 0 and s07 > s11
    between = run_mcq_audit(str(data), [str(answers)], threshold=(s07 + s11) / 2)
    a = between.to_json()["answers"]
    assert [f["id"] for f in a["flags"]] == ["q07"]
    assert a["n_disputed_not_flagged"] == 1
    (left,) = a["disputed_not_flagged"]
    assert (left["id"], left["key"], left["proposed_answer"], left["kind"]) == (
        "q11",
        "B",
        "A",
        "ok",
    )
    assert left["votes"] == {"A": 7.0, "B": 1.0, "C": 0.0, "D": 0.0}
    # nothing reaches the threshold: no empty flag table, the two disputed keys listed
    out = tmp_path / "report"
    rc, stdout, err = _run(
        capsys, "audit", data, "--task", "mcq", "--answers", answers,
        "--min-error-score", "1", "-o", out,
    )  # fmt: skip
    assert rc == 0, err
    results = json.loads((out / "results.json").read_text())["mcq"]["answers"]
    assert results["n_flags"] == 0 and results["n_disputed_not_flagged"] == 2
    assert [f["id"] for f in results["disputed_not_flagged"]] == ["q07", "q11"]
    md = (out / "report.md").read_text()
    assert "No key reaches P(key wrong) ≥ 1." in md and "Disputed by most models" in md
    assert "| 1 | q07 | s1 | A | C |" in md
    html = (out / "report.html").read_text()
    assert 'id="mcq-flags"' not in html and 'id="mcq-disputed"' in html
    assert "No key reaches" in stdout and "Disputed by most models, not flagged (2 of 2" in stdout
