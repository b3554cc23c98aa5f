"""Terminal rendering of ``benchcheck flag --task mcq``, from its canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.markup import escape
from rich.table import Table

from benchcheck.report.numbers import num, pct, short
from benchcheck.report.terminal.labels import cell, key_value_table

__all__ = ["mcq_flag_renderables"]


def mcq_flag_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render the answers detector's counts, the structural checks and the top flags."""
    s, fit = payload["summary"], payload["detector"]
    rows: dict[str, Any] = {
        "questions": s["n_questions"],
        "models": len(payload["answers"]["models"]),
        "missing answers": payload["answers"]["missing_answers"],
        f"flagged (P(key wrong) ≥ {short(fit['threshold'])})": s["flagged"],
        "expected wrong keys (sum of error scores)": num(s["expected_wrong_keys"], 1),
        "effective independent models": num(fit["effective_models"], 2),
    }
    for kind, n in fit["counts"].items():
        if kind != "ok":
            rows[f"  {kind}"] = n
    out: list[Any] = [key_value_table("Answer keys disputed by the models", rows)]
    checks = payload["checks"]["counts"]
    out.append(key_value_table("Structural checks (questions)", checks))
    groups = Table(title="By group (expected wrong keys: the sum of error scores, unreviewed)")
    for c in ("group", "questions", "flagged", "expected wrong keys", "rate"):
        groups.add_column(c, justify="left" if c == "group" else "right")
    for name, g in payload["by_group"].items():
        groups.add_row(
            escape(name or "—"), num(g["n"]), num(g["flagged"]),
            num(g["expected_wrong_keys"], 1), pct(g["expected_rate"], 1),
        )  # fmt: skip
    out.append(groups)
    rank = payload["ranking_with_proposed_keys"]
    table = Table(
        title=f"Models on the original and the proposed keys (Kendall tau "
        f"{num(rank['kendall_tau'], 3)}; {rank['keys_changed']} keys changed, "
        f"{rank['removed']} questions removed)"
    )
    for c in ("model", "accuracy", "rank", "corrected", "rank "):
        table.add_column(c, justify="left" if c == "model" else "right")
    for m in rank["models"]:
        table.add_row(
            escape(m["model"]), pct(m["accuracy_original"], 1), str(m["rank_original"]),
            pct(m["accuracy_corrected"], 1), str(m["rank_corrected"]),
        )  # fmt: skip
    out.append(table)
    top = payload["top"]
    if top:
        table = Table(title=f"Top {len(top)} flags")
        for c in top[0]:
            table.add_column(escape(c))
        for row in top:
            table.add_row(*[cell(v) for v in row.values()])
        out.append(table)
    return out
