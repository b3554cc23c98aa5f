"""Label Studio JSON exports: tasks with text and labelled regions.

The full export is a JSON array of tasks: ``{"id": 7, "data": {"text": ...},
"annotations": [{"result": [{"type": "labels", "value": {"start": s, "end": e,
"text": ..., "labels": ["PER"]}}, ...], "was_cancelled": false}, ...]}``. The text is
``data["text"]``, or the one string value of ``data``. Of a task's annotations the first
not cancelled is read (one annotator's view, as statistics need); tasks without one have no
entities. Results of other types (choices, relations) are ignored; a region with several
labels gives one span per label (overlapping, so ``overlaps=`` decides). The JSON-MIN
export (``[{"text": ..., "label": [{"start", "end", "labels"}]}]``) is read too.

Label Studio counts offsets in the browser's UTF-16 code units; where a text holds
characters beyond U+FFFF and a region's ``text`` matches the UTF-16 reading, the offsets
are converted to characters. Each task is checked against its shape first (the types below,
with :class:`benchcheck.io.review_exports.SpanRegion`; a wrong JSON type is one line naming
its JSON path, ``$[2].annotations[0].was_cancelled: expected true or false or null, got a
string ("false")``); later errors name the task (``task 3 (id 17)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from benchcheck.data.scripts import char_offset
from benchcheck.errors import InputError
from benchcheck.io._spans import (
    RecordCollector,
    SpanRecords,
    read_bytes,
)
from benchcheck.io._text import loads_json, nested_too_deeply
from benchcheck.io.review_exports import SpanRegion, check
from benchcheck.io.typed import ABSENT, AbsentType


@dataclass(frozen=True)
class Result:
    """A result of any control of the interface: a region when its type is ``labels``."""

    type: str = "labels"
    value: dict[str, Any] | AbsentType = ABSENT


@dataclass(frozen=True)
class Annotation:
    """One annotator's annotation of a task."""

    result: tuple[Result, ...] | None = None
    was_cancelled: bool | None = None


@dataclass(frozen=True)
class Task:
    """A task of a Label Studio JSON export: its data and annotations."""

    data: dict[str, Any]
    annotations: tuple[Annotation, ...] | None = None


@dataclass(frozen=True)
class MinTask:
    """A task of a JSON-MIN export: the text and its regions under ``label``."""

    text: str
    label: tuple[SpanRegion, ...] | None = None


def records(path: str | Path) -> SpanRecords:
    """Read a Label Studio JSON (or JSON-MIN) export as span records."""
    path = Path(path)
    data = read_bytes(path)
    try:
        msgspec.json.decode(data)  # msgspec's account of a syntax error names the byte
    except msgspec.DecodeError as exc:
        raise InputError(f"invalid JSON ({exc})", path=path, line=_line_of(exc, data)) from None
    except RecursionError:
        raise nested_too_deeply(path) from None
    tasks = loads_json(data, path)  # the one rule: a key given twice is refused
    if not isinstance(tasks, list):
        raise InputError("expected a JSON array of tasks (a Label Studio export)", path=path)
    out = RecordCollector()
    for k, task in enumerate(tasks, start=1):
        where = f"task {k}" + (
            f" (id {task['id']})" if isinstance(task, dict) and "id" in task else ""
        )
        text, regions = _task(task, f"$[{k - 1}]", where, path)
        spans = []
        for value in regions:
            start, end = _offsets(text, value)
            for label in value.labels:
                spans.append((start, end, label))
        out.add(text, 0, where, spans=spans)
    return out.records()


def _line_of(exc: Exception, data: bytes) -> int | None:
    """Return the line of the byte position a msgspec error names (``(byte 123)``)."""
    found = re.search(r"byte (\d+)", str(exc))
    return data.count(b"\n", 0, int(found.group(1))) + 1 if found else None


def _task(task: Any, at: str, where: str, path: Path) -> tuple[str, list[SpanRegion]]:
    """Return the text and the labelled regions of one task (``at``: its JSON path)."""
    if isinstance(task, dict) and "data" not in task and "text" in task:  # JSON-MIN
        found = check(MinTask, task, at, path)
        return found.text, list(found.label or ())
    full = check(Task, task, at, path)
    data = full.data
    if isinstance(data.get("text"), str):
        text = data["text"]
    else:
        strings = [v for v in data.values() if isinstance(v, str)]
        if len(strings) != 1:
            raise InputError(
                f'{where}: expected "data" to hold a "text" string (or exactly one string)',
                path=path,
                got=sorted(data),
            )
        text = strings[0]
    annotations = full.annotations or ()
    chosen = next(((n, a) for n, a in enumerate(annotations) if not a.was_cancelled), None)
    if chosen is None:
        return text, []
    n, annotation = chosen
    regions = []
    for m, result in enumerate(annotation.result or ()):
        if result.type != "labels" or isinstance(result.value, AbsentType):
            continue  # another control's result (choices, relations, ...)
        value_at = f"{at}.annotations[{n}].result[{m}].value"
        regions.append(check(SpanRegion, result.value, value_at, path))
    return text, regions


def _offsets(text: str, value: SpanRegion) -> tuple[int, int]:
    """Character offsets of a region, converted from UTF-16 units where that is what they are.

    Label Studio counts offsets in UTF-16 code units (JavaScript string indices), which
    differ from characters after any character beyond U+FFFF (an emoji). With the region's
    ``text``, the reading that gives it back is taken; without it, the offsets are Label
    Studio's own: UTF-16 units, converted.
    """
    start, end = value.start, value.end
    if not any(ord(c) > 0xFFFF for c in text):
        return start, end
    shown = value.text
    if isinstance(shown, str) and text[start:end] == shown:
        return start, end
    units = text.encode("utf-16-le")
    if not isinstance(shown, str) or (
        units[2 * start : 2 * end].decode("utf-16-le", errors="replace") == shown
    ):
        return char_offset(text, start), char_offset(text, end)
    return start, end
