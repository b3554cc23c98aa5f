"""PubTator: the document format of BioCreative V CDR, NCBI-disease, MedMentions and more.

A document is a title line ``PMID|t|title``, an abstract line ``PMID|a|abstract`` and one
line per mention, ``PMID<TAB>start<TAB>end<TAB>mention<TAB>TYPES[<TAB>ID...]``; a blank
line ends it. Offsets are characters, 0-based and end exclusive, over
``title + " " + abstract`` (the title alone when there is no abstract line). ``TYPES`` may
hold several comma-separated types (MedMentions' ``T116,T123``; ``multi_type`` decides)
and mentions may nest (``overlaps`` decides). Lines whose second field is not an offset
(CDR's relations ``PMID<TAB>CID<TAB>D1<TAB>D2``) are skipped and counted under ``skipped``.
An offset is ASCII digits (:data:`OFFSET`), on both reading paths: a field that only looks
like a number (other scripts' digits, ``2_9``, ``+29``) is an error naming the line.
Each mention's text is checked against the document at its offsets (``offset_check``).

Errors name the line: a mention of a document whose title has not been seen (or of
another document than the one being read), offsets past the text, an empty type column,
a line that is neither a title, an abstract, a mention nor a relation.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl

from benchcheck.errors import InputError
from benchcheck.io._documents import (
    NUMBER_LIKE,
    OFFSET,
    DocumentCollector,
    DocumentTally,
    check_unique_ids,
)
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
    """Read a PubTator file as one record per document (see the module text).

    A well-formed file (each document a title line after a blank line, an optional
    abstract, mention and relation lines whose text matches) takes a vectorised path
    (polars); anything else the line-by-line reader, which gives the same records or the
    exact error (the tests hold both to the same result).
    """
    path = Path(path)
    options = options or NerOptions()
    text = read_text_file(path)
    fast = _fast_records(text, options)
    return fast if fast is not None else _line_records(text, path, options)


def _line_records(text: str, path: Path, options: NerOptions) -> SpanRecords:
    """Read PubTator text line by line (every layout; errors name the line)."""
    out = DocumentCollector(options)
    doc_lines: list[int] = []
    doc_id = ""
    title: str | None = None
    abstract: str | None = None
    pending: list[tuple[int, list[str]]] = []

    def close() -> None:
        nonlocal title, abstract
        if title is None and abstract is None:
            return
        text = (title or "") if abstract is None else f"{title or ''} {abstract}"
        record = out.document(doc_id, text, path=path, line=doc_lines[-1])
        for number, fields in pending:
            _mention(out, record, fields, path, number)
        pending.clear()
        title, abstract = None, None

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
    start, end = offset(fields[1], path, number), offset(fields[2], path, number)
    if start is None or end is None:
        if len(fields) == 4 or start is None:
            out.skip(record, "relation")
            return
        raise InputError(
            "expected integer start and end offsets in the 2nd and 3rd fields",
            path=path,
            line=number,
            got=fields[1:3],
        )
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


def offset(field: str, path: Path, number: int) -> int | None:
    """Read a mention offset (ASCII digits), ``None`` for a word; refuse a look-alike number.

    >>> offset("29", Path("p.txt"), 3), offset("CID", Path("p.txt"), 3)
    (29, None)
    >>> offset("2_9", Path("p.txt"), 3)
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: p.txt:3: offset '2_9' is not written in ASCII digits 0-9 (expected PMID, start, end, mention and type; a relation's 2nd field is a word)
    """  # noqa: E501
    if OFFSET.fullmatch(field):
        return int(field)
    if NUMBER_LIKE.fullmatch(field):
        raise InputError(
            f"offset {field!r} is not written in ASCII digits 0-9 (expected PMID, start, end, "
            "mention and type; a relation's 2nd field is a word)",
            path=path,
            line=number,
        )
    return None


def _fast_records(text: str, options: NerOptions) -> SpanRecords | None:
    """Read a well-formed PubTator text with polars; ``None`` where it is not well formed.

    Well formed: the first content line and every line after a blank one is a title
    ``PMID|t|``, an abstract line of the same PMID may follow it, every other line is a
    mention (five fields or more, integer offsets inside the text, a type, the mention's
    text at its offsets) or a relation (four fields, or a second field that is not a
    number) of that PMID, PMIDs are unique, and no mention has several types where
    ``multi_type`` is ``error``. Anything else goes to the line reader.
    """
    raw = pl.Series("line", text.split("\n"), dtype=pl.String).str.strip_suffix("\r")
    number = pl.int_range(1, raw.len() + 1, eager=True).alias("number")
    frame = pl.DataFrame([raw, number]).with_columns(
        blank=pl.col("line").str.strip_chars().str.len_chars() == 0,
        head=pl.col("line").str.extract_groups("^" + HEAD.pattern),
    )
    frame = frame.with_columns(
        after_blank=pl.col("blank").shift(1, fill_value=True),
        pmid=pl.col("head").struct.field("1"),
        kind=pl.col("head").struct.field("2"),
    ).filter(~pl.col("blank"))
    if frame.height == 0:
        return None
    kind = frame.get_column("kind")
    is_t = (kind == "t").fill_null(False)
    # A title exactly where a document starts; nothing else after a blank line.
    if not frame.get_column("after_blank").eq(is_t).all():
        return None
    frame = frame.with_columns(doc=is_t.cum_sum() - 1)
    titles = frame.filter(is_t)
    doc_pmid = titles.get_column("pmid")
    if doc_pmid.is_duplicated().any():
        return None
    abstracts = frame.filter(kind == "a")
    # An abstract line right after its title, of the same document.
    prev_t = frame.get_column("kind").shift(1) == "t"
    if not frame.filter(kind == "a").height == int((prev_t & (kind == "a")).sum()):
        return None
    if not abstracts.get_column("pmid").equals(
        doc_pmid.gather(abstracts.get_column("doc")), check_names=False
    ):
        return None
    n_doc = titles.height
    title_text = titles.get_column("line").str.slice(
        titles.get_column("head").struct.field("1").str.len_chars() + 3
    )
    abstract_text = pl.Series([None] * n_doc, dtype=pl.String).scatter(
        abstracts.get_column("doc"),
        abstracts.get_column("line").str.slice(abstracts.get_column("pmid").str.len_chars() + 3),
    )
    texts = (
        pl.DataFrame({"t": title_text, "a": abstract_text})
        .select(
            pl.when(pl.col("a").is_null())
            .then(pl.col("t"))
            .otherwise(pl.col("t") + " " + pl.col("a"))
        )
        .to_series()
        .alias("text")
    )
    rows = frame.filter(kind.is_null())
    fields = rows.get_column("line").str.split("\t")
    width = fields.list.len()
    if (width < 4).any():
        return None
    row_doc = rows.get_column("doc")
    if not fields.list.get(0).equals(doc_pmid.gather(row_doc), check_names=False):
        return None
    first_f, second_f = fields.list.get(1), fields.list.get(2)
    ascii_1 = first_f.str.contains(f"^(?:{OFFSET.pattern})$")
    ascii_2 = second_f.str.contains(f"^(?:{OFFSET.pattern})$")
    like = f"^(?:{NUMBER_LIKE.pattern})$"
    if ((~ascii_1 & first_f.str.contains(like)) | (~ascii_2 & second_f.str.contains(like))).any():
        return None  # a number not in ASCII digits: the line reader names the line
    start = pl.select(pl.when(ascii_1).then(first_f).cast(pl.Int64, strict=False)).to_series()
    end = pl.select(pl.when(ascii_2).then(second_f).cast(pl.Int64, strict=False)).to_series()
    parsed = start.is_not_null() & end.is_not_null()
    relation = ~parsed & ((width == 4) | ~ascii_1)
    mention = parsed
    if ((parsed & (width < 5)) | (~parsed & ~relation)).any():
        return None  # the line reader names the line
    m_doc = row_doc.filter(mention)
    m_start, m_end = start.filter(mention), end.filter(mention)
    m_fields = fields.filter(mention)
    m_types = m_fields.list.get(4).str.split(",").list.eval(pl.element().str.strip_chars())
    m_types = m_types.list.eval(pl.element().filter(pl.element() != ""))
    n_types = m_types.list.len()
    if (n_types == 0).any():
        return None
    multi = n_types > 1
    if options.multi_type == "error" and multi.any():
        return None
    lengths = texts.str.len_chars().gather(m_doc)
    if ((m_start < 0) | (m_end <= m_start) | (m_end > lengths)).any():
        return None
    covered = texts.gather(m_doc).str.slice(m_start, m_end - m_start)
    if not covered.equals(m_fields.list.get(3), check_names=False):
        return None
    spans = pl.DataFrame({"record": m_doc, "start": m_start, "end": m_end, "type": m_types})
    spans = (
        spans.with_columns(pl.col("type").list.first())
        if options.multi_type == "first"
        else spans.explode("type")
    ).sort(["record", "start", "end", "type"], maintain_order=True)
    counts = np.zeros((n_doc, 4), dtype=np.int64)
    np.add.at(counts[:, 0], m_doc.filter(multi).to_numpy(), 1)
    skipped: list[Counter[str]] = [Counter() for _ in range(n_doc)]
    for d in row_doc.filter(relation).to_list():
        skipped[d]["relation"] += 1
    ids = tuple(doc_pmid.to_list())
    tally = DocumentTally(
        policies={
            "multi_type": options.multi_type,
            "discontinuous": None,
            "offset_check": options.offset_check,
            "medcat_keep": None,
        },
        counts=counts,
        skipped=tuple(skipped),
        rejected=(),
    )
    return SpanRecords(
        texts=texts,
        line=titles.get_column("number").to_numpy().astype(np.int64),
        span_record=spans.get_column("record").to_numpy().astype(np.int64),
        span_start=spans.get_column("start").to_numpy(),
        span_end=spans.get_column("end").to_numpy(),
        span_type=spans.get_column("type").cast(pl.String),
        ids=ids,
        document=tally.reading(ids),
        tally=tally,
    )
