"""OpenAI-compatible judge: a fault-injecting loopback server and the retry/cache contract."""

from __future__ import annotations

import math
import time

import polars as pl
import pytest
from judges_fault_server import FaultServer, fast_judge, grounding_request

from benchcheck.errors import JudgeError
from benchcheck.judges.cache import JudgeCache
from benchcheck.judges.openai_api import OpenAIJudge, label_probs_from_logprobs
from benchcheck.judges.prompts import select_prompts
from benchcheck.judges.run import judge_frame

pytest.importorskip("httpx")


def test_well_formed_answer_is_renormalised_over_label_tokens():
    with FaultServer() as server:
        judge = fast_judge(server)
        s = judge.score([grounding_request()])[0]
    # top_logprobs: '1' 0.8, '0' 0.15 -> renormalised 0.8/0.95
    assert s.probs == pytest.approx((0.15 / 0.95, 0.8 / 0.95))
    assert s.logprobs == pytest.approx((math.log(0.15), math.log(0.8)))
    body = server.requests[0]
    assert body["max_tokens"] == 2 and body["temperature"] == 0
    assert body["logprobs"] is True and body["top_logprobs"] == 5
    assert body["messages"][0]["role"] == "system"


def test_binary_rule_when_other_label_is_missing():
    pos = {"token": " 0", "logprob": math.log(0.7), "top_logprobs": [{"token": "A", "logprob": -3}]}
    probs, raw = label_probs_from_logprobs([{"token": "x", "logprob": -0.1}, pos], ["0", "1"])
    assert probs == pytest.approx([0.7, 0.3])
    assert raw == [pytest.approx(math.log(0.7)), None]
    assert label_probs_from_logprobs([{"token": "x", "logprob": 0.0}], ["0", "1"]) is None


def test_429_with_retry_after_then_500_then_success():
    with FaultServer(["429", "500"]) as server:
        judge = fast_judge(server, backoff_max=0.5)  # Retry-After is honoured up to this cap
        start = time.perf_counter()
        s = judge.score([grounding_request()])[0]
        elapsed = time.perf_counter() - start
    assert judge.attempts == 3 and len(server.requests) == 3
    assert elapsed >= 0.2  # Retry-After: 0.2 honoured although the backoff is 0.005-0.01 s
    assert math.isclose(sum(s.probs), 1.0)


def test_slow_response_times_out_and_is_retried():
    with FaultServer(["slow"], slow_seconds=2.0) as server:
        judge = fast_judge(server, timeout=0.6)
        s = judge.score([grounding_request()])[0]
    assert judge.attempts >= 2  # the slow answer timed out; a busy machine may add one more
    assert s.probs[1] > 0.5


def test_malformed_json_is_retried():
    with FaultServer(["malformed", "malformed"]) as server:
        judge = fast_judge(server)
        s = judge.score([grounding_request()])[0]
    assert judge.attempts == 3
    assert s.probs == pytest.approx((0.15 / 0.95, 0.8 / 0.95))  # the third, well-formed answer


def test_missing_logprobs_is_a_clear_error_without_retry():
    with FaultServer(["nologprobs"]) as server:
        judge = fast_judge(server)
        with pytest.raises(JudgeError, match="returned no logprobs.*supports 'logprobs'"):
            judge.score([grounding_request()])
    assert judge.attempts == 1


def test_clear_error_after_last_try():
    with FaultServer(["500"] * 10) as server:
        judge = fast_judge(server, max_retries=2)
        with pytest.raises(JudgeError, match=r"failed after 3 tries; last error: HTTP 500"):
            judge.score([grounding_request()])
    assert judge.attempts == 3


def test_api_key_is_sent_from_env_and_never_stored(monkeypatch):
    monkeypatch.setenv("BENCHCHECK_TEST_KEY", "sk-secret-123")
    with FaultServer() as server:
        judge = fast_judge(server, api_key_env="BENCHCHECK_TEST_KEY")
        judge.score([grounding_request()])
    assert "sk-secret-123" not in repr(vars(judge))
    assert "sk-secret-123" not in judge.identity.key


def test_concurrency_is_bounded():
    with FaultServer(["slow"] * 6, slow_seconds=0.3) as server:
        judge = fast_judge(server, concurrency=2, timeout=5.0)
        start = time.perf_counter()
        judge.score([grounding_request(str(i)) for i in range(6)])
        elapsed = time.perf_counter() - start
    assert elapsed >= 0.85  # 6 slow answers, two at a time: >= 3 x 0.3 s


def test_faults_lose_and_duplicate_no_cache_rows(tmp_path):
    """A run with faults and one permanently failing example stores every other result
    exactly once; the re-run asks the server only for what is missing."""
    texts = [f"claim {i}" + (" LOW" if i % 3 == 0 else "") for i in range(12)]
    texts[7] = "claim 7 FAIL"
    frame = pl.DataFrame(
        {"id": [f"e{i}" for i in range(12)], "text_a": ["g"] * 12, "text_b": texts}
    )
    prompts = select_prompts("nli,evidence")
    cache = JudgeCache(tmp_path / "c.sqlite")
    with FaultServer(["429", "500", "malformed", "slow", "ok", "500"], slow_seconds=0.5) as server:
        judge = fast_judge(server, concurrency=4, max_retries=2, timeout=0.3)
        with pytest.raises(JudgeError, match="failed after 3 tries"):
            judge_frame(frame, [judge], prompts, cache=cache)
        stored = len(cache)
        assert stored <= 22  # the 2 judgements of e7 cannot be stored
        texts[7] = "claim 7"
        frame = frame.with_columns(pl.Series("text_b", texts))
        before = len(server.requests)
        out = judge_frame(frame, [fast_judge(server)], prompts, cache=cache)
        asked = len(server.requests) - before
    # the same server (base URL is part of the judge's identity): nothing stored is asked again
    assert asked == 24 - stored
    assert len(cache) == 24  # nothing lost, nothing duplicated (key is the primary key)
    rows = cache._db.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM judgements").fetchone()
    assert rows == (24, 24)
    assert out.height == 24 and out["cached"].sum() == stored
    low = out.filter(pl.col("id") == "e0")["p_1"].to_list()
    assert low == pytest.approx([0.3 / 0.95] * 2)  # LOW answers: '1' 0.3, '0' 0.65 -> renormalised


def test_backoff_delay_is_jittered_exponential_capped_and_yields_to_a_capped_retry_after():
    judge = OpenAIJudge("m", base_url="http://127.0.0.1:9", backoff_base=0.5, backoff_max=3.0)
    for attempt, cap in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 3.0), (6, 3.0)]:
        delays = [judge._delay(attempt, None) for _ in range(200)]
        assert all(0.5 * cap <= d <= cap for d in delays)
        assert max(delays) - min(delays) > 0.3 * cap  # jittered, not constant
    assert judge._delay(0, 2.5) == 2.5  # Retry-After longer than the backoff wins ...
    assert judge._delay(0, 10.0) == 3.0  # ... up to the backoff maximum (Retry-After: 3600)
    assert judge._delay(0, 3600.0) == 3.0
    assert 0.25 <= judge._delay(0, 0.1) <= 0.5  # shorter one: the backoff stands
    # the same seed gives the same delays
    one = OpenAIJudge("m", base_url="http://127.0.0.1:9", backoff_base=0.5, backoff_max=3.0)
    two = OpenAIJudge("m", base_url="http://127.0.0.1:9", backoff_base=0.5, backoff_max=3.0)
    assert [one._delay(2, None) for _ in range(5)] == [two._delay(2, None) for _ in range(5)]
