"""How every rendering (terminal, Markdown, HTML, SVG) shows a number: one rule, one function."""

from __future__ import annotations

import math

__all__ = ["OVERLAP_METRICS", "num"]

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
    JSON writes ``-0.0``); anything else as ``str``.

    >>> num(None), num(float("nan")), num(True), num(3), num(0.123456), num(-0.0)
    ('—', '—', 'true', '3', '0.123', '-0.000')
    >>> num(2**70), num(1 / 3, 4)
    ('1180591620717411303424', '0.3333')
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
        return f"{value:.{digits}f}"
    return str(value)
