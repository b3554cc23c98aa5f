"""MedCATtrainer exports: projects of documents with reviewed concept annotations.

The export is one JSON object ``{"projects": [{"name", "documents": [{"name" or "id",
"text", "annotations": [{"start", "end", "value", "cui", "validated", "correct",
"killed", "deleted", ...}]}]}]}``. Each document is a record; an annotation is a mention
``[start, end)`` whose type is its ``cui`` (what MedCAT's NER trains on; another field with
``span_fields`` ``type=FIELD``, e.g. ``type_id`` in the MedMentions export), its ``value``
checked against the text (``offset_check``).

Reviewers' verdicts ride along. An annotation marked ``deleted`` is not read (counted under
``skipped``). One that is ``killed``, or whose ``correct`` is false, is a label a reviewer
rejected: listed under ``rejected`` (document, offsets, value, type, reason, kept) so an
audit can compare, and kept with ``medcat_keep="all"`` (default) or left out with
``correct``. Documents are named by their ``name`` (else ``id``, else their place),
prefixed by their project's name where two projects share one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchcheck.errors import InputError
from benchcheck.io._documents import DocumentCollector, check_unique_ids
from benchcheck.io._options import NerOptions
from benchcheck.io._spans import SpanRecords, decode_document, is_offset, read_bytes

_EXPECTED = '{"projects": [{"documents": [{"text", "annotations": [{"start", "end", ...}]}]}]}'


def records(path: str | Path, options: NerOptions | None = None) -> SpanRecords:
    """Read a MedCATtrainer export as one record per document (see the module text)."""
    path = Path(path)
    options = options or NerOptions()
    type_field = options.span_fields.get("type", "cui")
    export = decode_document(read_bytes(path), path)
    projects = export.get("projects") if isinstance(export, dict) else None
    if not isinstance(projects, list):
        raise InputError(f"expected a MedCATtrainer export {_EXPECTED}", path=path)
    out = DocumentCollector(options, uses=("offset_check", "medcat_keep"))
    named = [_documents(p, k, path) for k, p in enumerate(projects, start=1)]
    counts: dict[str, int] = {}
    for _, docs in named:
        for doc_id, _ in docs:
            counts[doc_id] = counts.get(doc_id, 0) + 1
    for project, docs in named:
        for doc_id, doc in docs:
            name = f"{project}/{doc_id}" if counts[doc_id] > 1 else doc_id
            record = out.document(name, doc["text"], path=path)
            for k, ann in enumerate(doc.get("annotations") or [], start=1):
                _annotation(out, record, ann, k, type_field, options.medcat_keep, path)
    check_unique_ids(out.ids, path)
    return out.records()


def _documents(project: Any, k: int, path: Path) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """Return a project's name and its (id, document) pairs, shapes checked."""
    if not isinstance(project, dict) or not isinstance(project.get("documents"), list):
        raise InputError(f'project {k}: expected "documents": [...]', path=path)
    name = str(project.get("name") or project.get("id") or k)
    docs = []
    for j, doc in enumerate(project["documents"], start=1):
        if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
            raise InputError(
                f'project {name}, document {j}: expected an object with a "text" string',
                path=path,
            )
        doc_id = doc.get("name") if doc.get("name") not in (None, "") else doc.get("id")
        docs.append((str(doc_id) if doc_id not in (None, "") else str(j), doc))
    return name, docs


#: the reviewer's verdicts on an annotation: JSON booleans (or absent / null)
_VERDICTS = ("deleted", "killed", "correct", "validated", "alternative", "irrelevant")


def _annotation(
    out: DocumentCollector,
    record: int,
    ann: Any,
    k: int,
    type_field: str,
    keep: str,
    path: Path,
) -> None:
    """Add one annotation of a document, or count / list it by its reviewer's verdict."""
    doc_id = out.ids[record]
    if not (isinstance(ann, dict) and is_offset(ann.get("start")) and is_offset(ann.get("end"))):
        raise InputError(
            f'document {doc_id}: annotation {k}: expected integer "start" and "end"',
            path=path,
            got=ann,
        )
    for verdict in _VERDICTS:
        if ann.get(verdict) is not None and not isinstance(ann[verdict], bool):
            raise InputError(
                f'document {doc_id}: annotation {k}: "{verdict}" is not true or false',
                path=path,
                got=ann[verdict],
            )
    if ann.get("deleted"):
        out.skip(record, "deleted")
        return
    kind = ann.get(type_field)
    if not isinstance(kind, str | int) or isinstance(kind, bool):
        raise InputError(
            f'document {doc_id}: annotation {k} has no "{type_field}" to take as its type '
            "(choose another with {span_fields} type=FIELD)",
            path=path,
        )
    value = ann.get("value")
    reason = "killed" if ann.get("killed") else "incorrect" if ann.get("correct") is False else ""
    if reason:
        out.reject(
            record,
            {
                "start": ann["start"],
                "end": ann["end"],
                "value": value,
                "type": str(kind),
                "reason": reason,
                "kept": keep == "all",
            },
        )
        if keep == "correct":
            return
    out.mention(
        record,
        [(ann["start"], ann["end"])],
        [str(kind)],
        text=value if isinstance(value, str) else None,
        path=path,
        line=None,
    )
