"""judge_frame's queue: every framing of an example (and every example sharing its grounding)
reaches the judge in one batch, so a prefix-sharing backend evaluates each grounding once."""

from __future__ import annotations

import os

import polars as pl
import pytest

from benchcheck.errors import UsageError
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore
from benchcheck.judges.prompts import select_prompts
from benchcheck.judges.run import CONTENT_FREE_INPUTS, judge_frame, queue_batches


class PrefixJudge(Judge):
    """Counts characters as a KV-cache engine counts tokens: each batch is sorted, and a
    request evaluates only what differs from the previous request's text (cache kept
    across batches, as llama.cpp keeps it)."""

    identity = JudgeIdentity("fake", "prefix")

    def __init__(self) -> None:
        self.evaluated = 0
        self.grounding_evaluations = 0
        self.batches: list[int] = []
        self._last = ""

    def score(self, requests, *, on_result=None):
        self.batches.append(len(requests))
        texts = [r.plain_text() for r in requests]
        out = [None] * len(requests)
        for i in sorted(range(len(texts)), key=lambda k: texts[k]):
            t = texts[i]
            same = len(os.path.commonprefix([t, self._last]))
            self.evaluated += len(t) - same
            grounding = dict(requests[i].fields)["text_a"]
            if same < t.index(grounding) + len(grounding):  # the grounding is (re)computed
                self.grounding_evaluations += 1
            self._last = t
            out[i] = JudgeScore.from_logprobs(requests[i].labels, (-1.0, -0.5), len(t), 0.0)
            if on_result is not None:
                on_result(i, out[i])
        return out


def _frame(n: int) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": [f"e{i}" for i in range(n)],
            "text_a": [f"Grounding number {i // 2} " + "word " * 30 for i in range(n)],
            "text_b": [f"claim {i}" for i in range(n)],
        }
    )


def test_each_grounding_evaluated_once_across_batches():
    frame = _frame(60)  # 30 groundings, two claims each
    prompts = select_prompts("all")
    judge = PrefixJudge()
    out = judge_frame(frame, [judge], prompts, batch_size=20)
    assert out.height == 240
    assert max(judge.batches) <= 20 and sum(judge.batches) == 240
    assert judge.grounding_evaluations == 30
    # the old prompt-major queue re-evaluated groundings: fed in (prompt, example) chunks
    old = PrefixJudge()
    reqs = [p.render(e) for p in prompts for e in frame.select("text_a", "text_b").to_dicts()]
    for s in range(0, len(reqs), 20):
        old.score(reqs[s : s + 20])
    assert old.grounding_evaluations > 100
    assert old.evaluated > 1.4 * judge.evaluated  # 48,020 vs 32,174 characters


def test_queue_keeps_a_grounding_together_and_splits_only_when_too_big():
    ex = [{"text_a": "A", "text_b": str(i)} for i in range(5)] + [{"text_a": "B", "text_b": "x"}]
    todo = [(f"k{p}-{e}", (p, e)) for p in range(2) for e in range(6)]
    batches = queue_batches(todo, ex, 4)
    # grounding A (10 requests) is cut at 4 and 4; its last 2 and B's 2 fill the third
    assert [len(b) for b in batches] == [4, 4, 4]
    assert [k for b in batches for k, _ in b][:4] == ["k0-0", "k1-0", "k0-1", "k1-1"]
    assert [k for k, _ in batches[-1]] == ["k0-4", "k1-4", "k0-5", "k1-5"]
    with pytest.raises(UsageError, match="batch size"):
        queue_batches(todo, ex, 0)


def test_content_free_rows():
    frame = _frame(4)
    prompts = select_prompts("nli,document")
    plain = judge_frame(frame, [PrefixJudge()], prompts)
    assert "content_free" not in plain.columns
    out = judge_frame(frame, [PrefixJudge()], prompts, content_free=CONTENT_FREE_INPUTS)
    assert out.height == 2 * (4 + 3)
    cf = out.filter(pl.col("content_free").is_not_null())
    assert cf["id"].to_list() == ["content-free:N/A", "content-free:", "content-free:[MASK]"] * 2
    assert cf["content_free"].to_list() == ["N/A", "", "[MASK]"] * 2
    assert out.filter(pl.col("content_free").is_null()).drop("content_free").equals(plain)


class Recorder(Judge):
    """Forwards to a real judge and keeps every score (with its ``n_evaluated``)."""

    def __init__(self, inner: Judge) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.scores: list[JudgeScore] = []
        self.requests: list = []

    def score(self, requests, *, on_result=None):
        got = self.inner.score(requests, on_result=on_result)
        self.scores += got
        self.requests += list(requests)
        return got


@pytest.mark.slow
def test_llama_evaluates_each_grounding_once_per_judge(llama_judge, pairs):
    """Real llama.cpp: with batches smaller than all the requests, the requests evaluated
    from an empty KV cache are exactly one per distinct grounding."""
    frame = pl.DataFrame(
        {
            "id": [f"p{i}" for i in range(len(pairs))],
            "text_a": [p["text_a"] for p in pairs],
            "text_b": [p["text_b"] for p in pairs],
        }
    )
    prompts = select_prompts("all")
    rec = Recorder(llama_judge)
    llama_judge.llm.reset()
    llama_judge._cached_plan = ()
    before = llama_judge.tokens_evaluated
    out = judge_frame(frame, [rec], prompts, batch_size=8)
    assert out.height == 12
    fresh = [s for s in rec.scores if dict(s.extra)["n_evaluated"] == s.n_prompt_tokens]
    assert len(fresh) == len(set(frame["text_a"]))  # 2 groundings, 12 requests
    evaluated = llama_judge.tokens_evaluated - before
    assert evaluated == sum(dict(s.extra)["n_evaluated"] for s in rec.scores)
    # every other request evaluates only its tail, from the end of its grounding on
    for s, req in zip(rec.scores, rec.requests, strict=True):
        if dict(s.extra)["n_evaluated"] != s.n_prompt_tokens:
            tokens = llama_judge.prompt_tokens(req)
            plan = llama_judge.plan(req, tokens)
            assert dict(s.extra)["n_evaluated"] == len(tokens) - plan[-2]
    assert evaluated < sum(s.n_prompt_tokens for s in rec.scores)
