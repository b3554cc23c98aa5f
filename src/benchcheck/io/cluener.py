"""CLUENER 2020 (``train.json`` / ``dev.json``): JSON lines of text and nested entity spans.

Each line is ``{"text": ..., "label": {type: {surface: [[start, end], ...]}}}`` with
**inclusive** character offsets (the released files' convention: ``"叶老桂": [[9, 11]]``);
each listed surface must equal ``text[start : end + 1]``, else the line is an error. The
released ``test.json`` has no ``label`` at all: a file where no line has one is refused
(:class:`~benchcheck.io._spans.UnlabelledSplit`). Lines are decoded and type-checked by
``msgspec``; spans become tokens and tags through :mod:`benchcheck.io._spans`.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from benchcheck.errors import InputError
from benchcheck.io._spans import (
    RecordCollector,
    SpanRecords,
    UnlabelledSplit,
    decode_lines,
    read_bytes,
)


class _Line(msgspec.Struct):
    text: str
    label: dict[str, dict[str, list[tuple[int, int]]]] | None | msgspec.UnsetType = msgspec.UNSET


_DECODER = msgspec.json.Decoder(_Line)
_EXPECTED = 'an object with "text" and "label" {type: {surface: [[start, end], ...]}}'


def records(path: str | Path) -> SpanRecords:
    """Read a CLUENER JSON-lines file as span records (see the module docstring)."""
    path = Path(path)
    out = RecordCollector()
    labelled = False
    rows, lines = decode_lines(read_bytes(path), _DECODER, path, _EXPECTED, keys=_keys)
    for number, row in zip(lines, rows, strict=True):
        text = row.text
        spans: list[tuple[int, int, str]] = []
        if row.label is not msgspec.UNSET:
            labelled = True
            for entity_type, surfaces in (row.label or {}).items():
                for surface, places in surfaces.items():
                    for start, end in places:
                        _check(text, start, end, entity_type, surface, path, number)
                        spans.append((start, end + 1, entity_type))
        out.add(text, number, spans=spans)
    if not labelled:
        raise UnlabelledSplit(
            'no line has a "label" (CLUENER\'s test.json is released without labels); '
            "expected labelled lines",
            path=path,
        )
    return out.records()


def _keys(row: _Line) -> int:
    """Count the keys of one decoded line (``text``, ``label``, types and surfaces)."""
    if row.label is msgspec.UNSET:
        return 1
    return 2 + (0 if row.label is None else len(row.label) + sum(map(len, row.label.values())))


def _check(
    text: str, start: int, end: int, entity_type: str, surface: str, path: Path, line: int
) -> None:
    """Check that an inclusive span lies inside the text and reads its listed surface."""
    if not 0 <= start <= end < len(text):
        raise InputError(
            f"{entity_type} span [{start}, {end}] lies outside the text ({len(text)} "
            "characters); expected inclusive offsets 0 <= start <= end < the text's length",
            path=path,
            line=line,
            got=surface,
        )
    if text[start : end + 1] != surface:
        raise InputError(
            f"{entity_type} span [{start}, {end}] reads {text[start : end + 1]!r}, not the "
            "surface it is listed under; expected inclusive offsets of that surface",
            path=path,
            line=line,
            got=surface,
        )
