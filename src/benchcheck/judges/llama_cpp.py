"""The embedded default judge: a GGUF model through llama.cpp, one forward pass per prompt.

For each request: render the model's chat template (from the GGUF metadata), tokenize,
evaluate, read the next-token logits at the last position with
``llama_cpp.llama_cpp.llama_get_logits_ith(ctx, -1)`` and take the log-softmax over the
full vocabulary at the verbaliser tokens; label probabilities are the softmax over those
(:class:`~benchcheck.judges.base.JudgeScore`). Nothing is sampled.

Requests are evaluated in lexicographic order of their token ids, so consecutive prompts
share the longest possible prefix (system message + grounding, which the built-in framings
of one example share); the KV cache of that prefix is kept and only the suffix is
evaluated. Results are reported in request order.

Each request is evaluated on its own *plan* of batch boundaries, a function of the request
alone (:meth:`LlamaCppJudge.plan`): every ``chunk`` (64) tokens up to the end of the first
text (``text_a``, or ``text``), then that point, then the rest in one batch. A token's
activations depend on the batch it was computed in (quantised kernels; up to 0.006 in a
probability was measured), so a cached prefix is reused only up to a boundary both plans
share: results are bit-identical in any order and any company, while the framings of one
example reuse the whole system + grounding prefix and evaluate their tails in one batch.
On a CPU, throughput rises with the batch up to about 64 tokens (138 tok/s at 8, 156 at
16, 192 at 64, 214 at 256 for the 0.5B model on 2 cores), hence the 64-token grid.

Needs the ``llama`` extra (``llama-cpp-python``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from benchcheck.errors import JudgeUnavailable, UsageError, require
from benchcheck.judges.base import (
    Judge,
    JudgeIdentity,
    JudgeScore,
    OnResult,
    log_softmax_at,
    single_token,
)
from benchcheck.judges.prompts import ChatRequest
from benchcheck.judges.resolve import DEFAULT_MODEL, resolve_model


def default_threads() -> int:
    """Threads for llama.cpp: ``BENCHCHECK_THREADS``, else the CPUs not already busy.

    llama.cpp's worker threads spin at barriers; with more threads than free cores a
    forward pass was measured 10x *slower* (2 threads beside one busy process on 2 cores:
    10 tok/s against 97 tok/s with 1 thread), so we leave busy cores alone.
    """
    env = os.environ.get("BENCHCHECK_THREADS")
    if env:
        return max(1, int(env))
    try:
        cpus = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = max(1, os.cpu_count() or 1)
    try:
        busy = os.getloadavg()[0]
    except OSError:  # pragma: no cover
        busy = 0.0
    return max(1, min(cpus, int(cpus - busy + 0.5)))


class LlamaCppJudge(Judge):
    r"""Score chat requests with a GGUF model (path, bundle alias or hub id).

    ``chat_template=False`` sends ``system + "\n\n" + user + "\n"`` as raw text (for
    base models without a template). ``seed`` is passed to the engine; scoring is
    deterministic for a given build and thread count.
    """

    backend = "llama-cpp"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_batch: int = 512,
        chat_template: bool = True,
        reuse_prefix: bool = True,
        chunk: int = 64,
        seed: int = 0,
    ) -> None:
        llama_cpp = require("llama_cpp", "judge")
        resolved = resolve_model(model)
        self.resolved = resolved
        if chunk < 1:
            raise UsageError(f"chunk must be >= 1, got {chunk}")
        self.chunk = chunk
        self.n_threads = n_threads or default_threads()
        try:
            self.llm = llama_cpp.Llama(
                model_path=str(resolved.path),
                n_ctx=n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_batch=n_batch,
                logits_all=False,
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise JudgeUnavailable(f"llama.cpp cannot load {resolved.path}: {exc}") from None
        self._lib = llama_cpp.llama_cpp
        self._n_vocab = self.llm.n_vocab()
        self.reuse_prefix = reuse_prefix and not (
            getattr(self.llm, "_is_recurrent", False) or getattr(self.llm, "_is_hybrid", False)
        )
        template = self.llm.metadata.get("tokenizer.chat_template") if chat_template else None
        self._formatter: Any = None
        if template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            vocab = self.llm._model

            def text(tok: int) -> str:
                return vocab.token_get_text(tok) if tok >= 0 else ""

            self._formatter = Jinja2ChatFormatter(
                template=template,
                eos_token=text(self.llm.token_eos()),
                bos_token=text(self.llm.token_bos()),
            )
        self._label_ids: dict[str, int] = {}
        self.identity = JudgeIdentity(
            self.backend,
            resolved.name if resolved.source != "path" else os.path.basename(resolved.path),
            resolved.sha256,
            (("chat", "1" if self._formatter else "0"), ("plan", f"first-text+{chunk}")),
        )
        self.tokens_evaluated = 0
        self._cached_plan: tuple[int, ...] = ()

    # -- tokens -----------------------------------------------------------------------
    def label_token(self, verbaliser: str) -> int:
        """Return the verbaliser's single token id; :class:`UsageError` if it is not one token."""
        if verbaliser not in self._label_ids:
            ids = self.llm.tokenize(verbaliser.encode("utf-8"), add_bos=False, special=False)
            self._label_ids[verbaliser] = single_token(verbaliser, ids, self.identity.label)
        return self._label_ids[verbaliser]

    def prompt_text(self, request: ChatRequest) -> tuple[str, bool]:
        """Return the text sent to the model, and whether it already holds the BOS token."""
        if self._formatter is None:
            return request.plain_text(), False
        out = self._formatter(messages=request.messages())
        return out.prompt, bool(out.added_special)

    def prompt_tokens(self, request: ChatRequest) -> list[int]:
        """Token ids of the rendered prompt."""
        return self._tokenize(*self.prompt_text(request))

    def _tokenize(self, text: str, has_bos: bool) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=not has_bos, special=True))

    # -- evaluation -------------------------------------------------------------------
    def plan(
        self,
        request: ChatRequest,
        tokens: Sequence[int],
        *,
        rendered: tuple[str, bool] | None = None,
    ) -> tuple[int, ...]:
        """Batch boundaries for ``tokens`` (the last is ``len(tokens)``), from the request alone.

        Every ``chunk`` tokens up to the end of the first text, that point, then the end.
        The point is where the prompt's tokens stop matching the tokens of the prompt cut
        right after the first text (a BPE merge across the cut moves it back a token).
        ``rendered`` is :meth:`prompt_text` of the request when the caller has it already.
        """
        n = len(tokens)
        shared = self._first_text_end(request, rendered or self.prompt_text(request), tokens)
        bounds = list(range(self.chunk, shared, self.chunk))
        if 0 < shared < n:
            bounds.append(shared)
        bounds.append(n)
        return tuple(bounds)

    def _first_text_end(
        self, request: ChatRequest, rendered: tuple[str, bool], tokens: Sequence[int]
    ) -> int:
        fields = dict(request.fields)
        first = fields.get("text_a", fields.get("text"))
        if not first:
            return 0
        text, has_bos = rendered
        at = text.find(first)
        if at < 0:
            return 0
        head = self._tokenize(text[: at + len(first)], has_bos)
        shared = 0
        for a, b in zip(head, tokens, strict=False):
            if a != b:
                break
            shared += 1
        return min(shared, len(head) - 1) if shared == len(head) else shared

    def _eval(self, tokens: list[int], plan: tuple[int, ...]) -> int:
        """Evaluate ``tokens`` batch by batch along ``plan``, reusing the cached prefix.

        The cached KV is kept up to the last boundary of the plans' common start (the two
        boundary lists equal element by element) under which the tokens agree, always
        evaluating at least the last batch, so every token is computed in the same batch as
        on a fresh start.
        Returns the number of tokens evaluated.
        """
        llm = self.llm
        if len(tokens) > llm.n_ctx():
            raise UsageError(
                f"prompt of {len(tokens)} tokens exceeds the context of {llm.n_ctx()}; "
                "raise n_ctx or shorten the example"
            )
        keep = 0
        if self.reuse_prefix and llm.n_tokens:
            cached = llm.input_ids[: llm.n_tokens]
            same = 0
            limit = min(len(cached), len(tokens))
            while same < limit and cached[same] == tokens[same]:
                same += 1
            # The boundaries both plans start with (equal one by one), up to the agreement:
            # every cached token was then computed in the same batch as this plan would.
            for ours, theirs in zip(plan[:-1], self._cached_plan, strict=False):
                if ours != theirs or ours > same:
                    break
                keep = ours
            if keep and not llm._ctx.kv_cache_seq_rm(-1, keep, -1):
                keep = 0
        if keep == 0:
            llm.reset()
        llm.n_tokens = keep
        start = keep
        for bound in plan:
            if bound > start:
                llm.eval(tokens[start:bound])
                start = bound
        self._cached_plan = plan
        return len(tokens) - keep

    def last_logits(self) -> Any:
        """Return a copy of the next-token logits after the last evaluated token (numpy)."""
        import numpy as np

        ptr = self._lib.llama_get_logits_ith(self.llm.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self._n_vocab,)).copy()

    def score(
        self, requests: Sequence[ChatRequest], *, on_result: OnResult | None = None
    ) -> list[JudgeScore]:
        """Score each request from one forward pass (see the module docstring)."""
        prepared = []
        for i, req in enumerate(requests):
            ids = [self.label_token(v) for v in req.verbalisers]
            rendered = self.prompt_text(req)
            tokens = self._tokenize(*rendered)
            prepared.append((tokens, i, ids, self.plan(req, tokens, rendered=rendered)))
        prepared.sort(key=lambda t: t[0])
        out: list[JudgeScore | None] = [None] * len(requests)
        for tokens, i, ids, plan in prepared:
            start = time.perf_counter()
            evaluated = self._eval(tokens, plan)
            logprobs = log_softmax_at(self.last_logits(), ids)
            seconds = time.perf_counter() - start
            self.tokens_evaluated += evaluated
            score = replace(
                JudgeScore.from_logprobs(requests[i].labels, logprobs, len(tokens), seconds),
                extra=(("n_evaluated", evaluated),),
            )
            out[i] = score
            if on_result is not None:
                on_result(i, score)
        return [s for s in out if s is not None]

    def close(self) -> None:
        """Free the model."""
        llm = getattr(self, "llm", None)
        if llm is not None:
            llm.close()
            self.llm = None  # type: ignore[assignment]
