"""Human annotations of a diagnostic suite: id, annotator, label (long or wide)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from benchcheck.errors import InputError
from benchcheck.io.diagnostic._rows import (
    _ID_KEYS,
    _cell,
    _LabelConverter,
    _pick,
    _records,
)


def read_annotations(
    path: str | Path,
    *,
    ids: Sequence[str],
    label_names: Sequence[str],
    label_map: Mapping[str, str] | None = None,
) -> dict[str, dict[str, str]]:
    """Read human annotations of suite examples: ``{annotator: {example id: label}}``.

    Two layouts (TSV, CSV or JSONL): *long*, with columns ``id``, ``annotator`` and
    ``label``; or *wide*, with an ``id`` column and one column per annotator (an empty
    cell means not annotated). Labels are names or indices, as in :func:`read_predictions`.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    columns, records = _records(path)
    lower = {c.casefold(): c for c in columns}
    id_col = _pick(columns, None, _ID_KEYS, "id", path)
    if id_col is None:
        raise InputError(
            f"no id column (one of {list(_ID_KEYS)}); the file has {columns}", path=path
        )
    wanted = set(ids)
    out: dict[str, dict[str, str]] = {}
    long = "annotator" in lower and "label" in lower
    # One converter per column holding labels: the label column (long) or each annotator's.
    convert = {c: _LabelConverter(path, label_names, label_map, c) for c in columns}
    for line, rec in records:
        ex_id = _cell(rec.get(id_col))
        if ex_id is None or ex_id not in wanted:
            raise InputError("id not in the suite", path=path, line=line, got=ex_id)
        if long:
            who = _cell(rec.get(lower["annotator"]))
            if who is None:
                raise InputError("empty annotator", path=path, line=line)
            cells = {who: (lower["label"], rec.get(lower["label"]))}
        else:
            cells = {c: (c, rec.get(c)) for c in columns if c != id_col and _cell(rec.get(c))}
        for who, (column, raw) in cells.items():
            seen = out.setdefault(who, {})
            if ex_id in seen:
                raise InputError(
                    f"annotator {who!r} labels this id twice", path=path, line=line, got=ex_id
                )
            seen[ex_id] = convert[column](raw, line)
    if not out:
        raise InputError("no annotations found", path=path)
    return out
