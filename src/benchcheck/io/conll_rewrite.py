"""Rewrite a CoNLL file with some sentences' tags replaced or some sentences removed.

Every byte of the file is copied except the changed lines: a retagged token line keeps its
token, its middle columns, its separators and its line ending, and only its last field (the
tag) is replaced; a removed sentence loses its token lines and the blank line after it (or,
for the file's last sentence, the blank line before it). ``-DOCSTART-`` lines and blank
lines elsewhere are kept. A sentence's token lines are contiguous from its ``line`` (the
reader's rule: a blank line ends a sentence).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from pathlib import Path

from benchcheck.data.model import Split

__all__ = ["rewrite_conll"]

#: A token line: everything up to the last field, the last field (the tag), the line end.
_LAST_FIELD = re.compile(rb"^(.*[ \t])([^ \t\r]+)([ \t\r]*)$", re.DOTALL)


def rewrite_conll(
    split: Split,
    *,
    tags: Mapping[int, list[str]] | None = None,
    drop: Set[int] = frozenset(),
) -> bytes:
    r"""Return the file of ``split`` with sentence ``k`` tagged ``tags[k]``, ``drop`` removed.

    >>> import tempfile, os
    >>> from benchcheck.io.conll import read_conll
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.txt")
    >>> _ = open(p, "w").write("A B-PER\nb O\n\nC\tx\tO\n")
    >>> rewrite_conll(read_conll(p), tags={0: ["O", "B-LOC"]})
    b'A O\nb B-LOC\n\nC\tx\tO\n'
    >>> rewrite_conll(read_conll(p), drop={0})
    b'C\tx\tO\n'
    """
    tags = tags or {}
    lines = Path(split.source).read_bytes().split(b"\n")
    first = split.table["line"].to_list()
    n_tok = split.table["n_tokens"].to_list()
    removed: set[int] = set()
    for k in drop:
        lo = int(first[k]) - 1
        hi = lo + int(n_tok[k])
        removed.update(range(lo, hi))
        if hi < len(lines) and not lines[hi].strip() and hi + 1 < len(lines):
            removed.add(hi)  # the blank line that closed it
        elif lo > 0 and not lines[lo - 1].strip():
            removed.add(lo - 1)  # the last sentence: the blank line before it
    out = list(lines)
    for k, new in tags.items():
        if k in drop:
            continue
        lo = int(first[k]) - 1
        for j, tag in enumerate(new):
            m = _LAST_FIELD.match(out[lo + j])
            if m is None:  # the reader accepted this line, so it has a last field
                raise AssertionError(f"line {lo + j + 1} has no tag field")
            out[lo + j] = m.group(1) + tag.encode() + m.group(3)
    return b"\n".join(line for i, line in enumerate(out) if i not in removed)
