"""PubTator: the document format of BioCreative V CDR, NCBI-disease, MedMentions and more.

A document is a title line ``PMID|t|title``, an abstract line ``PMID|a|abstract`` and one
line per mention, ``PMID<TAB>start<TAB>end<TAB>mention<TAB>TYPES[<TAB>ID...]``; a blank
line ends it. Offsets are characters, 0-based and end exclusive, over
``title + " " + abstract`` (the title alone when there is no abstract line). ``TYPES`` may
hold several comma-separated types (MedMentions' ``T116,T123``; ``multi_type`` decides)
and mentions may nest (``overlaps`` decides). Lines whose second field is not an offset
(CDR's relations ``PMID<TAB>CID<TAB>D1<TAB>D2``) are skipped and counted under ``skipped``.
Each mention's text is checked against the document at its offsets (``offset_check``).

Errors name the line: a mention of a document whose title has not been seen (or of
another document than the one being read), offsets past the text, an empty type column,
a line that is neither a title, an abstract, a mention nor a relation.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchcheck.errors import InputError
from benchcheck.io._documents import DocumentCollector, check_unique_ids
from benchcheck.io._options import NerOptions
from benchcheck.io._spans import SpanRecords
from benchcheck.io._text import read_text_file

#: A title or abstract line: ``PMID|t|`` or ``PMID|a|``.
HEAD = re.compile(r"([^\t|]+)\|([ta])\|")
_EXPECTED = "a title (PMID|t|...), an abstract (PMID|a|...) or a mention line"


def looks_like_pubtator(first_line: str) -> bool:
    """Tell whether a file's first non-blank line is a PubTator title or abstract line.

    >>> looks_like_pubtator("25763772|t|DCTN4 as a modifier"), looks_like_pubtator("EU B-ORG")
    (True, False)
    """
    return HEAD.match(first_line) is not None


def records(path: str | Path, options: NerOptions | None = None) -> SpanRecords:
    """Read a PubTator file as one record per document (see the module text)."""
    path = Path(path)
    out = DocumentCollector(options or NerOptions())
    doc_lines: list[int] = []
    doc = -1  # the current document's record, -1 between documents
    doc_id = ""
    title: str | None = None
    abstract: str | None = None
    pending: list[tuple[int, list[str]]] = []

    def close() -> None:
        nonlocal doc, title, abstract
        if title is None and abstract is None:
            return
        text = (title or "") if abstract is None else f"{title or ''} {abstract}"
        record = out.document(doc_id, text, path=path, line=doc_lines[-1])
        for number, fields in pending:
            _mention(out, record, fields, path, number)
        pending.clear()
        doc, title, abstract = -1, None, None

    text = read_text_file(path)
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip():
            close()
            continue
        head = HEAD.match(line)
        if head is not None:
            pmid, kind = head.group(1), head.group(2)
            if pending or ((title is not None or abstract is not None) and pmid != doc_id):
                close()  # a new document without a blank line before it
            if title is None and abstract is None:
                doc_id = pmid
                doc_lines.append(number)
            if (title if kind == "t" else abstract) is not None:
                raise InputError(
                    f"document {pmid}: a second |{kind}| line; expected one title and one "
                    "abstract per document",
                    path=path,
                    line=number,
                )
            body = line[head.end() :]
            if kind == "t":
                title = body
            else:
                abstract = body
            continue
        fields = line.split("\t")
        if len(fields) < 4:
            raise InputError(f"expected {_EXPECTED}", path=path, line=number, got=line[:80])
        if title is None and abstract is None:
            raise InputError(
                f"mention of document {fields[0]}, whose title and abstract lines have not "
                "come before it; expected PMID|t| and PMID|a| lines first",
                path=path,
                line=number,
            )
        if fields[0] != doc_id:
            raise InputError(
                f"mention of document {fields[0]} among the lines of document {doc_id}; "
                "expected a blank line between documents",
                path=path,
                line=number,
            )
        pending.append((number, fields))
    close()
    check_unique_ids(out.ids, path, doc_lines)
    return out.records()


def _mention(
    out: DocumentCollector, record: int, fields: list[str], path: Path, number: int
) -> None:
    """Add one mention line (or count a relation line) of a document."""
    try:
        start, end = int(fields[1]), int(fields[2])
    except ValueError:
        if len(fields) == 4 or not fields[1].strip().lstrip("-").isdigit():
            out.skip(record, "relation")
            return
        raise InputError(
            "expected integer start and end offsets in the 2nd and 3rd fields",
            path=path,
            line=number,
            got=fields[1:3],
        ) from None
    if len(fields) < 5:
        raise InputError(
            "expected PMID, start, end, mention and type separated by tabs (an ID may follow)",
            path=path,
            line=number,
            got=len(fields),
        )
    out.mention(
        record,
        [(start, end)],
        fields[4].split(","),
        text=fields[3],
        path=path,
        line=number,
    )
