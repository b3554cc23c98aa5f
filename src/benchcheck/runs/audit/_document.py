"""``results.json`` as a typed document, and its published JSON Schema.

The document is a head (``schema_version``, ``title``, ``inputs``, ``analyses``) followed
by the keys of each section that ran; :func:`read_document` checks every part against its
type and names the first mismatch by its JSON path; :func:`results_schema` is the JSON
Schema of the same types, with each section's version (committed as
``docs/results.schema.json``; a test holds the two equal).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from benchcheck.io.canonical import SCHEMA_VERSION
from benchcheck.io.typed import JsonResult, ShapeError, from_json, json_schema
from benchcheck.runs.audit._section import Section

__all__ = ["Analysis", "AuditDocument", "Head", "read_document", "results_schema"]

#: The title every audit's results carry.
TITLE = "benchcheck audit report"


@dataclass(frozen=True)
class Analysis(JsonResult):
    """One section's line of the summary: ran (``ok``) or ``skipped``, and the detail or why."""

    name: str
    status: Literal["ok", "skipped"]
    detail: str


@dataclass(frozen=True)
class Head(JsonResult):
    """What every ``results.json`` starts with: version, title, inputs, what ran."""

    schema_version: str
    title: str
    inputs: dict[str, str]
    analyses: tuple[Analysis, ...]


@dataclass(frozen=True)
class AuditDocument:
    """A ``results.json`` read: its head and each present section's typed result, in order."""

    head: Head
    parts: tuple[tuple[Section[Any], Any], ...]


def read_document(
    results: Mapping[str, Any], sections: Sequence[Section[Any]], *, strict: bool = False
) -> AuditDocument:
    """Check a ``results.json`` object against the head and the sections' types.

    Raises :class:`~benchcheck.io.typed.ShapeError` at the first key (in the head, then
    section by section) whose value does not have its declared shape; ``strict`` also
    refuses keys no type declares (the tests hold every golden to it).
    """
    if not isinstance(results, Mapping):
        raise ShapeError("$", "a results.json object", results)
    head = from_json(Head, dict(results), strict=False)
    parts = []
    for section in sections:
        found = section.read(results, strict=strict)
        if found is not None:
            parts.append((section, found))
    if strict:
        known = {"schema_version", "title", "inputs", "analyses"}
        known |= {k for s in sections for k in s.keys()}
        extra = [k for k in results if k not in known]
        if extra:
            raise ShapeError(
                f"$.{extra[0]}", "a key of the head or of a section", results[extra[0]]
            )
    return AuditDocument(head, tuple(parts))


def results_schema(sections: Sequence[Section[Any]]) -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) of ``results.json`` with these sections.

    One object: the head's keys, then each section's keys (all optional: a section that
    did not run adds none); ``x-sections`` lists each section's name, version and keys.
    """
    roots, defs = json_schema(Head, *(s.result for s in sections))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for root in roots:
        name = root["$ref"].rsplit("/", 1)[1]
        body = defs.pop(name)
        properties.update(body["properties"])
        if name == "Head":
            required = list(body.get("required", []))
    major = SCHEMA_VERSION.split(".")[0]
    properties["schema_version"] = {"type": "string", "pattern": f"^{major}\\."}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://benchcheck.invalid/results.schema.json",
        "title": "benchcheck results.json",
        "description": (
            f"The results of benchcheck audit, schema_version {SCHEMA_VERSION} (readers accept "
            f"{major}.x). Generated from the section types (benchcheck.runs.audit); each "
            "section's keys are present when it ran."
        ),
        "type": "object",
        "properties": properties,
        "required": required,
        "x-sections": [
            {"name": s.name, "version": s.version, "keys": list(s.keys()), "title": s.title}
            for s in sections
        ],
        "$defs": defs,
    }
