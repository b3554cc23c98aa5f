"""A fault-injecting OpenAI-compatible chat server on loopback, for the judge tests.

``FaultServer(script)`` answers each request by the next entry of ``script`` (then
``"ok"`` forever): ``"ok"``, ``"429"`` (Retry-After: 0.2), ``"500"``, ``"slow"`` (sleeps
past the client's timeout, then answers), ``"malformed"`` (truncated JSON),
``"nologprobs"``. Bodies whose user message contains ``FAIL`` always get HTTP 500.

Hostile answers: ``"trickle"`` (a valid answer sent one byte every ``trickle_seconds``: no
single read times out), ``"huge"`` (a 200-line JSON answer padded to ``huge_bytes``, with a
Content-Length), ``"huge-chunked"`` (the same without a Content-Length), ``"redirect"``
(HTTP 302 to another path that would answer), ``"retry-3600"`` (429 with Retry-After:
3600), ``"echo-key"`` (HTTP 401 echoing the request's Authorization header and the key),
``"echo-key-500"`` (the same as a retryable 500), ``"nan"``, ``"positive"`` and
``"string"`` (impossible log-probabilities).

``requests`` holds every request body in arrival order, ``headers`` the request headers
beside it (``Authorization`` shows which key the client sent).
"""

from __future__ import annotations

import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def ok_body(user: str, p1: float = 0.8) -> dict:
    """A well-formed answer: '1' generated, both labels in top_logprobs."""
    top = [
        {"token": "1", "logprob": math.log(p1)},
        {"token": "0", "logprob": math.log(1 - p1 - 0.05)},
        {"token": " ", "logprob": math.log(0.05)},
    ]
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "1"},
                "logprobs": {
                    "content": [{"token": "1", "logprob": math.log(p1), "top_logprobs": top}]
                },
                "finish_reason": "length",
            }
        ],
        "usage": {"prompt_tokens": len(user.split()), "completion_tokens": 1},
    }


class FaultServer:
    def __init__(
        self,
        script: list[str] | None = None,
        slow_seconds: float = 1.5,
        trickle_seconds: float = 0.05,
        huge_bytes: int = 8 * 1024 * 1024,
    ) -> None:
        self.script = list(script or [])
        self.slow_seconds = slow_seconds
        self.trickle_seconds = trickle_seconds
        self.huge_bytes = huge_bytes
        self.sent_bytes = 0
        self.lock = threading.Lock()
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length))
                user = body["messages"][-1]["content"]
                with outer.lock:
                    outer.requests.append(body)
                    outer.headers.append(dict(self.headers.items()))
                    action = outer.script.pop(0) if outer.script else "ok"
                if "FAIL" in user:
                    action = "500"
                if action == "slow":
                    time.sleep(outer.slow_seconds)
                    action = "ok"
                if action == "trickle":
                    return self._trickle(json.dumps(ok_body(user)).encode())
                if action in ("huge", "huge-chunked"):
                    return self._huge(user, chunked=action == "huge-chunked")
                if action == "redirect":
                    return self._send(302, b"", {"Location": "/v1/elsewhere?token=sk-leak1234567"})
                if action == "retry-3600":
                    return self._send(429, b'{"error": "slow down"}', {"Retry-After": "3600"})
                if action in ("echo-key", "echo-key-500"):
                    auth = self.headers.get("Authorization", "")
                    key = auth.removeprefix("Bearer ")
                    echo = json.dumps(
                        {"error": f"invalid key {key}", "request_headers": {"Authorization": auth}}
                    ).encode()
                    return self._send(401 if action == "echo-key" else 500, echo)
                if action in ("nan", "positive", "string"):
                    data = ok_body(user)
                    bad = {"nan": float("nan"), "positive": 0.7, "string": "high"}[action]
                    data["choices"][0]["logprobs"]["content"][0]["top_logprobs"][1]["logprob"] = bad
                    return self._send(200, json.dumps(data).encode())
                if action == "429":
                    return self._send(429, b'{"error": "rate limited"}', {"Retry-After": "0.2"})
                if action == "500":
                    return self._send(500, b'{"error": "boom"}')
                if action == "malformed":
                    return self._send(200, b'{"choices": [{"index": 0, "logpro')
                if action == "nologprobs":
                    data = ok_body(user)
                    data["choices"][0]["logprobs"] = None
                    return self._send(200, json.dumps(data).encode())
                p1 = 0.3 if "LOW" in user else 0.8
                return self._send(200, json.dumps(ok_body(user, p1)).encode())

            def _trickle(self, payload):
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    for i in range(len(payload)):
                        self.wfile.write(payload[i : i + 1])
                        self.wfile.flush()
                        time.sleep(outer.trickle_seconds)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _huge(self, user, *, chunked):
                head = json.dumps(ok_body(user))[:-1].encode() + b', "pad": "'
                tail = b'"}'
                pad = outer.huge_bytes - len(head) - len(tail)
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    if not chunked:
                        self.send_header("Content-Length", str(len(head) + pad + len(tail)))
                    self.end_headers()
                    self.wfile.write(head)
                    block = b"x" * 65536
                    left = pad
                    while left > 0:
                        n = min(left, len(block))
                        self.wfile.write(block[:n])
                        outer.sent_bytes += n
                        left -= n
                    self.wfile.write(tail)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, code, payload, headers=None):
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FaultServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def fast_judge(server, **kw):
    """An OpenAI judge on ``server`` with test-speed backoff and a 5 s timeout."""
    from benchcheck.judges.openai_api import OpenAIJudge

    opts = dict(base_url=server.base_url, backoff_base=0.01, backoff_max=0.05, timeout=5.0)
    opts.update(kw)
    return OpenAIJudge("test-model", **opts)


def grounding_request(text="a"):
    """One rendered ``grounding`` prompt (grounding ``g``, generated text ``text``)."""
    from benchcheck.judges.prompts import BUILTIN_PROMPTS

    return BUILTIN_PROMPTS["grounding"].render({"text_a": "g", "text_b": text})
