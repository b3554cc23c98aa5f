"""Terminal summary of ``benchcheck judge``, from its canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["judge_summary"]


def judge_summary(payload: Mapping[str, Any]) -> str:
    """Render one line: rows written, computed and cached, tokens, times, rate and cost."""
    wall = payload["wall_seconds"]
    rate = payload["computed"] / wall if wall > 0 else float("nan")
    cost = "" if payload["cost"] is None else f", cost {payload['cost']:.4f}"
    return (
        f"wrote {payload['rows']} judgements to {payload['output']} ({payload['computed']} "
        f"computed, {payload['cached']} from cache); {payload['prompt_tokens']} prompt tokens, "
        f"{payload['judge_seconds']:.1f} s judge time, {wall:.1f} s wall, "
        f"{rate:.2f} judgements/s{cost}"
    )
