"""doccano sequence-labelling exports: JSON lines of text and ``[start, end, type]`` spans.

Two shapes are read, one per line: ``{"text": ..., "label": [[start, end, "TYPE"], ...]}``
(doccano's JSONL export) and ``{"text": ..., "entities": [{"start_offset": s,
"end_offset": e, "label": "TYPE"}, ...]}`` (the export with relations). Offsets are
characters, end exclusive. Lines are decoded and type-checked by ``msgspec``; spans become
tokens and tags through :mod:`benchcheck.io._spans`.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from benchcheck.errors import InputError
from benchcheck.io._spans import (
    RecordCollector,
    SpanRecords,
    decode_lines,
    read_bytes,
)
from benchcheck.io._text import HugeNumber, huge_number, json_int


class _Entity(msgspec.Struct):
    start_offset: int
    end_offset: int
    label: str


class _Line(msgspec.Struct):
    text: str
    label: list[tuple[int, int, str]] | None = None
    entities: list[_Entity] | None = None


_DECODER = msgspec.json.Decoder(_Line)
_EXPECTED = (
    'an object with "text" and "label" [[start, end, "TYPE"], ...] or "entities" '
    '[{"start_offset", "end_offset", "label"}, ...]'
)


def records(path: str | Path) -> SpanRecords:
    """Read a doccano JSONL export as span records (see the module docstring)."""
    path = Path(path)
    data = read_bytes(path)
    out = RecordCollector()
    try:
        rows, lines = decode_lines(data, _DECODER, path, _EXPECTED, keys=_keys)
    except InputError as exc:
        raise _classification_hint(exc, data) from None
    _refuse_unknown_keys(rows, lines, data, path)
    out.extend(
        [row.text for row in rows],
        lines,
        [
            row.label or ()
            if row.entities is None
            else [(e.start_offset, e.end_offset, e.label) for e in row.entities]
            for row in rows
        ],
    )
    return out.records()


#: Keys of doccano's exports besides the spans (a line may hold them without any span).
_OTHER_KEYS = frozenset(
    {"text", "id", "meta", "comments", "Comments", "annotation_approver", "relations", "cats"}
)


def _refuse_unknown_keys(rows: list[_Line], lines: list[int], data: bytes, path: Path) -> None:
    """Refuse a line without "label" or "entities" that holds a key doccano does not write.

    Such a line would be read as having no entity at all; a misspelt ``"lable"`` (or a
    key in another tool's format) is far likelier than an annotator's empty document.
    """
    raw = None
    for row, number in zip(rows, lines, strict=True):
        if row.label is not None or row.entities is not None:
            continue
        raw = raw or data.split(b"\n")
        try:
            keys = json.loads(raw[number - 1], parse_int=json_int)
        except HugeNumber as exc:
            raise huge_number(exc, path, line=number) from None
        unknown = sorted(set(keys) - _OTHER_KEYS)
        if unknown:
            raise InputError(
                f'no "label" or "entities" but {", ".join(map(repr, unknown))} (a misspelt '
                'key?); expected "label" [[start, end, "TYPE"], ...] or "entities"',
                path=path,
                line=number,
            )


def _keys(row: _Line) -> int:
    """Count the keys of one decoded line (``text``, ``label`` or ``entities`` and theirs)."""
    entities = 0 if row.entities is None else 1 + 3 * len(row.entities)
    return 1 + (row.label is not None) + entities


def _classification_hint(exc: InputError, data: bytes) -> InputError:
    """Say so when the bad line is a text-classification export (``"label": ["POS"]``)."""
    if exc.line is None:
        return exc
    try:
        row = json.loads(data.split(b"\n")[exc.line - 1])
    except (ValueError, IndexError):
        return exc
    label = row.get("label") if isinstance(row, dict) else None
    if isinstance(label, list) and label and all(isinstance(x, str) for x in label):
        return InputError(
            '"label" holds category names, not spans (a text-classification export?); '
            'expected [[start, end, "TYPE"], ...]',
            path=exc.path,
            line=exc.line,
            got=label,
        )
    return exc
