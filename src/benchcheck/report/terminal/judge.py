"""Terminal summary of ``benchcheck judge``, from its canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchcheck.report.numbers import num

__all__ = ["judge_summary"]


def judge_summary(payload: Mapping[str, Any]) -> str:
    """Render one line: rows written, computed and cached, tokens, times, rate and cost."""
    wall = payload["wall_seconds"]
    rate = payload["computed"] / wall if wall > 0 else float("nan")
    cost = "" if payload["cost"] is None else f", cost {num(payload['cost'], 4)}"
    return (
        f"wrote {payload['rows']} judgements to {payload['output']} ({payload['computed']} "
        f"computed, {payload['cached']} from cache); {payload['prompt_tokens']} prompt tokens, "
        f"{num(payload['judge_seconds'], 1)} s judge time, {num(wall, 1)} s wall, "
        f"{num(rate, 2)} judgements/s{cost}"
    )
