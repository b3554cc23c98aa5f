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
        "disputed by most models, not flagged": s["disputed_not_flagged"],
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
        table.add_column(c, justify="left" if c == "model" else "right", overflow="fold")
    for m in rank["models"]:
        table.add_row(
            escape(m["model"]), pct(m["accuracy_original"], 1), str(m["rank_original"]),
            pct(m["accuracy_corrected"], 1), str(m["rank_corrected"]),
        )  # fmt: skip
    out.append(table)
    top = payload["top"]
    if top:
        out.append(_rows_table(f"Top {len(top)} flags", top, kind=True))
    left = payload["top_disputed_not_flagged"]
    if left:
        out.append(
            _rows_table(
                f"Disputed by most models, not flagged ({len(left)} of "
                f"{s['disputed_not_flagged']}, highest P(key wrong) first)",
                left,
                kind=False,
            )
        )
    return out


#: (column in the JSON rows, heading) of the flag tables; ids are never cut.
_ROW_COLUMNS = (
    ("rank", "rank"),
    ("id", "id"),
    ("group", "group"),
    ("label", "key"),
    ("proposed_answer", "proposed"),
    ("key_share", "on key"),
    ("error_score", "P(key wrong)"),
    ("kind", "kind"),
)


def _rows_table(title: str, rows: list[Mapping[str, Any]], *, kind: bool) -> Table:
    """Render the flags (``kind``: with rank and kind) or the unflagged disputed questions."""
    table = Table(title=title, caption="on key: share of the models that answered the key")
    columns = [(c, h) for c, h in _ROW_COLUMNS if kind or c not in ("kind", "rank")]
    for c, h in columns:
        table.add_column(h, no_wrap=c == "id", overflow="fold")
    for row in rows:
        table.add_row(
            *[pct(row[c]) if c == "key_share" and row[c] is not None else cell(row[c])
              for c, _ in columns]
        )  # fmt: skip
    return table


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
        title = f"Top {len(shown)} of {a['n_flags']} flags (all: {a['flags_file']})"
        out.append(_audit_flags(title, shown))
    else:
        out.append(f"No key reaches P(key wrong) ≥ {short(a['threshold'])}.")
    left = a["disputed_not_flagged"][:10]
    if left:
        title = (
            f"Disputed by most models, not flagged ({len(left)} of "
            f"{a['n_disputed_not_flagged']}, highest P(key wrong) first)"
        )
        out.append(_audit_flags(title, left))
    return out


def _audit_flags(title: str, rows: list[Mapping[str, Any]]) -> Table:
    """Render the audit's flag rows (flags, or disputed questions not flagged), votes too."""
    table = Table(title=title)
    for c in ("rank", "id", "group", "key", "proposed", "P(key wrong)", "kind", "votes"):
        table.add_column(c, no_wrap=c == "id", overflow="fold")
    for f in rows:
        votes = " ".join(
            f"{k}:{num(int(v) if float(v).is_integer() else v, 2)}"
            for k, v in f["votes"].items()
            if v > 0
        )
        table.add_row(
            str(f["rank"]), escape(f["id"]), escape(f["group"] or "—"), f["key"],
            f["proposed_answer"], num(f["error_score"]), f["kind"], votes,
        )  # fmt: skip
    return table
