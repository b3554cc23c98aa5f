"""One rule for joining two files by example id, and one for duplicate ids.

Every command that joins a second file to the dataset by id (judgments, flags, predicted
probabilities, gold labels, model scores) checks the join before using it, because a join
that matches nothing gives zeros, not an error: ids written as numbers in one file and as
``"p01"`` in the other, or a file of another dataset, used to report "judged 0, flagged 0"
with exit code 0.

:func:`check_join` raises :class:`~benchcheck.errors.InputError` when the two sides have no
id in common, or when more than :data:`MAX_UNMATCHED` (5 %) of either side's ids have no
partner on the other; the message shows a few unmatched ids from each side. Under that
threshold, unmatched ids are not dropped silently: a :class:`~benchcheck.errors.DataWarning`
counts them and shows the first from each side. Ids are compared exactly as text (``1`` and
``"1"`` are the same id, ``1`` and ``1.0``, ``"01"`` or ``"1 "`` are not).
:func:`refuse_duplicates` raises on an id given twice, naming the line of its second row,
and on a missing id (``null`` or empty).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchcheck.errors import DataWarning, InputError

__all__ = ["MAX_UNMATCHED", "JoinCheck", "check_join", "refuse_duplicates"]

#: Largest share of one side's ids that may lack a partner on the other side.
MAX_UNMATCHED = 0.05
_SHOWN = 3


@dataclass(frozen=True)
class JoinCheck:
    """How two id sets meet: sizes, ids in common and unmatched counts on each side."""

    n_left: int
    n_right: int
    common: int
    left_only: int
    right_only: int


def _show(ids: Iterable[str]) -> str:
    shown = []
    for i, value in enumerate(ids):
        if i == _SHOWN:
            shown.append("…")
            break
        shown.append(repr(value))
    return ", ".join(shown) if shown else "none"


def _ordered_missing(ids: Sequence[str], other: set[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for i in ids:
        if i not in other and i not in seen:
            seen.add(i)
            out.append(i)
    return out


def _hint(left: set[str], right: set[str]) -> str:
    """Name a likely cause when one side's ids are the other's written differently."""

    def trimmed(ids: set[str]) -> set[str]:
        return {i[:-2] if i.endswith(".0") else i for i in ids}

    def unpadded(ids: set[str]) -> set[str]:
        return {i.lstrip("0") or "0" if i.isdigit() else i for i in ids}

    def stripped(ids: set[str]) -> set[str]:
        return {i.strip() for i in ids}

    if trimmed(left) & trimmed(right) and not left & right:
        return " (one side writes ids as decimals, e.g. 1.0 for 1)"
    if unpadded(left) & unpadded(right) and not left & right:
        return " (ids differ only in leading zeros)"
    if stripped(left) & stripped(right) - (left & right):
        return " (some ids differ only in spaces around them)"
    return ""


def check_join(
    left: Sequence[str],
    right: Sequence[str],
    *,
    left_name: str,
    right_name: str,
    path: str | Path | None = None,
    left_unmatched: float = MAX_UNMATCHED,
    right_unmatched: float = MAX_UNMATCHED,
    left_file: str | Path | None = None,
    right_file: str | Path | None = None,
) -> JoinCheck:
    """Check that ``right``'s ids join ``left``'s (see the module docstring).

    ``left_name``/``right_name`` name the sides in the message (``"the data"``,
    ``"the judgments"``), ``left_file``/``right_file`` the files they come from (named once
    in the message); ``path`` is the file the error is reported against.
    ``left_unmatched``/``right_unmatched`` are the largest shares of each side's ids that
    may lack a partner: 0 when every id needs one, 1 when a side may hold any number of
    others (gold labels for a sample of the judged examples, say).

    >>> check_join(["a", "b"], ["a", "b"], left_name="the data", right_name="the judgments")
    JoinCheck(n_left=2, n_right=2, common=2, left_only=0, right_only=0)
    >>> check_join(["p01", "p02"], ["0", "1"], left_name="the data", right_name="the judgments")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: the judgments share no id with the data: the data has 'p01', ...
    """
    lset, rset = set(left), set(right)
    common = lset & rset
    left_only = _ordered_missing(left, rset)
    right_only = _ordered_missing(right, lset)
    result = JoinCheck(len(lset), len(rset), len(common), len(left_only), len(right_only))
    if not lset or not rset:
        return result
    lf = f" ({left_file})" if left_file else ""
    rf = f" ({right_file})" if right_file else ""
    if not common:
        raise InputError(
            f"{right_name}{rf} share no id with {left_name}{lf}: {left_name} has "
            f"{_show(left)}; {right_name} have {_show(right)} (ids are compared as text)"
            f"{_hint(lset, rset)}",
            path=path,
        )
    over = []
    for ids, size, limit, own, other in (
        (left_only, len(lset), left_unmatched, left_name, right_name),
        (right_only, len(rset), right_unmatched, right_name, left_name),
    ):
        if len(ids) / size > limit:
            rule = "each needs a partner" if limit == 0 else f"at most {limit:.0%} may lack one"
            over.append(
                f"{len(ids)} of {size} ids of {own} are not in {other} ({_show(ids)}; {rule})"
            )
    if over:
        raise InputError(
            f"{right_name}{rf} do not match {left_name}{lf}: " + "; ".join(over), path=path
        )
    unmatched = [  # under the threshold: counted and shown, never dropped silently
        f"{len(ids)} of {size} ids of {own}{f} are not in {other} ({_show(ids)})"
        for ids, size, limit, own, f, other in (
            (left_only, len(lset), left_unmatched, left_name, lf, right_name),
            (right_only, len(rset), right_unmatched, right_name, rf, left_name),
        )
        if ids and limit < 1  # a side that may hold any number of others says nothing
    ]
    if unmatched:
        hint = _hint(set(left_only), set(right_only))
        warnings.warn(DataWarning("; ".join(unmatched) + hint), stacklevel=2)
    return result


def refuse_duplicates(
    ids: Sequence[str | None],
    *,
    path: str | Path | None = None,
    lines: Sequence[int] | None = None,
    what: str = "id",
) -> None:
    """Raise :class:`InputError` at the second row of the first id given twice, or a missing id.

    A missing id is ``None`` or an empty (or all-space) text: it can join nothing.

    >>> refuse_duplicates(["a", "b", "a"], path="f.jsonl", lines=[1, 2, 3])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: f.jsonl:3: duplicate id: each example may appear once ...
    """
    for k, value in enumerate(ids):
        if value is None or (isinstance(value, str) and not value.strip()):
            raise InputError(
                f"missing {what} (null or empty); expected every example to have one",
                path=path,
                line=None if lines is None else int(lines[k]),
                got=value,
            )
    if len(set(ids)) == len(ids):
        return
    first: dict[str | None, int] = {}
    for k, value in enumerate(ids):
        if value in first:
            at = first[value]
            where = f" (first on line {lines[at]})" if lines is not None else ""
            raise InputError(
                f"duplicate {what}: each example may appear once{where}",
                path=path,
                line=None if lines is None else int(lines[k]),
                got=value,
            )
        first[value] = k
