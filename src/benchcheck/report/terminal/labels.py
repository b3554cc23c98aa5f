"""Terminal rendering of the label-error commands, from their canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table

from benchcheck.report.judge_note import (
    QUALITY_HEAD,
    intro,
    quality_rows,
    strong_judge_lines,
    verdict,
)
from benchcheck.report.numbers import num, pct, short, signed, thousands

__all__ = [
    "agreement_renderables",
    "PRECISION_CAVEAT",
    "catch_line",
    "flagged_label",
    "bins_renderables",
    "cell",
    "curve_renderables",
    "default_judge_renderables",
    "flag_renderables",
    "key_value_table",
    "remedy_renderables",
    "span_remedy_renderables",
    "rerank_renderables",
]


def cell(value: Any, digits: int = 3) -> str:
    """Format a cell: :func:`~benchcheck.report.numbers.num`, element-wise in lists, escaped.

    >>> cell([0.12345, None])
    '[0.123, —]'
    """
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(cell(x, digits) for x in value) + "]"
    return escape(num(value, digits))


def key_value_table(title: str, rows: Mapping[str, Any], *, digits: int = 4) -> Table:
    """Build a two-column table: one name and one value per row."""
    table = Table(title=escape(title), show_header=False)
    table.add_column("")
    table.add_column("", justify="right")
    for key, value in rows.items():
        table.add_row(escape(str(key)), cell(value, digits))
    return table


def flag_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``benchcheck flag``: counts, flags per bin, top flags, cleanlab overlap."""
    s = payload["summary"]
    rows: dict[str, Any] = {}
    found = payload.get("detector")
    if found is not None:
        settings = found.get("settings", {})
        rows["detector"] = found["detector"]
        if "calibration" in settings:
            rows["calibration"] = settings["calibration"]
        if "posterior" in settings:
            rows["error score"] = settings["posterior"]
    point = payload.get("operating_point")
    what = flagged_label(point, s["threshold"])
    rows.update(
        {
            "examples": s["n"],
            "judged": s["judged"],
            "disagreements": s["disagreements"],
            what: s["flagged"],
            "flag rate": s["flag_rate"],
        }
    )
    if point is not None:
        rows["expected precision of the flags"] = point["expected_precision"]
        rows["expected true errors among them"] = point["expected_true_errors"]
    exp = payload.get("expected_errors")
    if exp is not None:
        rows["expected errors in the data"] = (
            f"{num(exp['expected'], 1)} [{short(exp['low'])}, {short(exp['high'])}] "
            f"({pct(exp['rate'], 1)}; {pct(exp['level'])} {exp['interval']})"
        )
        if point is not None:
            rows["the flags"] = catch_line(point, exp)
            rows["caveat"] = PRECISION_CAVEAT
        if exp.get("rule") == "fallback":
            rows["error rate"] = f"fallback: {exp['reason']}"
    out: list[Any] = [key_value_table("Flags", rows)]
    per_bin = Table(title="Flags per error-score bin")
    per_bin.add_column("bin")
    per_bin.add_column("flags", justify="right")
    for name, n in s["flagged_by_bin"].items():
        per_bin.add_row(escape(name), str(n))
    out.append(per_bin)
    top = payload["top"]
    if top:
        table = Table(title=f"Top {len(top)} flags")
        columns = list(top[0])
        for c in columns:
            table.add_column(c)
        for row in top:
            table.add_row(*[cell(row[c]) for c in columns])
        out.append(table)
    left = payload.get("disagreements_not_flagged")
    if left and left["n"]:
        table = Table(
            title=f"Disagreements not flagged: {left['n']} (highest error score first; "
            f"{len(left['top'])} shown)"
        )
        columns = list(left["top"][0]) if left["top"] else []
        for c in columns:
            table.add_column(c)
        for row in left["top"]:
            table.add_row(*[cell(row[c]) for c in columns])
        out.append(table)
    if "confident_learning" in payload:
        overlap = payload["confident_learning"]
        out.append(key_value_table("LLM flags vs confident learning", overlap))
    if payload.get("calibration_vs_gold") is not None:
        out.append(reliability_table(payload["calibration_vs_gold"]))
    return out


#: What the expected precision and counts assume. By how much they run high for the embedded
#: judge is measured in docs/labels.md (issue 34), not repeated here where it could drift.
PRECISION_CAVEAT = (
    "these expected numbers count the judge's own confident mistakes as label errors, so a "
    "weak judge overstates them (measured for the embedded judge in the labels guide); "
    "reviewing a blind audit sample measures them"
)


def flagged_label(point: Mapping[str, Any] | None, threshold: float) -> str:
    """Name the flag count by the rule that chose the flags.

    >>> flagged_label({"rule": "precision", "target_precision": 0.5}, 0.5)
    'flagged (largest set of expected precision ≥ 0.5)'
    """
    if point is None or point.get("rule") == "threshold":
        return f"flagged (error score ≥ {short(threshold)})"
    rule = point["rule"]
    if rule == "cleanlab":
        return f"flagged (cleanlab, error score ≥ {short(threshold)})"
    if rule == "budget":
        return f"flagged (the {num(point['budget'])} highest)"
    if rule == "disagreements":
        return "flagged (every disagreement: too few examples to estimate the error rate)"
    if rule == "precision":
        return f"flagged (largest set of expected precision ≥ {short(point['target_precision'])})"
    return f"flagged (expected precision ≥ {short(point['target_precision'])})"


def catch_line(point: Mapping[str, Any], expected: Mapping[str, Any]) -> str:
    """Say how many of the data's expected errors the flags are expected to hold.

    >>> catch_line({"flags": 14, "expected_true_errors": 9.2}, {"expected": 17.4})
    'these 14 flags are expected to hold 9.2 of the ~17.4 errors'
    """
    n = point["flags"]
    noun = "flag is" if n == 1 else "flags are"
    return (
        f"{'this' if n == 1 else 'these'} {num(n)} {noun} expected to hold "
        f"{num(point['expected_true_errors'], 1)} of the ~{num(expected['expected'], 1)} errors"
    )


def reliability_table(rel: Mapping[str, Any]) -> Any:
    """Return a reliability table of error_score vs gold: per bin, mean score vs frequency."""
    band = rel.get("ece_band")
    title = f"Calibration of error_score vs gold: n={rel['n']}, ECE {cell(rel['ece'])}"
    if band:
        title += f" [{cell(band[0])}, {cell(band[1])}] ({pct(rel['level'])} bootstrap)"
    table = Table(title=title)
    for c in ("error score", "n", "mean score", "share wrong"):
        table.add_column(c, justify="right")
    for b in rel["bins"]:
        table.add_row(
            f"({short(b['low'])}, {short(b['high'])}]",
            str(b["n"]),
            cell(b["mean_score"]),
            cell(b["frequency"]),
        )
    return table


def bins_renderables(payload: Mapping[str, Any]) -> tuple[list[Any], list[str]]:
    """Render ``benchcheck bins``: the table, and the warnings (for standard error)."""
    table = Table(title="Expert agreement per confidence bin (bootstrap 95% CI)")
    for c in ("bin", "n", "with LLM", "with original"):
        table.add_column(c, justify="right")
    for b in payload["bins"]:
        table.add_row(
            escape(b["bin"]),
            str(b["n"]),
            f"{cell(b['with_llm'])} {cell(b['with_llm_ci'])}",
            f"{cell(b['with_original'])} {cell(b['with_original_ci'])}",
        )
    warnings = [f"bin {b['bin']}: {b['warning']}" for b in payload["bins"] if b["warning"]]
    return [table], warnings


def remedy_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``benchcheck remedy``: what was filtered or flipped, and the files."""
    if "spans" in payload:  # remedy --spans: the NER remedy
        return span_remedy_renderables(payload)
    mode = payload["mode"]
    return [
        key_value_table(
            f"Remedy: {mode} above {short(payload['threshold'])}",
            {
                "examples": payload["n"],
                "filtered" if mode == "filter" else "flipped": payload["n_selected"],
                "random ablation (same size)": len(payload["ablation_ids"]),
                "cleaned": payload["files"]["cleaned"],
                "ablation": payload["files"]["ablation_random"],
            },
        )
    ]


def span_remedy_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``benchcheck remedy --spans``: the reviewed sentences corrected or removed."""
    mode = payload["mode"]
    done = (
        {"corrected (changed by the review)": payload["n_corrected"]}
        if mode == "correct"
        else {"removed (every reviewed sentence)": payload["n_removed"]}
    )
    return [
        key_value_table(
            f"NER remedy: {mode} the reviewed sentences ({payload['scheme']})",
            {
                "sentences": payload["n_sentences"],
                "reviewed": payload["n_reviewed"],
                **done,
                "sentences written": payload["n_written"],
                "file": payload["file"],
            },
        )
    ]


def rerank_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``benchcheck rerank``: metrics and ranks on original vs gold, paired tests."""
    table = Table(title=f"Models on original vs gold labels (n = {payload['n']})")
    for c in ("model", "metric", "original", "rank", "gold", "rank ", "change"):
        table.add_column(c, justify="right")
    for name, metrics in payload["models"].items():
        for metric, v in metrics.items():
            r = payload["ranks"][name][metric]
            change = r["change"]
            table.add_row(
                escape(name),
                metric,
                cell(v["original"]),
                str(r["original"]),
                cell(v["gold"]),
                str(r["gold"]),
                f"{signed(change)}" if change else "0",
            )
    out: list[Any] = [table]
    if payload["pairwise"]:
        pairs = Table(title="Paired bootstrap on gold labels (a − b)")
        for c in ("metric", "a", "b", "difference", "95% CI", "p"):
            pairs.add_column(c, justify="right")
        for p in payload["pairwise"]:
            pairs.add_row(
                str(p["metric"]),
                escape(str(p["a"])),
                escape(str(p["b"])),
                cell(p["difference"]),
                cell(p["ci"]),
                cell(p["p_value"]),
            )
        out.append(pairs)
    return out


def agreement_renderables(payload: Mapping[str, Any], *, truth: str) -> list[Any]:
    """Render ``benchcheck agreement``: weighted-F1 matrix, Fleiss' kappa, crowd annotators."""
    f1 = payload["weighted_f1"]["f1"]
    names = payload["sources"]
    table = Table(title="Weighted F1 (row = truth)")
    table.add_column("truth \\ other")
    for n in names:
        table.add_column(escape(n), justify="right")
    for a in names:
        table.add_row(escape(a), *[cell(f1[a][b]) for b in names])
    out: list[Any] = [table]
    if payload["fleiss"]:
        fleiss = Table(title="Fleiss' kappa and Krippendorff's alpha per group")
        for c in ("group", "kappa", "items", "alpha [95% CI]", "kappa (LLM ≠ original)", "items "):
            fleiss.add_column(c, justify="right")
        for g, v in payload["fleiss"].items():
            d = v.get("disagreement") or {}
            alpha = v["all"].get("krippendorff_alpha")
            ci = v["all"].get("krippendorff_alpha_ci")
            fleiss.add_row(
                escape(g),
                cell(v["all"]["kappa"]),
                str(v["all"]["n_items"]),
                cell(alpha) + ("" if ci is None else f" {cell(ci)}"),
                cell(d.get("kappa")),
                cell(d.get("n_items")),
            )
        out.append(fleiss)
    if payload["per_annotator"]:
        crowd = Table(title=f"Crowd annotators vs {escape(truth)}")
        for c in ("annotator", "items", "with truth", "agreement", "kappa"):
            crowd.add_column(c, justify="right")
        for r in payload["per_annotator"]:
            crowd.add_row(
                escape(str(r["annotator"])),
                str(r["n_items"]),
                str(r["n_with_truth"]),
                cell(r["agreement"]),
                cell(r["cohen_kappa"]),
            )
        out.append(crowd)
    if payload.get("crowd_model"):
        out.append(crowd_model_table(payload["crowd_model"]))
    return out


def crowd_model_table(model: Mapping[str, Any]) -> Table:
    """Build the table of each reviewer's estimated accuracy under a crowd model."""
    fitted = Table(title=f"Crowd model {escape(model['method'])}: estimated accuracy")
    for c in ("reviewer", "answers", "accuracy"):
        fitted.add_column(c, justify="right")
    for name, r in model["reviewers"].items():
        fitted.add_row(escape(str(name)), str(r["answers"]), cell(r["accuracy"]))
    return fitted


def curve_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``benchcheck ensemble-curve``: ROC AUC and error F1 per ensemble size."""
    table = Table(title=f"Ensemble size curve ({len(payload['members'])} {payload['unit']}s)")
    for c in ("size", "subsets", "ROC AUC", "range", "error F1", "range "):
        table.add_column(c, justify="right")
    for p in payload["points"]:
        table.add_row(
            str(p["size"]),
            str(p["n_subsets"]),
            cell(p["roc_auc_mean"]),
            cell(p["roc_auc_ci"]),
            cell(p["f1_mean"]),
            cell(p["f1_ci"]),
        )
    return [table]


#: Narrower terminals show the span flags as a list (two lines a flag), not a 7-column table.
WIDE_TABLE = 100


class ByWidth:
    """Render ``wide`` where the console is at least ``at`` columns wide, else ``narrow``."""

    def __init__(self, wide: Any, narrow: Any, *, at: int) -> None:
        self.wide, self.narrow, self.at = wide, narrow, at

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield self.wide if options.max_width >= self.at else self.narrow


def span_flag_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render ``benchcheck flag-spans``: counts per kind and the top span flags."""
    tagger = payload.get("tagger")
    counts: dict[str, Any] = {
        "gold spans": payload["n_gold_spans"],
        ("tagger spans (out of fold)" if tagger else "model spans"): payload["n_pred_spans"],
        **payload["by_kind"],
    }
    if tagger:
        counts[f"flagged (error score >= {num(tagger['min_error_score'])})"] = payload["flagged"]
        counts["folds"] = tagger["folds"]
        if tagger.get("crossweigh"):
            counts["entity-disjoint runs (--crossweigh)"] = tagger["crossweigh"]
        if tagger.get("plain_fits"):  # the filter left a fold no entity: it trained on all
            counts["entity-disjoint folds trained unfiltered"] = tagger["plain_fits"]
        expected = tagger.get("expected_errors")
        if expected:
            counts[f"expected wrong sentences ({pct(expected['level'])} interval)"] = expected_text(
                expected
            )
        judged = tagger.get("judge")
        if judged:  # --detector llm|both
            counts["detector"] = payload["detector"]
            counts["judgements (computed / cached)"] = f"{judged['computed']} / {judged['cached']}"
            if "judged_rows" in judged:  # --judge-top: the tagger's highest rows only
                n, of = judged["judged_rows"], judged["candidate_rows"]
                rows = f"{thousands(n)} of {thousands(of)}"
                if n < of:
                    rows += "; the rest ranked after them, unflagged"
                counts["rows judged (--judge-top)"] = rows
            if judged.get("verify") == "all":  # --verify all: the gold spans put to the judge
                counts["gold spans verified"] = judged["verified_spans"]
                counts["their judge requests (computed / cached)"] = (
                    f"{judged['verify_requests']} ({judged['verify_computed']} / "
                    f"{judged['verify_requests'] - judged['verify_computed']})"
                )
    out: list[Any] = [key_value_table("Span flags", counts)]
    if payload["top"]:
        from rich.text import Text

        from benchcheck.report.numbers import score_text

        title = f"Top {len(payload['top'])} span flags"
        table = Table(title=title)
        heads = ["rank", "kind", "gold_type", "pred_type", "text"]
        where = "line" in payload["top"][0]
        if where:
            heads.insert(2, "file:line")
        if tagger:
            heads.insert(2, "error_score")
        for c in heads:  # a kind is a name: never cut (the text column wraps instead)
            table.add_column(c, no_wrap=c == "kind")
        listed: list[Any] = [Text(title, style="italic", justify="center")]
        for r in payload["top"]:
            gold = r.get("gold_type", r["label"]) or "O"
            pred = r.get("pred_type", r["llm_label"]) or "O"
            cells = [str(r["rank"]), r["kind"], gold, pred]
            if where:
                doc = f" (doc {r['document']})" if r.get("document") is not None else ""
                cells.insert(2, f"{r.get('file', '')}:{r['line']}{doc}")
            if tagger:
                cells.insert(2, score_text(r["error_score"], r.get("error_logit")))
            table.add_row(*(escape(c) for c in cells), escape(r["text"]))
            head = " · ".join(cells[1:-2]) + f" · {gold} → {pred}"
            listed += [
                Text(f"{r['rank']}. ") + Text(head, style="bold"),
                Padding(Text(r["text"]), (0, 0, 0, 3)),
            ]
        out.append(ByWidth(table, Group(*listed), at=WIDE_TABLE))
        if payload.get("glossary"):
            out.append(Text(payload["glossary"]))
    expected = (tagger or {}).get("expected_errors")
    if expected:
        from rich.text import Text

        out.append(Text(f"expected wrong sentences: {expected['rule']}; {expected['reason']}."))
    return out


def expected_text(expected: Mapping[str, Any]) -> str:
    """Return ``812 [731, 897] of 20,744`` for an ``expected_errors`` object (NER sentences).

    >>> expected_text({"expected": 812.4, "low": 731.0, "high": 897.0, "sentences": 20744})
    '812 [731, 897] of 20,744'
    """
    return (
        f"{_whole(expected['expected'])} [{_whole(expected['low'])}, "
        f"{_whole(expected['high'])}] of {thousands(expected['sentences'])}"
    )


def _whole(value: float) -> str:
    """Return a count's estimate rounded to a whole number, with thousands separators."""
    return thousands(round(value))


def default_judge_renderables(note: Mapping[str, Any]) -> list[Any]:
    """Render the ``default_judge`` note: what the judge is, its measured quality, a strong one.

    ``note`` is ``results["label_errors"]["default_judge"]`` (``benchcheck audit``), shown
    where the flags come from the embedded default judge.
    """
    from rich.text import Text

    table = Table(title="How good is this judge? (benchmark, planted label errors)")
    for i, h in enumerate(QUALITY_HEAD):
        table.add_column(h, justify="left" if i == 0 else "right")
    for row in quality_rows(note):
        table.add_row(*[escape(c) for c in row])
    advice, commands = strong_judge_lines(note)
    return [
        Text(intro(note)),
        Text(verdict(note)),
        table,
        Text(advice),
        *[Text("  " + c, style="bold") for c in commands],
    ]


def ner_detector_quality_renderables(note: Mapping[str, Any], min_error_score: float) -> list[Any]:
    """Render the NER detector's benchmark table (``ner_label_errors.detector_quality``).

    ``min_error_score`` is the run's threshold: a line says so where it is not the
    benchmark's.
    """
    from rich.text import Text

    from benchcheck.report.ner_quality_note import (
        QUALITY_TITLE,
        quality_head,
        threshold_note,
    )
    from benchcheck.report.ner_quality_note import quality_rows as ner_quality_rows
    from benchcheck.report.ner_quality_note import verdict as ner_verdict

    table = Table(title=f"{QUALITY_TITLE} (benchmark, planted NER label errors)")
    for i, h in enumerate(quality_head(note)):
        table.add_column(h, justify="left" if i == 0 else "right")
    for row in ner_quality_rows(note):
        table.add_row(*[escape(c) for c in row])
    out: list[Any] = [table, Text(ner_verdict(note))]
    extra = threshold_note(note, min_error_score)
    if extra:
        out.append(Text(extra))
    return out
