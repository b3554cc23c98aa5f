r"""``report.md``: the audit as Markdown, rendered only from the canonical ``results.json``.

Tables carry the value, ↑/↓ (which direction is better) and the definition. Dataset text is
untrusted: HTML-escaped (Markdown viewers render raw HTML), table pipes escaped, newlines
and invisible characters made visible. Deterministic: same JSON, same bytes.

>>> md = render_markdown({"schema_version": "1.0", "notes": ["a|b <i>"]})
>>> "a\\|b &lt;i&gt;" in md
True
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from benchcheck.report._glyphs import ARROW, shown_as_codepoint
from benchcheck.report._judge_note import (
    QUALITY_HEAD,
    intro,
    quality_rows,
    strong_judge_lines,
    verdict,
)
from benchcheck.report._numbers import OVERLAP_METRICS, num

__all__ = ["render_markdown", "md_text"]

MAX_ROWS = 50


def md_text(value: object, *, limit: int | None = None) -> str:
    r"""Escape text for a Markdown table cell.

    >>> md_text("x|y\n<script>\u200b")
    'x\\|y ⏎ &lt;script&gt;⟨U+200B⟩'
    """
    if value is None:
        return "—"
    out = []
    for ch in str(value):
        if ch == "\n":
            out.append(" ⏎ ")
        elif ch == "\t":
            out.append(" ")
        elif shown_as_codepoint(ch):
            out.append(f"⟨U+{ord(ch):04X}⟩")
        else:
            out.append(ch)
    text = "".join(out)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    text = html.escape(text, quote=False)
    for c in "\\|`*_[]":
        text = text.replace(c, "\\" + c)
    return text


def _num(value: object, digits: int = 4) -> str:
    """Numbers as the HTML page shows them (:func:`num`); anything else as escaped text."""
    if value is None or isinstance(value, int | float):
        return num(value, digits)
    return md_text(value)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    align = ["---:" if i in right else "---" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _stats(stats: Mapping[str, Any], title: str) -> list[str]:
    dims = stats.get("dimensions", {})
    metrics = stats.get("metrics", {})
    splits = stats.get("splits", {})
    out = [
        f"## {title}\n",
        f"Dataset **{md_text(stats.get('dataset'))}** (task {md_text(stats.get('task'))}); "
        + ", ".join(
            f"{md_text(n)}: {_num(s.get('n_instances'))} instances" for n, s in splits.items()
        )
        + ".\n",
    ]
    rows = []
    for key, spec in dims.items():
        if key not in metrics:
            continue
        rows.append(
            [
                md_text(spec.get("dimension")),
                f"{md_text(spec.get('title', key))} (`{key}`)",
                ARROW.get(spec.get("better"), ""),
                _num(metrics.get(key)),
                *[_num(s.get(key)) if key in s else "" for s in splits.values()],
                md_text(spec.get("definition")),
            ]
        )
    n_split = len(splits)
    out.append(
        _table(
            [
                "dimension",
                "metric",
                "better",
                "dataset",
                *[md_text(s) for s in splits],
                "definition",
            ],
            rows,
            right=range(3, 4 + n_split),
        )
    )
    if stats.get("model_scores"):
        out.append(
            _table(
                ["model", "score"],
                [[md_text(k), _num(v)] for k, v in stats["model_scores"].items()],
                right=[1],
            )
        )
    return out


def render_markdown(results: Mapping[str, Any]) -> str:
    """Render a ``results.json`` object as Markdown (deterministic)."""
    title = md_text(results.get("title") or "benchcheck audit report")
    out: list[str] = [
        f"# {title}\n",
        f"Rendered from results.json (schema {md_text(results.get('schema_version', '?'))}). "
        "↑ higher is better, ↓ lower is better; — not defined for this input.\n",
    ]
    if results.get("inputs"):
        out.append("## Inputs\n")
        out += [f"- **{md_text(k)}**: {md_text(v)}" for k, v in results["inputs"].items()]
        out.append("")
    if results.get("analyses"):
        out.append("## Analyses\n")
        out.append(
            _table(
                ["analysis", "status", "detail"],
                [
                    [md_text(a.get("name")), md_text(a.get("status")), md_text(a.get("detail"))]
                    for a in results["analyses"]
                ],
            )
        )
    if results.get("stats"):
        out += _stats(results["stats"], "Dataset statistics")
        overlap = (results.get("split_overlap") or {}).get("rows") or []
        if overlap:
            keys = [k for k in OVERLAP_METRICS if any(k in r for r in overlap)]
            dims = results["stats"].get("dimensions", {})
            out.append("### Leakage and unseen entities per split\n")
            out.append(
                _table(
                    [
                        "split",
                        "against",
                        *[f"{k} {ARROW.get(dims.get(k, {}).get('better'), '')}" for k in keys],
                    ],
                    [
                        [
                            md_text(r["split"]),
                            md_text("+".join(r.get("against", []))),
                            *[_num(r.get(k)) for k in keys],
                        ]
                        for r in overlap
                    ],
                    right=range(2, 2 + len(keys)),
                )
            )
        types = results.get("entity_types") or {}
        if types.get("types"):
            sp = types.get("splits", {})
            out.append("### Entity-type distribution (mentions)\n")
            out.append(
                _table(
                    ["type", *[md_text(s) for s in sp]],
                    [
                        [
                            md_text(t),
                            *[
                                f"{sp[s]['counts'].get(t, 0)} "
                                f"({_num(sp[s]['shares'].get(t, 0.0), 3)})"
                                for s in sp
                            ],
                        ]
                        for t in types["types"]
                    ],
                    right=range(1, 1 + len(sp)),
                )
            )
    if results.get("table_stats"):
        out += _stats(results["table_stats"], "Statistics of the labelled examples")
    comparison = (results.get("comparison") or {}).get("datasets") or {}
    if comparison:
        first = next(iter(comparison.values()))
        out.append("## Datasets compared\n")
        out.append(
            _table(
                ["metric", "better", *[md_text(n) for n in comparison]],
                [
                    [
                        md_text(spec.get("title", k)),
                        ARROW.get(spec.get("better"), ""),
                        *[_num(d.get("metrics", {}).get(k)) for d in comparison.values()],
                    ]
                    for k, spec in first.get("dimensions", {}).items()
                    if any(k in d.get("metrics", {}) for d in comparison.values())
                ],
                right=range(2, 2 + len(comparison)),
            )
        )
    out += _label_errors(results)
    out += _diagnostics(results.get("diagnostics") or {})
    from benchcheck.report._items import markdown_sections

    out += markdown_sections(results, md_text, _table)
    notes = list(results.get("notes") or [])
    for key in ("stats", "table_stats"):
        notes += list((results.get(key) or {}).get("notes") or [])
    if notes:
        out.append("## Notes\n")
        out += [f"- {md_text(n)}" for n in notes]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _label_errors(results: Mapping[str, Any]) -> list[str]:
    le = results.get("label_errors") or {}
    out: list[str] = []
    if le:
        s = le.get("summary", {})
        j = le.get("judge", {})
        out.append("## Label errors\n")
        out.append(
            f"Judge {md_text(j.get('judge'))} × prompts {md_text(', '.join(j.get('prompts', [])))}."
            f" Flagged: **{_num(s.get('flagged'))}** of {_num(s.get('n'))} examples "
            f"(flag rate {_num(s.get('flag_rate'))} ↓; {_num(s.get('disagreements'))} "
            f"disagreements; threshold {_num(s.get('threshold'))}). A flag = the ensemble's "
            "label differs from the original label; confidence = the ensemble's probability "
            "of its own label. Flags are candidates for expert review.\n"
        )
        if le.get("default_judge"):
            out += _default_judge(le["default_judge"])
        if s.get("flagged_by_bin"):
            out.append(
                _table(
                    ["confidence bin", "flagged"],
                    [[md_text(b), _num(c)] for b, c in s["flagged_by_bin"].items()],
                    right=[1],
                )
            )
        ex = le.get("examples") or []
        if ex:
            cols = list(le.get("text_columns") or [])
            out.append(
                f"### Flagged examples (top {min(len(ex), MAX_ROWS)} of "
                f"{le.get('examples_total', len(ex))}; all in "
                f"{md_text(', '.join(le.get('files', [])))})\n"
            )
            out.append(
                _table(
                    ["rank", "id", *[md_text(c) for c in cols], "original", "LLM", "confidence ↑"],
                    [
                        [
                            _num(e.get("rank")),
                            md_text(e.get("id")),
                            *[md_text(e.get(c), limit=120) for c in cols],
                            md_text(e.get("label")),
                            md_text(e.get("llm_label")),
                            _num(e.get("confidence"), 3),
                        ]
                        for e in ex[:MAX_ROWS]
                    ],
                    right=[0, 4 + len(cols)],
                )
            )
    err = results.get("error_rate")
    if err:
        ci = err.get("ci_fpc") or err.get("ci") or [None, None]
        out.append(
            f"Error rate {_num(err.get('error_rate'))} ↓ "
            f"({_num(err.get('errors'))}/{_num(err.get('sample'))}; 95% Clopper–Pearson "
            f"{_num(ci[0])}–{_num(ci[1])}).\n"
        )
    bins = (results.get("bin_agreement") or {}).get("bins") or []
    if bins:
        out.append("### Expert agreement per confidence bin (bootstrap 95% intervals)\n")
        out.append(
            _table(
                ["bin", "n", "with LLM", "interval", "with original", "interval"],
                [
                    [
                        md_text(b.get("bin")),
                        _num(b.get("n")),
                        _num(b.get("with_llm"), 3),
                        "–".join(_num(v, 3) for v in (b.get("with_llm_ci") or [None, None])),
                        _num(b.get("with_original"), 3),
                        "–".join(_num(v, 3) for v in (b.get("with_original_ci") or [None, None])),
                    ]
                    for b in bins
                ],
                right=[1, 2, 4],
            )
        )
    pts = (results.get("ensemble_curve") or {}).get("points") or []
    if pts:
        out.append("### Ensemble-size curve\n")
        out.append(
            _table(
                ["size", "ROC AUC ↑", "F1 ↑", "subsets"],
                [
                    [
                        _num(p.get("size")),
                        _num(p.get("roc_auc_mean"), 3),
                        _num(p.get("f1_mean"), 3),
                        _num(p.get("n_subsets")),
                    ]
                    for p in pts
                ],
                right=[0, 1, 2, 3],
            )
        )
    return out


def _default_judge(note: Mapping[str, Any]) -> list[str]:
    """Show what the default judge is, how well it measured, how to use a strong one."""
    advice, commands = strong_judge_lines(note)
    return [
        "### How good is this judge?\n",
        f"{md_text(intro(note))}\n",
        f"{md_text(verdict(note))}\n",
        _table(QUALITY_HEAD, [[md_text(c) for c in r] for r in quality_rows(note)], [1, 2, 4]),
        f"{md_text(advice)}\n",
        "```sh\n" + "\n".join(commands) + "\n```\n",
    ]


def _diagnostics(diag: Mapping[str, Any]) -> list[str]:
    if not diag:
        return []
    suite = diag.get("suite", {})
    models = diag.get("models", {})
    out = [
        "## Diagnostic evaluation\n",
        f"Suite {md_text(suite.get('source'))}: {_num(suite.get('n_examples'))} examples. "
        "Score: Gorodkin's R_K (↑ better; 1 perfect, 0 chance) with bootstrap intervals.\n",
        f"> **Categories are not comparable with each other.** {md_text(diag.get('note', ''))}\n",
    ]
    if models:
        names = list(models)
        first = models[names[0]]
        groups = [("overall", first["overall"])] + list(first.get("coarse", {}).items())
        rows = []
        for group, cell in groups:
            row = [md_text(group), _num(cell.get("n"))]
            for m in names:
                c = models[m]["overall"] if group == "overall" else models[m]["coarse"][group]
                ci = c.get("ci") or [None, None]
                row.append(f"{_num(c.get('r_k'), 3)} [{_num(ci[0], 2)}, {_num(ci[1], 2)}]")
            rows.append(row)
        out.append(
            _table(
                ["category", "n", *[f"{md_text(m)} R_K ↑" for m in names]],
                rows,
                right=range(1, 2 + len(names)),
            )
        )
        fine = list(dict.fromkeys(t for m in models.values() for t in m.get("fine", {})))
        out.append("### Per fine tag\n")
        out.append(
            _table(
                ["tag", "n", *[f"{md_text(m)} R_K ↑" for m in names]],
                [
                    [
                        md_text(t),
                        _num(
                            next(
                                (
                                    models[m]["fine"][t].get("n")
                                    for m in names
                                    if t in models[m]["fine"]
                                ),
                                None,
                            )
                        ),
                        *[_num(models[m]["fine"].get(t, {}).get("r_k"), 3) for m in names],
                    ]
                    for t in fine
                ],
                right=range(1, 2 + len(names)),
            )
        )
    return out
