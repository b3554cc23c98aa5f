"""CLUENER 2020 (``train.json`` / ``dev.json``): JSON lines of text and nested entity spans.

Each line is ``{"text": ..., "label": {type: {surface: [[start, end], ...]}}}`` with
**inclusive** character offsets (the released files' convention: ``"叶老桂": [[9, 11]]``);
each listed surface must equal ``text[start : end + 1]``, else the line is an error. The
released ``test.json`` has no ``label`` at all: a file where no line has one is refused
(:class:`UnlabelledSplit`). Spans become tokens and tags through :mod:`benchcheck.io._spans`.
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
    UnlabelledSplit,
    is_offset,
    spans_to_split,
)
from benchcheck.io.tables import json_lines, read_utf8


def read_cluener(
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
    """Read a CLUENER JSON-lines file into an NER split (see the module docstring)."""
    path = Path(path)
    out = RecordCollector()
    labelled = False
    for number, row in json_lines(read_utf8(path), path):
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            raise InputError('expected an object with a "text" string', path=path, line=number)
        text = row["text"]
        record = out.add(text, number)
        if "label" not in row:
            continue
        labelled = True
        label = row["label"]
        if label is None:
            continue
        if not isinstance(label, dict):
            raise InputError(
                '"label" must map each type to {surface: [[start, end], ...]}',
                path=path,
                line=number,
                got=label,
            )
        spans = []
        for entity_type, surfaces in label.items():
            if not isinstance(surfaces, dict):
                raise InputError(
                    f'"label" {entity_type!r} must map surfaces to [[start, end], ...]',
                    path=path,
                    line=number,
                    got=surfaces,
                )
            for surface, places in surfaces.items():
                if not isinstance(places, list) or not all(
                    isinstance(p, list) and len(p) == 2 and all(map(is_offset, p)) for p in places
                ):
                    raise InputError(
                        f"{entity_type} {surface!r}: expected a list of [start, end] "
                        "(inclusive character offsets)",
                        path=path,
                        line=number,
                        got=places,
                    )
                for start, end in places:
                    if not 0 <= start <= end < len(text):
                        raise InputError(
                            f"{entity_type} span [{start}, {end}] lies outside the text "
                            f"({len(text)} characters); expected inclusive offsets "
                            "0 <= start <= end < the text's length",
                            path=path,
                            line=number,
                            got=surface,
                        )
                    if text[start : end + 1] != surface:
                        raise InputError(
                            f"{entity_type} span [{start}, {end}] reads "
                            f"{text[start : end + 1]!r}, not the surface it is listed under; "
                            "expected inclusive offsets of that surface",
                            path=path,
                            line=number,
                            got=surface,
                        )
                    spans.append((start, end + 1, entity_type))
        for start, end, entity_type in sorted(spans):
            out.span(record, start, end, entity_type)
    if not labelled:
        raise UnlabelledSplit(
            'no line has a "label" (CLUENER\'s test.json is released without labels); '
            "expected labelled lines",
            path=path,
        )
    return spans_to_split(
        out.records(),
        name=name or path.stem,
        source=str(path),
        format="cluener",
        tokenizer=tokenizer,
        align=align,
        overlaps=overlaps,
        type_map=type_map,
        coarse_types=coarse_types,
        keep_tokens=keep_tokens,
    )
