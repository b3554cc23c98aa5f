"""OpenAI judge against a real llama-cpp-python server on loopback (the local judge's GGUF)."""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import time

import pytest

from benchcheck.judges.openai_api import OpenAIJudge
from benchcheck.judges.prompts import select_prompts

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(small_gguf, tmp_path_factory):
    pytest.importorskip("uvicorn")
    pytest.importorskip("fastapi")
    pytest.importorskip("sse_starlette")
    httpx = pytest.importorskip("httpx")
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(small_gguf.path),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_threads",
        "1",
        "--n_threads_batch",
        "1",
        "--n_ctx",
        "1024",
        "--logits_all",
        "true",
    ]
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    log = open(log_path, "wb")  # a file, not a pipe: the verbose server would fill a pipe
    proc = subprocess.Popen(
        cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "NO_PROXY": "127.0.0.1"}
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base}/models", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not start within 90 s")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_real_server_label_probabilities(server, llama_judge, pairs):
    reqs = [t.render(e) for t in select_prompts("nli,document") for e in pairs[:2]]
    judge = OpenAIJudge("local", base_url=server, concurrency=2, timeout=120)
    remote = judge.score(reqs)
    local = llama_judge.score(reqs)
    for r, loc in zip(remote, local, strict=True):
        assert math.isclose(sum(r.probs), 1.0, abs_tol=1e-9)
        assert all(lp is not None and lp < 0 for lp in r.logprobs)  # both labels in top-5
        assert r.n_prompt_tokens == loc.n_prompt_tokens  # same chat template, same tokens
        # same weights, other evaluation schedule: same answer to about a hundredth
        assert r.probs[1] == pytest.approx(loc.probs[1], abs=0.03)
