"""Judges: backends that turn examples into label probabilities, cached and resumable.

Heavy backends (llama.cpp, transformers, vLLM, httpx) are imported only when built.
"""

from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore
from benchcheck.judges.cache import JudgeCache, default_cache_path
from benchcheck.judges.prompts import (
    BUILTIN_PROMPTS,
    ChatRequest,
    PromptTemplate,
    load_prompt_file,
    select_prompts,
)
from benchcheck.judges.resolve import DEFAULT_MODEL, resolve_model
from benchcheck.judges.run import (
    AUDIT_PROMPTS,
    CONTENT_FREE_INPUTS,
    DEFAULT_PROMPTS,
    JudgeRunSummary,
    judge_frame,
    make_judge,
    summarise,
)

__all__ = [
    "AUDIT_PROMPTS",
    "BUILTIN_PROMPTS",
    "CONTENT_FREE_INPUTS",
    "DEFAULT_MODEL",
    "DEFAULT_PROMPTS",
    "ChatRequest",
    "Judge",
    "JudgeCache",
    "JudgeIdentity",
    "JudgeRunSummary",
    "JudgeScore",
    "PromptTemplate",
    "default_cache_path",
    "judge_frame",
    "load_prompt_file",
    "make_judge",
    "resolve_model",
    "select_prompts",
    "summarise",
]
