"""How every rendering (terminal, Markdown, HTML, SVG) shows a number: one rule, a few forms.

:func:`num` is the rule (``None``/NaN as ``—``, floats rounded to :data:`STABLE_DECIMALS`
before formatting); :func:`pct`, :func:`short`, :func:`signed` and :func:`thousands` are the
other forms a display needs, each applying the same rule first.
"""

from __future__ import annotations

import math

__all__ = ["OVERLAP_METRICS", "STABLE_DECIMALS", "num", "pct", "short", "signed", "thousands"]

#: Decimals a float keeps before it is formatted for display: far beyond any displayed
#: precision, far above summation-order noise (~1e-16 relative).
STABLE_DECIMALS = 12

#: The split-overlap metrics a report shows per pair of splits, in this order.
OVERLAP_METRICS = (
    "leakage_ratio",
    "text_leakage_ratio",
    "unseen_entity_ratio",
    "unseen_entity_ratio_typed",
)


def num(value: object, digits: int = 3) -> str:
    """Format a value for display the way canonical JSON would hold it.

    ``None``, NaN and ±infinity (all ``null`` in ``results.json``) show as ``—``; booleans
    as ``true``/``false`` (as in JSON, never Python's ``True``); integers in full; floats
    with ``digits`` decimals, sign kept as Python formats it (``-0.0`` → ``-0.000``, as
    JSON writes ``-0.0``); anything else as ``str``. A float is first rounded to
    :data:`STABLE_DECIMALS` places, so two values that differ only in summation order (the
    last bits, which another BLAS kernel or library build may change) show the same digits:
    ``0.1235`` computed as ``0.12349999999999999`` or ``0.12350000000000001`` shows ``0.123``.

    >>> num(None), num(float("nan")), num(True), num(3), num(0.123456), num(-0.0)
    ('—', '—', 'true', '3', '0.123', '-0.000')
    >>> num(2**70), num(1 / 3, 4)
    ('1180591620717411303424', '0.3333')
    >>> num(0.12349999999999999), num(0.12350000000000001), num(0.0625 + 1e-17, 3)
    ('0.123', '0.123', '0.062')
    """
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "—"
        return f"{round(value, STABLE_DECIMALS):.{digits}f}"
    return str(value)


def _stable(value: object) -> float | None:
    """Return the float a display formats: ``None`` where :func:`num` shows ``—``."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value):
        return None
    return round(float(value), STABLE_DECIMALS)


def pct(value: object, digits: int = 0) -> str:
    """Format a share as a percentage (``0.95`` → ``95%``); ``—`` where :func:`num` has it.

    >>> pct(0.95), pct(0.12345, 1), pct(None), pct(0.0050000000000000001, 1)
    ('95%', '12.3%', '—', '0.5%')
    """
    stable = _stable(value)
    return "—" if stable is None else f"{stable:.{digits}%}"


def short(value: object) -> str:
    """Format a number in its shortest form (6 significant digits: ``0.5``, ``1``, ``1e-05``).

    For thresholds, bin edges and axis ticks, where trailing zeros say nothing.

    >>> short(0.5), short(1.0), short(0.30000000000000004), short(None)
    ('0.5', '1', '0.3', '—')
    """
    stable = _stable(value)
    return "—" if stable is None else f"{stable:g}"


def signed(value: int) -> str:
    """Format a change of rank or count with its sign (``+2``, ``-1``, ``0``).

    >>> signed(2), signed(-1), signed(0)
    ('+2', '-1', '0')
    """
    return f"{value:+d}" if value else "0"


def thousands(value: int) -> str:
    """Format a count with thousands separators (``12,345``).

    >>> thousands(12345)
    '12,345'
    """
    return f"{value:,}"


def score_text(score: object, logit: object = None) -> str:
    """Format an error score in [0, 1] readably near 1: ``1−2.3e-05`` past 0.999.

    ``logit`` (the score's log-odds, where known) gives ``1 − score = 1 / (1 + e^logit)``
    without the rounding of ``1 − score`` in floating point, so two scores of 1.000 that
    differ in evidence show different text.

    >>> score_text(0.5), score_text(0.99997), score_text(1.0, 46.05), score_text(None)
    ('0.500', '1−3.0e-05', '1−1.0e-20', '—')
    """
    import math

    if not isinstance(score, int | float) or isinstance(score, bool) or math.isnan(score):
        return num(score)
    if score < 0.999:
        return num(score)
    if isinstance(logit, int | float) and not isinstance(logit, bool) and math.isfinite(logit):
        z = float(logit)  # 1 / (1 + e^z), without overflow
        rest = math.exp(-z) / (1.0 + math.exp(-z)) if z > 0 else 1.0 / (1.0 + math.exp(z))
    else:
        rest = 1.0 - float(score)
    return f"1−{rest:.1e}" if rest > 0 else num(score)
