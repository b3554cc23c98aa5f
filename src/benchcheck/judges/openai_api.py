r"""A judge behind any OpenAI-compatible chat-completions server (OpenAI, vLLM, llama.cpp, Ollama).

One request per prompt: ``temperature=0``, ``max_tokens=2``, ``logprobs=true`` and
``top_logprobs=k``. The answer position is the first generated position whose token
(whitespace stripped) is a verbaliser; failing that, the first position whose top
log-probabilities list one. At that position (methods.md, section 2, step 1):

- every verbaliser in ``top_logprobs``: renormalise over them,
  :math:`P(l) = e^{z_l} / \sum_{l'} e^{z_{l'}}`;
- otherwise, for two labels: :math:`p_t = e^{z_t}` for the generated label ``t`` and
  :math:`1 - p_t` for the other (the paper's rule); for more labels, the labels not listed
  share :math:`1 - \sum_{listed} e^{z_l}` equally.

Tokens that differ only by surrounding whitespace (``"1"``, ``" 1"``) are pooled
(log-sum-exp). The API key is read from an environment variable at request time and never
stored or printed. At most ``concurrency`` requests are in flight; 429, 5xx, timeouts,
connection errors and unparsable bodies are retried after
:math:`u \cdot \min(\text{backoff\_max}, \text{backoff\_base} \cdot 2^{a})` seconds
(try :math:`a = 0, 1, \ldots`; jitter :math:`u \sim U(0.5, 1)`, seeded), or after
``Retry-After`` when the server asks for longer; after the last try a :class:`JudgeError`
says what failed. Results finished before a failure are reported through ``on_result`` first.

Needs the ``openai`` extra (``httpx``).
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import os
import random
import time
from collections.abc import Sequence
from typing import Any

from benchcheck.errors import JudgeError, UsageError, require
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore, OnResult, softmax
from benchcheck.judges.prompts import ChatRequest

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date).

    >>> parse_retry_after("3")
    3.0
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0)
    10.0
    >>> parse_retry_after("soon") is None
    True
    """
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def label_probs_from_logprobs(
    content: Sequence[dict[str, Any]], verbalisers: Sequence[str]
) -> tuple[list[float], list[float | None]] | None:
    """Label probabilities and raw log-probabilities from an OpenAI ``logprobs.content``.

    Returns None when no position mentions a verbaliser.

    >>> pos = {"token": "1", "logprob": -0.1,
    ...        "top_logprobs": [{"token": "1", "logprob": -0.1}, {"token": "0", "logprob": -2.4}]}
    >>> probs, raw = label_probs_from_logprobs([pos], ["0", "1"])
    >>> [round(p, 4) for p in probs], raw
    ([0.0911, 0.9089], [-2.4, -0.1])
    >>> only = {"token": "1", "logprob": math.log(0.8), "top_logprobs": []}
    >>> [round(p, 4) for p in label_probs_from_logprobs([only], ["0", "1"])[0]]
    [0.2, 0.8]
    """
    wanted = {v.strip(): i for i, v in enumerate(verbalisers)}

    def listed(pos: dict[str, Any]) -> dict[int, float]:
        found: dict[int, list[float]] = {}
        entries = list(pos.get("top_logprobs") or [])
        entries.append({"token": pos.get("token"), "logprob": pos.get("logprob")})
        seen: set[str] = set()
        for e in entries:
            tok, lp = e.get("token"), e.get("logprob")
            if not isinstance(tok, str) or lp is None or tok in seen:
                continue
            seen.add(tok)
            idx = wanted.get(tok.strip())
            if idx is not None:
                found.setdefault(idx, []).append(float(lp))
        return {i: _logsumexp(v) for i, v in found.items()}

    at = None
    for pos in content:
        tok = pos.get("token")
        if isinstance(tok, str) and tok.strip() in wanted:
            at = pos
            break
    if at is None:
        at = next((p for p in content if listed(p)), None)
    if at is None:
        return None
    got = listed(at)
    n = len(verbalisers)
    raw: list[float | None] = [got.get(i) for i in range(n)]
    if len(got) == n:
        return softmax([got[i] for i in range(n)]), raw
    present = {i: min(1.0, math.exp(lp)) for i, lp in got.items()}
    rest = max(0.0, 1.0 - sum(present.values()))
    share = rest / (n - len(present))
    probs = [present.get(i, share) for i in range(n)]
    total = sum(probs)
    return [p / total for p in probs], raw


class OpenAIJudge(Judge):
    """Score chat requests through an OpenAI-compatible ``/chat/completions`` endpoint."""

    backend = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 8,
        max_retries: int = 5,
        timeout: float = 60.0,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        top_logprobs: int = 5,
        seed: int = 0,
    ) -> None:
        self.httpx = require("httpx", "openai")
        if concurrency < 1:
            raise UsageError(f"--concurrency must be >= 1, got {concurrency}")
        if max_retries < 0:
            raise UsageError(f"max_retries must be >= 0, got {max_retries}")
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip(
            "/"
        )
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.top_logprobs = top_logprobs
        self._rng = random.Random(seed)
        self.identity = JudgeIdentity(
            self.backend,
            model,
            "",
            (("base_url", self.base_url), ("top_logprobs", str(top_logprobs))),
        )
        self.attempts = 0  # HTTP requests sent, retries included

    @property
    def url(self) -> str:
        """The chat-completions endpoint."""
        return f"{self.base_url}/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _body(self, req: ChatRequest) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": req.messages(),
            "max_tokens": 2,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": self.top_logprobs,
        }

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.backoff_max, self.backoff_base * (2**attempt)) * self._rng.uniform(
            0.5, 1.0
        )
        return backoff if retry_after is None else max(backoff, retry_after)

    def _parse(self, data: Any, req: ChatRequest, seconds: float) -> JudgeScore:
        try:
            choice = data["choices"][0]
        except (KeyError, IndexError, TypeError):
            raise _Retryable("response has no choices[0]") from None
        content = (
            ((choice.get("logprobs") or {}).get("content")) if isinstance(choice, dict) else None
        )
        if not content:
            raise JudgeError(
                f"{self.url} returned no logprobs for model {self.model!r}; this judge needs a "
                "server that supports 'logprobs' and 'top_logprobs'"
            )
        got = label_probs_from_logprobs(content, req.verbalisers)
        if got is None:
            text = "".join(str(p.get("token", "")) for p in content)
            raise JudgeError(
                f"model {self.model!r} answered {text!r}: no label token "
                f"{list(req.verbalisers)} in its first {len(content)} position(s) or their "
                f"top-{self.top_logprobs} alternatives"
            )
        probs, raw = got
        usage = data.get("usage") or {}
        n_tokens = int(usage.get("prompt_tokens") or 0)
        return JudgeScore(req.labels, tuple(probs), tuple(raw), n_tokens, seconds)

    async def _one(self, client: Any, req: ChatRequest) -> JudgeScore:
        httpx = self.httpx
        last = "no attempt"
        for attempt in range(self.max_retries + 1):
            start = time.perf_counter()
            retry_after = None
            try:
                self.attempts += 1
                resp = await client.post(self.url, json=self._body(req), headers=self._headers())
                if resp.status_code in _RETRY_STATUS:
                    retry_after = parse_retry_after(resp.headers.get("retry-after"))
                    raise _Retryable(f"HTTP {resp.status_code}: {resp.text[:200]!r}", retry_after)
                if resp.status_code >= 400:
                    raise JudgeError(
                        f"{self.url} answered HTTP {resp.status_code} for model {self.model!r}: "
                        f"{resp.text[:300]}"
                    )
                try:
                    data = resp.json()
                except ValueError:
                    raise _Retryable(f"malformed JSON body: {resp.text[:80]!r}") from None
                return self._parse(data, req, time.perf_counter() - start)
            except _Retryable as exc:
                last = str(exc)
                retry_after = exc.retry_after
            except httpx.TimeoutException as exc:
                last = f"timed out after {self.timeout:g} s ({type(exc).__name__})"
            except httpx.TransportError as exc:
                last = f"connection failed ({type(exc).__name__}: {exc})"
            if attempt < self.max_retries:
                await asyncio.sleep(self._delay(attempt, retry_after))
        raise JudgeError(
            f"{self.url} (model {self.model!r}) failed after {self.max_retries + 1} tries; "
            f"last error: {last}"
        )

    async def _run(
        self, requests: Sequence[ChatRequest], on_result: OnResult | None
    ) -> list[JudgeScore | None]:
        httpx = self.httpx
        out: list[JudgeScore | None] = [None] * len(requests)
        sem = asyncio.Semaphore(self.concurrency)
        failed: list[BaseException] = []
        limits = httpx.Limits(max_connections=self.concurrency)
        async with httpx.AsyncClient(timeout=self.timeout, limits=limits) as client:

            async def task(i: int) -> None:
                async with sem:
                    if failed:
                        return
                    try:
                        score = await self._one(client, requests[i])
                    except JudgeError as exc:
                        failed.append(exc)
                        return
                out[i] = score
                if on_result is not None:
                    on_result(i, score)

            await asyncio.gather(*(task(i) for i in range(len(requests))))
        if failed:
            raise failed[0]
        return out

    def score(
        self, requests: Sequence[ChatRequest], *, on_result: OnResult | None = None
    ) -> list[JudgeScore]:
        """Score the requests concurrently (see the module docstring)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise JudgeError("OpenAIJudge.score cannot run inside a running event loop")
        out = asyncio.run(self._run(requests, on_result))
        return [s for s in out if s is not None]
