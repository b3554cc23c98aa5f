"""doccano sequence-labelling exports: JSON lines of text and ``[start, end, type]`` spans.

Two shapes are read, one per line: ``{"text": ..., "label": [[start, end, "TYPE"], ...]}``
(doccano's JSONL export) and ``{"text": ..., "entities": [{"start_offset": s,
"end_offset": e, "label": "TYPE"}, ...]}`` (the export with relations). Offsets are
characters, end exclusive. Spans become tokens and tags through :mod:`benchcheck.io._spans`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from benchcheck.data.model import Split
from benchcheck.errors import InputError
from benchcheck.io._spans import (
    Align,
    Overlaps,
    RecordCollector,
    Tokenizer,
    is_offset,
    spans_to_split,
)
from benchcheck.io.tables import json_lines, read_utf8


def read_doccano(
    path: str | Path,
    *,
    name: str | None = None,
    tokenizer: Tokenizer = "unicode",
    align: Align = "strict",
    overlaps: Overlaps = "error",
    type_map: Mapping[str, str] | None = None,
    coarse_types: bool = False,
    keep_tokens: bool = True,
) -> Split:
    """Read a doccano JSONL export into an NER split (see the module docstring)."""
    path = Path(path)
    out = RecordCollector()
    for number, row in json_lines(read_utf8(path), path):
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            raise InputError('expected an object with a "text" string', path=path, line=number)
        record = out.add(row["text"], number)
        spans: list[tuple[int, int, str]] = []
        if "entities" in row:
            items = row["entities"]
            if not isinstance(items, list) or not all(
                isinstance(x, dict)
                and is_offset(x.get("start_offset"))
                and is_offset(x.get("end_offset"))
                and isinstance(x.get("label"), str)
                for x in items
            ):
                raise InputError(
                    '"entities" must be a list of {"start_offset", "end_offset", "label"}',
                    path=path,
                    line=number,
                )
            spans = [(x["start_offset"], x["end_offset"], x["label"]) for x in items]
        elif "label" in row:
            items = row["label"]
            if isinstance(items, list) and all(isinstance(x, str) for x in items) and items:
                raise InputError(
                    '"label" holds category names, not spans (a text-classification export?); '
                    "expected [[start, end, type], ...]",
                    path=path,
                    line=number,
                    got=items,
                )
            if not isinstance(items, list) or not all(
                isinstance(x, list)
                and len(x) == 3
                and is_offset(x[0])
                and is_offset(x[1])
                and isinstance(x[2], str)
                for x in items
            ):
                raise InputError(
                    '"label" must be a list of [start, end, "TYPE"]', path=path, line=number
                )
            spans = [(x[0], x[1], x[2]) for x in items]
        for start, end, entity_type in sorted(spans):
            out.span(record, start, end, entity_type)
    return spans_to_split(
        out.records(),
        name=name or path.stem,
        source=str(path),
        format="doccano",
        tokenizer=tokenizer,
        align=align,
        overlaps=overlaps,
        type_map=type_map,
        coarse_types=coarse_types,
        keep_tokens=keep_tokens,
    )
