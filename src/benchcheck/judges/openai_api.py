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
``Retry-After`` when the server asks for longer, but never longer than ``backoff_max``;
after the last try a :class:`JudgeError` says what failed. Results finished before a
failure are reported through ``on_result`` first.

Every request is bounded: ``timeout`` seconds is both the connect/read/write timeout and
the deadline of the whole try (a body that trickles in byte by byte is cut off there); a
body is read up to ``max_body_bytes`` (4 MiB; an answer is a few kB), no further; a
redirect (3xx) is an error, never followed nor retried (give the final URL). An answer whose
log-probabilities are impossible (NaN, infinite, above 0, not numbers) is malformed: retried,
never returned, so never cached. Whatever the server sends back (an error body, a
``Location``) is shown with the key, ``Authorization`` values, ``Bearer`` tokens and
``sk-…``-like strings masked (:func:`redact`), and at most 200 characters of it.

Needs the ``openai`` extra (``httpx``).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import random
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any

from benchcheck.errors import JudgeError, UsageError, require
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore, OnResult, softmax
from benchcheck.judges.prompts import ChatRequest

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: The most bytes of a response body read (an answer of 2 tokens with top_logprobs is ~2 kB).
MAX_BODY_BYTES = 4 * 1024 * 1024
#: Characters of a server's body or header shown in an error message.
_SHOWN = 200
_MASK = "***"
_SECRET_PATTERNS = (
    # header-like "Authorization: Bearer x", "api_key=x", "x-api-key": "x"
    re.compile(
        r"(?i)((?:proxy-)?authorization|x-api-key|api[-_]?key|access[-_]?token|secret)"
        r"""(["']?\s*[:=]\s*["']?)(?:bearer\s+|basic\s+)?[^\s"',;}&]+"""
    ),
    re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{4,}"),
    re.compile(r"\b(sk|pk|rk)(-)[A-Za-z0-9_-]{6,}"),
)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Mask what looks like a credential in text a server sent back.

    Each of ``secrets`` (the API key) anywhere, values of ``Authorization`` / ``api_key``-like
    fields, ``Bearer``/``Basic`` tokens, ``sk-…`` keys and the user part of URLs.

    >>> redact('{"error": "bad key sk-abc123456789", "Authorization": "Bearer zzz"}')
    '{"error": "bad key sk-***", "Authorization": "***"}'
    >>> redact("echo: my-key-42 at https://u:p@host/v1", ["my-key-42"])
    'echo: *** at https://***@host/v1'
    """
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, _MASK)
    text = _SECRET_PATTERNS[0].sub(lambda m: m.group(1) + m.group(2) + _MASK, text)
    text = _SECRET_PATTERNS[1].sub(lambda m: m.group(1) + m.group(2) + _MASK, text)
    text = _SECRET_PATTERNS[2].sub(lambda m: m.group(1) + m.group(2) + _MASK, text)
    return _USERINFO.sub(lambda m: m.group(1) + _MASK + "@", text)


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


def impossible_logprob(content: Sequence[Any]) -> str | None:
    """Describe the first impossible log-probability of a ``logprobs.content``, or None.

    A log-probability is a real number at most 0; a missing one (``null``) is no claim.

    >>> impossible_logprob([{"token": "1", "logprob": -0.1, "top_logprobs": []}]) is None
    True
    >>> impossible_logprob([{"token": "1", "logprob": 0.5}])
    "log-probability 0.5 of token '1' is above 0"
    >>> impossible_logprob([{"token": "1", "logprob": -0.1,
    ...                      "top_logprobs": [{"token": "0", "logprob": float("nan")}]}])
    "log-probability nan of token '0' is not a number"
    """
    for pos in content:
        if not isinstance(pos, dict):
            return f"a position is {type(pos).__name__}, not an object"
        entries = [pos, *(pos.get("top_logprobs") or [])]
        for e in entries:
            if not isinstance(e, dict):
                return f"a top_logprobs entry is {type(e).__name__}, not an object"
            lp = e.get("logprob")
            if lp is None:
                continue
            tok = e.get("token")
            if isinstance(lp, bool) or not isinstance(lp, int | float) or math.isnan(lp):
                return f"log-probability {lp!r} of token {tok!r} is not a number"
            if lp > 0:  # +inf too; -inf is probability 0, a possible answer
                return f"log-probability {lp!r} of token {tok!r} is above 0"
    return None


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
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self.httpx = require("httpx", "openai")
        if concurrency < 1:
            raise UsageError(f"{{concurrency}} must be >= 1, got {concurrency}")
        if max_retries < 0:
            raise UsageError(f"max_retries must be >= 0, got {max_retries}")
        if max_body_bytes < 1:
            raise UsageError(f"max_body_bytes must be >= 1, got {max_body_bytes}")
        self.max_body_bytes = max_body_bytes
        self.set_timeout(timeout)
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip(
            "/"
        )
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.max_retries = max_retries
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

    def set_timeout(self, seconds: float) -> None:
        """Bound each try to ``seconds``: connect, each read, and the whole answer."""
        if not (isinstance(seconds, int | float) and math.isfinite(seconds) and seconds > 0):
            raise UsageError(f"{{timeout}} must be a positive number of seconds, got {seconds!r}")
        self.timeout = float(seconds)

    @property
    def url(self) -> str:
        """The chat-completions endpoint."""
        return f"{self.base_url}/chat/completions"

    @property
    def shown_url(self) -> str:
        """The endpoint as messages show it (credentials in the URL masked)."""
        return redact(self.url)

    def _redact(self, text: str) -> str:
        key = os.environ.get(self.api_key_env) or ""
        return redact(text, [key])

    def _excerpt(self, body: bytes | str) -> str:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        text = self._redact(text)
        return repr(text[:_SHOWN] + ("…" if len(text) > _SHOWN else ""))

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
        if retry_after is None:
            return backoff
        # the server may ask for longer than the backoff, never longer than its maximum
        return max(backoff, min(retry_after, self.backoff_max))

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
                f"{self.shown_url} returned no logprobs for model {self.model!r}; this judge "
                "needs a server that supports 'logprobs' and 'top_logprobs'"
            )
        problem = impossible_logprob(content)
        if problem is not None:
            raise _Retryable(f"malformed response: {problem}")
        got = label_probs_from_logprobs(content, req.verbalisers)
        if got is None:
            text = "".join(str(p.get("token", "")) for p in content)
            raise JudgeError(
                f"model {self.model!r} answered {text!r}: no label token "
                f"{list(req.verbalisers)} in its first {len(content)} position(s) or their "
                f"top-{self.top_logprobs} alternatives"
            )
        probs, raw = got
        if not all(math.isfinite(p) and 0 <= p <= 1 for p in probs):
            raise _Retryable(f"malformed response: label probabilities {probs}")
        usage = data.get("usage") or {}
        tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        n_tokens = int(tokens) if isinstance(tokens, int) and not isinstance(tokens, bool) else 0
        return JudgeScore(req.labels, tuple(probs), tuple(raw), n_tokens, seconds)

    async def _read_body(self, resp: Any) -> bytes:
        """Read the body up to ``max_body_bytes``; a larger one is an error (not retried)."""
        limit = self.max_body_bytes
        declared = resp.headers.get("content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            raise JudgeError(
                f"{self.shown_url} sent a {int(declared)}-byte answer for model "
                f"{self.model!r}; at most {limit} bytes are read (an answer is a few kB)"
            )
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise JudgeError(
                    f"{self.shown_url} sent more than {limit} bytes for model {self.model!r}; "
                    "the answer was cut off there (an answer is a few kB)"
                )
            chunks.append(chunk)
        return b"".join(chunks)

    async def _try(self, client: Any, req: ChatRequest) -> JudgeScore:
        """One request, start to finish (the caller bounds it by the deadline)."""
        start = time.perf_counter()
        async with client.stream(
            "POST", self.url, json=self._body(req), headers=self._headers()
        ) as resp:
            status = resp.status_code
            if 300 <= status < 400:
                where = self._excerpt(resp.headers.get("location") or "")
                raise JudgeError(
                    f"{self.shown_url} answered HTTP {status} (a redirect to {where}) for "
                    f"model {self.model!r}; redirects are not followed: give the final URL as "
                    "{base_url}"
                )
            body = await self._read_body(resp)
            if status in _RETRY_STATUS:
                retry_after = parse_retry_after(resp.headers.get("retry-after"))
                raise _Retryable(f"HTTP {status}: {self._excerpt(body)}", retry_after)
            if status >= 400:
                raise JudgeError(
                    f"{self.shown_url} answered HTTP {status} for model {self.model!r}: "
                    f"{self._excerpt(body)}"
                )
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise _Retryable(f"malformed JSON body: {self._excerpt(body[:80])}") from None
        return self._parse(data, req, time.perf_counter() - start)

    async def _one(self, client: Any, req: ChatRequest) -> JudgeScore:
        httpx = self.httpx
        last = "no attempt"
        for attempt in range(self.max_retries + 1):
            retry_after = None
            try:
                self.attempts += 1
                return await asyncio.wait_for(self._try(client, req), timeout=self.timeout)
            except _Retryable as exc:
                last = str(exc)
                retry_after = exc.retry_after
            except (TimeoutError, httpx.TimeoutException) as exc:
                name = "deadline" if isinstance(exc, TimeoutError) else type(exc).__name__
                last = f"timed out after {self.timeout:g} s ({name})"
            except httpx.TransportError as exc:
                last = self._redact(f"connection failed ({type(exc).__name__}: {exc})")
            if attempt < self.max_retries:
                await asyncio.sleep(self._delay(attempt, retry_after))
        raise JudgeError(
            f"{self.shown_url} (model {self.model!r}) failed after {self.max_retries + 1} tries; "
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
        timeout = httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0))
        async with httpx.AsyncClient(
            timeout=timeout, limits=limits, follow_redirects=False
        ) as client:

            async def task(i: int) -> None:
                async with sem:
                    if failed:
                        return
                    try:
                        score = await self._one(client, requests[i])
                    except JudgeError as exc:
                        failed.append(exc)
                        return
                if failed:
                    return
                out[i] = score
                if on_result is not None:
                    # the caller's store failing (a damaged cache) stops the run as a judge
                    # error does: raised once every task has returned, never left to the
                    # loop's shutdown (tracebacks of requests on a closed client)
                    try:
                        on_result(i, score)
                    except Exception as exc:  # noqa: BLE001 - re-raised below, as it was
                        failed.append(exc)

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
