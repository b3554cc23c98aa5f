"""Report sections of test theory (items, leaderboard, diff), rendered from results.json.

HTML: the item–total scatter (difficulty × discrimination, suspects marked), the suspect
items, the leaderboard with intervals and "could swap with", the diff table. Markdown: the
same tables. Pure functions of the JSON, like the rest of :mod:`benchcheck.report`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from benchcheck.report._numbers import num
from benchcheck.report._svg import _f, _svg, _text, esc, interval_plot, line_plot

__all__ = ["html_sections", "markdown_sections", "scatter_plot"]

#: Suspect items listed in the HTML and Markdown tables (all are in results.json).
MAX_ITEMS = 50
#: Changed values listed in the diff table.
MAX_CHANGES = 200


def scatter_plot(
    points: Sequence[tuple[float, float, str, bool]],
    *,
    label: str,
    x_label: str,
    y_label: str,
    width: float = 520,
    height: float = 300,
    y_lo: float = -1.0,
    y_hi: float = 1.0,
    ref: float | None = None,
) -> str:
    """Points ``(x in [0, 1], y, tooltip, highlighted)``; y axis fixed to ``[y_lo, y_hi]``.

    >>> "<circle" in scatter_plot([(0.5, 0.2, "q1", False)], label="s", x_label="x", y_label="y")
    True
    """
    left, right, top, bottom = 48.0, 16.0, 12.0, 40.0
    pw, ph = width - left - right, height - top - bottom

    def sx(v: float) -> float:
        return left + min(1.0, max(0.0, v)) * pw

    def sy(v: float) -> float:
        return top + (1 - (min(y_hi, max(y_lo, v)) - y_lo) / (y_hi - y_lo)) * ph

    body: list[str] = []
    for t in range(5):
        yv = y_lo + (y_hi - y_lo) * t / 4
        xv = t / 4
        body.append(
            f'<line class="grid" x1="{_f(left)}" y1="{_f(sy(yv))}" x2="{_f(left + pw)}" '
            f'y2="{_f(sy(yv))}"/>'
        )
        body.append(_text(left - 6, sy(yv) + 4, f"{yv:g}", anchor="end", cls="tick"))
        body.append(_text(sx(xv), top + ph + 16, f"{xv:g}", anchor="middle", cls="tick"))
    if ref is not None:
        body.append(
            f'<line class="ref" x1="{_f(left)}" y1="{_f(sy(ref))}" x2="{_f(left + pw)}" '
            f'y2="{_f(sy(ref))}"/>'
        )
    body.append(_text(left + pw / 2, height - 6, x_label, anchor="middle", cls="lbl"))
    body.append(
        f'<text class="lbl" transform="translate(12 {_f(top + ph / 2)}) rotate(-90)" '
        f'text-anchor="middle">{esc(y_label)}</text>'
    )
    for x, y, tip, hot in points:
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        cls = "s1" if hot else "s0"
        body.append(
            f'<circle class="{cls}" cx="{_f(sx(x))}" cy="{_f(sy(y))}" r="{3.5 if hot else 2.5}">'
            f"<title>{esc(tip)}</title></circle>"
        )
    return _svg(width, height, body, label=label)


def _suspects(items: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    order = {"every model wrong": 0, "negative discrimination": 1, "low discrimination": 2}
    flagged = [i for i in items if i.get("flag")]
    flagged.sort(
        key=lambda i: (
            order.get(str(i["flag"]), 3),
            i["discrimination"] if i.get("discrimination") is not None else -2.0,
        )
    )
    return flagged


def _items_html(items: Mapping[str, Any], show_text: Any) -> str:
    rel = items.get("reliability") or {}
    pct = f"{rel.get('confidence', 0.95):.0%}"
    cards = "".join(
        f'<div class="card" title="{esc(tip)}"><div class="k">{esc(k)}</div>'
        f'<div class="v">{esc(v)}</div></div>'
        for k, v, tip in (
            ("KR-20", num(rel.get("kr20")), "Kuder–Richardson 20 over the models (↑ better)"),
            ("Cronbach's α", num(rel.get("cronbach_alpha")), "internal consistency (↑ better)"),
            (
                f"α {pct} CI",
                f"{num((rel.get('ci') or [None])[0])}–{num((rel.get('ci') or [None, None])[1])}",
                "percentile bootstrap over items",
            ),
            ("SEM", num(rel.get("sem")), "standard error of measurement, in items (↓ better)"),
            ("items", num(items.get("n_items")), "items analysed"),
            ("models", num(items.get("n_models")), "examinees"),
        )
    )
    parts = [f'<div class="cards">{cards}</div>']
    if rel.get("note"):
        parts.append(f'<p class="note">{esc(rel["note"])}</p>')
    all_items = items.get("items") or []
    pts = [
        (
            float(i["difficulty"]),
            float(i["discrimination"]),
            f"{i['id']}: difficulty {num(i['difficulty'])}, discrimination "
            f"{num(i['discrimination'])}" + (f" ({i['flag']})" if i.get("flag") else ""),
            bool(i.get("flag")),
        )
        for i in all_items
        if i.get("discrimination") is not None
    ]
    parts.append(
        "<figure>"
        + scatter_plot(
            pts,
            label="item–total scatter",
            x_label="difficulty (share of models right)",
            y_label="discrimination",
            ref=float(items.get("min_discrimination") or 0.0),
        )
        + "<figcaption>Each dot an item: its difficulty against its corrected item–total "
        "correlation. Marked: suspects (at or below the dashed line, or every model wrong) — "
        "the prime label-error candidates.</figcaption></figure>"
    )
    sus = _suspects(all_items)
    if sus:
        rows = "".join(
            f"<tr><td>{show_text(i['id'])}</td>"
            f'<td class="n">{esc(num(i["difficulty"]))}</td>'
            f'<td class="n">{esc(num(i["discrimination"]))}</td>'
            f'<td class="n">{esc(num(i["upper_lower_index"]))}</td>'
            f"<td>{esc(i['flag'])}</td></tr>"
            for i in sus[:MAX_ITEMS]
        )
        parts.append(
            f"<h3>Suspect items ({len(sus)}; the first {min(len(sus), MAX_ITEMS)})</h3>"
            '<div class="tablewrap"><table id="items-table" class="sortable"><thead><tr>'
            '<th>id</th><th class="n">difficulty</th><th class="n">discrimination</th>'
            '<th class="n">upper–lower</th><th>why</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></div>"
        )
    curves = [i for i in sus if i.get("curve")][:6]
    if curves:
        series = [
            (str(i["id"]), [(c["rest_score"], c["p"], None, None) for c in i["curve"]])
            for i in curves
        ]
        parts.append(
            "<figure>"
            + line_plot(
                series,
                label="item–total curves",
                x_label="models' score on the other items",
                y_label="share right",
            )
            + "<figcaption>Item–total curves of the worst suspects: models grouped by their "
            "score on the other items. A working item rises to the right; a falling one is "
            "answered right by the weaker models.</figcaption></figure>"
        )
    irt = items.get("irt")
    if irt:
        ab = irt.get("abilities") or {}
        rows = "".join(
            f'<tr><td>{show_text(n)}</td><td class="n">{esc(num(v["theta"]))}</td>'
            f'<td class="n">{esc(num(v["se"]))}</td></tr>'
            for n, v in sorted(ab.items(), key=lambda kv: -(kv[1]["theta"] or -99))
        )
        parts.append(
            f"<h3>IRT {esc(str(irt['model']).upper())} abilities ({esc(irt['library'])})</h3>"
            '<table><thead><tr><th>model</th><th class="n">θ</th><th class="n">SE</th></tr>'
            f"</thead><tbody>{rows}</tbody></table>"
        )
    for n in items.get("notes") or []:
        parts.append(f'<p class="sub">{esc(n)}</p>')
    return "".join(parts)


def _rank_html(rank: Mapping[str, Any], show_text: Any) -> str:
    models = rank.get("models") or []
    pct = f"{rank.get('confidence', 0.95):.0%}"
    rows_plot = [
        (f"{m['rank']}. {m['name']}", [(m["score"], m["interval"][0], m["interval"][1])])
        for m in models
    ]
    tips = [
        [
            f"{m['name']}: {rank.get('metric')} {num(m['score'])}, {pct} interval "
            f"{num(m['interval'][0])}–{num(m['interval'][1])}"
        ]
        for m in models
    ]
    parts = [
        "<figure>"
        + interval_plot(
            rows_plot,
            series=[str(rank.get("metric"))],
            label="leaderboard",
            lo=0.0,
            hi=1.0,
            tips=tips,
        )
        + f"<figcaption>Score on the reference labels with its {pct} interval over "
        f"{esc(num(rank.get('n_resamples')))} plausible true labelings.</figcaption></figure>"
    ]
    rows = "".join(
        f'<tr><td class="n">{esc(m["rank"])}</td><td>{show_text(m["name"])}</td>'
        f'<td class="n">{esc(num(m["score"]))}</td>'
        f'<td class="n">{esc(num(m["interval"][0]))} – {esc(num(m["interval"][1]))}</td>'
        f'<td class="n">{esc(m["rank_interval"][0])}–{esc(m["rank_interval"][1])}</td>'
        f"<td>{show_text(', '.join(m['could_swap_with']) or '—')}</td></tr>"
        for m in models
    )
    parts.append(
        '<table id="rank-table"><thead><tr><th class="n">rank</th><th>model</th>'
        f'<th class="n">score</th><th class="n">{pct} interval</th><th class="n">rank range</th>'
        f"<th>could swap with</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    for n in rank.get("notes") or []:
        parts.append(f'<p class="sub">{esc(n)}</p>')
    return "".join(parts)


def _diff_html(diff: Mapping[str, Any]) -> str:
    rows = [m for m in diff.get("metrics") or [] if m.get("change") not in (0, 0.0)]
    body = "".join(
        f'<tr><td>{esc(m["path"])}</td><td class="n">{esc(num(m["old"], 4))}</td>'
        f'<td class="n">{esc(num(m["new"], 4))}</td>'
        f'<td class="n{" neg" if m.get("worse") else ""}">{esc(num(m["change"], 4))}</td>'
        f"<td>{esc(m.get('test') or '—')}</td>"
        f'<td class="n">{esc(num(m.get("p_value"), 4))}</td></tr>'
        for m in rows[:MAX_CHANGES]
    )
    parts = [
        f"<p>Against <code>{esc(diff.get('baseline'))}</code>: {esc(num(diff.get('n_changed')))} "
        f"of {esc(num(diff.get('n_values')))} values changed. Tests run on counts only "
        "(results.json holds aggregates): Fisher's exact test on shares of instances, "
        "McNemar's on flags fixed/new.</p>",
        '<div class="tablewrap"><table id="diff-table" class="sortable"><thead><tr><th>value</th>'
        '<th class="n">old</th><th class="n">new</th><th class="n">change</th><th>test</th>'
        f'<th class="n">p</th></tr></thead><tbody>{body}</tbody></table></div>',
    ]
    flags = diff.get("flags")
    if flags:
        parts.append(
            f"<p>Flags fixed: {esc(flags['n_fixed'])}, new: {esc(flags['n_new'])}, still "
            f"flagged: {esc(flags['n_still_flagged'])}.</p>"
        )
    return "".join(parts)


def html_sections(results: Mapping[str, Any], show_text: Any) -> list[tuple[str, str, str]]:
    """``(anchor, title, body)`` of the test-theory sections present in ``results``."""
    out = []
    if results.get("items"):
        out.append(("items", "Item analysis", _items_html(results["items"], show_text)))
    if results.get("rank"):
        out.append(
            ("leaderboard", "Leaderboard under label noise", _rank_html(results["rank"], show_text))
        )
    if results.get("diff"):
        out.append(("diff", "Changes since the baseline", _diff_html(results["diff"])))
    return out


def markdown_sections(results: Mapping[str, Any], md_text: Any, table: Any) -> list[str]:
    """Markdown lines of the test-theory sections present in ``results``."""
    out: list[str] = []
    items = results.get("items")
    if items:
        rel = items.get("reliability") or {}
        ci = rel.get("ci") or [None, None]
        out += [
            "## Item analysis",
            "",
            f"{items['n_items']} items × {items['n_models']} models. KR-20 {num(rel.get('kr20'))}, "
            f"Cronbach's α {num(rel.get('cronbach_alpha'))} (bootstrap CI {num(ci[0])}–"
            f"{num(ci[1])}), SEM {num(rel.get('sem'))}.",
            "",
        ]
        sus = _suspects(items.get("items") or [])
        if sus:
            out.append(
                table(
                    ["id", "difficulty", "discrimination", "upper–lower", "why"],
                    [
                        [
                            md_text(i["id"]),
                            num(i["difficulty"]),
                            num(i["discrimination"]),
                            num(i["upper_lower_index"]),
                            md_text(i["flag"]),
                        ]
                        for i in sus[:MAX_ITEMS]
                    ],
                    right=(1, 2, 3),
                )
            )
    rank = results.get("rank")
    if rank:
        out += ["## Leaderboard under label noise", ""]
        out.append(
            table(
                ["rank", "model", "score", "interval", "rank range", "could swap with"],
                [
                    [
                        str(m["rank"]),
                        md_text(m["name"]),
                        num(m["score"]),
                        f"{num(m['interval'][0])}–{num(m['interval'][1])}",
                        f"{m['rank_interval'][0]}–{m['rank_interval'][1]}",
                        md_text(", ".join(m["could_swap_with"]) or "—"),
                    ]
                    for m in rank.get("models") or []
                ],
                right=(0, 2, 3, 4),
            )
        )
    diff = results.get("diff")
    if diff:
        out += ["## Changes since the baseline", ""]
        rows = [m for m in diff.get("metrics") or [] if m.get("change") not in (0, 0.0)]
        out.append(
            table(
                ["value", "old", "new", "change", "test", "p"],
                [
                    [
                        md_text(m["path"]),
                        num(m["old"], 4),
                        num(m["new"], 4),
                        num(m["change"], 4),
                        md_text(m.get("test") or "—"),
                        num(m.get("p_value"), 4),
                    ]
                    for m in rows[:MAX_CHANGES]
                ],
                right=(1, 2, 3, 5),
            )
        )
    return out
