"""``benchcheck judge --task mcq`` with a stand-in judge, and ``flag --task mcq --judgments``.

The stand-in (no model) reads the lettered options of the request: it gives 0.5 to the
option whose text starts with ``r`` (the right one), 0.3 to letter A (a position bias) and
spreads the rest evenly; the rotations must remove the bias exactly as averaged by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

from benchcheck.cli import main
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore


class LetterJudge(Judge):
    identity = JudgeIdentity("standin", "letters", "0" * 8)

    def score(self, requests, *, on_result=None):  # type: ignore[no-untyped-def]
        out = []
        for n, req in enumerate(requests):
            lines = [x for x in req.user.splitlines() if x[1:3] == ". "]
            k = len(lines)
            p = [0.2 / k] * k
            p[0] += 0.3
            right = next(i for i, x in enumerate(lines) if x[3:].startswith("r"))
            p[right] += 0.5
            s = JudgeScore.from_logprobs(req.labels, tuple(math.log(v) for v in p), 1, 0.0)
            if on_result:
                on_result(n, s)
            out.append(s)
        return out


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod

    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: LetterJudge())
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")


def _write(tmp_path: Path) -> tuple[Path, Path]:
    # 12 questions of 4 options, the right option at index 1 ("r.."), key B; q5's key is
    # wrong (A). 5 models answer B but m0 on q5 and m1 on q8 (A).
    data = tmp_path / "q.jsonl"
    rows = [
        {"id": f"q{i}", "question": f"Question {i}?", "choices": [f"w{i}", f"r{i}", "x", "y"],
         "answer": "A" if i == 5 else "B", "subject": "s"}
        for i in range(12)
    ]  # fmt: skip
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers = tmp_path / "answers.csv"
    lines = ["id,model,answer"]
    for i in range(12):
        for j in range(5):
            lines.append(f"q{i},m{j},{'A' if (i == 5 and j == 0) or (i, j) == (8, 1) else 'B'}")
    answers.write_text("\n".join(lines) + "\n")
    return data, answers


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_judge_mcq_debiases_the_position(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, standin: None
) -> None:
    data, _ = _write(tmp_path)
    out = tmp_path / "j.parquet"
    rc, stdout, err = _run(capsys, "judge", data, "--task", "mcq", "-o", out, "--json", "-")
    assert rc == 0, err
    summary = json.loads(stdout)
    assert (summary["questions"], summary["requests"]) == (12, 48)  # 4 rotations each
    j = pl.read_parquet(out)
    row = j.filter(pl.col("id") == "q0").row(0, named=True)
    # every option sits at letter A once in 4 rotations: +0.3/4 each; the right one +0.5
    base = 0.2 / 4 + 0.3 / 4
    assert row["p_B"] == pytest.approx(base + 0.5)
    assert row["p_A"] == pytest.approx(base) and row["p_D"] == pytest.approx(base)
    # one rotation: the bias stays (A 0.3 + 0.05)
    rc, _, err = _run(
        capsys, "judge", data, "--task", "mcq", "--rotations", "1", "-o", tmp_path / "j1.jsonl"
    )
    assert rc == 0, err
    one = [json.loads(x) for x in (tmp_path / "j1.jsonl").read_text().splitlines()][0]
    assert one["p_A"] == pytest.approx(0.35) and one["p_B"] == pytest.approx(0.55)


def test_flag_mcq_with_judgments_alone_and_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, standin: None
) -> None:
    data, answers = _write(tmp_path)
    judged = tmp_path / "j.parquet"
    assert _run(capsys, "judge", data, "--task", "mcq", "-o", judged)[0] == 0
    flags = tmp_path / "llm.jsonl"
    rc, out, err = _run(
        capsys, "flag", judged, "--data", data, "--task", "mcq", "--json", "-", "-o", flags
    )
    assert rc == 0, err
    llm = json.loads(out)
    assert llm["answers"]["models"] == ["judge:standin:letters"]
    # one judge 62.5 % sure (its soft vote: 0.5 log 5 = 0.80 nats for B over A) does not
    # overturn a key the subject gets right 11 times in 12: q5 ranks first, with the
    # judge's option proposed, below the flag threshold
    rows = sorted((json.loads(x) for x in flags.read_text().splitlines()), key=lambda r: r["rank"])
    assert (rows[0]["id"], rows[0]["proposed_answer"]) == ("q5", "B")
    assert rows[0]["error_score"] > rows[1]["error_score"] and not rows[0]["flagged"]

    def q5(path: Path) -> dict:
        return next(r for r in map(json.loads, path.read_text().splitlines()) if r["id"] == "q5")

    rc, out, err = _run(
        capsys, "flag", judged, "--data", data, "--task", "mcq", "--answers", answers,
        "--json", "-", "-o", tmp_path / "both.jsonl",
    )  # fmt: skip
    assert rc == 0, err
    both = json.loads(out)
    assert list(both["detector"]["models"]) == [
        *(f"m{j}" for j in range(5)),
        "judge:standin:letters",
    ]
    rc, out, err = _run(
        capsys, "flag", "--data", data, "--task", "mcq", "--answers", answers,
        "-o", tmp_path / "alone.jsonl",
    )  # fmt: skip
    assert rc == 0, err
    # the judge is one more annotator of the same model: q5 stays the most disputed key
    with_judge, alone = q5(tmp_path / "both.jsonl"), q5(tmp_path / "alone.jsonl")
    assert with_judge["rank"] == alone["rank"] == 1
    assert both["detector"]["effective_models"] < 6  # the judge shares the design effect
    assert with_judge["proposed_answer"] == alone["proposed_answer"] == "B"


def test_bad_judgments_and_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, standin: None
) -> None:
    data, answers = _write(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "q0", "judge": "x", "p_A": 0.5, "p_B": 0.1}) + "\n")
    rc, _, err = _run(capsys, "flag", bad, "--data", data, "--task", "mcq", "-o",
                      tmp_path / "f.jsonl")  # fmt: skip
    assert rc == 2 and "bad.jsonl:1:" in err and "the 4 options of question 'q0'" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "f.jsonl").exists()
    rc, _, err = _run(capsys, "judge", data, "--task", "mcq", "--rotations", "0")
    assert rc == 2 and "--rotations must be at least 1" in err
    rc, _, err = _run(capsys, "judge", data, "--rotations", "2")
    assert rc == 2 and "--rotations and the multiple-choice columns need --task mcq" in err
    rc, _, err = _run(capsys, "flag", "--data", data, "--task", "mcq", "--detector", "both",
                      "--answers", answers)  # fmt: skip
    assert rc == 2 and "the both detector needs the judges' judgments" in err


def test_docs_judge_lines_run_as_written(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    standin: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/mcq.md's judge and flag-with-judgments lines, with the stand-in judge."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "docs"))
    from test_doc_commands import doc_commands

    lines = [
        argv
        for where, argv in doc_commands()
        if where.startswith("docs/mcq.md:")
        and (argv[:4] == ["judge", "mmlu_test.csv", "--task", "mcq"] or argv[1:2] == [
            "mcq_judgments.parquet"
        ])
    ]  # fmt: skip
    assert [a[0] for a in lines] == ["judge", "flag"]
    monkeypatch.chdir(tmp_path)
    Path("mmlu_test.csv").write_text(
        "".join(f"Question {i}?,w{i},r{i},x{i},y{i},B\n" for i in range(12))
    )
    rows = ["id,model,answer"] + [f"{i},m{j},B" for i in range(12) for j in range(3)]
    Path("answers.csv").write_text("\n".join(rows) + "\n")
    for argv in lines:
        rc, _, err = _run(capsys, *argv)
        assert rc == 0, (argv, err)
    flags = [json.loads(x) for x in Path("flags.jsonl").read_text().splitlines()]
    assert len(flags) == 12 and not any(f["flagged"] for f in flags)
