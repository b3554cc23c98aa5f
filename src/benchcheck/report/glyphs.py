"""What every rendering (terminal, Markdown, HTML) shows the same way, besides numbers.

``ARROW`` marks which direction of a metric is better; :func:`shown_as_codepoint` says which
characters of untrusted dataset text are replaced by a visible ``U+XXXX`` mark.
"""

from __future__ import annotations

import unicodedata

ARROW = {"higher": "↑", "lower": "↓"}

_MARKED = frozenset(("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"))


def shown_as_codepoint(ch: str) -> bool:
    r"""Tell whether ``ch`` is shown as a ``U+XXXX`` mark: invisible or direction-changing.

    That is control, format, private-use, unassigned and line/paragraph separator
    characters; not newline and tab, which each rendering shows its own way.

    >>> [shown_as_codepoint(c) for c in ("a", "\n", "\u202e", "\u200b", "\x00")]
    [False, False, True, True, True]
    """
    return ch not in "\n\t" and unicodedata.category(ch) in _MARKED
