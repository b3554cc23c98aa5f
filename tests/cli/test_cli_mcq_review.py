"""The MCQ workflow after the flags, end to end (issue 35): flag → review export → review
import → error-rate → remedy → rerank on a 6-question benchmark, 3 models and two expert
sheets filled by hand; every figure checked by hand or by SciPy."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from scipy.stats import binomtest, hypergeom, kendalltau

from benchcheck.cli import main

QUESTIONS = [  # question, options, key, subject
    ("What is 1+1?", ["3", "5", "2", "4"], "A", "arithmetic"),  # a wrong key: C is right
    ("What is 2*3?", ["5", "6", "8", "9"], "B", "arithmetic"),
    ("What is 10-4?", ["4", "5", "6", "7"], "C", "arithmetic"),
    ("Which is a virus?", ["E. coli", "Yeast", "Amoeba", "Influenza"], "D", "virology"),
    ("Which vaccine is live?", ["MMR", "Tetanus toxoid", "Hepatitis B", "HPV"], "A", "virology"),
    ("What causes measles?", ["A fungus", "A virus", "A bacterium", "A prion"], "B", "virology"),
]
#: Each model's answer to q1..q6 (keys A B C D A B).
ANSWERS = {"m1": "CBCDBB", "m2": "CBCDCA", "m3": "CBADAB"}
#: The two experts' answers, as they typed them: q1 a wrong key (C), q5 no correct option,
#: q6 a disagreement (unresolved under the default unanimous consensus).
EXPERTS = {
    "What is 1+1?": ("C", "c"),
    "What is 2*3?": ("B", "B"),
    "What is 10-4?": ("C", "C"),
    "Which is a virus?": ("D", "D"),
    "Which vaccine is live?": ("none", "No correct option"),
    "What causes measles?": ("B", "A"),
}


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _ok(capsys: pytest.CaptureFixture[str], *argv: object) -> dict:
    rc, out, err = _run(capsys, *argv, "--json", "-")
    assert rc == 0, err
    return json.loads(out)


@pytest.fixture
def bench(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "test.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": f"q{i + 1}", "question": q, "choices": o, "answer": k, "subject": s})
            + "\n"
            for i, (q, o, k, s) in enumerate(QUESTIONS)
        )
    )
    answers = tmp_path / "answers.csv"
    rows = [f"q{i + 1},{m},{a[i]}" for i in range(6) for m, a in ANSWERS.items()]
    answers.write_text("id,model,answer\n" + "\n".join(rows) + "\n")
    return data, answers


def _fill(sheet: Path, k: int, answers: dict[str, tuple[str, str]] = EXPERTS) -> None:
    with sheet.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["label"] = answers[r["text"].splitlines()[0]][k]
    with sheet.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _review(capsys: pytest.CaptureFixture[str], tmp_path: Path, data: Path, answers: Path) -> Path:
    flags = tmp_path / "flags.jsonl"
    payload = _ok(
        capsys, "flag", "--data", data, "--task", "mcq", "--answers", answers, "-o", flags
    )
    assert payload["summary"]["flagged"] == 1 and payload["top"][0]["id"] == "q1"
    review = tmp_path / "review"
    exported = _ok(
        capsys, "review", "export", flags, "-o", review, "--experts", "2",
        "--audit-sample", "5", "--labels", "A,B,C,D,none,several,unclear",
    )  # fmt: skip
    assert (exported["n_flagged"], exported["n_audit"]) == (1, 5)
    guide = (review / "guidelines.md").read_text()
    assert "Choose the letter of the correct option" in guide
    assert "- `none`: no option is correct" in guide
    assert "wrong_key" not in (review / "expert_a.csv").read_text()  # blind
    return review


def test_journey_flag_export_import_error_rate_remedy_rerank(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bench: tuple[Path, Path]
) -> None:
    data, answers = bench
    review = _review(capsys, tmp_path, data, answers)
    _fill(review / "expert_a.csv", 0)
    _fill(review / "expert_b.csv", 1)
    gold = tmp_path / "gold.jsonl"
    imported = _ok(
        capsys, "review", "import", review / "expert_a.csv", review / "expert_b.csv", "-o", gold
    )
    assert imported["status_counts"]["unresolved"] == 1 and imported["unresolved_ids"] == ["q6"]
    rows = {r["id"]: r for r in map(json.loads, gold.read_text().splitlines())}
    assert [rows[f"q{i}"]["gold"] for i in range(1, 7)] == ["C", "B", "C", "D", "none", None]
    assert [rows[f"q{i}"]["error_kind"] for i in range(1, 7)] == [
        "wrong_key", "ok", "ok", "ok", "no_correct", None,
    ]  # fmt: skip

    # error-rate: the paper's lower bound counts the 5 undisputed questions correct (1/6);
    # the stratified estimate: disputed 1 of 1 wrong, undisputed 1 (q5) of the 4 settled.
    rates = _ok(capsys, "error-rate", gold, "--task", "mcq")
    assert rates["error_kinds"] == {"ok": 3, "wrong_key": 1, "no_correct": 1}
    any_all, wk_all = rates["overall"]["any_error"], rates["overall"]["wrong_key"]
    assert (any_all["errors"], any_all["sample"]) == (1, 6)
    ci = binomtest(1, 6).proportion_ci(0.95, method="exact")
    assert any_all["ci"] == pytest.approx([ci.low, ci.high])
    assert any_all["stratified"]["error_rate"] == pytest.approx(1 / 6 * 1 + 5 / 6 * 1 / 4)
    assert wk_all["stratified"]["error_rate"] == pytest.approx(1 / 6)
    arith, viro = rates["by_group"]["arithmetic"], rates["by_group"]["virology"]
    assert arith["wrong_key"]["error_rate"] == pytest.approx(1 / 3)
    ci = binomtest(1, 3).proportion_ci(0.95, method="exact")
    assert arith["wrong_key"]["ci"] == pytest.approx([ci.low, ci.high])
    assert arith["any_error"]["stratified"]["ci"] == pytest.approx([1 / 3, 1 / 3])  # a census
    # virology: one stratum, N = 3, n = 2 settled, k = 1 (q5): mid-p hypergeometric bounds
    strat = viro["any_error"]["stratified"]
    assert strat["error_rate"] == pytest.approx(0.5)

    def midp(m: int, lower: bool) -> float:
        h = hypergeom(3, m, 2)
        return (h.sf(1) if lower else h.cdf(0)) + h.pmf(1) / 2

    m_lo = min(m for m in range(4) if midp(m, True) > 0.025)
    m_hi = max(m for m in range(4) if midp(m, False) > 0.025)
    assert strat["ci"] == pytest.approx([m_lo / 3, m_hi / 3])
    assert viro["wrong_key"]["stratified"]["error_rate"] == 0.0

    # remedy: q1's key becomes C; q5 kept (correct) or removed (filter); q6 untouched
    fixed = _ok(capsys, "remedy", data, "--task", "mcq", "--gold", gold, "-o", tmp_path / "fix")
    assert fixed["counts"] == {
        "key_fixed": 1, "removed": 0, "kept_unanswerable": 1, "kept_unresolved": 1,
        "unchanged": 3,
    }  # fmt: skip
    out = [json.loads(x) for x in (tmp_path / "fix" / "test.jsonl").read_text().splitlines()]
    src = [json.loads(x) for x in data.read_text().splitlines()]
    assert out[0] == {**src[0], "answer": "C"} and out[1:] == src[1:]
    changes = [json.loads(x) for x in (tmp_path / "fix" / "changes.jsonl").read_text().splitlines()]
    assert [(c["id"], c["action"], c["reason"]) for c in changes] == [
        ("q1", "key_fixed", "wrong_key"),
        ("q5", "kept_unanswerable", "no_correct"),
        ("q6", "kept_unresolved", None),
    ]
    dropped = _ok(
        capsys, "remedy", data, "--task", "mcq", "--gold", gold, "--mode", "filter",
        "-o", tmp_path / "drop",
    )  # fmt: skip
    assert (dropped["n_written"], dropped["counts"]["removed"]) == (5, 1)
    kept = (tmp_path / "drop" / "test.jsonl").read_text()
    assert "Which vaccine is live?" not in kept and '"answer": "C"' in kept

    # rerank: original keys A B C D A B; reviewed C B C D (q5 removed) B
    ranked = _ok(capsys, "rerank", "--gold", gold, "--task", "mcq", "--answers", answers)
    by = {m["model"]: m for m in ranked["models"]}
    acc_o = {"m1": 4 / 6, "m2": 3 / 6, "m3": 4 / 6}
    acc_c = {"m1": 5 / 5, "m2": 4 / 5, "m3": 4 / 5}
    for m in ANSWERS:
        assert by[m]["accuracy_original"] == pytest.approx(acc_o[m])
        assert by[m]["accuracy_corrected"] == pytest.approx(acc_c[m])
    assert [by[m]["rank_original"] for m in ANSWERS] == [1, 3, 1]
    assert [by[m]["rank_corrected"] for m in ANSWERS] == [1, 2, 2]
    assert ranked["moved"] == 2 and ranked["removed"] == 1 and ranked["keys_changed"] == 1
    tau = kendalltau(list(acc_o.values()), list(acc_c.values())).statistic
    assert ranked["kendall_tau"] == pytest.approx(tau) == pytest.approx(0.5)
    assert ranked["unresolved_kept_key"] == 1
    # neighbours in the reviewed ranking (m1, then m2 and m3 tied): gaps on the 5 kept
    # questions, m1 − m2 = 1/5 and m2 − m3 = 0 (they differ on q3 and q6, one each)
    gaps = [(d["a"], d["b"], d["difference"]) for d in ranked["neighbours"]]
    assert gaps == [("m1", "m2", pytest.approx(0.2)), ("m2", "m3", pytest.approx(0.0))]
    assert ranked["neighbours"][0]["ci"][0] >= 0.0 and ranked["bootstrap"] == 1000


def test_expert_answer_naming_no_option_is_refused_with_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bench: tuple[Path, Path]
) -> None:
    data, answers = bench
    # the expert answers E to q4, a question of four options
    review = _review(capsys, tmp_path, data, answers)
    bad = dict(EXPERTS, **{"Which is a virus?": ("E", "D")})
    _fill(review / "expert_a.csv", 0, bad)
    _fill(review / "expert_b.csv", 1)
    text = (review / "expert_a.csv").read_text()
    with (review / "expert_a.csv").open(newline="") as f:
        rid = next(r["review_id"] for r in csv.DictReader(f) if r["label"] == "E")
    line = 1 + next(i for i, x in enumerate(text.splitlines()) if x.startswith(f"{rid},"))
    gold = tmp_path / "gold.jsonl"
    rc, out, err = _run(
        capsys, "review", "import", review / "expert_a.csv", review / "expert_b.csv", "-o", gold
    )
    assert rc == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"{review / 'expert_a.csv'}:{line}" in lines[0], err
    assert "names no option" in lines[0] and "A–D" in lines[0]
    assert "Traceback" not in out + err and not gold.exists()


def test_remedy_keeps_mmlu_headerless_csv_and_refuses_foreign_gold(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "astronomy_test.csv"
    data.write_text(
        'What is 1+1?,3,2,4,5,A\n"Which, planet, is red?",Venus,Mars,Earth,Jupiter,B\n'
        "Hot star?,Red dwarf,Blue giant,Brown dwarf,White dwarf,b\n"
    )
    opts = [
        ["3", "2", "4", "5"],
        ["Venus", "Mars", "Earth", "Jupiter"],
        ["Red dwarf", "Blue giant", "Brown dwarf", "White dwarf"],
    ]
    rows = [
        {"id": "0", "question": "What is 1+1?", "options": opts[0], "label": "A", "gold": "B"},
        {"id": "1", "question": "Which, planet, is red?", "options": opts[1], "label": "B",
         "gold": "B"},
        {"id": "2", "question": "Hot star?", "options": opts[2], "label": "B", "gold": "several"},
    ]  # fmt: skip
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fixed = _ok(
        capsys, "remedy", data, "--task", "mcq", "--gold", gold, "--mode", "filter",
        "-o", tmp_path / "out",
    )  # fmt: skip
    assert fixed["counts"]["key_fixed"] == 1 and fixed["counts"]["removed"] == 1
    assert (tmp_path / "out" / "astronomy_test.csv").read_text() == (
        'What is 1+1?,3,2,4,5,B\n"Which, planet, is red?",Venus,Mars,Earth,Jupiter,B\n'
    )
    rows[1]["label"] = "C"  # a key the data does not have: not this file's review
    gold.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rc, out, err = _run(
        capsys, "remedy", data, "--task", "mcq", "--gold", gold, "-o", tmp_path / "out2"
    )
    assert rc == 2 and f"{gold}:2" in err and "does not belong" in err, err
    assert not (tmp_path / "out2").exists()


def _doc_journey() -> list[list[str]]:
    """The journey block of docs/mcq.md, its benchcheck lines as written."""
    import shlex

    text = (Path(__file__).resolve().parents[2] / "docs" / "mcq.md").read_text("utf-8")
    block = text.split("## From the flags to a corrected benchmark", 1)[1].split("```")[1]
    return [
        shlex.split(x, comments=True)[1:] for x in block.splitlines() if x.startswith("benchcheck ")
    ]


def test_the_documented_journey_runs_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    rows = [
        {"id": f"q{i:02d}", "question": f"Question {i}?", "choices": ["a", "b", "c", "d"],
         "answer": "A", "subject": "s1" if i < 20 else "s2"}
        for i in range(40)
    ]  # fmt: skip
    Path("test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = ["id,model,answer"]
    for i in range(40):
        for j in range(8):
            a = "C" if i == 7 else ("B" if (i * 7 + j * 3) % 11 == 0 else "A")
            lines.append(f"q{i:02d},m{j},{a}")
    Path("answers.csv").write_text("\n".join(lines) + "\n")
    commands = _doc_journey()
    assert [c[0] for c in commands] == [
        "flag", "review", "review", "error-rate", "remedy", "rerank",
    ]  # fmt: skip
    for argv in commands:
        if argv[:2] == ["review", "import"]:  # the experts: q07's key is C, q03 unclear
            said = {"Question 7?": ("C", "C"), "Question 3?": ("unclear", "Unclear question")}
            answers = {r["question"]: said.get(r["question"], ("A", "a")) for r in rows}
            _fill(Path("review/expert_a.csv"), 0, answers)
            _fill(Path("review/expert_b.csv"), 1, answers)
        rc, out, err = _run(capsys, *argv)
        assert rc == 0, (argv, err)
    fixed = [json.loads(x) for x in Path("fixed/test.jsonl").read_text().splitlines()]
    assert fixed[7]["answer"] == "C" and fixed[6] == rows[6] and len(fixed) == 40
    gold = {r["id"]: r for r in map(json.loads, Path("gold.jsonl").read_text().splitlines())}
    assert gold["q07"]["error_kind"] == "wrong_key"
    assert (gold["q03"]["error_kind"], gold["q03"]["stratum"]) == ("unclear", "undisputed")


def test_label_studio_export_of_the_package_gives_the_same_gold(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bench: tuple[Path, Path]
) -> None:
    data, answers = bench
    review = _review(capsys, tmp_path, data, answers)
    tasks = json.loads((review / "tasks.json").read_text())
    said = {"What is 1+1?": ("C", "C"), "Which vaccine is live?": ("none", "none")}
    for t in tasks:  # two annotators (Label Studio user ids 1 and 2), one answer each
        q = t["data"]["text"].splitlines()[0]
        pair = said.get(q, (EXPERTS[q][0],) * 2)
        t["annotations"] = [
            {"completed_by": who, "result": [{"type": "choices", "value": {"choices": [a]}}]}
            for who, a in zip((1, 2), pair, strict=True)
        ]
    export = tmp_path / "project-export.json"
    export.write_text(json.dumps(tasks))
    gold = tmp_path / "gold.jsonl"
    imported = _ok(capsys, "review", "import", export, "--key", review / "key.jsonl", "-o", gold)
    assert imported["experts"] == ["project-export@1", "project-export@2"]
    rows = {r["id"]: r for r in map(json.loads, gold.read_text().splitlines())}
    assert [rows[f"q{i}"]["gold"] for i in range(1, 7)] == ["C", "B", "C", "D", "none", "B"]
    assert rows["q1"]["error_kind"] == "wrong_key" and rows["q5"]["error_kind"] == "no_correct"


def test_bad_uses_are_one_line_exit_2_nothing_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bench: tuple[Path, Path]
) -> None:
    data, answers = bench
    pair_gold = tmp_path / "pair_gold.csv"
    pair_gold.write_text("id,label,gold\na,1,0\n")
    gold = tmp_path / "gold.jsonl"
    row = {"id": "q1", "question": "What is 1+1?", "options": ["3", "5", "2", "4"], "label": "A"}
    gold.write_text(json.dumps({**row, "gold": "E"}) + "\n")
    out = tmp_path / "out"
    for argv, said in [
        (("error-rate", pair_gold, "--task", "mcq"), f"{pair_gold}: the gold file lacks"),
        (("rerank", "--gold", gold, "--task", "mcq"), "--answers go with --task mcq"),
        (("remedy", data, "--gold", gold, "-o", out), "--gold goes with --task mcq"),
        (("remedy", data, "--task", "mcq", "--gold", gold, "--mode", "flip", "-o", out),
         "--mode of a multiple-choice remedy"),
        (("rerank", "--gold", gold, "--task", "mcq", "--answers", answers),
         f"{gold}:1: the gold names no option"),
    ]:  # fmt: skip
        rc, stdout, err = _run(capsys, *argv)
        lines = err.strip().splitlines()
        assert rc == 2 and len(lines) == 1 and said in lines[0], (argv, err)
        assert "Traceback" not in stdout + err and not out.exists()
