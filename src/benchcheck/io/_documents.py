"""Document-level formats' mentions → span records, under one set of reading policies.

PubTator, BRAT, MedCAT and span-JSON readers parse their files and hand each document and
each mention to a :class:`DocumentCollector`, which applies the policies of
:class:`~benchcheck.io._options.NerOptions` the same way for all, in this order:

1. **types**: a mention without a type is an error; one with several (PubTator's
   ``T116,T123``) keeps the first (``multi_type="first"``, default), becomes one span per
   type (``all``; the copies overlap, so ``overlaps`` decides), or is an error;
2. **bounds**: every fragment must satisfy ``0 <= start < end <= len(text)``, else an
   error naming the document and the mention;
3. **discontinuous** spans (BRAT ``0 5;10 15``): an error (default), ``merge`` into one
   span from the first start to the last end, or ``drop``;
4. **offsets against the file's own text** (PubTator's mention column, BRAT's text
   column — fragments joined by one space —, MedCAT's ``value``, span JSON's ``mention``
   field): a mismatch is an error (default), counted (``warn``), or, where only surrounding
   whitespace differs, moved to the stripped span (``trim``; other mismatches counted).

Counts go to :class:`~benchcheck.data.model.DocumentReading`, as do the lines a reader
skips (relations, events, attributes, notes) and the annotations a reviewer rejected.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchcheck.data.model import DocumentReading
from benchcheck.errors import InputError
from benchcheck.io._options import NerOptions
from benchcheck.io._spans import RecordCollector, SpanRecords
from benchcheck.io._text import read_text_file


@dataclass(frozen=True)
class DocumentTally:
    """What reading each document did (per-record counts), to sum over any subset."""

    policies: Mapping[str, str | None]
    counts: np.ndarray
    skipped: tuple[Counter[str], ...]
    rejected: tuple[Mapping[str, object], ...]

    def reading(self, ids: Sequence[str], keep: np.ndarray | None = None) -> DocumentReading:
        """Return the reading of the documents ``keep`` (record numbers; ``None``: all)."""
        rows = np.arange(len(ids)) if keep is None else keep
        counts = self.counts[rows].sum(axis=0) if rows.size else np.zeros(4, np.int64)
        skipped: Counter[str] = Counter()
        for r in rows.tolist():
            skipped.update(self.skipped[r])
        kept_ids = {ids[r] for r in rows.tolist()}
        p = self.policies
        return DocumentReading(
            instances="document",
            n_documents=int(rows.size),
            n_sentences=int(rows.size),
            multi_type=p["multi_type"],
            multi_type_mentions=int(counts[0]),
            discontinuous=p["discontinuous"],
            discontinuous_spans=int(counts[1]),
            offset_check=p["offset_check"],
            offset_mismatches=int(counts[2]),
            offsets_trimmed=int(counts[3]),
            skipped=dict(skipped),
            medcat_keep=p["medcat_keep"],
            rejected=tuple(r for r in self.rejected if r["document"] in kept_ids),
        )


#: A mention offset as the files write it: ASCII digits (a minus sign reads, then is refused
#: as out of range). The one rule of every reader of
#: offsets in text (PubTator's both reading paths, BRAT).
OFFSET = re.compile(r"-?[0-9]+")
#: A field Python's ``int()`` would take for a number but that is no offset: digits of other
#: scripts (Arabic-Indic ``٢٩``, full-width ``２９``), underscores (``2_9``), a plus sign,
#: white space around it. Such a mention line is an input error, never a relation.
NUMBER_LIKE = re.compile(r"\s*[-+]?[\d_]*\d[\d_]*\s*")


class DocumentCollector:
    """Collect documents and their mentions; see the module text for the policies.

    >>> out = DocumentCollector(NerOptions(multi_type="all"))
    >>> doc = out.document("d1", "Has fever.", path="a.txt", line=1)
    >>> out.mention(doc, [(4, 9)], ["Disease", "Sign"], text="fever", path="a.txt", line=3)
    >>> records = out.records()
    >>> records.span_type.to_list(), records.document.multi_type_mentions
    (['Disease', 'Sign'], 1)
    """

    def __init__(self, options: NerOptions, *, uses: Sequence[str] = ()) -> None:
        self.options = options
        #: The policies this format applies (recorded; the others are None).
        self.uses = set(uses) or {"multi_type", "offset_check"}
        self._out = RecordCollector()
        self._spans: list[list[tuple[int, int, str]]] = []
        self.ids: list[str] = []
        #: Per record: mentions with several types, discontinuous, mismatched, trimmed.
        self.counts: list[list[int]] = []
        self.skipped: list[Counter[str]] = []
        self.rejected: list[dict[str, object]] = []
        self.multi = self.discontinuous = self.mismatches = self.trimmed = 0

    def document(self, doc_id: str, text: str, *, path: str | Path, line: int = 0) -> int:
        """Add a document (its id names it in messages); return its record number."""
        name = "" if line else f"document {doc_id}"
        record = self._out.add(text, line, name, spans=())
        self._spans.append([])
        self.ids.append(doc_id)
        self.counts.append([0, 0, 0, 0])
        self.skipped.append(Counter())
        return record

    def text(self, record: int) -> str:
        """Return the text of a record added before."""
        return self._out.texts[record]

    def mention(
        self,
        record: int,
        fragments: Sequence[tuple[int, int]],
        types: Sequence[str],
        *,
        text: str | None,
        path: str | Path,
        line: int | None,
    ) -> None:
        """Add a mention: its fragments (character offsets, end exclusive) and types.

        ``text`` is the mention's text as the file gives it (``None``: not given).
        """
        options = self.options
        doc_text = self._out.texts[record]
        n_chars = len(doc_text)

        def fail(what: str) -> InputError:
            frags = ";".join(f"{s} {e}" for s, e in fragments)
            shown = f"{text!r} " if text is not None else ""
            return InputError(
                f"document {self.ids[record]}: mention [{frags}] {shown}{what}",
                path=path,
                line=line,
            )

        if len(types) != 1 or not types[0].strip():
            types = [t.strip() for t in types if t.strip()]
            if not types:
                raise fail("has an empty type; expected an entity type")
        for s, e in fragments:
            if not 0 <= s < e <= n_chars:
                raise fail(
                    f"lies outside the document's text ({n_chars} characters); expected "
                    "0 <= start < end <= the text's length"
                )
        if len(fragments) > 1:
            self.discontinuous += 1
            self.counts[record][1] += 1
            if options.discontinuous == "error":
                raise fail(
                    "is discontinuous; expected one span (or choose {discontinuous} merge or drop)"
                )
            if options.discontinuous == "drop":
                return
            start = min(s for s, _ in fragments)
            end = max(e for _, e in fragments)
            covered = " ".join(doc_text[s:e] for s, e in fragments)
        else:
            start, end = fragments[0]
            covered = doc_text[start:end]
        if text is not None and covered != text:
            start, end = self._mismatch(record, doc_text, start, end, covered, text, fragments)
            if end <= start:
                raise fail(
                    f"reads {covered!r} at those offsets; expected the mention's text there "
                    "(or choose {offset_check} warn or trim)"
                )
        if len(types) > 1:
            self.multi += 1
            self.counts[record][0] += 1
            if options.multi_type == "error":
                raise fail(
                    f"has {len(types)} types ({','.join(types)}); expected one (or choose "
                    "{multi_type} first or all)"
                )
            if options.multi_type == "first":
                types = types[:1]
        spans = self._spans[record]
        for t in types:
            spans.append((start, end, t.strip()))

    def _mismatch(
        self,
        record: int,
        doc_text: str,
        start: int,
        end: int,
        covered: str,
        given: str,
        fragments: Sequence[tuple[int, int]],
    ) -> tuple[int, int]:
        """Apply ``offset_check`` to a mismatch: (start, end) to keep; end <= start: error."""
        policy = self.options.offset_check
        if policy == "error":
            return 0, 0
        if policy == "trim" and len(fragments) == 1 and covered.strip() == given.strip():
            inner = doc_text[start:end]
            lead = len(inner) - len(inner.lstrip())
            trail = len(inner) - len(inner.rstrip())
            if lead or trail:
                self.trimmed += 1
                self.counts[record][3] += 1
                return start + lead, end - trail
        self.mismatches += 1
        self.counts[record][2] += 1
        return start, end

    def skip(self, record: int, kind: str, count: int = 1) -> None:
        """Count a record's lines or objects that are not entity mentions (relations, ...)."""
        self.skipped[record][kind] += count

    def reject(self, record: int, entry: Mapping[str, object]) -> None:
        """List an annotation a reviewer rejected (kept or not, as ``entry`` says)."""
        self.rejected.append({"document": self.ids[record], **entry})

    def records(self) -> SpanRecords:
        """Freeze the documents: span records with their ids and per-record counts."""
        for k, spans in enumerate(self._spans):
            self._out.spans[k] = spans
        o, uses = self.options, self.uses
        tally = DocumentTally(
            policies={
                "multi_type": o.multi_type if "multi_type" in uses else None,
                "discontinuous": o.discontinuous if "discontinuous" in uses else None,
                "offset_check": o.offset_check if "offset_check" in uses else None,
                "medcat_keep": o.medcat_keep if "medcat_keep" in uses else None,
            },
            counts=np.array(self.counts, dtype=np.int64).reshape(-1, 4),
            skipped=tuple(self.skipped),
            rejected=tuple(self.rejected),
        )
        ids = tuple(self.ids)
        records = dataclasses.replace(self._out.records(), ids=ids, tally=tally)
        return dataclasses.replace(records, document=tally.reading(ids))


def check_unique_ids(ids: Sequence[str], path: str | Path, lines: Sequence[int] = ()) -> None:
    """Reject a document id given twice (split lists and messages need unique ids)."""
    seen: dict[str, int] = {}
    for k, doc_id in enumerate(ids):
        if doc_id in seen:
            raise InputError(
                f"document {doc_id} appears twice; expected each document once",
                path=path,
                line=lines[k] if lines else None,
            )
        seen[doc_id] = k


def subset(records: SpanRecords, keep: np.ndarray) -> SpanRecords:
    """Return the documents ``keep`` (record numbers) of ``records``, in file order, recounted."""
    keep = np.unique(np.asarray(keep, dtype=np.int64))
    n_rec = records.texts.len()
    new_index = np.full(n_rec, -1, dtype=np.int64)
    new_index[keep] = np.arange(keep.size)
    mask = new_index[records.span_record] >= 0 if n_rec else np.zeros(0, dtype=bool)
    ids = list(records.ids or [str(k) for k in range(n_rec)])
    document = records.document
    if records.tally is not None:
        document = records.tally.reading(ids, keep)
    return dataclasses.replace(
        records,
        texts=records.texts.gather(keep),
        line=records.line[keep],
        span_record=new_index[records.span_record[mask]],
        span_start=records.span_start[mask],
        span_end=records.span_end[mask],
        span_type=records.span_type.filter(mask),
        names=None if records.names is None else [records.names[k] for k in keep.tolist()],
        ids=[ids[k] for k in keep.tolist()],
        document=document,
        tally=None,
    )


def read_id_list(path: str | Path) -> list[tuple[str, int]]:
    """Document ids of a split list, one per line (blank and ``#`` lines skipped), with lines.

    Errors: a missing or unreadable file, an id listed twice.
    """
    out: list[tuple[str, int]] = []
    seen: dict[str, int] = {}
    text = read_text_file(path)
    for number, raw in enumerate(text.split("\n"), start=1):
        doc_id = raw.strip()
        if not doc_id or doc_id.startswith("#"):
            continue
        if doc_id in seen:
            raise InputError(
                f"document {doc_id} is listed twice (first on line {seen[doc_id]}); expected "
                "each id once",
                path=path,
                line=number,
            )
        seen[doc_id] = number
        out.append((doc_id, number))
    return out
