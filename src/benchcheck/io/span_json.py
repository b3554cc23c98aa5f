"""Span JSON of any tool: texts with character spans, the fields named by a mapping.

PII benchmarks, in-house exports and inclusive-offset JSONL (``{"text", "label": [{"type",
"ent", "pos": [s, e]}]}``) agree on nothing but the idea. ``span_fields`` names where each
part is, as dotted paths (``data.text``; list items by number, ``pos.0``):

======== =========== ==========================================================
field    default     what
======== =========== ==========================================================
text     ``text``    the record's text
spans    ``spans``   its list of spans (under the record)
start    ``start``   a span's first character
end      ``end``     a span's end: exclusive, or inclusive with ``inclusive_end``
type     ``label``   a span's type (a list of types: ``multi_type`` decides)
mention  (none)      a span's text, checked against the record's (``offset_check``)
id       (none)      the record's id (documents named in messages and split lists)
======== =========== ==========================================================

The file is a JSON array of records or JSON lines (one record a line, blank lines
allowed). A field the mapping names that a record lacks is an error naming the line (or
record), the field and the path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from benchcheck.errors import InputError
from benchcheck.io._documents import DocumentCollector, check_unique_ids
from benchcheck.io._options import NerOptions
from benchcheck.io._spans import (
    SpanRecords,
    decode_document,
    decode_lines,
    is_offset,
    read_bytes,
)

_MISSING = object()


def get_path(value: Any, path: str) -> Any:
    """Follow a dotted path into JSON (``data.text``, ``pos.0``); a missing step: ``_MISSING``.

    >>> get_path({"pos": [3, 7], "data": {"text": "x"}}, "pos.1")
    7
    >>> get_path({"pos": [3, 7]}, "pos.2") is _MISSING
    True
    """
    for step in path.split("."):
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return _MISSING
    return value


def records(path: str | Path, options: NerOptions | None = None) -> SpanRecords:
    """Read span JSON (an array or JSON lines) by the field mapping (see the module text)."""
    path = Path(path)
    options = options or NerOptions()
    fields = options.fields()
    data = read_bytes(path)
    if data.lstrip()[:1] == b"[":
        rows = decode_document(data, path)
        lines: list[int | None] = [None] * len(rows)
    else:
        rows, numbers = decode_lines(data, msgspec.json.Decoder(), path, "a JSON object")
        lines = list(numbers)
    out = DocumentCollector(options)
    for k, (row, line) in enumerate(zip(rows, lines, strict=True), start=1):
        where = "" if line is not None else f"record {k}: "

        def need(value: Any, field: str, what: str, *, where: str = where, line: Any = line) -> Any:
            found = get_path(value, str(fields[field]))
            if found is _MISSING:
                raise InputError(
                    f"{where}no field {fields[field]!r} for {field} ({{span_fields}} "
                    f"{field}={fields[field]}); expected {what}",
                    path=path,
                    line=line,
                )
            return found

        text = need(row, "text", "the record's text")
        if not isinstance(text, str):
            raise InputError(f"{where}the text is not a string", path=path, line=line, got=text)
        doc_id = (
            _record_id(need(row, "id", "the record's id"), where, path, line)
            if fields["id"]
            else str(line or k)
        )
        record = out.document(doc_id, text, path=path, line=line or 0)
        spans = need(row, "spans", "a list of spans")
        if not isinstance(spans, list):
            raise InputError(f"{where}the spans are not a list", path=path, line=line, got=spans)
        for span in spans:
            start = need(span, "start", "a span's start offset")
            end = need(span, "end", "a span's end offset")
            if not (is_offset(start) and is_offset(end)):
                raise InputError(
                    f"{where}span offsets must be integers", path=path, line=line, got=span
                )
            kind = need(span, "type", "a span's type")
            types = kind if isinstance(kind, list) else [kind]
            if not all(isinstance(t, str) for t in types):
                raise InputError(
                    f"{where}a span's type must be a string or a list of strings",
                    path=path,
                    line=line,
                    got=kind,
                )
            mention = need(span, "mention", "a span's text") if fields["mention"] else None
            out.mention(
                record,
                [(start, end + 1 if options.inclusive_end else end)],
                types,
                text=mention if isinstance(mention, str) else None,
                path=path,
                line=line,
            )
    check_unique_ids(out.ids, path)
    return out.records()


def _record_id(value: Any, where: str, path: Path, line: int | None) -> str:
    """Return a record's id as text: a string or an integer (null, a bool, a list: refused)."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise InputError(
        f"{where}the record's id is {_json_kind(value)}; expected a string or an integer",
        path=path,
        line=line,
    )


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "a list", float: "a number"}.get(type(value), "not text")
