"""The OpenAI judge is bounded against hostile servers (real loopback server, no mocks).

Each case ran unbounded before: a trickling body kept one request alive for minutes,
``Retry-After: 3600`` was obeyed, a 300 MB body was read whole, a redirect was retried as
"malformed JSON", and an error body echoing the key was printed as sent.
"""

from __future__ import annotations

import math
import resource
import time

import pytest
from judges_fault_server import FaultServer, fast_judge, grounding_request

from benchcheck.errors import JudgeError, UsageError
from benchcheck.judges.cache import JudgeCache
from benchcheck.judges.openai_api import OpenAIJudge, redact

pytest.importorskip("httpx")

KEY = "sk-test-0123456789abcdef"


def test_trickling_body_hits_the_total_deadline():
    # ~1900 bytes at 0.05 s each would take ~95 s; every single read is fast
    with FaultServer(["trickle"] * 3) as server:
        judge = fast_judge(server, timeout=0.5, max_retries=1)
        start = time.perf_counter()
        with pytest.raises(
            JudgeError,
            match=r"failed after 2 tries; last error: timed out after 0.5 s \(deadline\)",
        ):
            judge.score([grounding_request()])
        elapsed = time.perf_counter() - start
    assert elapsed < 3.0  # two tries of 0.5 s and a short backoff, on a loaded machine


def test_retry_after_is_capped_at_the_backoff_maximum():
    with FaultServer(["retry-3600"]) as server:
        judge = fast_judge(server, backoff_max=0.2)
        start = time.perf_counter()
        s = judge.score([grounding_request()])[0]
        elapsed = time.perf_counter() - start
    assert judge.attempts == 2 and math.isclose(sum(s.probs), 1.0)
    assert 0.2 <= elapsed < 3.0  # waited the cap (0.2 s), not an hour


@pytest.mark.parametrize("action", ["huge", "huge-chunked"])
def test_response_body_is_capped(action):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with FaultServer([action] * 5, huge_bytes=64 * 1024 * 1024) as server:
        judge = fast_judge(server, max_body_bytes=1024 * 1024)
        with pytest.raises(JudgeError, match=r"(more than 1048576 bytes|67108864-byte answer)"):
            judge.score([grounding_request()])
    assert judge.attempts == 1  # not retried: the server will send it again
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 48 * 1024  # a 64 MB body was not read whole


def test_redirect_is_an_error_not_followed_nor_retried():
    with FaultServer(["redirect"]) as server:
        judge = fast_judge(server)
        with pytest.raises(JudgeError) as info:
            judge.score([grounding_request()])
    assert judge.attempts == 1 and len(server.requests) == 1
    text = str(info.value)
    assert "answered HTTP 302 (a redirect to '/v1/elsewhere?token=sk-***')" in text
    assert "give the final URL as base_url" in text and "sk-leak" not in text


@pytest.mark.parametrize("action", ["echo-key", "echo-key-500"])
def test_server_echo_of_the_key_is_masked(monkeypatch, action):
    monkeypatch.setenv("BENCHCHECK_TEST_KEY", KEY)
    with FaultServer([action] * 5) as server:
        judge = fast_judge(server, api_key_env="BENCHCHECK_TEST_KEY", max_retries=1)
        with pytest.raises(JudgeError) as info:
            judge.score([grounding_request()])
    text = str(info.value)
    assert KEY not in text and "0123456789abcdef" not in text
    assert "invalid key ***" in text and '"Authorization": "***"' in text
    # the key was sent: the server saw it
    assert server.requests


@pytest.mark.parametrize("action", ["nan", "positive", "string"])
def test_impossible_logprobs_are_malformed_and_never_cached(tmp_path, action):
    import polars as pl

    from benchcheck.judges.prompts import select_prompts
    from benchcheck.judges.run import judge_frame

    frame = pl.DataFrame({"id": ["e0"], "text_a": ["g"], "text_b": ["c"]})
    cache = JudgeCache(tmp_path / "c.sqlite")
    with FaultServer([action] * 10) as server:
        judge = fast_judge(server, max_retries=2)
        with pytest.raises(JudgeError, match="malformed response: log-probability"):
            judge_frame(frame, [judge], select_prompts("nli"), cache=cache)
    assert judge.attempts == 3 and len(cache) == 0
    # once the server answers sensibly, the answer is used and stored
    with FaultServer([action]) as server:
        out = judge_frame(frame, [fast_judge(server)], select_prompts("nli"), cache=cache)
    assert len(cache) == 1 and out["p_1"][0] == pytest.approx(0.8 / 0.95)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_timeout_must_be_positive(bad):
    with pytest.raises(UsageError, match="timeout must be a positive number of seconds"):
        OpenAIJudge("m", base_url="http://127.0.0.1:9", timeout=bad)


def test_redact_rules():
    assert redact("Authorization: Bearer abc.def-ghi") == "Authorization: ***"
    assert redact("api_key=hunter22&x=1") == "api_key=***&x=1"
    assert redact('{"x-api-key": "k123"}') == '{"x-api-key": "***"}'
    assert redact("token Bearer eyJhbGciOi") == "token Bearer ***"
    assert redact("plain words stay") == "plain words stay"
    assert redact("the key is mysecret!", ["mysecret!"]) == "the key is ***"
