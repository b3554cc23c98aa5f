r"""CSV meant for spreadsheets: neutralise formula injection, and undo it when reading back.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return can be run as
a formula by Excel, LibreOffice or Google Sheets when the file is opened (OWASP, "CSV
Injection"). So can one whose first such character follows white space (a space, a
no-break space, a line feed: some imports trim cells before they evaluate them), or is a
full-width form (``＝``, ``＋``, ``－``, ``＠``, which some imports fold to ASCII).
OWASP's remedy is to prefix such a cell with a single quote (``'``), which the
spreadsheet shows as text; :func:`neutralise` does that to every string cell, and
:func:`restore` removes exactly that prefix again when the file comes back, so a text that
really starts with ``'=`` survives the round trip. Numbers and empty cells are left alone.

>>> neutralise('=HYPERLINK("http://x")')
'\'=HYPERLINK("http://x")'
>>> restore(neutralise("-1 degree")), restore(neutralise("'=already quoted"))
('-1 degree', "'=already quoted")
"""

from __future__ import annotations

import polars as pl

__all__ = ["FORMULA_STARTS", "neutralise", "neutralise_frame", "restore", "restore_frame"]

#: First characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: The same read after white space is trimmed, or after full-width forms are folded.
_TRIMMED_STARTS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def _formula(value: str) -> bool:
    """Whether a spreadsheet could read ``value`` as a formula (as is, or trimmed/folded)."""
    return value.startswith(FORMULA_STARTS) or value.lstrip().startswith(_TRIMMED_STARTS)


def _risky(value: str) -> bool:
    return _formula(value) or (
        value.startswith("'") and (value[1:].startswith("'") or _formula(value[1:]))
    )


def neutralise(value: str | None) -> str | None:
    """Prefix a cell with ``'`` when a spreadsheet could take it for a formula.

    A cell that already starts with ``'`` followed by a formula character (or another
    ``'``) is prefixed too, so :func:`restore` gives back exactly the original.

    >>> neutralise("@SUM(A1)"), neutralise("plain"), neutralise(None)
    ("'@SUM(A1)", 'plain', None)
    """
    if value is None or not _risky(value):
        return value
    return "'" + value


def restore(value: str | None) -> str | None:
    """Undo :func:`neutralise`: drop the ``'`` it added, nothing else.

    >>> restore("'+1"), restore("'quoted"), restore("+1")
    ('+1', "'quoted", '+1')
    """
    if value is None or not value.startswith("'"):
        return value
    rest = value[1:]
    return rest if _risky(rest) or _formula(rest) else value


def neutralise_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Apply :func:`neutralise` to every string column of ``frame``.

    >>> neutralise_frame(pl.DataFrame({"t": ["=1+1", "ok"], "n": [1, 2]})).rows()
    [("'=1+1", 1), ('ok', 2)]
    """
    return frame.with_columns(
        pl.col(c).map_elements(neutralise, return_dtype=pl.String)
        for c, t in frame.schema.items()
        if t == pl.String
    )


def restore_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Apply :func:`restore` to every string column of ``frame`` (a CSV read back)."""
    return frame.with_columns(
        pl.col(c).map_elements(restore, return_dtype=pl.String)
        for c, t in frame.schema.items()
        if t == pl.String
    )
