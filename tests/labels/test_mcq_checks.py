"""Structural checks of multiple-choice questions (issue 35), on questions built by hand."""

from __future__ import annotations

import polars as pl
import pytest

from benchcheck.labels.mcq_checks import CHECKS, check_mcq


def _table(rows: list[tuple[str, list[str], int]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": [f"q{i}" for i in range(len(rows))],
            "line": list(range(2, len(rows) + 2)),
            "text": [r[0] for r in rows],
            "options": [r[1] for r in rows],
            "key": [r[2] for r in rows],
        },
        schema_overrides={"options": pl.List(pl.String)},
    )


def test_each_check_counts_its_questions() -> None:
    table = _table(
        [
            ("Clean?", ["yes", "no", "maybe"], 0),
            ("Empty?", ["a", " ", "c"], 1),
            ("Dup?", ["x", "y", "x "], 0),
            ("Case?", ["New York", "newyork", "Boston"], 2),
            ("Which city is largest", ["which city is  largest", "b"], 1),
            ("Above?", ["a", "b", "All of the above"], 2),
            ("Neither?", ["a", "b", "Both A and B", "none of these"], 0),
        ]
    )
    out = check_mcq({"test": table})
    assert out.n_questions == 7
    assert out.counts == {
        "empty_option": 1,
        "key_on_empty_option": 1,
        "duplicate_options": 1,
        "options_differ_by_case_or_space": 1,
        "option_repeats_question": 1,
        "all_or_none_of_the_above": 2,
    }
    found = {(r.id, r.check): r.options for r in out.rows}
    assert found[("q1", "empty_option")] == ("B",)
    assert found[("q2", "duplicate_options")] == ("A", "C")
    assert found[("q3", "options_differ_by_case_or_space")] == ("A", "B")
    assert found[("q4", "option_repeats_question")] == ("A",)
    assert found[("q6", "all_or_none_of_the_above")] == ("C", "D")
    assert not any(r.id == "q0" for r in out.rows)
    assert {r.line for r in out.rows if r.id == "q1"} == {3}


@pytest.mark.parametrize(
    "option",
    ["The above is wrong", "all countries", "None", "both parents", "above average"],
)
def test_ordinary_options_pass(option: str) -> None:
    out = check_mcq({"t": _table([("Q?", [option, "other"], 0)])})
    assert out.counts["all_or_none_of_the_above"] == 0


def test_to_json_lists_every_check() -> None:
    out = check_mcq({"t": _table([("Q?", ["a", "a"], 0)])}).to_json()
    assert list(out["counts"]) == list(CHECKS)
    assert out["rows"] == [
        {"split": "t", "id": "q0", "line": 2, "check": "duplicate_options", "options": ["A", "B"]}
    ]
