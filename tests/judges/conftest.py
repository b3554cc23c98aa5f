"""Shared fixtures for the judge tests: one real GGUF model per session."""

from __future__ import annotations

import pytest

SMALL_MODEL = "qwen2.5-coder-0.5b-instruct"


@pytest.fixture(scope="session")
def small_gguf():
    """The 0.5B Qwen GGUF from the offline bundle (skip when llama.cpp or the bundle is absent)."""
    pytest.importorskip("llama_cpp")
    from benchcheck.errors import JudgeUnavailable
    from benchcheck.judges.resolve import resolve_model

    try:
        return resolve_model(SMALL_MODEL)
    except JudgeUnavailable as exc:
        pytest.skip(f"offline model bundle not installed: {exc}")


@pytest.fixture(scope="session")
def llama_judge(small_gguf):
    from benchcheck.judges.llama_cpp import LlamaCppJudge

    judge = LlamaCppJudge(SMALL_MODEL, n_ctx=1024)
    yield judge
    judge.close()


PAIRS = [
    {
        "text_a": "The bakery opens at seven and closes at two.",
        "text_b": "The bakery closes at two.",
    },
    {
        "text_a": "The bakery opens at seven and closes at two.",
        "text_b": "The bakery is open at night.",
    },
    {"text_a": "Omar grew beans; his tomatoes failed.", "text_b": "Omar's tomatoes did well."},
]


@pytest.fixture
def pairs():
    return [dict(p) for p in PAIRS]
