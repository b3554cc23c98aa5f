"""Terminal rendering of ``error-rate``, ``remedy`` and ``rerank`` with ``--task mcq``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.markup import escape
from rich.table import Table

from benchcheck.report.numbers import num, pct, signed
from benchcheck.report.terminal.labels import key_value_table

__all__ = ["mcq_error_rate_renderables", "mcq_rerank_renderables", "mcq_remedy_renderables"]


def _ci(ci: Any) -> str:
    return "—" if ci is None else f"[{pct(ci[0], 1)}, {pct(ci[1], 1)}]"


def _span(ci: Any) -> str:
    """Render an interval as ``[4.7–25.2%]`` (no space: it stays on one line)."""
    if ci is None:
        return "[—]"
    return f"[{pct(ci[0], 1).rstrip('%')}–{pct(ci[1], 1)}]"


def _rate_cells(rate: Mapping[str, Any]) -> list[str]:
    """Errors/sample, the lower bound with its interval, the stratified one with its own."""
    strat = rate.get("stratified")
    ci = rate["ci_fpc"] if rate.get("ci_fpc") is not None else rate["ci"]
    return [
        f"{rate['errors']}/{rate['sample']}",
        f"{pct(rate['error_rate'], 1)} {_span(ci)}",
        "—" if strat is None else f"{pct(strat['error_rate'], 1)} {_span(strat['ci'])}",
    ]


def mcq_error_rate_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render the wrong-key and any-error rates, overall and per group, and the error kinds."""
    level = pct(payload["confidence"], 0)
    out: list[Any] = [key_value_table("Reviewed questions by verdict", payload["error_kinds"])]
    table = Table(
        title=f"Error rates ({level} intervals: lower bound Clopper–Pearson; "
        "with an audit sample, the stratified estimate)"
    )
    for c in ("group", "rate", "errors", "lower bound [CI]", "stratified [CI]"):
        table.add_column(c, justify="left" if c in ("group", "rate") else "right")
    scopes = [("all", payload["overall"]), *payload["by_group"].items()]
    for name, rates in scopes:
        for definition, rate in rates.items():
            table.add_row(escape(name), definition.replace("_", " "), *_rate_cells(rate))
    out.append(table)
    return out


def mcq_remedy_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render what the remedy changed, overall and per group, and the files written."""
    rows: dict[str, Any] = {"questions": payload["n_questions"], "written": payload["n_written"]}
    rows.update({k.replace("_", " "): v for k, v in payload["counts"].items()})
    rows["file"] = payload["file"]
    rows["changes"] = payload["changes"]
    out: list[Any] = [key_value_table(f"Corrected benchmark (mode {payload['mode']})", rows)]
    if payload["by_group"]:
        table = Table(title="By group")
        names = list(next(iter(payload["by_group"].values())))
        table.add_column("group")
        for c in names:
            table.add_column(c.replace("_", " "), justify="right")
        for group, counts in payload["by_group"].items():
            table.add_row(escape(group or "—"), *(num(counts[c]) for c in names))
        out.append(table)
    return out


def mcq_rerank_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render each model's accuracy and rank on the original and the reviewed keys."""
    table = Table(
        title=f"Models on the original and the reviewed keys (Kendall tau "
        f"{num(payload['kendall_tau'], 3)}; {payload['moved']} models moved; "
        f"{payload['keys_changed']} keys changed, {payload['removed']} questions removed)"
    )
    for c in ("model", "accuracy", "rank", "reviewed keys", "rank ", "change"):
        table.add_column(c, justify="left" if c == "model" else "right", overflow="fold")
    for m in payload["models"]:
        change = m["rank_change"]
        table.add_row(
            escape(m["model"]), pct(m["accuracy_original"], 1), str(m["rank_original"]),
            pct(m["accuracy_corrected"], 1), str(m["rank_corrected"]),
            signed(change),
        )  # fmt: skip
    out: list[Any] = [table]
    if payload.get("neighbours"):
        gaps = Table(
            title=f"Neighbours on the reviewed keys: accuracy gap, paired bootstrap "
            f"({payload['bootstrap']} resamples, seed {payload['seed']})"
        )
        for c in ("better", "next", "gap", "95% CI", "p"):
            gaps.add_column(c, justify="left" if c in ("better", "next") else "right")
        for d in payload["neighbours"]:
            gaps.add_row(
                escape(str(d["a"])), escape(str(d["b"])), pct(d["difference"], 1),
                _ci(d["ci"]), num(d["p_value"], 3),
            )  # fmt: skip
        out.append(gaps)
    return out
