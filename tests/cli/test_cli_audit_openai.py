"""``benchcheck audit --judge openai:MODEL`` reaches the server it is given, as ``judge`` does.

The server is the loopback OpenAI-compatible one of the judge tests
(``tests/judges/judges_fault_server.py``): real HTTP, the real OpenAI judge, no mock. It
answers every request '1' with P(1) = 0.8 / 0.95 (two label tokens in top_logprobs).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
import typer

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.io.canonical import dumps
from benchcheck.runs.audit import AuditInputs, JudgeInput, TableInput, run_audit
from benchcheck.runs.judging import JudgeSetup
from benchcheck.sample_data import PAIR_SAMPLE

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "judges"))
from judges_fault_server import FaultServer  # noqa: E402

PAIR = ["--text-a", "grounding", "--text-b", "generated_text"]
MODEL = "served-model"
#: Requests per audit: every example × the audit's two prompts (nli, document), plus the
#: three content-free inputs ('N/A', '', '[MASK]') × two prompts of contextual calibration.
PROMPTS = 2


def _requests(n_examples: int) -> int:
    return (n_examples + 3) * PROMPTS


@pytest.fixture(autouse=True)
def _own_cache_no_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh judge cache per test; no OPENAI_BASE_URL that could route the judge."""
    import benchcheck.judges.cache as cache_mod

    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def four_pairs(tmp_path: Path) -> Path:
    """The first four examples of the bundled pair sample (labels 1, 0, 1, 0)."""
    path = tmp_path / "four.jsonl"
    path.write_text("".join(PAIR_SAMPLE.read_text("utf-8").splitlines(True)[:4]), "utf-8")
    return path


def _audit(data: Path, out: Path, server: FaultServer, *extra: str) -> int:
    argv = ["audit", str(data), *PAIR, "--judge", f"openai:{MODEL}"]
    return main([*argv, "--base-url", server.base_url, *extra, "-o", str(out)])


def test_audit_judges_on_the_base_url_server(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "report"
    with FaultServer() as server:
        assert _audit(PAIR_SAMPLE, out, server) == 0
        asked = list(server.requests)
        # the Python API takes the same option: a fresh cache, so it must ask the server
        import benchcheck.judges.cache as cache_mod

        monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "c2.sqlite")
        inputs = AuditInputs(
            table=TableInput(
                str(PAIR_SAMPLE), Columns(text_a="grounding", text_b="generated_text")
            ),
            judge=JudgeInput(JudgeSetup((f"openai:{MODEL}",), base_url=server.base_url)),
        )
        api = dumps(run_audit(inputs).results)
        asked_again = len(server.requests) - len(asked)
    labels = [json.loads(x)["label"] for x in PAIR_SAMPLE.read_text("utf-8").splitlines()]
    n = len(labels)
    assert len(asked) == asked_again == _requests(n)
    assert {r["model"] for r in asked} == {MODEL}
    text = (out / "results.json").read_text("utf-8")
    assert api == text
    le = json.loads(text)["label_errors"]
    assert le["judge"]["judge"] == f"openai:{MODEL}"
    assert le["judge"]["members"] == PROMPTS and "default_judge" not in le
    # The server's P(1) is the same for every example, so the default prior shift moves
    # each to the data's share of label 1 (11 of 20): every example labelled 0 disagrees.
    # 20 examples are too few to fit the error rate (issue 34): the default flags are the
    # disagreements, all of them, and the operating point says why.
    zeros = [f"p{i + 1:02d}" for i, lab in enumerate(labels) if lab == 0]
    assert le["summary"]["disagreements"] == len(zeros) == 9
    assert le["summary"]["flagged"] == 9 and sorted(e["id"] for e in le["examples"]) == zeros
    assert le["expected_errors"]["n"] == n and le["operating_point"]["rule"] == "disagreements"


@pytest.mark.parametrize(
    ("extra", "sent"),
    [
        ([], "Bearer sk-default-key"),  # as judge: OPENAI_API_KEY
        (["--api-key-env", "BENCH_TEST_KEY"], "Bearer sk-named-key"),
        (["--api-key-env", "BENCH_UNSET_KEY"], None),  # unset: no key sent
    ],
)
def test_api_key_env_names_the_key_sent(tmp_path, monkeypatch, four_pairs, extra, sent) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default-key")
    monkeypatch.setenv("BENCH_TEST_KEY", "sk-named-key")
    monkeypatch.delenv("BENCH_UNSET_KEY", raising=False)
    with FaultServer() as server:
        assert _audit(four_pairs, tmp_path / "report", server, *extra) == 0
        headers = list(server.headers)
    assert len(headers) == _requests(4)
    assert {h.get("Authorization") for h in headers} == {sent}


def test_timeout_cuts_a_slow_request_and_the_retry_answers(tmp_path, four_pairs) -> None:
    # The first request sleeps 8 s before answering. With --timeout 0.5 the judge gives up
    # on it after 0.5 s and asks again (one request more than judgments); with the default
    # 60 s it would wait the 8 s and ask once.
    slow = 8.0  # far above the run itself (about 1.5 s), so a loaded machine stays green
    with FaultServer(["slow"], slow_seconds=slow) as server:
        started = time.perf_counter()
        assert _audit(four_pairs, tmp_path / "report", server, "--timeout", "0.5") == 0
        seconds = time.perf_counter() - started
        asked = len(server.requests)
    assert asked == _requests(4) + 1
    assert seconds < slow
    le = json.loads((tmp_path / "report" / "results.json").read_text("utf-8"))["label_errors"]
    assert le["summary"]["judged"] == 4


def test_a_bad_timeout_exits_2_naming_the_flag(tmp_path, four_pairs, capsys) -> None:
    argv = ["audit", str(four_pairs), *PAIR, "--judge", "openai:m", "--timeout", "0"]
    closed = ["--base-url", "http://127.0.0.1:9/v1"]  # never the network, even if it asked
    assert main([*argv, *closed, "-o", str(tmp_path / "report")]) == 2
    # (the option table's range, checked at the boundary before any judge is built)
    assert "--timeout must be a finite number above 0 and at most 86,400, got 0.0" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "report").exists()


def test_connection_defaults_are_those_of_judge() -> None:
    from benchcheck.cli import app

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    names = ("base_url", "api_key_env", "timeout")
    setup, judge = JudgeSetup(), AuditInputs().judge
    for command in ("audit", "judge"):
        shown = {p.name: p.default for p in commands[command].params}
        assert {k: shown[k] for k in names} == {k: getattr(setup, k) for k in names}, command
    assert judge is not None and judge.setup == setup
