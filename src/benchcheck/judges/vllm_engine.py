"""A judge on vLLM's offline engine (GPU): prefix caching, label-token log-probabilities.

Written against vLLM's public offline API (``vllm.LLM``, ``vllm.SamplingParams``) and
**not exercised in benchcheck's CI** (no GPU there); treat it as untested.

One engine call scores a whole batch: prompts are rendered with the model's chat template
(``LLM.get_tokenizer().apply_chat_template``), then
``SamplingParams(max_tokens=1, temperature=0, logprobs=k, allowed_token_ids=labels)``
asks for one answer token restricted to the verbalisers, with the top-``k``
log-probabilities of that position (vLLM reports them from the raw logits, and always
includes the sampled token). ``LLM(..., enable_prefix_caching=True)`` reuses the KV cache of
shared prompt prefixes (the template's instruction; a grounding shared by several
examples). Label probabilities follow the same rule as the ``openai`` judge
(:func:`benchcheck.judges.openai_api.label_probs_from_logprobs`): renormalise over the
labels when all are among the top ``k``, else the binary rule.

Needs the ``vllm`` extra.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from benchcheck.errors import JudgeError, JudgeUnavailable, require
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore, OnResult, single_token
from benchcheck.judges.openai_api import label_probs_from_logprobs
from benchcheck.judges.prompts import ChatRequest


class VLLMJudge(Judge):
    """Score chat requests with ``vllm.LLM`` (a hub id or a local folder)."""

    backend = "vllm"

    def __init__(
        self,
        model: str,
        *,
        top_logprobs: int = 20,
        seed: int = 0,
        gpu_memory_utilization: float = 0.85,
        max_model_len: int | None = 4096,
        **engine_kwargs: Any,
    ) -> None:
        vllm = require("vllm", "vllm")
        self._vllm = vllm
        try:
            self.llm = vllm.LLM(
                model=model,
                enable_prefix_caching=True,
                seed=seed,
                gpu_memory_utilization=gpu_memory_utilization,
                max_model_len=max_model_len,
                max_logprobs=max(top_logprobs, 20),
                **engine_kwargs,
            )
        except Exception as exc:  # noqa: BLE001 - CUDA, download, config: all unavailable
            raise JudgeUnavailable(
                f"vLLM cannot load {model!r}: {type(exc).__name__}: {exc}"
            ) from None
        self.tok = self.llm.get_tokenizer()
        self.top_logprobs = top_logprobs
        revision = getattr(getattr(self.llm.llm_engine, "model_config", None), "revision", None)
        self.identity = JudgeIdentity(
            self.backend, model, str(revision or ""), (("top_logprobs", str(top_logprobs)),)
        )

    def label_token(self, verbaliser: str) -> int:
        """Return the verbaliser's single token id; :class:`UsageError` if it is not one token."""
        ids = self.tok.encode(verbaliser, add_special_tokens=False)
        return single_token(verbaliser, ids, self.identity.label)

    def score(
        self, requests: Sequence[ChatRequest], *, on_result: OnResult | None = None
    ) -> list[JudgeScore]:
        """Score the batch in one engine call (continuous batching inside vLLM)."""
        if not requests:
            return []
        label_sets = {tuple(r.verbalisers) for r in requests}
        groups: dict[tuple[str, ...], list[int]] = {v: [] for v in label_sets}
        for i, r in enumerate(requests):
            groups[tuple(r.verbalisers)].append(i)
        out: list[JudgeScore | None] = [None] * len(requests)
        for verbalisers, idx in groups.items():
            ids = [self.label_token(v) for v in verbalisers]
            params = self._vllm.SamplingParams(
                max_tokens=1, temperature=0.0, logprobs=self.top_logprobs, allowed_token_ids=ids
            )
            prompts = [
                self.tok.apply_chat_template(
                    requests[i].messages(), tokenize=False, add_generation_prompt=True
                )
                for i in idx
            ]
            start = time.perf_counter()
            results = self.llm.generate(prompts, params, use_tqdm=False)
            seconds = (time.perf_counter() - start) / len(idx)
            for i, res in zip(idx, results, strict=True):
                out[i] = self._to_score(requests[i], res, seconds)
                if on_result is not None:
                    on_result(i, out[i])  # type: ignore[arg-type]
        return [s for s in out if s is not None]

    def _to_score(self, req: ChatRequest, res: Any, seconds: float) -> JudgeScore:
        comp = res.outputs[0]
        if not comp.logprobs:
            raise JudgeError(f"vLLM returned no logprobs for model {self.identity.model!r}")
        position = comp.logprobs[0]  # dict: token id -> Logprob(logprob, rank, decoded_token)
        sampled = comp.token_ids[0]
        top = [
            {
                "token": lp.decoded_token if lp.decoded_token is not None else self.tok.decode([t]),
                "logprob": lp.logprob,
            }
            for t, lp in position.items()
        ]
        chosen = position.get(sampled)
        content = [
            {
                "token": self.tok.decode([sampled]),
                "logprob": chosen.logprob if chosen is not None else None,
                "top_logprobs": top,
            }
        ]
        got = label_probs_from_logprobs(content, req.verbalisers)
        if got is None:
            raise JudgeError(f"vLLM answer has no label token {list(req.verbalisers)}")
        probs, raw = got
        return JudgeScore(req.labels, tuple(probs), tuple(raw), len(res.prompt_token_ids), seconds)
