"""Label Studio and Argilla exports of a review, checked against their shapes before use.

A review package asks one question, named ``label``: a single choice (an item review:
Label Studio ``<Choices name="label" choice="single">``, Argilla ``LabelQuestion("label")``)
or labelled regions (a span review: ``<Labels name="label">``). Its exports come back in
these shapes, each a frozen dataclass below (:func:`export_schema` gives their JSON Schema):

* Label Studio JSON (its "JSON format of annotated tasks"): a list of tasks
  ``{"data": {"review_id", "content_hash", ...}, "annotations": [{"completed_by",
  "was_cancelled", "result": [{"from_name": "label", "type": "choices" | "labels",
  "value": {...}}]}], "drafts": [...]}``; a choice's ``value`` is ``{"choices": [str]}``, a
  region's ``{"start": int, "end": int, "labels": [str], "text": str}``.
* Label Studio JSON-MIN (and the CSV export, its ``label`` cell holding JSON): one object per
  submitted annotation, the task's data keys beside ``annotator``, and the answer under the
  question's name ``label``: one choice as a string, or ``{"choices": [...]}``, or a list
  of regions.
* Argilla 2.x records, ``Record.to_dict()``: ``{"id", "fields", "metadata":
  {"content_hash"}, "responses": {"label": [{"value", "user_id", "status"?}]}}``.

Neither application publishes a JSON Schema of its exports: the types follow their
documentation and what Label Studio 1.23.2 and Argilla 2.8 write (the ``apps`` tests and
``tests/io/fixtures/label_studio_spans``). Keys they add and the review does not read
(timestamps, ``predictions``, ``vectors``, ...) are not checked. The check is
:mod:`benchcheck.io.typed`, the package's reader of typed JSON (results.json's), not the
``jsonschema`` library: that is a tests-only requirement here (``requirements/schema.txt``)
that would bring four packages, one a compiled extension, into every install for this one
reader, and its messages name schema keywords (``'10' is not of type 'array'``) where these
say what was expected. The tests validate real exports against :func:`export_schema` with
``jsonschema``, an independent reading of the same shapes.

Then the rules a shape cannot say, each an error rather than a guess: a single-choice
question answered with no choice or several; one annotation answering it twice,
differently (the same answer twice is one answer); a region's offsets outside
``0 <= start < end <= len(text)`` (Label Studio counts UTF-16 units: the bound is the
text's length in those); a region with other than one label, or one annotation marking the
same offsets with two types. A cancelled annotation (Label Studio ``was_cancelled``) or a
discarded response (Argilla: ``"status": "discarded"``, or the null value ``to_dict()``
writes for it) is a skipped task: no answer. Drafts (Label Studio ``drafts``, Argilla
``"status": "draft"``) were never submitted: not answers, and counted in :attr:`Read.notes`.
Every error is one line naming the file and the JSON path:
``$[3].annotations[0].result[1].value.choices: expected an array of strings, got a
string ("10")``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from benchcheck.errors import InputError
from benchcheck.io.typed import ABSENT, AbsentType, ShapeError, from_json, json_schema

__all__ = [
    "Answer",
    "ArgillaRecord",
    "ItemMinRow",
    "ItemTask",
    "Read",
    "SpanMinRow",
    "SpanRegion",
    "SpanTask",
    "check",
    "export_schema",
    "read_item_export",
    "read_span_export",
]

#: The one question of every review package (Label Studio control, Argilla question).
QUESTION = "label"

T = TypeVar("T")


# ----------------------------------------------------------------------------- shapes


@dataclass(frozen=True)
class Choices:
    """A choice answer: ``{"choices": ["1"]}``."""

    choices: tuple[str, ...]


@dataclass(frozen=True)
class ChoiceResult:
    """One result of a Label Studio annotation of an item review."""

    value: Choices
    from_name: Literal["label"] | AbsentType = ABSENT
    type: Literal["choices"] | AbsentType = ABSENT


@dataclass(frozen=True)
class User:
    """An annotator as some Label Studio exports give it: ``{"id": 1, "email": ...}``."""

    id: int | str


@dataclass(frozen=True)
class ItemAnnotation:
    """One annotator's annotation of a task of an item review."""

    result: tuple[ChoiceResult, ...] = ()
    completed_by: int | str | User | None | AbsentType = ABSENT
    was_cancelled: bool | None = None


@dataclass(frozen=True)
class ItemData:
    """The data of an item review's task (the package's ``tasks.json``)."""

    review_id: str
    content_hash: str | None | AbsentType = ABSENT


@dataclass(frozen=True)
class ItemTask:
    """A task of a Label Studio JSON export of an item review."""

    data: ItemData
    annotations: tuple[ItemAnnotation, ...] = ()
    drafts: tuple[Any, ...] = ()


@dataclass(frozen=True)
class ItemMinRow:
    """One annotation of a Label Studio JSON-MIN export of an item review."""

    review_id: str
    content_hash: str | None | AbsentType = ABSENT
    annotator: int | str | None | AbsentType = ABSENT
    label: str | Choices | None | AbsentType = ABSENT


@dataclass(frozen=True)
class ArgillaResponse:
    """One user's response to the ``label`` question (``to_dict()`` writes no status)."""

    user_id: str
    value: str | None
    status: Literal["submitted", "discarded", "draft"] | AbsentType = ABSENT


@dataclass(frozen=True)
class ArgillaResponses:
    """A record's responses by question; only ``label`` is the review's."""

    label: tuple[ArgillaResponse, ...] = ()


@dataclass(frozen=True)
class ArgillaMetadata:
    """A record's metadata: the content hash the package gave it."""

    content_hash: str | None | AbsentType = ABSENT


@dataclass(frozen=True)
class ArgillaRecord:
    """A record of an Argilla 2.x records export (``Record.to_dict()``)."""

    id: str
    fields: dict[str, Any]
    metadata: ArgillaMetadata | None | AbsentType = ABSENT
    responses: ArgillaResponses | AbsentType = ABSENT


@dataclass(frozen=True)
class SpanRegion:
    """A labelled region: character (or UTF-16) offsets, end exclusive."""

    start: int
    end: int
    labels: tuple[str, ...]
    text: str | AbsentType = ABSENT


@dataclass(frozen=True)
class SpanResult:
    """One result of a Label Studio annotation of a span review."""

    value: SpanRegion
    from_name: Literal["label"] | AbsentType = ABSENT
    type: Literal["labels"] | AbsentType = ABSENT


@dataclass(frozen=True)
class SpanAnnotation:
    """One annotator's annotation of a task of a span review."""

    result: tuple[SpanResult, ...] = ()
    completed_by: int | str | User | None | AbsentType = ABSENT
    was_cancelled: bool | None = None


@dataclass(frozen=True)
class SpanData:
    """The data of a span review's task: the sentence and its key."""

    review_id: str
    content_hash: str | None | AbsentType = ABSENT
    text: str | AbsentType = ABSENT


@dataclass(frozen=True)
class SpanTask:
    """A task of a Label Studio JSON export of a span review."""

    data: SpanData
    annotations: tuple[SpanAnnotation, ...] = ()
    drafts: tuple[Any, ...] = ()


@dataclass(frozen=True)
class SpanMinRow:
    """One annotation of a JSON-MIN (or CSV) export of a span review."""

    review_id: str
    content_hash: str | None | AbsentType = ABSENT
    text: str | AbsentType = ABSENT
    annotator: int | str | None | AbsentType = ABSENT
    label: tuple[SpanRegion, ...] | None | AbsentType = ABSENT


#: format name → the type of one element of the export's list
FORMATS: dict[str, type] = {
    "label studio item": ItemTask,
    "label studio item min": ItemMinRow,
    "argilla item": ArgillaRecord,
    "label studio span": SpanTask,
    "label studio span min": SpanMinRow,
}


def export_schema(fmt: str) -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of an export of format ``fmt`` (a key of :data:`FORMATS`).

    >>> schema = export_schema("label studio item")
    >>> schema["items"], schema["$defs"]["Choices"]["properties"]
    ({'$ref': '#/$defs/ItemTask'}, {'choices': {'type': 'array', 'items': {'type': 'string'}}})
    """
    element: Any = FORMATS[fmt]
    (root,), defs = json_schema(tuple[element, ...])
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **root, "$defs": defs}


# ----------------------------------------------------------------------------- checking

_KIND = {dict: "an object", list: "an array", str: "a string", bool: "true or false"}


def _shown(value: object) -> str:
    """Show a JSON value in a message: its kind and its text, cut at 40 characters."""
    if value is None:
        return "null"
    kind = _KIND.get(type(value), "a number")
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return text if isinstance(value, bool) else f"{kind} ({text})"


def check(cls: type[T], value: Any, where: str, path: Path, *, line: int | None = None) -> T:
    """Read ``value`` as ``cls`` at JSON path ``where``; one :class:`InputError` naming it."""
    try:
        return from_json(cls, value, path=where)
    except ShapeError as exc:
        found = "missing" if exc.missing else f"got {_shown(exc.got)}"
        raise InputError(
            f"{exc.path}: expected {exc.expected}, {found}", path=path, line=line
        ) from None


def _fail(where: str, message: str, path: Path, line: int | None = None) -> InputError:
    return InputError(f"{where}: {message}", path=path, line=line)


@dataclass(frozen=True)
class Answer:
    """One annotator's answer to one task: ``value`` None is a skipped or empty answer.

    ``where`` is the JSON path it was read at (for messages).
    """

    review_id: str
    content_hash: str | None
    who: str | None
    value: Any
    where: str
    line: int | None = None


@dataclass(frozen=True)
class Read:
    """An export read: every task's answers in file order, and notes on what was left out.

    A task nobody answered is an :class:`Answer` with ``who`` None. ``format`` is a key of
    :data:`FORMATS`.
    """

    format: str
    answers: tuple[Answer, ...]
    notes: tuple[str, ...] = field(default=())


def _who(value: int | str | User | None | AbsentType, default: str = "annotator") -> str:
    if isinstance(value, User):
        value = value.id
    if value is None or value is ABSENT or value == "":
        return default
    return str(value)


def _hash(value: str | None | AbsentType) -> str | None:
    return None if isinstance(value, AbsentType) else value


def _format_of(
    items: list[Any], kinds: dict[str, Callable[[dict[str, Any]], bool]], path: Path
) -> str:
    """Return the format most elements look like (one broken element does not change it)."""
    counts = {
        k: sum(1 for t in items if isinstance(t, dict) and test(t)) for k, test in kinds.items()
    }
    if not any(counts.values()):
        raise InputError(
            "no element is a task or record of a review export (expected objects with "
            '"data" (Label Studio JSON), "review_id" (JSON-MIN)'
            + (', or "fields" (Argilla)' if "argilla item" in kinds else "")
            + ")",
            path=path,
        )
    return max(counts, key=lambda k: counts[k])


def _drafts(n: int, path: Path) -> tuple[str, ...]:
    if not n:
        return ()
    return (f"{path}: {n} draft(s) never submitted are not answers",)


# ----------------------------------------------------------------------------- item reviews


def _one_choice(choices: tuple[str, ...], where: str, path: Path) -> str:
    if len(choices) != 1:
        shown = ", ".join(json.dumps(c, ensure_ascii=False) for c in choices)
        what = "no choice" if not choices else f"{len(choices)} choices ({shown})"
        raise _fail(where, f"{what} for the single-choice question {QUESTION!r}", path)
    return choices[0]


def _item_annotation(ann: ItemAnnotation, where: str, path: Path) -> str | None:
    """Return the choice of one annotation (None: cancelled, or no result)."""
    if ann.was_cancelled:
        return None
    chosen: str | None = None
    first = ""
    for k, res in enumerate(ann.result):
        at = f"{where}.result[{k}]"
        value = _one_choice(res.value.choices, f"{at}.value.choices", path)
        if chosen is not None and value != chosen:
            raise _fail(
                at,
                f"a second answer ({json.dumps(value, ensure_ascii=False)}) to the question "
                f"{QUESTION!r} in one annotation; {first} gave "
                f"{json.dumps(chosen, ensure_ascii=False)}",
                path,
            )
        if chosen is None:
            chosen, first = value, f"result[{k}]"
    return chosen


def read_item_export(items: list[Any], path: Path) -> Read:
    """Read a Label Studio JSON / JSON-MIN or Argilla records export of an item review.

    ``items`` is the parsed JSON list. The format is the one most elements have the keys
    of (``fields``: Argilla; ``data``: Label Studio JSON; else JSON-MIN); every element is
    then checked against it.
    """
    fmt = _format_of(
        items,
        {
            "argilla item": lambda t: "fields" in t,
            "label studio item": lambda t: "data" in t,
            "label studio item min": lambda t: "review_id" in t,
        },
        path,
    )
    out: list[Answer] = []
    drafts = 0
    for n, raw in enumerate(items):
        where = f"$[{n}]"
        if fmt == "label studio item":
            task = check(ItemTask, raw, where, path)
            rid, digest = task.data.review_id, _hash(task.data.content_hash)
            drafts += len(task.drafts)
            out.append(Answer(rid, digest, None, None, where))
            for k, ann in enumerate(task.annotations):
                at = f"{where}.annotations[{k}]"
                value = _item_annotation(ann, at, path)
                out.append(Answer(rid, digest, _who(ann.completed_by), value, at))
        elif fmt == "label studio item min":
            row = check(ItemMinRow, raw, where, path)
            rid, digest = row.review_id, _hash(row.content_hash)
            out.append(Answer(rid, digest, None, None, where))
            if row.annotator is None:
                continue  # a task nobody answered (listed with "annotator": null)
            label = row.label
            if isinstance(label, Choices):
                label = _one_choice(label.choices, f"{where}.label.choices", path)
            value = None if isinstance(label, AbsentType) else label
            out.append(Answer(rid, digest, _who(row.annotator, ""), value, where))
        else:
            rec = check(ArgillaRecord, raw, where, path)
            meta = rec.metadata
            digest = _hash(meta.content_hash) if isinstance(meta, ArgillaMetadata) else None
            out.append(Answer(rec.id, digest, None, None, where))
            responses = rec.responses.label if isinstance(rec.responses, ArgillaResponses) else ()
            for k, resp in enumerate(responses):
                at = f"{where}.responses.label[{k}]"
                if resp.status == "draft":
                    drafts += 1
                    continue
                value = None if resp.status == "discarded" else resp.value
                out.append(Answer(rec.id, digest, _who(resp.user_id), value, at))
    return Read(fmt, tuple(out), _drafts(drafts, path))


# ----------------------------------------------------------------------------- span reviews


def _utf16_len(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _regions(
    regions: Sequence[SpanRegion],
    text: str | None,
    where: tuple[str, str],
    path: Path,
    line: int | None,
) -> tuple[SpanRegion, ...]:
    """Check each region's offsets and label; refuse two types on the same offsets.

    Region ``k`` is at JSON path ``where[0] + [k] + where[1]``.
    """
    limit = None if text is None else _utf16_len(text)
    seen: dict[tuple[int, int], tuple[str, int]] = {}
    out = []
    for k, r in enumerate(regions):
        at = f"{where[0]}[{k}]{where[1]}"
        if r.start < 0 or r.end <= r.start or (limit is not None and r.end > limit):
            bound = "" if limit is None else f" <= {limit} (the text's length)"
            raise _fail(
                at,
                f"start {r.start}, end {r.end}; expected 0 <= start < end{bound}",
                path,
                line,
            )
        if len(r.labels) != 1:
            raise _fail(
                f"{at}.labels",
                f"a region {r.start}-{r.end} with {len(r.labels)} labels; give it one type",
                path,
                line,
            )
        label = r.labels[0]
        before = seen.get((r.start, r.end))
        if before is not None and before[0] != label:
            raise _fail(
                at,
                f"region {r.start}-{r.end} given two types in one annotation: {label!r} "
                f"here, {before[0]!r} at {where[0].rsplit('.', 1)[-1]}[{before[1]}]; "
                "give it one type",
                path,
                line,
            )
        if before is None:
            seen[(r.start, r.end)] = (label, k)
            out.append(r)
    return tuple(out)


def read_span_export(items: list[Any], path: Path, *, lines: Sequence[int] | None = None) -> Read:
    """Read a Label Studio JSON, JSON-MIN or CSV export of a span review.

    ``items`` is the parsed list (a CSV's rows with their ``label`` decoded, ``lines`` their
    line numbers). An answer's value is a tuple of :class:`SpanRegion` (None: skipped).
    """
    fmt = _format_of(
        items,
        {
            "label studio span": lambda t: "data" in t,
            "label studio span min": lambda t: "review_id" in t,
        },
        path,
    )
    if lines is not None:
        fmt = "label studio span min"
    out: list[Answer] = []
    drafts = 0
    for n, raw in enumerate(items):
        line = None if lines is None else lines[n]
        where = "$" if lines is not None else f"$[{n}]"
        if fmt == "label studio span":
            task = check(SpanTask, raw, where, path)
            rid, digest = task.data.review_id, _hash(task.data.content_hash)
            text = None if isinstance(task.data.text, AbsentType) else task.data.text
            drafts += len(task.drafts)
            out.append(Answer(rid, digest, None, None, where))
            for k, ann in enumerate(task.annotations):
                at = f"{where}.annotations[{k}]"
                value = None
                if not ann.was_cancelled:
                    value = _regions(
                        [r.value for r in ann.result],
                        text,
                        (f"{at}.result", ".value"),
                        path,
                        None,
                    )
                out.append(Answer(rid, digest, _who(ann.completed_by), value, at))
            continue
        row = check(SpanMinRow, raw, where, path, line=line)
        rid, digest = row.review_id, _hash(row.content_hash)
        out.append(Answer(rid, digest, None, None, where, line))
        if row.annotator is None or row.annotator is ABSENT or row.annotator == "":
            continue  # a task nobody annotated
        text = None if isinstance(row.text, AbsentType) else row.text
        found = () if row.label is None or isinstance(row.label, AbsentType) else row.label
        value = _regions(found, text, (f"{where}.label", ""), path, line)
        out.append(Answer(rid, digest, _who(row.annotator), value, where, line))
    return Read(fmt, tuple(out), _drafts(drafts, path))
