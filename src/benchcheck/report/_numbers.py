"""How every rendering (terminal, Markdown, HTML, SVG) shows a number: one rule, one function."""

from __future__ import annotations

import math

__all__ = ["OVERLAP_METRICS", "STABLE_DECIMALS", "num"]

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
