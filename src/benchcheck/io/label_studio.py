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
are converted to characters. Errors name the task (``task 3 (id 17)``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from benchcheck.data.scripts import char_offset
from benchcheck.errors import InputError
from benchcheck.io._spans import (
    RecordCollector,
    SpanRecords,
    is_offset,
    read_bytes,
)
from benchcheck.io._text import loads_json, nested_too_deeply


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
        text, regions = _task(task, where, path)
        spans = []
        for value in regions:
            start, end = _offsets(text, value, where, path)
            for label in value["labels"]:
                spans.append((start, end, label))
        out.add(text, 0, where, spans=spans)
    return out.records()


def _line_of(exc: Exception, data: bytes) -> int | None:
    """Return the line of the byte position a msgspec error names (``(byte 123)``)."""
    found = re.search(r"byte (\d+)", str(exc))
    return data.count(b"\n", 0, int(found.group(1))) + 1 if found else None


def _task(task: Any, where: str, path: Path) -> tuple[str, list[dict[str, Any]]]:
    """Return the text and the labelled regions (``value`` objects) of one task."""
    if not isinstance(task, dict):
        raise InputError(f"{where}: expected a task object", path=path)
    if "data" not in task and isinstance(task.get("text"), str):  # JSON-MIN
        regions = task.get("label") or []
        if not isinstance(regions, list):
            raise InputError(f'{where}: "label" must be a list of regions', path=path)
        return task["text"], [_region(r, where, path) for r in regions]
    data = task.get("data")
    if not isinstance(data, dict):
        raise InputError(f'{where}: expected "data" with the task\'s text', path=path)
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
    annotations = task.get("annotations") or []
    if not isinstance(annotations, list):
        raise InputError(f'{where}: "annotations" must be a list', path=path)
    chosen = next(
        (a for a in annotations if isinstance(a, dict) and not a.get("was_cancelled")), None
    )
    if chosen is None:
        return text, []
    result = chosen.get("result") or []
    if not isinstance(result, list):
        raise InputError(f'{where}: an annotation\'s "result" must be a list', path=path)
    regions = [
        _region(r.get("value"), where, path)
        for r in result
        if isinstance(r, dict) and r.get("type", "labels") == "labels" and "value" in r
    ]
    return text, regions


def _region(value: Any, where: str, path: Path) -> dict[str, Any]:
    if not (
        isinstance(value, dict)
        and is_offset(value.get("start"))
        and is_offset(value.get("end"))
        and isinstance(value.get("labels"), list)
        and all(isinstance(x, str) for x in value["labels"])
    ):
        raise InputError(
            f'{where}: expected a region {{"start", "end", "labels": [...]}}', path=path, got=value
        )
    return value


def _offsets(text: str, value: dict[str, Any], where: str, path: Path) -> tuple[int, int]:
    """Character offsets of a region, converted from UTF-16 units where that is what they are.

    Label Studio counts offsets in UTF-16 code units (JavaScript string indices), which
    differ from characters after any character beyond U+FFFF (an emoji). With the region's
    ``text``, the reading that gives it back is taken; without it, the offsets are Label
    Studio's own: UTF-16 units, converted.
    """
    start, end = value["start"], value["end"]
    if not any(ord(c) > 0xFFFF for c in text):
        return start, end
    shown = value.get("text")
    if isinstance(shown, str) and text[start:end] == shown:
        return start, end
    units = text.encode("utf-16-le")
    if not isinstance(shown, str) or (
        units[2 * start : 2 * end].decode("utf-16-le", errors="replace") == shown
    ):
        return char_offset(text, start), char_offset(text, end)
    return start, end
