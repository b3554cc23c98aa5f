"""Terminal tables of ``items``, ``rank`` and ``diff``, rendered from their canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.markup import escape
from rich.table import Table

from benchcheck.report.numbers import num, pct

__all__ = ["diff_renderables", "items_renderables", "rank_renderables"]


def _iv(pair: Any, digits: int = 3) -> str:
    if not pair:
        return "—"
    return f"[{num(pair[0], digits)}, {num(pair[1], digits)}]"


def items_renderables(
    payload: Mapping[str, Any], *, top: int = 15, review: tuple[int, str] | None = None
) -> list[Any]:
    """Reliability, the most suspect items, the IRT abilities; ``review``: (items, folder)."""
    rel = payload["reliability"]
    out: list[Any] = []
    if review is not None:
        out.append(f"wrote {review[0]} suspect item(s) for blind review to {escape(review[1])}")
    t = Table(
        title=f"Reliability ({payload['n_items']} items × {payload['n_models']} models)",
        show_header=False,
        title_justify="left",
    )
    t.add_column("")
    t.add_column("", justify="right")
    t.add_row("KR-20", num(rel["kr20"], 4))
    t.add_row("Cronbach's alpha", num(rel["cronbach_alpha"], 4))
    t.add_row(f"{pct(rel['confidence'])} bootstrap CI over items", _iv(rel["ci"], 4))
    t.add_row("SEM (items correct)", num(rel["sem"], 3))
    for k, v in payload["counts"].items():
        t.add_row(f"items: {k}", str(v))
    out.append(t)
    if rel["note"]:
        out.append(f"[yellow]note:[/] {escape(rel['note'])}")
    flagged = [i for i in payload["items"] if i["flag"]]
    order = {"every model wrong": 0, "negative discrimination": 1, "low discrimination": 2}
    flagged.sort(
        key=lambda i: (
            order.get(i["flag"], 3),
            i["discrimination"] if i["discrimination"] is not None else -2,
        )
    )
    if flagged:
        t = Table(
            title=f"Suspect items ({len(flagged)}; the first {min(top, len(flagged))})",
            title_justify="left",
        )
        for c in ("id", "difficulty", "discrimination", "upper–lower", "why"):
            t.add_column(c, justify="left" if c in ("id", "why") else "right")
        for i in flagged[:top]:
            t.add_row(
                escape(str(i["id"])),
                num(i["difficulty"]),
                num(i["discrimination"]),
                num(i["upper_lower_index"]),
                i["flag"],
            )
        out.append(t)
    irt = payload["irt"]
    if irt:
        t = Table(
            title=f"IRT {irt['model'].upper()} abilities ({irt['library']})", title_justify="left"
        )
        for c in ("model", "theta", "SE", "score"):
            t.add_column(c, justify="left" if c == "model" else "right", overflow="fold")
        score = {m["name"]: m["score"] for m in payload["models"]}
        rows = sorted(
            irt["abilities"].items(),
            key=lambda kv: -(kv[1]["theta"] if kv[1]["theta"] is not None else 1e9),
        )
        for name, ab in rows:
            t.add_row(escape(name), num(ab["theta"]), num(ab["se"]), num(score.get(name)))
        out.append(t)
        pairs = irt["items_needed"]["pairs"]
        if pairs:
            t = Table(
                title="Items needed to separate neighbours at "
                f"{pct(irt['items_needed']['confidence'])}",
                title_justify="left",
            )
            for c in ("a", "b", "Δθ", "items needed", "separated now"):
                t.add_column(c, justify="left" if c in ("a", "b") else "right")
            for p in pairs:
                t.add_row(
                    escape(p["a"]),
                    escape(p["b"]),
                    num(p["theta_difference"]),
                    num(p["items_needed"]),
                    num(p["separated_now"]),
                )
            out.append(t)
    elif payload["irt_skipped"]:
        out.append(f"[dim]IRT skipped: {escape(str(payload['irt_skipped']))}[/]")
    for n in payload["notes"]:
        out.append(f"[yellow]note:[/] {escape(n)}")
    return out


def rank_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Return the leaderboard with intervals and who could swap with whom."""
    level = f"{pct(payload['confidence'])}"
    t = Table(
        title=f"Leaderboard under label uncertainty ({payload['metric']}, "
        f"{payload['n_resamples']} draws)",
        title_justify="left",
    )
    for c in ("rank", "model", "score", f"{level} interval", "rank range", "could swap with"):
        t.add_column(c, justify="left" if c in ("model", "could swap with") else "right")
    for m in payload["models"]:
        t.add_row(
            str(m["rank"]),
            escape(m["name"]),
            num(m["score"]),
            _iv(m["interval"]),
            f"{m['rank_interval'][0]}–{m['rank_interval'][1]}",
            escape(", ".join(m["could_swap_with"])) or "—",
        )
    out: list[Any] = [t]
    u = payload["uncertainty"]
    out.append(
        f"[dim]uncertain labels: {u['flagged_uncertain']} flagged without gold, "
        f"{u['residual_items']} under the residual rate; {u['gold']} gold[/]"
    )
    for n in payload["notes"]:
        out.append(f"[yellow]note:[/] {escape(n)}")
    return out


def diff_renderables(payload: Mapping[str, Any], *, limit: int = 40) -> list[Any]:
    """Render the changed values (tests where they apply), flags fixed/new, gates."""
    out: list[Any] = []
    if "metrics" in payload:  # a diff of two audits, not the gates of one
        rows = [m for m in payload["metrics"] if m["change"] not in (0, 0.0)]
        t = Table(
            title=f"Changed values ({payload['n_changed']} of {payload['n_values']})",
            title_justify="left",
        )
        for c in ("value", "old", "new", "change", "test", "p"):
            t.add_column(c, justify="left" if c in ("value", "test") else "right")
        for m in rows[:limit]:
            mark = " [red]worse[/]" if m["worse"] else ""
            t.add_row(
                escape(m["path"]) + mark,
                num(m["old"], 4),
                num(m["new"], 4),
                num(m["change"], 4),
                m["test"] or "—",
                num(m["p_value"], 4),
            )
        out.append(t)
    flags = payload.get("flags")  # only in a diff of two audits
    if flags:
        out.append(
            f"flags fixed: {flags['n_fixed']}, new: {flags['n_new']}, still flagged: "
            f"{flags['n_still_flagged']}"
        )
    for g in payload["gates"]:
        mark = "[red]FAIL[/]" if g["failed"] else "[green]pass[/]"
        out.append(
            f"{mark} {escape(g['expression'])} ({escape(str(g['path']))}): {escape(g['reason'])}"
        )
    for n in payload.get("notes", []):  # only in a diff of two audits
        out.append(f"[yellow]note:[/] {escape(n)}")
    return out
