"""The review of multiple-choice flags (issue 35): answers read, gold kinds, error rates by
hand, and the corrected benchmark written back in each input format."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from scipy.stats import binomtest

from benchcheck.errors import InputError
from benchcheck.io.mcq import read_mcq_split
from benchcheck.io.mcq_write import write_corrected_mcq
from benchcheck.labels.mcq_review import (
    check_mcq_answers,
    corrected_keys,
    mcq_error_rates,
    mcq_gold_kinds,
    normalize_answer,
)
from benchcheck.labels.review import ExpertLabels


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("a", "A"),
        (" D ", "D"),
        ("B;D", "several"),
        ("b, B", "B"),
        ("No correct option", "none"),
        ("no-correct", "none"),
        ("Several correct", "several"),
        ("Unclear question", "unclear"),
        ("perhaps", "perhaps"),
    ],
)
def test_normalize_answer(typed: str, read: str) -> None:
    assert normalize_answer(typed) == read


def test_answer_past_the_questions_options_names_file_and_line() -> None:
    key = pl.DataFrame(
        {"review_id": ["r1", "r2", None], "options": [["a", "b", "c"], ["a", "b"], ["x", "y"]]}
    )
    ok = ExpertLabels("e", "e.csv", {"r1": "C", "r2": "none"}, None, {"r1": 2, "r2": 3})
    check_mcq_answers(key, [ok])
    bad = ExpertLabels("e", "e.csv", {"r1": "C", "r2": "C"}, None, {"r1": 2, "r2": 3})
    with pytest.raises(InputError) as exc:
        check_mcq_answers(key, [bad])
    assert (exc.value.path, exc.value.line, exc.value.got) == ("e.csv", 3, "C")
    assert "2 options (A–B)" in exc.value.message


def test_gold_kinds_and_corrected_keys() -> None:
    g = pl.DataFrame(
        {"label": ["A", "B", "C", "D", "A"], "gold": ["A", "D", "several", "unclear", None]}
    )
    out = mcq_gold_kinds(g)
    assert out["error_kind"].to_list() == ["ok", "wrong_key", "several_correct", "unclear", None]
    assert out["wrong_key"].to_list() == [False, True, False, False, None]
    assert corrected_keys(g["label"].to_list(), g["gold"].to_list()).tolist() == [0, 3, -1, -1, 0]


def test_error_rates_without_audit_by_hand() -> None:
    # 10 questions in two groups, 4 flags reviewed (no audit sample): s1 has a wrong key
    # and a question with no correct option, s2 one wrong key; a fourth flag was right.
    g = pl.DataFrame(
        {
            "id": [f"q{i}" for i in range(10)],
            "group": ["s1"] * 5 + ["s2"] * 5,
            "label": ["A"] * 10,
            "llm_label": ["B", "C", "A", "A", "A", "D", "B", "A", "A", "A"],
            "gold": ["B", "none", "A", "A", "A", "D", "A", "A", "A", "A"],
            "status": ["experts_agree"] * 2 + ["llm_agrees"] * 3
            + ["experts_agree"] * 2 + ["llm_agrees"] * 3,
        }
    )  # fmt: skip
    rates = mcq_error_rates(g, population=40)
    any_e, wrong = rates.overall["any_error"], rates.overall["wrong_key"]
    assert (any_e.lower_bound.errors, any_e.lower_bound.sample) == (3, 10)
    assert (wrong.lower_bound.errors, wrong.lower_bound.sample) == (2, 10)
    ci = binomtest(3, 10).proportion_ci(0.95, method="exact")
    assert any_e.lower_bound.ci == pytest.approx((ci.low, ci.high))
    # finite population correction: half-widths times sqrt((N - n) / (N - 1))
    f = ((40 - 10) / (40 - 1)) ** 0.5
    assert any_e.lower_bound.ci_fpc == pytest.approx(
        (0.3 - (0.3 - ci.low) * f, 0.3 + (ci.high - 0.3) * f)
    )
    assert any_e.stratified is None and "stratum" in (any_e.stratified_note or "")
    s1, s2 = rates.by_group["s1"], rates.by_group["s2"]
    assert s1["any_error"].lower_bound.error_rate == pytest.approx(2 / 5)
    assert s1["wrong_key"].lower_bound.error_rate == pytest.approx(1 / 5)
    assert s2["any_error"].lower_bound.error_rate == s2["wrong_key"].lower_bound.error_rate == 0.2
    assert rates.kinds == {"ok": 7, "wrong_key": 2, "no_correct": 1}


def _questions(tmp_path: Path) -> dict[str, Path]:
    labels = ["1", "2", "3"]
    texts, keys = [["x", "y", "z"], ["u", "v", "w"], ["p", "q", "r"]], ["1", "3", "2"]
    rows = [
        {"id": i, "question": f"Q{n + 1}?", "choices": {"label": labels, "text": t}, "answerKey": k}
        for n, (i, t, k) in enumerate(zip("abc", texts, keys, strict=True))
    ]
    jsonl = tmp_path / "arc.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    parquet = tmp_path / "mmlu.parquet"
    pl.DataFrame(
        {
            "question": ["Q1?", "Q2?", "Q3?"],
            "choices": [["x", "y", "z"], ["u", "v", "w"], ["p", "q", "r"]],
            "answer": [0, 2, 1],
            "subject": ["s", "s", "t"],
        }
    ).write_parquet(parquet)
    tsv = tmp_path / "text_keys.tsv"
    tsv.write_text(
        "question\tA\tB\tC\tanswer\nQ1?\tone\ttwo\tsix\tone\nQ2?\tred\tblue\tgrey\tgrey\n"
        "Q3?\tcat\tdog\t\tdog\n"
    )
    return {"jsonl": jsonl, "parquet": parquet, "tsv": tsv}


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "tsv"])
def test_write_corrected_keeps_the_format_and_the_keys_form(tmp_path: Path, fmt: str) -> None:
    src = _questions(tmp_path)[fmt]
    before = read_mcq_split(src)
    lines = before.table["line"].to_list()
    out = tmp_path / f"out{src.suffix}"
    # question 1 → option C; question 3 removed
    assert write_corrected_mcq(src, out, {lines[0]: 2, lines[2]: None}) == 2
    after = read_mcq_split(out)
    assert after.table["label"].to_list() == ["C", "C"]
    assert after.table["text"].to_list() == ["Q1?", "Q2?"]
    if fmt == "jsonl":  # ARC's option label, as a label
        rows = [json.loads(x) for x in out.read_text().splitlines()]
        assert [r["answerKey"] for r in rows] == ["3", "3"]
        assert rows[1] == json.loads(src.read_text().splitlines()[1])
    elif fmt == "parquet":  # an index stays an integer, other columns kept
        frame = pl.read_parquet(out)
        assert frame.columns == ["question", "choices", "answer", "subject"]
        assert frame["answer"].to_list() == [2, 2] and frame.schema["answer"] == pl.Int64
    else:  # the option's text
        assert out.read_text() == (
            "question\tA\tB\tC\tanswer\nQ1?\tone\ttwo\tsix\tsix\nQ2?\tred\tblue\tgrey\tgrey\n"
        )


def test_write_corrected_refuses_a_saved_dataset(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="CSV, TSV, JSONL or Parquet"):
        write_corrected_mcq(tmp_path / "dataset_dict.arrow", tmp_path / "x", {})


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"options": None}, "a question without its options"),
        ({"label": "none"}, "label must be an option letter"),
        ({"gold": "maybe"}, "gold must be an option letter or none, several, unclear"),
    ],
)
def test_a_spoilt_gold_row_names_its_line(tmp_path: Path, row: dict, message: str) -> None:
    # found by the generated sweep: a gold row whose options were null crashed rerank
    from benchcheck.runs.mcq_review import read_mcq_gold

    good = {"id": "q1", "label": "A", "gold": "B", "options": ["a", "b", "c", "d"]}
    path = tmp_path / "gold.jsonl"
    rows = [good, {**good, "id": "q2", **row}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError, match=message) as caught:
        read_mcq_gold(path)
    assert "gold.jsonl:2" in str(caught.value)
