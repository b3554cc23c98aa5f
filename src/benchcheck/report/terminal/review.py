"""Terminal rendering of ``review export``, ``review import`` and ``error-rate``, from JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.markup import escape
from rich.table import Table

from benchcheck.report.numbers import num, pct, short
from benchcheck.report.terminal.labels import cell, crowd_model_table, key_value_table

__all__ = [
    "error_rate_notes",
    "error_rate_renderables",
    "review_export_renderables",
    "review_import_notes",
    "review_import_renderables",
    "span_review_import_renderables",
]


def review_export_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``review export``: what went into the package, and where."""
    if payload.get("review") == "spans":
        return [
            key_value_table(
                "Span review export (Label Studio)",
                {
                    "span flags": payload["n_flags"],
                    "flagged sentences": payload["n_flagged"],
                    "flagged sentences exported": payload["n_disputed"],
                    "audit sample (sentences without a flag)": payload["n_audit"],
                    "tasks": payload["n_items"],
                    "entity types": ", ".join(payload["types"]),
                    "seed": payload["seed"],
                    "folder": payload["out_dir"],
                },
            ),
            "Keep key.jsonl away from the reviewers.",
        ]
    return [
        key_value_table(
            "Review export",
            {
                "flagged": payload["n_flagged"],
                "flags exported": payload["n_disputed"],
                "audit sample (undisputed)": payload["n_audit"],
                "items per expert": payload["n_items"],
                "experts": ", ".join(payload["experts"]),
                "seed": payload["seed"],
                "folder": payload["out_dir"],
            },
        ),
        *(
            ["No flags: the package holds the audit sample only."]
            if not payload["n_flagged"]
            else []
        ),
        "Keep key.jsonl away from the experts.",
    ]


def review_import_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``review import``: agreement before/after, gold statuses, changes, audit."""
    agreement = Table(title="Expert agreement")
    agreement.add_column("")
    agreement.add_column("before reconciliation", justify="right")
    agreement.add_column("after", justify="right")
    for k, v in payload["agreement_before"].items():
        agreement.add_row(escape(k), cell(v), cell(payload["agreement_after"].get(k)))
    rows: dict[str, Any] = {f"changed {k}": v for k, v in payload["changes"].items()}
    if "flags_decided" in payload:
        rows["flags with a gold label"] = payload["flags_decided"]
    rows["sided with LLM"] = payload["sided_with_llm"]
    rows["sided with original"] = payload["sided_with_original"]
    if payload.get("sided_with_neither"):
        rows["sided with neither (another label)"] = payload["sided_with_neither"]
    if payload.get("audited"):
        rows["audited (undisputed)"] = payload["audited"]
        rows["errors found by the audit"] = payload["audit_errors"]
    # one expert has nobody to agree with: say so, no empty table
    one = "One expert: no agreement to measure (gold labels are their answers)."
    out = [
        agreement if len(payload["experts"]) > 1 else one,
        key_value_table("Gold labels", dict(payload["status_counts"])),
        key_value_table("Reviewed items", rows),
    ]
    if payload.get("crowd_model"):
        out.append(crowd_model_table(payload["crowd_model"]))
    return out


def span_review_import_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``review import`` of a span review: sentences, span agreement, flag verdicts."""
    agreement = payload["span_agreement"]
    return [
        key_value_table("Sentences", dict(payload["status_counts"])),
        key_value_table(
            "Span agreement",
            {
                "spans marked (tasks two or more answered)": agreement["spans"],
                "marked by every reviewer": agreement["agreed"],
                "agreement": agreement["percent"],
            },
        ),
        key_value_table("Gold spans", {f"{k}": v for k, v in payload["changes"].items()}),
        key_value_table(
            "Flags",
            {
                "confirmed (the gold was wrong)": payload["flag_counts"]["confirmed"],
                "rejected": payload["flag_counts"]["rejected"],
                "unresolved": payload["flag_counts"]["unresolved"],
            },
        ),
    ]


def _parts_rows(parts: Mapping[str, int] | None) -> dict[str, Any]:
    """Rows saying what the sample is: reviewed, and counted correct without review."""
    if not parts:
        return {}
    return {
        "  of which reviewed": parts["reviewed"],
        "  of which LLM agrees: counted correct": parts["llm_agrees"],
    }


def _fpc_row(level: str, ci_fpc: Any) -> dict[str, Any]:
    """Return the row of the interval with the finite population correction, if there is one."""
    return {} if ci_fpc is None else {f"{level} with finite population correction": ci_fpc}


def error_rate_renderables(payload: Mapping[str, Any], confidence: float) -> list[Any]:
    """Render ``error-rate``: the paper's lower bound, the strata, the whole rate, the plan."""
    level = f"{pct(confidence)}"
    rows: dict[str, Any] = {
        "errors": payload["errors"],
        "sample": payload["sample"],
        **_parts_rows(payload.get("sample_parts")),
        "population": payload["population"],
        "error rate": payload["error_rate"],
        f"{level} Clopper–Pearson": payload["ci"],
        **_fpc_row(level, payload["ci_fpc"]),
    }
    if payload["ci_fpc"] is not None:
        rows["errors in the whole dataset, at least"] = payload["population_errors_lower"]
    for k, v in (payload.get("excluded") or {}).items():
        rows[f"excluded: {k}"] = v
    out: list[Any] = [key_value_table("Error rate of the reviewed sample (a lower bound)", rows)]
    soft = payload.get("posterior")
    if soft:
        soft_rows: dict[str, Any] = {
            "expected errors": soft["expected_errors"],
            "standard deviation of the errors": soft["sd_errors"],
            "expected error rate": soft["error_rate"],
            f"{level} interval (Clopper–Pearson mixed over the posteriors)": soft["ci"],
            **_fpc_row(level, soft["ci_fpc"]),
        }
        out.append(key_value_table("Errors under the crowd model's posteriors", soft_rows))
    st = payload.get("stratified")
    if st:
        strata = Table(title=f"Strata ({level} intervals)")
        # the stratum's name is never cut ("undisput…" at 80 columns): the intervals wrap
        width = max([len("stratum"), *(len(s["name"]) for s in st["strata"])])
        strata.add_column("stratum", justify="right", no_wrap=True, min_width=width)
        for c in ("examples", "reviewed", "errors", "error rate", "exact", "mid-p"):
            strata.add_column(c, justify="right")
        for s in st["strata"]:
            strata.add_row(
                escape(s["name"]),
                str(s["population"]),
                str(s["reviewed"]),
                str(s["errors"]),
                cell(s["error_rate"], 4),
                cell(s["ci_exact"], 4),
                cell(s["ci_midp"], 4),
            )
        out.append(strata)
        out.append(
            key_value_table(
                "Whole dataset (stratified estimate)",
                {
                    "error rate": st["error_rate"],
                    f"{level} interval ({st['method']} per stratum, MOVER)": st["ci"],
                    "errors, estimated": st["errors_estimate"],
                    f"errors, {level} interval": st["errors_ci"],
                    "recall of the flags": st["recall"],
                    f"recall, {level} interval": st["recall_ci"],
                },
            )
        )
    plan = payload.get("plan")
    if plan:
        table = Table(
            title=f"Plan: reviews for a {level} interval at most "
            f"{short(plan['target_width'])} wide (expected width {num(plan['expected_width'], 4)})"
        )
        for c in ("stratum", "examples", "anticipated rate", "reviewed", "planned", "to do"):
            table.add_column(c, justify="right")
        for s in plan["strata"]:
            table.add_row(
                escape(s["name"]),
                str(s["population"]),
                cell(s["anticipated_rate"], 4),
                str(s["reviewed"]),
                str(s["planned"]),
                str(s["additional"]),
            )
        out.append(table)
    return out


def error_rate_notes(payload: Mapping[str, Any]) -> list[str]:
    """Lines for standard error: unresolved reviews left out of the strata, or why no estimate."""
    stratified = payload.get("stratified")
    unresolved = (stratified or {}).get("unresolved") or {}
    if any(unresolved.values()):
        left_out = ", ".join(f"{name} {n}" for name, n in unresolved.items())
        return [f"[yellow]warning:[/] unresolved reviews left out of the strata: {left_out}"]
    if stratified is None and payload.get("stratified_note") is not None:
        return [f"note: no stratified estimate: {escape(payload['stratified_note'])}"]
    return []


def review_import_notes(payload: Mapping[str, Any]) -> list[str]:
    """Lines for standard error: the import's warnings, then the unresolved disagreements."""
    out = [f"[yellow]warning:[/] {escape(w)}" for w in payload["warnings"]]
    if ids := payload["unresolved_ids"]:
        shown = escape(", ".join(ids[:10])) + (" …" if len(ids) > 10 else "")
        out.append(f"[yellow]{len(ids)} unresolved disagreement(s)[/] (no gold label): {shown}")
    return out
