"""Small inline-SVG charts, generated in Python (no JavaScript chart library).

Every function returns an SVG fragment as a string. All text that reaches the SVG goes
through :func:`esc`; colours come from CSS classes (``s0`` … ``s5``, ``pos``, ``neg``) so that
the page's light/dark/print styles apply. Each mark carries a ``<title>`` (the tooltip).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from benchcheck.report.numbers import num, pct, short

__all__ = [
    "esc",
    "grouped_hbars",
    "heatmap",
    "hbars",
    "interval_plot",
    "line_plot",
    "scatter_plot",
]


def esc(text: object) -> str:
    """Escape text for HTML/SVG content and attribute values.

    >>> esc('<script>"x"</script>')
    '&lt;script&gt;&quot;x&quot;&lt;/script&gt;'
    """
    return html.escape(str(text), quote=True)


def _f(x: float) -> str:
    """Coordinates with one decimal: short, deterministic output."""
    return f"{x:.1f}"


def _text(x: float, y: float, label: str, *, anchor: str = "start", cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}"{c}>{esc(label)}</text>'


def _clip(label: str, n: int = 28) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"


def _legend(
    names: Sequence[str], width: float, x0: float, *, dot: bool = False
) -> tuple[list[str], float]:
    """Legend entries laid out in rows that wrap at ``width``; returns (marks, height)."""
    body: list[str] = []
    x, y = x0, 4.0
    for k, name in enumerate(names):
        shown = _clip(name, 40)
        w = 24 + 6.6 * len(shown)
        if x + w > width and x > x0:
            x, y = x0, y + 16
        if dot:
            body.append(f'<circle class="s{k % 6}" cx="{_f(x + 5)}" cy="{_f(y + 5)}" r="5"/>')
        else:
            body.append(f'<rect class="s{k % 6}" x="{_f(x)}" y="{_f(y)}" width="10" height="10"/>')
        body.append(_text(x + 14, y + 9, shown, cls="lbl"))
        x += w
    return body, y + 18


def _svg(width: float, height: float, body: list[str], *, label: str) -> str:
    return (
        f'<svg class="chart" role="img" aria-label="{esc(label)}" width="{_f(width)}" '
        f'height="{_f(height)}" viewBox="0 0 {_f(width)} {_f(height)}" '
        f'xmlns="http://www.w3.org/2000/svg">' + "".join(body) + "</svg>"
    )


def hbars(
    items: Sequence[tuple[str, float | None, str]],
    *,
    label: str,
    vmax: float | None = None,
    width: float = 520,
    label_width: float = 210,
    cls: str = "s0",
) -> str:
    """Horizontal bars: ``(name, value, tooltip)``; missing values are drawn as ``—``."""
    values = [v for _, v, _ in items if v is not None and math.isfinite(v)]
    top = vmax if vmax is not None else max([1.0, *values])
    top = top or 1.0
    row, pad = 22.0, 6.0
    plot = width - label_width - 48
    body: list[str] = []
    for i, (name, value, tip) in enumerate(items):
        y = pad + i * row
        body.append(_text(label_width - 8, y + 15, _clip(name, 31), anchor="end", cls="lbl"))
        body.append(
            f'<rect class="track" x="{_f(label_width)}" y="{_f(y + 3)}" '
            f'width="{_f(plot)}" height="{_f(row - 8)}"/>'
        )
        if value is None or not math.isfinite(value):
            body.append(_text(label_width + 4, y + 15, "—", cls="val"))
            continue
        w = max(0.0, min(1.0, value / top)) * plot
        body.append(
            f'<rect class="{cls}" x="{_f(label_width)}" y="{_f(y + 3)}" width="{_f(w)}" '
            f'height="{_f(row - 8)}"><title>{esc(tip)}</title></rect>'
        )
        body.append(_text(label_width + w + 4, y + 15, num(value), cls="val"))
    height = pad * 2 + row * len(items)
    return _svg(width, height, body, label=label)


def grouped_hbars(
    groups: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    *,
    label: str,
    tips: Sequence[Sequence[str]] | None = None,
    vmax: float | None = None,
    width: float = 520,
    label_width: float = 120,
    fmt_digits: int = 3,
) -> str:
    """One block of bars per group, one bar per series (``s0``, ``s1`` … colours), legend on top."""
    values = [v for _, vs in series for v in vs if v is not None and math.isfinite(v)]
    top = vmax if vmax is not None else max([1e-12, *values])
    bar, gap = 14.0, 10.0
    plot = width - label_width - 60
    body, legend = _legend([name for name, _ in series], width, 8.0)
    y = legend + 2
    for g, group in enumerate(groups):
        block = bar * len(series)
        body.append(
            _text(label_width - 8, y + block / 2 + 4, _clip(group, 18), anchor="end", cls="lbl")
        )
        for k, (name, vs) in enumerate(series):
            v = vs[g]
            yy = y + k * bar
            if v is None or not math.isfinite(v):
                body.append(_text(label_width + 4, yy + 11, "—", cls="val"))
                continue
            w = max(0.0, min(1.0, v / top)) * plot if top else 0.0
            tip = tips[k][g] if tips else f"{name} · {group}: {num(v, fmt_digits)}"
            body.append(
                f'<rect class="s{k % 6}" x="{_f(label_width)}" y="{_f(yy + 1)}" '
                f'width="{_f(w)}" height="{_f(bar - 2)}"><title>{esc(tip)}</title></rect>'
            )
            body.append(_text(label_width + w + 4, yy + 11, num(v, fmt_digits), cls="val"))
        y += block + gap
    return _svg(width, y + 4, body, label=label)


def interval_plot(
    rows: Sequence[tuple[str, Sequence[tuple[float | None, float | None, float | None]]]],
    *,
    series: Sequence[str],
    label: str,
    lo: float,
    hi: float,
    tips: Sequence[Sequence[str]] | None = None,
    width: float = 560,
    label_width: float = 210,
    ref: float | None = None,
) -> str:
    """Points with interval whiskers on a fixed axis ``[lo, hi]``: one row per group.

    ``rows`` is ``(group, [(point, low, high) per series])``.
    """
    row = 16.0 * max(1, len(series)) + 10
    axis_h = 22.0
    plot = width - label_width - 20
    span = (hi - lo) or 1.0

    def sx(v: float) -> float:
        return label_width + (min(hi, max(lo, v)) - lo) / span * plot

    body, top_pad = _legend(series, width, label_width, dot=True)
    top_pad += 4
    height = top_pad + row * len(rows) + axis_h
    for t in range(5):
        v = lo + span * t / 4
        xx = sx(v)
        body.append(
            f'<line class="grid" x1="{_f(xx)}" y1="{_f(top_pad)}" x2="{_f(xx)}" '
            f'y2="{_f(height - axis_h)}"/>'
        )
        body.append(_text(xx, height - 6, short(v), anchor="middle", cls="tick"))
    if ref is not None:
        xx = sx(ref)
        body.append(
            f'<line class="ref" x1="{_f(xx)}" y1="{_f(top_pad)}" x2="{_f(xx)}" '
            f'y2="{_f(height - axis_h)}"/>'
        )
    for r, (group, points) in enumerate(rows):
        y0 = top_pad + r * row
        body.append(
            _text(
                label_width - 8,
                y0 + row / 2 + 4,
                _clip(group, int(label_width / 6.4)),
                anchor="end",
                cls="lbl",
            )
        )
        if r:
            body.append(f'<line class="sep" x1="0" y1="{_f(y0)}" x2="{_f(width)}" y2="{_f(y0)}"/>')
        first = y0 + (row - 16.0 * (len(points) - 1)) / 2
        for k, (p, a, b) in enumerate(points):
            y = first + k * 16
            tip = tips[r][k] if tips else f"{series[k]} · {group}: {num(p)}"
            if p is None or not math.isfinite(p):
                body.append(_text(label_width + 4, y + 4, "—", cls="val"))
                continue
            if a is not None and b is not None and math.isfinite(a) and math.isfinite(b):
                body.append(
                    f'<line class="whisk s{k % 6}" x1="{_f(sx(a))}" y1="{_f(y)}" '
                    f'x2="{_f(sx(b))}" y2="{_f(y)}"><title>{esc(tip)}</title></line>'
                )
            body.append(
                f'<circle class="s{k % 6}" cx="{_f(sx(p))}" cy="{_f(y)}" r="4.5">'
                f"<title>{esc(tip)}</title></circle>"
            )
    return _svg(width, height, body, label=label)


def line_plot(
    series: Sequence[tuple[str, Sequence[tuple[float, float | None, float | None, float | None]]]],
    *,
    label: str,
    x_label: str,
    y_label: str,
    lo: float = 0.0,
    hi: float = 1.0,
    width: float = 520,
    height: float = 260,
) -> str:
    """Lines with interval bands: ``(name, [(x, y, low, high)])``; y axis fixed to ``[lo, hi]``."""
    left, right, top, bottom = 48.0, 16.0, 26.0, 40.0
    xs = [x for _, pts in series for x, *_ in pts]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x1 == x0:
        x1 = x0 + 1
    pw, ph = width - left - right, height - top - bottom

    def sx(v: float) -> float:
        return left + (v - x0) / (x1 - x0) * pw

    def sy(v: float) -> float:
        return top + (1 - (min(hi, max(lo, v)) - lo) / ((hi - lo) or 1.0)) * ph

    body: list[str] = []
    for t in range(5):
        v = lo + (hi - lo) * t / 4
        body.append(
            f'<line class="grid" x1="{_f(left)}" y1="{_f(sy(v))}" x2="{_f(left + pw)}" '
            f'y2="{_f(sy(v))}"/>'
        )
        body.append(_text(left - 6, sy(v) + 4, short(v), anchor="end", cls="tick"))
    for v in sorted(set(xs)):
        body.append(_text(sx(v), top + ph + 16, num(v), anchor="middle", cls="tick"))
    body.append(_text(left + pw / 2, height - 6, x_label, anchor="middle", cls="lbl"))
    body.append(
        f'<text class="lbl" transform="translate(12 {_f(top + ph / 2)}) rotate(-90)" '
        f'text-anchor="middle">{esc(y_label)}</text>'
    )
    marks, _ = _legend([name for name, _ in series], width, left)
    body += marks
    for k, (name, pts) in enumerate(series):
        ok = [(a, b, c, d) for a, b, c, d in pts if b is not None and math.isfinite(b)]
        band = [(a, c, d) for a, _, c, d in ok if c is not None and d is not None]
        if len(band) >= 2:
            up = " ".join(f"{_f(sx(a))},{_f(sy(d))}" for a, _, d in band)
            down = " ".join(f"{_f(sx(a))},{_f(sy(c))}" for a, c, _ in reversed(band))
            body.append(f'<polygon class="band s{k % 6}" points="{up} {down}"/>')
        if len(ok) >= 2:
            line = " ".join(f"{_f(sx(a))},{_f(sy(b))}" for a, b, _, _ in ok)
            body.append(f'<polyline class="line s{k % 6}" points="{line}"/>')
        for a, b, c, d in ok:
            tip = f"{name} at {num(a)}: {num(b)}"
            if c is not None and d is not None:
                tip += f" (interval {num(c)}–{num(d)})"
            body.append(
                f'<circle class="s{k % 6}" cx="{_f(sx(a))}" cy="{_f(sy(b))}" r="3.5">'
                f"<title>{esc(tip)}</title></circle>"
            )
    return _svg(width, height, body, label=label)


def heatmap(
    matrix: Sequence[Sequence[int]],
    labels: Sequence[str],
    *,
    label: str,
    cell: float = 40.0,
) -> str:
    """Confusion matrix: rows gold, columns predicted; shade by the share of the row."""
    k = len(labels)
    left, top = 110.0, 72.0
    body: list[str] = [
        _text(left + cell * k / 2, 12, "predicted (columns)", anchor="middle", cls="lbl"),
        f'<text class="lbl" transform="translate(12 {_f(top + cell * k / 2)}) rotate(-90)" '
        f'text-anchor="middle">gold (rows)</text>',
    ]
    for j, name in enumerate(labels):
        body.append(
            f'<text class="tick" transform="translate({_f(left + j * cell + cell / 2)} '
            f'{_f(top - 6)}) rotate(-35)">{esc(_clip(name, 13))}</text>'
        )
    for i, row in enumerate(matrix):
        total = sum(row) or 1
        body.append(
            _text(
                left - 6,
                top + i * cell + cell / 2 + 4,
                _clip(name_at(labels, i), 13),
                anchor="end",
                cls="tick",
            )
        )
        for j, v in enumerate(row):
            share = v / total
            level = min(5, int(share * 5 + 0.999)) if v else 0
            tip = (
                f"gold {name_at(labels, i)}, predicted {name_at(labels, j)}: {v} "
                f"({pct(share)} of the row)"
            )
            body.append(
                f'<rect class="heat h{level}{" diag" if i == j else ""}" '
                f'x="{_f(left + j * cell)}" y="{_f(top + i * cell)}" width="{_f(cell - 2)}" '
                f'height="{_f(cell - 2)}"><title>{esc(tip)}</title></rect>'
            )
            body.append(
                _text(
                    left + j * cell + cell / 2 - 1,
                    top + i * cell + cell / 2 + 4,
                    str(v),
                    anchor="middle",
                    cls=f"hv h{level}",
                )
            )
    return _svg(left + cell * k + 80, top + cell * k + 10, body, label=label)


def name_at(labels: Sequence[str], i: int) -> str:
    """Label ``i`` or its index when the list is short."""
    return labels[i] if i < len(labels) else str(i)


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
        body.append(_text(left - 6, sy(yv) + 4, short(yv), anchor="end", cls="tick"))
        body.append(_text(sx(xv), top + ph + 16, short(xv), anchor="middle", cls="tick"))
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
