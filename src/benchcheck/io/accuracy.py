"""The filled human accuracy sample (Eq. 2): each row's annotators and their judgements."""

from __future__ import annotations

import json
from pathlib import Path

from benchcheck.errors import InputError
from benchcheck.io.tables import json_lines

__all__ = ["read_accuracy_sample"]

_TRUE = {True, "1", "true", "yes", "correct", "y"}
_FALSE = {False, "0", "false", "no", "incorrect", "n"}


def _judgement(value: object, path: Path, line: int) -> int:
    key = value.lower() if isinstance(value, str) else value
    if key in _TRUE:
        return 1
    if key in _FALSE:
        return 0
    raise InputError(
        "annotation must be true/false (or 1/0, correct/incorrect)", path=path, line=line, got=value
    )


def read_accuracy_sample(path: str | Path) -> list[tuple[str, dict[str, int]]]:
    """Return (split, {annotator: 0|1}) for each annotated row of a filled sample file."""
    from benchcheck.io._text import read_text_file

    path = Path(path)
    text = read_text_file(path)  # a BOM is dropped; UTF-16 and bad bytes are named
    out = []
    seen: dict[tuple[str, str], int] = {}
    for number, row in json_lines(text, path):
        if (
            not isinstance(row, dict)
            or "split" not in row
            or not isinstance(row.get("annotations"), dict)
        ):
            raise InputError(
                'expected an object with "split" and an "annotations" object',
                path=path,
                line=number,
            )
        key = (str(row["split"]), json.dumps(row.get("id", number), sort_keys=True))
        if key in seen:
            raise InputError(
                f"duplicate id: each sampled instance may appear once (first on line "
                f"{seen[key]}); a second copy would count its judgements twice",
                path=path,
                line=number,
                got=row.get("id"),
            )
        seen[key] = number
        judged = {
            str(k): _judgement(v, path, number)
            for k, v in row["annotations"].items()
            if v is not None
        }
        if judged:
            out.append((str(row["split"]), judged))
    if not out:
        raise InputError(
            'no annotated rows: fill each row\'s "annotations" with {annotator: true|false}',
            path=path,
        )
    return out
