"""llama.cpp judge against a real GGUF model from the offline bundle."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchcheck.errors import UsageError
from benchcheck.judges.prompts import BUILTIN_PROMPTS, select_prompts

pytestmark = pytest.mark.slow


def _requests(pairs):
    return [t.render(e) for t in select_prompts("nli,grounding") for e in pairs]


def test_probabilities_sum_to_one_and_are_deterministic(llama_judge, pairs):
    reqs = _requests(pairs)
    first = llama_judge.score(reqs)
    second = llama_judge.score(list(reversed(reqs)))[::-1]
    assert len(first) == len(reqs)
    for a, b in zip(first, second, strict=True):
        assert math.isclose(sum(a.probs), 1.0, abs_tol=1e-12)
        assert all(0.0 < p < 1.0 for p in a.probs)
        assert a.labels == ("0", "1")
        # label log-probabilities are log-softmax over the whole vocabulary: sum < 0
        assert all(lp < 0 for lp in a.logprobs)
        assert a.probs == b.probs  # any order, same bits
        assert a.n_prompt_tokens > 20


def test_matches_direct_logits_computation(llama_judge, pairs):
    """Independent path: fresh context state, full evaluation, numpy softmax of two logits."""
    import llama_cpp

    req = BUILTIN_PROMPTS["document"].render(pairs[1])
    got = llama_judge.score([req])[0]
    llm = llama_judge.llm
    text, has_bos = llama_judge.prompt_text(req)
    assert text.startswith("<|im_start|>system\n")  # Qwen's chat template was applied
    tokens = llm.tokenize(text.encode(), add_bos=not has_bos, special=True)
    ids = [
        llm.tokenize(b"0", add_bos=False, special=False)[0],
        llm.tokenize(b"1", add_bos=False, special=False)[0],
    ]

    def direct(bounds):
        llm.reset()
        start = 0
        for end in bounds:
            llm.eval(tokens[start:end])
            start = end
        return np.ctypeslib.as_array(
            llama_cpp.llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),)
        ).astype(np.float64)

    # the same batches as the judge's plan: the same numbers
    logits = direct(llama_judge.plan(req, tokens))
    z = logits[ids]
    expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert got.probs == pytest.approx(expected.tolist(), abs=1e-9)
    full = logits - (logits.max() + np.log(np.exp(logits - logits.max()).sum()))
    assert got.logprobs == pytest.approx(full[ids].tolist(), abs=1e-9)
    assert got.n_prompt_tokens == len(tokens)
    # one batch for the whole prompt: other kernels, same answer to a few thousandths
    z = direct([len(tokens)])[ids]
    assert got.probs == pytest.approx((np.exp(z) / np.exp(z).sum()).tolist(), abs=0.02)


def test_prefix_reuse_evaluates_fewer_tokens_with_same_result(llama_judge, pairs):
    reqs = [BUILTIN_PROMPTS["evidence"].render(e) for e in pairs]
    llama_judge.llm.reset()
    before = llama_judge.tokens_evaluated
    reused = llama_judge.score(reqs)
    evaluated = llama_judge.tokens_evaluated - before
    assert evaluated < sum(s.n_prompt_tokens for s in reused)
    assert sum(dict(s.extra)["n_evaluated"] for s in reused) == evaluated
    for req, s in zip(reqs, reused, strict=True):
        llama_judge.llm.reset()  # no reusable prefix: full evaluation
        alone = llama_judge.score([req])[0]
        assert alone.probs == s.probs  # chunked evaluation: identical bits


def test_three_way_nli(llama_judge, pairs):
    s = llama_judge.score([BUILTIN_PROMPTS["nli3"].render(pairs[0])])[0]
    assert s.labels == ("entailment", "neutral", "contradiction")
    assert math.isclose(sum(s.probs), 1.0, abs_tol=1e-12)


def test_multi_token_verbaliser_is_refused(llama_judge, pairs):
    t = BUILTIN_PROMPTS["nli"].with_verbalisers(["inconsistent", "consistent"])
    with pytest.raises(UsageError, match="verbaliser 'inconsistent' is .* tokens"):
        llama_judge.score([t.render(pairs[0])])


def test_plan_shares_the_grounding_across_framings(llama_judge, pairs):
    """The framings of one example reuse system + grounding and evaluate only their tails."""
    reqs = [t.render(pairs[2]) for t in select_prompts("all")]
    toks = [llama_judge.prompt_tokens(r) for r in reqs]
    plans = [llama_judge.plan(r, t) for r, t in zip(reqs, toks, strict=True)]
    shared = {p[-2] for p in plans}
    assert len(shared) == 1  # one point: the end of the grounding, the same for all four
    (point,) = shared
    assert all(t[:point] == toks[0][:point] for t in toks)
    assert all(
        p[-1] == len(t) and list(p) == sorted(set(p)) for p, t in zip(plans, toks, strict=True)
    )
    text = llama_judge.llm.detokenize(toks[0][:point]).decode()
    assert text.rstrip(".").endswith(pairs[2]["text_a"].rstrip(".")[-10:])
    llama_judge.llm.reset()
    before = llama_judge.tokens_evaluated
    llama_judge.score(reqs)
    tails = sum(len(t) - point for t in toks)
    assert llama_judge.tokens_evaluated - before == point + tails


def test_cached_prefix_is_kept_only_where_the_batches_were_the_same(
    llama_judge, pairs, monkeypatch
):
    """A boundary both plans hold is not enough: the batches before it must match too."""
    req = BUILTIN_PROMPTS["document"].render(pairs[0])
    n = len(llama_judge.prompt_tokens(req))
    first, second = (8, 24, n), (16, 24, n)  # same tokens, same boundary 24, other batches

    def score_with(plan, fresh):
        monkeypatch.setattr(llama_judge, "plan", lambda r, t, **_: plan)
        if fresh:
            llama_judge.llm.reset()
        before = llama_judge.tokens_evaluated
        probs = llama_judge.score([req])[0].probs
        return probs, llama_judge.tokens_evaluated - before

    alone, _ = score_with(second, fresh=True)
    score_with(first, fresh=True)
    after_first, evaluated = score_with(second, fresh=False)
    assert evaluated == n  # nothing reused: the batches below 24 differ
    assert after_first == alone
    score_with(second, fresh=False)
    _, evaluated = score_with(second, fresh=False)
    assert evaluated == n - 24  # same plan: reused up to its last shared boundary


def test_score_renders_each_prompt_once(llama_judge, pairs, monkeypatch):
    """The plan reuses the prompt rendered for tokenizing, with the same plan as alone."""
    reqs = _requests(pairs)
    expected = [llama_judge.plan(r, llama_judge.prompt_tokens(r)) for r in reqs]
    calls = []
    render = llama_judge.prompt_text
    monkeypatch.setattr(llama_judge, "prompt_text", lambda r: calls.append(r) or render(r))
    plans = []
    plan = llama_judge.plan
    monkeypatch.setattr(
        llama_judge, "plan", lambda r, t, **kw: plans.append(plan(r, t, **kw)) or plans[-1]
    )
    llama_judge.score(reqs)
    assert len(calls) == len(reqs)
    assert sorted(plans) == sorted(expected)
