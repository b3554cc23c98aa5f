"""The self-contained HTML report, rendered only from the canonical ``results.json``.

One file: CSS, the small sorting/filtering script and every chart (inline SVG generated
here) are inside it; it loads nothing from the network and opens from disk. A Content
Security Policy forbids every source except inline styles, the one inline script (pinned by
its sha256) and ``data:`` images. Dataset text is untrusted: it is HTML-escaped everywhere,
invisible and direction-changing characters are shown as visible ``U+XXXX`` marks, and the
script never builds HTML from data (it only reorders and hides rows).

The output is a pure function of the JSON: the same ``results.json`` gives the same bytes.

>>> page = render_html({"schema_version": "1.0", "notes": ["<b>x</b>"]})
>>> "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
True
"""

from __future__ import annotations

import base64
import hashlib
import unicodedata
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from benchcheck.report._glyphs import ARROW, shown_as_codepoint
from benchcheck.report._numbers import OVERLAP_METRICS, num
from benchcheck.report._svg import esc, grouped_hbars, hbars, heatmap, interval_plot, line_plot
from benchcheck.report.judge_note import (
    QUALITY_HEAD,
    intro,
    quality_rows,
    strong_judge_lines,
    verdict,
)

__all__ = ["long_text", "render_html", "show_text"]

DIMENSIONS = ("reliability", "difficulty", "validity")
DIMENSION_TEXT = {
    "reliability": "can the dataset be trusted: duplicates, annotation errors, test leakage",
    "difficulty": "does it challenge and separate models",
    "validity": "does it measure the ability the task is about",
}
#: Flagged examples shown in the HTML table (all of them are in the CSV/JSONL files).
MAX_ROWS = 500
#: Characters of a flagged example's text shown in its cell; more behind an expander.
PREVIEW_CHARS = 500
#: Characters of a text the page holds at most (preview and expander); the files hold all.
MAX_TEXT_CHARS = 10_000


def _asset(name: str) -> str:
    return (resources.files("benchcheck.report") / "assets" / name).read_text(encoding="utf-8")


def _script_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _csp(script: str) -> str:
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src '{_script_hash(script)}'; img-src data:; base-uri 'none'; "
        "form-action 'none'"
    )


def show_text(text: object) -> str:
    r"""Escape untrusted text and make invisible/format characters visible.

    Control characters (other than newline and tab), bidirectional overrides, zero-width
    characters and other format characters become a visible ``U+XXXX`` mark; the whole is
    wrapped in ``<bdi>`` so right-to-left text cannot reorder the page around it.

    >>> show_text("a<b>\u202e")
    '<bdi>a&lt;b&gt;<span class="cp" title="RIGHT-TO-LEFT OVERRIDE">U+202E</span></bdi>'
    """
    if text is None:
        return '<span class="muted">—</span>'
    value = str(text)
    # Every marked character is unprintable (str.isprintable is False for categories C*
    # and Z* but the space): a printable text is escaped whole, without the loop below.
    if value.replace("\n", "").replace("\t", "").isprintable():
        return "<bdi>" + esc(value) + "</bdi>"
    out: list[str] = []
    for ch in value:
        if shown_as_codepoint(ch):
            name = unicodedata.name(ch, "control character")
            out.append(f'<span class="cp" title="{esc(name)}">U+{ord(ch):04X}</span>')
        else:
            out.append(esc(ch))
    return "<bdi>" + "".join(out) + "</bdi>"


def long_text(text: object, *, preview: int = PREVIEW_CHARS, limit: int = MAX_TEXT_CHARS) -> str:
    """Show a long untrusted text as a preview and an expander (``<details>``), capped.

    Up to ``preview`` characters (and a text at most a fifth longer) are shown whole; a
    longer one shows its first ``preview`` characters, then a closed ``<details>`` holding
    the rest up to ``limit`` characters in all; past ``limit`` a note says how many
    characters are left out (the flagged-example files hold every text whole). Each part
    goes through :func:`show_text`. A page of 40 pairs of 100,000 characters holds 800,000
    characters, not 8 million.

    >>> long_text("short")
    '<bdi>short</bdi>'
    >>> html = long_text("x" * 30, preview=10, limit=20)
    >>> "<details><summary>show more" in html and "10 more characters" in html
    True
    """
    if text is None:
        return show_text(None)
    value = str(text)
    if len(value) <= preview + preview // 5:
        return show_text(value)
    head, rest = value[:preview], value[preview:limit]
    left = len(value) - len(head) - len(rest)
    more = f"{len(value) - preview:,}"
    note = (
        f'<span class="muted"> … {left:,} more characters (the flagged-example files hold the '
        "whole text)</span>"
        if left > 0
        else ""
    )
    return (
        f"{show_text(head)}<details><summary>show more ({more} characters)</summary>"
        f"{show_text(rest)}{note}</details>"
    )


def _tip(spec: Mapping[str, Any] | None, name: str) -> str:
    if not spec:
        return name
    arrow = ARROW.get(str(spec.get("better")), "")
    better = f"{arrow} {spec.get('better')} is better" if arrow else ""
    return f"{spec.get('title', name)} — {spec.get('definition', '')} ({better})"


def _num_cell(value: object, tip: str, digits: int = 3) -> str:
    sort = "" if value is None else f' data-sort="{esc(value)}"'
    return f'<td class="n" title="{esc(tip)}"{sort}>{esc(num(value, digits))}</td>'


def _pct(value: object) -> str:
    return f"{value:.0%}" if isinstance(value, float) else num(value)


def _card(key: str, value: object, tip: str, digits: int = 3) -> str:
    return (
        f'<div class="card" title="{esc(tip)}"><div class="k">{esc(key)}</div>'
        f'<div class="v">{esc(num(value, digits))}</div></div>'
    )


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


def _defs(items: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items)
    return f'<dl class="defs">{body}</dl>'


class _Page:
    """Collects sections and their table-of-contents entries."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.toc: list[tuple[str, str]] = []

    def section(self, anchor: str, title: str, body: str) -> None:
        self.toc.append((anchor, title))
        self.parts.append(f'<section id="{esc(anchor)}"><h2>{esc(title)}</h2>{body}</section>')


# --------------------------------------------------------------------------- statistics


def _profile(stats: Mapping[str, Any], *, prefix: str = "") -> str:
    """Draw the paper's per-dataset chart: one bar panel per dimension."""
    dims = stats.get("dimensions", {})
    metrics = stats.get("metrics", {})
    figs = []
    for dim in DIMENSIONS:
        items = [
            (
                f"{spec.get('title', key)} {ARROW.get(spec.get('better'), '')}",
                metrics.get(key),
                _tip(spec, key) + f": {num(metrics.get(key), 4)}",
            )
            for key, spec in dims.items()
            if spec.get("dimension") == dim and key in metrics
        ]
        if not items:
            continue
        svg = hbars(
            items,
            label=f"{prefix}{dim} profile",
            cls=f"s{DIMENSIONS.index(dim)}",
            width=330,
            label_width=182,
        )
        figs.append(
            f'<figure class="panel"><h3>{esc(dim.capitalize())}</h3>{svg}<figcaption>'
            f"{esc(DIMENSION_TEXT[dim])}.</figcaption></figure>"
        )
    return (
        f'<div class="charts">{"".join(figs)}</div><p class="sub">Profile: each metric\'s '
        "value for the whole dataset (split-level metrics averaged over the splits, as the "
        "paper reports them); ↑/↓: which direction is better. Bars share one scale per panel "
        "(0 to the larger of 1 and the panel's largest value).</p>"
    )


def _stats_table(stats: Mapping[str, Any], table_id: str) -> str:
    dims = stats.get("dimensions", {})
    metrics = stats.get("metrics", {})
    splits = stats.get("splits", {})
    head = "".join(f'<th class="n">{esc(s)}</th>' for s in splits)
    rows = []
    for key, spec in dims.items():
        if key not in metrics:
            continue
        tip = _tip(spec, key)
        arrow = ARROW.get(spec.get("better"), "")
        cells = "".join(
            _num_cell(split.get(key), f"{tip} — split {name}") if key in split else "<td></td>"
            for name, split in splits.items()
        )
        rows.append(
            f"<tr><td>{esc(spec.get('dimension', ''))}</td>"
            f'<td><abbr title="{esc(tip)}">{esc(spec.get("title", key))}</abbr> '
            f'<code class="muted">{esc(key)}</code></td>'
            f'<td class="arrow" title="{esc(spec.get("better", ""))} is better">{arrow}</td>'
            f"{_num_cell(metrics.get(key), tip, 4)}{cells}</tr>"
        )
    for extra in ("n_instances", "n_tokens", "n_entities", "tag_repairs"):
        if any(extra in s for s in splits.values()):
            cells = "".join(_num_cell(s.get(extra), extra) for s in splits.values())
            rows.append(f"<tr><td></td><td>{esc(extra)}</td><td></td><td></td>{cells}</tr>")
    return (
        f'<div class="tablewrap"><table id="{esc(table_id)}" class="sortable"><thead><tr>'
        f'<th>dimension</th><th>metric</th><th>better</th><th class="n">dataset</th>{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _stats_section(
    page: _Page,
    results: Mapping[str, Any],
    key: str = "stats",
    anchor: str = "statistics",
    title: str = "Dataset statistics",
) -> None:
    stats = results[key]
    dims = stats.get("dimensions", {})
    parts = [
        f"<p>Dataset <b>{show_text(stats.get('dataset'))}</b> (task "
        f"{esc(stats.get('task'))}), splits: "
        + ", ".join(
            f"{esc(name)} ({esc(num(s.get('n_instances')))} instances, "
            f"<code>{show_text(s.get('source'))}</code>)"
            for name, s in stats.get("splits", {}).items()
        )
        + ". Statistical dataset evaluation (NLE 2024): reliability, difficulty and validity, "
        "after Classical Test Theory. Hover a number for its definition.</p>",
        _profile(stats),
        _stats_table(stats, f"{anchor}-table"),
    ]
    if stats.get("model_scores"):
        rows = "".join(
            f"<tr><td>{show_text(k)}</td>{_num_cell(v, 'model score', 4)}</tr>"
            for k, v in stats["model_scores"].items()
        )
        parts.append(
            "<h3>Model scores behind Model Differentiation</h3><table><thead><tr><th>model</th>"
            f'<th class="n">score</th></tr></thead><tbody>{rows}</tbody></table>'
        )
    overlap = results.get("split_overlap") if key == "stats" else None
    if overlap and overlap.get("rows"):
        keys = [k for k in OVERLAP_METRICS if any(k in r for r in overlap["rows"])]
        groups = [f"{r['split']} vs {'+'.join(r.get('against', []))}" for r in overlap["rows"]]
        series = [
            (
                f"{dims.get(k, {}).get('title', k)} {ARROW.get(dims.get(k, {}).get('better'), '')}",
                [r.get(k) for r in overlap["rows"]],
            )
            for k in keys
        ]
        tips = [
            [
                f"{_tip(dims.get(k), k)} — {g}: {num(r.get(k), 4)}"
                for g, r in zip(groups, overlap["rows"], strict=True)
            ]
            for k in keys
        ]
        parts.append("<h3>Leakage and unseen entities per split</h3>")
        parts.append(
            _figure(
                grouped_hbars(
                    groups, series, tips=tips, vmax=1.0, label="leakage per split", label_width=150
                ),
                "Each evaluation split against the splits before it (test: train+dev, as Eq. 3; "
                "dev: train). Leakage ↓ better; unseen-entity ratio ↑ better (harder).",
            )
        )
    types = results.get("entity_types") if key == "stats" else None
    if types and types.get("types"):
        names = list(types["types"])
        split_names = list(types.get("splits", {}))
        series = [
            (s, [types["splits"][s].get("shares", {}).get(t) for t in names]) for s in split_names
        ]
        tips = [
            [
                f"{t} in {s}: {types['splits'][s].get('counts', {}).get(t, 0)} mentions "
                f"({num(types['splits'][s].get('shares', {}).get(t), 3)} of the split's mentions)"
                for t in names
            ]
            for s in split_names
        ]
        parts.append("<h3>Entity-type distribution</h3>")
        parts.append(
            _figure(
                grouped_hbars(
                    names, series, tips=tips, label="entity types per split", label_width=110
                ),
                "Share of entity mentions per type in each split; Entity Imbalance Degree (Eq. 8, "
                "↓ better) is the standard deviation of these shares.",
            )
        )
    page.section(anchor, title, "".join(parts))


def _comparison_section(page: _Page, comparison: Mapping[str, Any]) -> None:
    datasets = comparison.get("datasets", {})
    if not datasets:
        return
    first = next(iter(datasets.values()))
    dims = first.get("dimensions", {})
    head = "".join(f'<th class="n">{show_text(n)}</th>' for n in datasets)
    rows = []
    for key, spec in dims.items():
        if not any(key in d.get("metrics", {}) for d in datasets.values()):
            continue
        tip = _tip(spec, key)
        cells = "".join(
            _num_cell(d.get("metrics", {}).get(key), f"{tip} — {n}", 4) for n, d in datasets.items()
        )
        rows.append(
            f"<tr><td>{esc(spec.get('dimension', ''))}</td>"
            f'<td><abbr title="{esc(tip)}">{esc(spec.get("title", key))}</abbr></td>'
            f'<td class="arrow">{ARROW.get(spec.get("better"), "")}</td>{cells}</tr>'
        )
    body = [
        "<p>Several datasets side by side, as the paper's comparison table.</p>",
        '<div class="tablewrap"><table id="comparison-table" class="sortable"><thead><tr>'
        f"<th>dimension</th><th>metric</th><th>better</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>",
    ]
    for name, stats in datasets.items():
        body.append(f"<h3>Profile: {show_text(name)}</h3>{_profile(stats, prefix=f'{name} ')}")
    page.section("comparison", "Datasets compared", "".join(body))


# --------------------------------------------------------------------------- label errors


def _label_section(page: _Page, results: Mapping[str, Any]) -> None:
    le = results.get("label_errors") or {}
    parts: list[str] = []
    summary = le.get("summary", {})
    if le:
        judge = le.get("judge", {})
        parts.append(
            "<p>Label-error detection with an LLM ensemble (“Are LLMs Better than Reported?”): "
            "the ensemble's probability of each label is the mean over judges × prompts; an "
            "example is <b>flagged</b> when the ensemble's label differs from the original and "
            "its confidence (the ensemble's probability of its own label) reaches the "
            "threshold. Higher confidence, larger share of true errors; flags are candidates "
            "for expert review, not verdicts.</p>"
        )
        if judge:
            items = "".join(
                f"<li><b>{esc(k)}</b>: {show_text(v if not isinstance(v, list) else ', '.join(map(str, v)))}</li>"  # noqa: E501
                for k, v in judge.items()
            )
            parts.append(f"<h3>Judge</h3><ul>{items}</ul>")
        if le.get("default_judge"):
            parts.append(_default_judge(le["default_judge"]))
        cards = [
            _card("examples", summary.get("n"), "examples in the dataset"),
            _card("judged", summary.get("judged"), "examples with an ensemble probability"),
            _card(
                "disagreements",
                summary.get("disagreements"),
                "ensemble label ≠ original label (any confidence)",
            ),
            _card(
                "flagged",
                summary.get("flagged"),
                "disagreements with confidence ≥ threshold (↓ fewer is a cleaner dataset)",
            ),
            _card("flag rate", summary.get("flag_rate"), "flagged / examples; ↓ better"),
            _card("threshold", summary.get("threshold"), "minimum confidence of a flag"),
        ]
        parts.append(f'<div class="cards">{"".join(cards)}</div>')
        by_bin = summary.get("flagged_by_bin") or {}
        if by_bin:
            bars = [
                (b, c, f"{c} flagged examples with confidence in {b}") for b, c in by_bin.items()
            ]
            parts.append(
                _figure(
                    hbars(
                        bars,
                        label="flags per confidence bin",
                        vmax=max([1, *by_bin.values()]),
                        label_width=110,
                        width=460,
                    ),
                    "Flagged examples per confidence bin ([a, b), the last closed). In the paper, "
                    "over two thirds of the flags above 0.95 were true label errors.",
                )
            )
        parts.append(_flag_table(le))
        files = le.get("files") or []
        if files:
            parts.append(
                "<p>All flagged examples: "
                + ", ".join(f"<code>{esc(f)}</code>" for f in files)
                + " (beside this report).</p>"
            )
    err = results.get("error_rate")
    if err:
        ci = err.get("ci_fpc") or err.get("ci") or [None, None]
        tip = (
            "errors / reviewed sample; 95% Clopper–Pearson interval"
            + (" with the finite population correction" if err.get("ci_fpc") else "")
            + "; ↓ better"
        )
        parts.append("<h3>Error rate (reviewed sample)</h3>")
        parts.append(
            '<div class="cards">'
            + "".join(
                [
                    _card("error rate", err.get("error_rate"), tip, 4),
                    _card("interval low", ci[0], tip, 4),
                    _card("interval high", ci[1], tip, 4),
                    _card("errors / sample", f"{err.get('errors')} / {err.get('sample')}", tip),
                ]
            )
            + "</div>"
        )
    ba = results.get("bin_agreement")
    if ba and ba.get("bins"):
        bins = ba["bins"]
        sides = (("with_llm", "the LLM"), ("with_original", "the original label"))

        def point(b: Mapping[str, Any], key: str) -> tuple[Any, Any, Any]:
            return (b.get(key), *(b.get(f"{key}_ci") or [None, None]))

        rows = [
            (b["bin"] + f" (n={b.get('n')})", [point(b, key) for key, _ in sides]) for b in bins
        ]
        tips = [
            [
                f"bin {b['bin']}: experts agree with {who} in {num(v)} "
                f"(95% bootstrap {num(lo)}–{num(hi)}), n={b.get('n')}"
                for (v, lo, hi), (_, who) in zip(points, sides, strict=True)
            ]
            for b, (_, points) in zip(bins, rows, strict=True)
        ]
        parts.append("<h3>Expert agreement per confidence bin</h3>")
        parts.append(
            _figure(
                interval_plot(
                    rows,
                    series=["agrees with LLM", "agrees with original"],
                    label="agreement per bin",
                    lo=0.0,
                    hi=1.0,
                    tips=tips,
                    label_width=170,
                    ref=0.5,
                ),
                "Share of reviewed flags where the experts' label equals the LLM's vs the original "
                "label, with bootstrap 95% intervals. Bins with few examples have wide intervals.",
            )
        )
        warns = [b["warning"] for b in bins if b.get("warning")]
        if warns:
            parts.append("<ul>" + "".join(f"<li>{esc(w)}</li>" for w in warns) + "</ul>")
    curve = results.get("ensemble_curve")
    if curve and curve.get("points"):
        pts = curve["points"]
        series = [
            (
                "ROC AUC vs gold ↑",
                [
                    (p["size"], p.get("roc_auc_mean"), *(p.get("roc_auc_ci") or [None, None]))
                    for p in pts
                ],
            ),
            (
                "error-detection F1 ↑",
                [(p["size"], p.get("f1_mean"), *(p.get("f1_ci") or [None, None])) for p in pts],
            ),
        ]
        parts.append("<h3>Ensemble-size curves</h3>")
        parts.append(
            _figure(
                line_plot(
                    series,
                    label="ensemble size curves",
                    x_label=f"ensemble size ({curve.get('unit', 'members')})",
                    y_label="score",
                ),
                "Mean over random subsets of each size, band: spread over subsets. Both ↑ better.",
            )
        )
    if parts:
        page.section("label-errors", "Label errors", "".join(parts))


def _default_judge(note: Mapping[str, Any]) -> str:
    """Show what the default judge is, how well it measured, how to use a strong one."""
    head = "".join(f"<th>{esc(h)}</th>" for h in QUALITY_HEAD)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in quality_rows(note)
    )
    advice, commands = strong_judge_lines(note)
    code = "\n".join(commands)
    return (
        '<div class="judge-quality"><h3>How good is this judge?</h3>'
        f"<p>{esc(intro(note))}</p><p>{esc(verdict(note))}</p>"
        f'<div class="tablewrap"><table id="judge-quality"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
        f"<p>{esc(advice)}</p><pre><code>{esc(code)}</code></pre></div>"
    )


def _flag_table(le: Mapping[str, Any]) -> str:
    examples = list(le.get("examples") or [])
    if not examples:
        return "<p>No example was flagged.</p>"
    text_cols = [c for c in le.get("text_columns", []) if any(c in e for e in examples)]
    if not text_cols:
        text_cols = [c for c in ("text", "text_a", "text_b") if any(c in e for e in examples)]
    labels = list(le.get("summary", {}).get("labels", []))
    named = dict((le.get("dataset") or {}).get("columns") or {})
    shown = examples[:MAX_ROWS]
    head = (
        '<th class="n" title="1 = most confident flag">rank</th><th>id</th>'
        + "".join(f'<th title="{esc(c)}">{esc(named.get(c, c))}</th>' for c in text_cols)
        + '<th title="label in the dataset">original</th><th title="ensemble label">LLM</th>'
        + '<th class="n" title="ensemble probability of the LLM label; ↑ more likely an error">'
        "confidence</th><th>bin</th>"
        + "".join(
            f'<th class="n" title="ensemble P(label = {esc(lab)})">p_{esc(lab)}</th>'
            for lab in labels
        )
    )
    rows = []
    for e in shown:
        cells = [
            _num_cell(e.get("rank"), "rank by confidence; 1 = most confident"),
            f"<td>{show_text(e.get('id'))}</td>",
            *[f'<td class="text">{long_text(e.get(c))}</td>' for c in text_cols],
            f"<td>{show_text(e.get('label'))}</td>",
            f"<td>{show_text(e.get('llm_label'))}</td>",
            _num_cell(e.get("confidence"), "ensemble probability of the LLM label", 3),
            f'<td class="nw">{show_text(e.get("bin"))}</td>',
            *[_num_cell(e.get(f"p_{lab}"), f"ensemble P(label = {lab})") for lab in labels],
        ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    total = le.get("examples_total", len(examples))
    more = (
        f" The table shows the first {len(shown)} of {total}; the files hold all."
        if total > len(shown)
        else ""
    )
    return (
        "<h3>Flagged examples</h3>"
        f'<p class="sub">Click a column to sort; type to filter. Showing '
        f'<span id="flag-count">{len(shown)}</span> rows.{esc(more)}</p>'
        '<input class="filter" type="search" placeholder="filter flagged examples" '
        'aria-label="filter flagged examples" data-table="flag-table" data-count="flag-count">'
        f'<div class="tablewrap"><table id="flag-table" class="sortable"><thead><tr>{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


# --------------------------------------------------------------------------- diagnostics


def _diagnostics_section(page: _Page, diag: Mapping[str, Any]) -> None:
    models = diag.get("models", {})
    labels = list(diag.get("labels", []))
    suite = diag.get("suite", {})
    parts = [
        f"<p>Diagnostic suite <code>{show_text(suite.get('source'))}</code>: "
        f"{esc(num(suite.get('n_examples')))} examples ({esc(num(suite.get('n_pairs')))} pairs, "
        f"both directions), taxonomy {show_text(suite.get('taxonomy'))}. Score: Gorodkin's "
        "R<sub>K</sub>, the K-class Matthews correlation (1 perfect, 0 chance; ↑ better), with "
        f"{esc(_pct(diag.get('confidence')))} percentile-bootstrap intervals "
        f"({esc(num(diag.get('n_resamples')))} resamples, seed {esc(num(diag.get('seed')))}).</p>",
        f'<p class="note" id="not-comparable"><b>Categories are not comparable with each '
        f"other.</b> {esc(diag.get('note', ''))}</p>",
    ]
    names = list(models)
    if names:
        coarse = list(next(iter(models.values())).get("coarse", {}))
        rows: list[tuple[str, list[tuple[Any, Any, Any]]]] = []
        tips = []
        for group in ["overall", *coarse]:
            points: list[tuple[Any, Any, Any]] = []
            tip_row = []
            found = [
                models[m]["overall"] if group == "overall" else models[m]["coarse"].get(group, {})
                for m in names
            ]
            for m, c in zip(names, found, strict=True):
                ci = c.get("ci") or [None, None]
                points.append((c.get("r_k"), ci[0], ci[1]))
                tip_row.append(
                    f"{m} · {group}: R_K {num(c.get('r_k'))} "
                    f"(interval {num(ci[0])}–{num(ci[1])}), n={c.get('n')}; ↑ better"
                )
            rows.append((f"{group} (n={found[0].get('n')})", points))
            tips.append(tip_row)
        parts.append("<h3>R<sub>K</sub> per coarse category</h3>")
        parts.append(
            _figure(
                interval_plot(
                    rows,
                    series=names,
                    label="R_K per category",
                    lo=-1.0,
                    hi=1.0,
                    tips=tips,
                    ref=0.0,
                    label_width=250,
                    width=620,
                ),
                "Compare models within a row, never rows with each other. Dashed line: chance (0).",
            )
        )
        fine_names = list(dict.fromkeys(t for m in models.values() for t in m.get("fine", {})))
        head = "".join(
            f'<th class="n">{show_text(m)} R_K</th><th class="n">interval</th>' for m in names
        )
        body = []
        for tag in fine_names:
            n = next(
                (models[m]["fine"][tag].get("n") for m in names if tag in models[m]["fine"]), None
            )
            cells = ""
            for m in names:
                c = models[m]["fine"].get(tag, {})
                ci = c.get("ci") or [None, None]
                tip = f"{m} · {tag}: R_K (Gorodkin), ↑ better; n={c.get('n')}"
                cells += _num_cell(c.get("r_k"), tip)
                cells += f'<td class="n muted">{esc(num(ci[0]))} – {esc(num(ci[1]))}</td>'
            body.append(f"<tr><td>{show_text(tag)}</td>{_num_cell(n, 'examples')}{cells}</tr>")
        parts.append(
            "<h3>R<sub>K</sub> per fine tag</h3>"
            '<div class="tablewrap"><table id="fine-table" class="sortable"><thead><tr>'
            f'<th>tag</th><th class="n">n</th>{head}</tr></thead><tbody>{"".join(body)}'
            "</tbody></table></div>"
        )
        parts.append("<h3>Confusion matrices (overall)</h3>")
        figs = []
        for m in names:
            conf = models[m]["overall"].get("confusion") or []
            if conf:
                figs.append(
                    _figure(
                        heatmap(conf, labels, label=f"confusion {m}"),
                        f"{m}: rows gold, columns predicted; shade = share of row.",
                    )
                )
        parts.append(f'<div class="charts">{"".join(figs)}</div>')
    checks = diag.get("checks")
    if checks and checks.get("label_distribution"):
        dist = checks["label_distribution"]
        shares = dist.get("shares", {})
        ref = dist.get("glue_reference_shares", {})
        series = [("this suite", [shares.get(k) for k in shares])]
        if ref:
            series.append(("GLUE diagnostic", [ref.get(k) for k in shares]))
        parts.append("<h3>Suite label distribution</h3>")
        parts.append(
            _figure(
                grouped_hbars(list(shares), series, label="label distribution", vmax=1.0),
                "Share of each gold label, beside the original GLUE diagnostic's distribution.",
            )
        )
    for model, notes in (diag.get("prediction_notes") or {}).items():
        for note in notes:
            parts.append(f'<p class="sub">{show_text(model)}: {esc(note)}</p>')
    page.section("diagnostics", "Diagnostic evaluation", "".join(parts))


# --------------------------------------------------------------------------- page


def _overview(results: Mapping[str, Any]) -> str:
    parts = []
    inputs = results.get("inputs") or {}
    if inputs:
        items = "".join(
            f"<li><b>{esc(k)}</b>: <code>{show_text(v)}</code></li>" for k, v in inputs.items()
        )
        parts.append(f"<h3>Inputs</h3><ul>{items}</ul>")
    analyses = results.get("analyses") or []
    if analyses:
        rows = "".join(
            f"<tr><td>{esc(a.get('name'))}</td>"
            f'<td class="status-{esc(a.get("status"))}">{esc(a.get("status"))}</td>'
            f"<td>{show_text(a.get('detail', ''))}</td></tr>"
            for a in analyses
        )
        parts.append(
            "<h3>Analyses</h3><table><thead><tr><th>analysis</th><th>status</th><th>detail</th>"
            f"</tr></thead><tbody>{rows}</tbody></table>"
        )
    return "".join(parts)


def render_html(results: Mapping[str, Any]) -> str:
    """Render a ``results.json`` object as one self-contained HTML page (deterministic)."""
    script = _asset("report.js")
    page = _Page()
    overview = _overview(results)
    if overview:
        page.section("overview", "Overview", overview)
    if results.get("stats"):
        _stats_section(page, results)
    if results.get("table_stats"):
        _stats_section(
            page, results, "table_stats", "table-statistics", "Statistics of the labelled examples"
        )
    if results.get("comparison"):
        _comparison_section(page, results["comparison"])
    _label_section(page, results)
    if results.get("diagnostics"):
        _diagnostics_section(page, results["diagnostics"])
    from benchcheck.report._items import html_sections

    for anchor, title, body in html_sections(results, show_text):
        page.section(anchor, title, body)
    notes = list(results.get("notes") or [])
    for key in ("stats", "table_stats"):
        notes += list((results.get(key) or {}).get("notes") or [])
    if notes:
        page.section(
            "notes", "Notes", "<ul>" + "".join(f"<li>{show_text(n)}</li>" for n in notes) + "</ul>"
        )
    glossary = [
        ("↑ / ↓", "higher / lower is better"),
        ("—", "not defined for this input (see the notes)"),
        ("U+XXXX", "an invisible or direction-changing character found in the data"),
    ]
    toc = "".join(f'<li><a href="#{esc(a)}">{esc(t)}</a></li>' for a, t in page.toc)
    title = str(results.get("title") or "benchcheck audit report")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(_csp(script))}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{esc(title)}</title>\n"
        f"<style>\n{_asset('report.css')}</style>\n"
        "</head><body>\n"
        f"<header><h1>{esc(title)}</h1>"
        f'<p class="sub">Rendered from results.json (schema '
        f"{esc(results.get('schema_version', '?'))}). Every number has a tooltip with its "
        "definition; ↑ higher is better, ↓ lower is better.</p></header>\n"
        f'<nav class="toc" aria-label="contents"><b>Contents</b><ol>{toc}</ol></nav>\n'
        + "\n".join(page.parts)
        + f"\n<footer>{_defs(glossary)}<p>benchcheck: statistical dataset evaluation, "
        "label-error detection, diagnostic evaluation. This file is self-contained and "
        "loads nothing from the network.</p></footer>\n"
        f"<script>{script}</script>\n</body></html>\n"
    )
