"""Terminal rendering of ``benchcheck flag --task mcq``, from its canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.markup import escape
from rich.table import Table

from benchcheck.report.numbers import num, pct, short
from benchcheck.report.terminal.labels import cell, key_value_table

__all__ = ["mcq_audit_renderables", "mcq_flag_renderables"]


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


def mcq_audit_renderables(mcq: Mapping[str, Any]) -> list[Any]:
    """Render the audit's ``mcq`` object: checks, near-duplicates, expected keys, flags."""
    out: list[Any] = []
    checks = {c: n for c, n in mcq["structure"]["counts"].items() if n}
    nd = mcq["near_duplicates"]
    checks["near-duplicate clusters"] = nd["n_clusters"]
    checks["  whose keys differ"] = nd["n_clusters_keys_differ"]
    out.append(key_value_table("Multiple-choice structure (questions)", checks))
    a = mcq["answers"]
    if a is None:
        return out
    level = pct(a["confidence"])
    groups = Table(title="Expected wrong keys (sum of P(key wrong), unreviewed)")
    for c in ("group", "questions", "flagged", "expected", "rate", f"{level} CI"):
        groups.add_column(c, justify="left" if c == "group" else "right")
    for g in (a["overall"], *a["by_group"]):
        groups.add_row(
            escape(g["group"] or "all"), num(g["n"]), num(g["flagged"]),
            num(g["expected_wrong_keys"], 1), pct(g["rate"], 1),
            f"{pct(g['ci'][0], 1)}–{pct(g['ci'][1], 1)}",
        )  # fmt: skip
    out.append(groups)
    if a["flags"]:
        shown = a["flags"][:10]
        table = Table(title=f"Top {len(shown)} of {a['n_flags']} flags (all: {a['flags_file']})")
        for c in ("rank", "id", "group", "key", "proposed", "P(key wrong)", "kind", "votes"):
            table.add_column(c)
        for f in shown:
            votes = " ".join(
                f"{k}:{num(int(v) if float(v).is_integer() else v, 2)}"
                for k, v in f["votes"].items()
                if v > 0
            )
            table.add_row(
                str(f["rank"]), escape(f["id"]), escape(f["group"] or "—"), f["key"],
                f["proposed_answer"], num(f["error_score"]), f["kind"], votes,
            )  # fmt: skip
        out.append(table)
    return out
