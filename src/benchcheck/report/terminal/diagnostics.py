"""Terminal rendering of diagnostic evaluation, from canonical JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from benchcheck.report.numbers import num, pct

#: Rows with fewer examples are dimmed in the table.
SMALL_N = 10


def _fmt(value: float | None, digits: int = 3) -> str:
    """Format as every rendering does (``report.numbers.num``: ``—`` for None and NaN)."""
    return num(value, digits)


def _fmt_cell(cell: dict[str, Any]) -> str:
    if cell["r_k"] is None:
        return "—"
    lo, hi = cell["ci"]
    return f"{num(cell['r_k'], 2)} [{_fmt(lo, 2)}, {_fmt(hi, 2)}]"


def diagnose_renderables(payload: Mapping[str, Any], *, fine: bool = True) -> list[Any]:
    """Render the per-category table, the direction and monotonicity checks, and the note."""
    out: list[Any] = []
    models = list(payload["models"])
    first = payload["models"][models[0]]
    table = Table(title=f"R_K [95% CI] per phenomenon — {payload['suite']['source']}")
    table.add_column("category / tag")
    table.add_column("n", justify="right")
    # Long names (e.g. judges) make the table unreadable: show letters and a legend.
    short = len(models) > 1 and max(len(m) for m in models) > 12
    alias = {m: (chr(ord("A") + i) if short else m) for i, m in enumerate(models)}
    for m in models:
        table.add_column(alias[m], justify="right", overflow="fold")
    if len(models) > 1:
        table.add_column("ranking (> : paired p < 0.05)", overflow="fold")

    def ranking(group: str, key: str | None) -> str:
        rk = payload["rankings"].get(group, {})
        entry = rk if key is None else rk.get(key, {})
        if not entry:
            return ""
        order = entry["order"]
        tests = {(t["a"], t["b"]): t["p_value"] for t in entry["paired_tests"]}
        parts = [alias[order[0]]]
        for a, b in zip(order, order[1:], strict=False):
            p = tests.get((a, b))
            parts.append(f"{'>' if p is not None and p < 0.05 else '≈'} {alias[b]}")
        return " ".join(parts)

    def row(label: str, group: str, key: str | None, style: str = "") -> None:
        cells = [
            payload["models"][m][group] if key is None else payload["models"][m][group][key]
            for m in models
        ]
        extra = [ranking(group, key)] if len(models) > 1 else []
        if not style and cells[0]["n"] < SMALL_N:
            style = "dim"
        table.add_row(
            label, str(cells[0]["n"]), *[_fmt_cell(c) for c in cells], *extra, style=style
        )

    row("overall", "overall", None, "bold")
    groups = payload["suite"]["tag_groups"]
    shown: set[str] = set()
    for coarse in first["coarse"]:
        row(coarse, "coarse", coarse, "bold")
        for tag in groups.get(coarse, []) if fine else []:
            if tag in first["fine"] and tag not in shown:
                shown.add(tag)
                row(f"  {tag}", "fine", tag)
    for tag in first["fine"] if fine else []:
        if tag not in shown:
            row(f"  {tag}", "fine", tag)
    out.append(table)
    if short:
        out.append("  ".join(f"{alias[m]} = {m}" for m in models))
    for m in models:
        d = payload["models"][m]["directions"]["overall"]
        mono = payload["models"][m]["monotonicity"]
        out.append(
            f"[bold]{m}[/]: forward accuracy {_fmt(d['forward']['accuracy'])} "
            f"(n={d['forward']['n']}), backward {_fmt(d['backward']['accuracy'])} "
            f"(n={d['backward']['n']})."
            + (f" Monotonicity: {mono['reading']}." if mono["applies"] else "")
        )
        for note in payload["prediction_notes"].get(m, []):
            out.append(f"  note: {note}")
    out.append(
        f"Dim rows have fewer than {SMALL_N} examples: their intervals are wide; "
        "read them as indications."
    )
    out.append(f"[italic]{payload['note']}[/]")
    return out


def artifacts_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render accuracy and baselines, the top cues per label, and the plain reading."""
    out: list[Any] = []
    table = Table(
        title=f"{payload['input']}-only baseline: {payload['meta']['train']} → "
        f"{payload['meta']['eval']}"
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    lo, hi = payload["accuracy_ci"]
    table.add_row(
        "accuracy [95% CI]", f"{num(payload['accuracy'], 3)} [{num(lo, 3)}, {num(hi, 3)}]"
    )
    table.add_row("R_K [95% CI]", _fmt_cell(payload["r_k"]))
    b = payload["baselines"]
    table.add_row(f"majority class ({b['majority_label']})", f"{num(b['majority_accuracy'], 3)}")
    table.add_row("chance", f"{num(b['chance_accuracy'], 3)}")
    table.add_row("n train / n eval", f"{payload['n_train']} / {payload['n_eval']}")
    out.append(table)
    cues = Table(title="Top cue n-grams per label (weight, train count, label share)")
    cues.add_column("label")
    cues.add_column("cues")
    for lab, items in payload["cues"].items():
        cues.add_row(
            lab,
            ", ".join(
                f"{c['feature']} ({num(c['weight'], 2)}, {c['train_count']}, "
                f"{pct(c['label_share'])})"
                for c in items[:5]
            )
            or "—",
        )
    out.append(cues)
    out.append(payload["reading"])
    return out


def human_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render Fleiss' kappa and each annotator's R_K against gold."""
    out: list[Any] = []
    table = Table(title="Human baseline: R_K against gold")
    table.add_column("annotator")
    table.add_column("n", justify="right")
    table.add_column("R_K [95% CI]", justify="right")
    table.add_column("accuracy", justify="right")
    for name, cell in payload["annotators"].items():
        table.add_row(name, str(cell["n"]), _fmt_cell(cell), _fmt(cell["accuracy"]))
    mv = payload["majority_vote"]
    table.add_row("majority vote", str(mv["n"]), _fmt_cell(mv), _fmt(mv["accuracy"]), style="bold")
    out.append(table)
    undefined = payload["fleiss_kappa"] is None and payload["n_items_kappa"] > 0
    out.append(
        f"Fleiss' kappa {_fmt(payload['fleiss_kappa'])} over {payload['n_items_kappa']} "
        "examples labelled by every annotator"
        + (" (undefined: every rating is the same label)" if undefined else "")
        + f"; Krippendorff's alpha {_alpha(payload)} (missing labels allowed)"
        + f"; mean annotator R_K {_fmt(payload['mean_r_k'])}."
    )
    return out


def _alpha(payload: Mapping[str, Any]) -> str:
    alpha, ci = payload.get("krippendorff_alpha"), payload.get("krippendorff_alpha_ci")
    if alpha is None:
        return "—"
    return _fmt(alpha) + ("" if ci is None else f" [{_fmt(ci[0])}, {_fmt(ci[1])}]")


def check_suite_renderables(payload: Mapping[str, Any]) -> list[Any]:
    """Render the per-category label shares (GLUE Table 7 view) and the findings."""
    out: list[Any] = []
    labels = payload["suite"]["labels"]
    table = Table(
        title=f"Suite {payload['suite']['source']}: "
        f"{payload['suite']['n_pairs']} pairs, "
        f"{payload['suite']['n_examples']} examples"
    )
    table.add_column("category")
    table.add_column("n", justify="right")
    for lab in labels:
        table.add_column(lab, justify="right")

    def shares(entry: dict[str, Any]) -> list[str]:
        return [
            ("—" if entry["shares"][lab] is None else f"{pct(entry['shares'][lab])}")
            for lab in labels
        ]

    dist = payload["label_distribution"]
    table.add_row("all", str(dist["n"]), *shares(dist), style="bold")
    if "glue_reference_shares" in dist:
        ref = dist["glue_reference_shares"]
        table.add_row(
            "(GLUE diagnostic)", "1104", *[f"{pct(ref[lab])}" for lab in labels], style="dim"
        )
    for name, entry in payload["categories"].items():
        table.add_row(name, str(entry["n"]), *shares(entry))
    out.append(table)
    d = payload["directions"]
    ms = payload["minimal_sets"]
    dup = payload["duplicates"]
    out.append(
        f"Directions: {d['both_labelled']} of {d['n_pairs']} pairs labelled both ways. "
        f"Minimal sets: {ms['n_sets']} ({ms['n_pairs_in_sets']} pairs). "
        f"Duplicate pairs: {dup['n_groups']} ({dup['n_conflicting']} with conflicting labels). "
        f"Unknown tags: {len(payload['unknown_tags'])}. "
        f"Untagged examples: {payload['untagged']['count']}."
    )
    for f in payload["findings"]:
        colour = "yellow" if f["level"] == "warning" else "cyan"
        out.append(f"[{colour}]{f['level']}[/] ({f['check']}): {f['message']}")
    return out
