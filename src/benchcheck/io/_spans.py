r"""Text and character spans → tokens and tags: the one path every offset format takes.

CLUENER, doccano, Label Studio and spaCy/Prodigy files give each record a text and entity
spans as character offsets (Python string indices, end exclusive). A reader turns its file
into :class:`SpanRecords`; :func:`spans_to_split` does the rest, the same way for all:

1. **checks** every span: ``0 <= start < end <= len(text)``, else an error naming the
   record and the span;
2. **tokenises** the text (unless the file gives its tokens), by a rule recorded in the
   result: ``unicode`` — one token per character of a script written without spaces (Han,
   Hiragana, Katakana, Thai, …; see :mod:`benchcheck.data.scripts`), else a run of word
   characters (``\w``) or a single other character, combining marks staying with the
   character before them; spaces (Unicode ``White_Space``) separate; ``chars`` — one token
   per character that is not a space (the convention of the Chinese character-level
   corpora, Latin letters and digits included);
3. **aligns** each span to tokens. ``align="strict"`` (default): a span whose ends are not
   token boundaries is an error naming the record and the span; ``expand`` widens it to
   every token it touches, ``contract`` narrows it to the tokens wholly inside; moved spans
   are counted as ``span_alignments``, spans left with no token as ``spans_dropped``;
4. **resolves overlaps** (nested or crossing spans, duplicates included): ``overlaps="error"``
   (default) names the record and both spans; ``keep-longest`` keeps the longest span of
   each overlapping group (ties: the earlier start), ``keep-first`` the one starting first
   (ties: the longer); dropped spans are counted as ``overlapping_spans``;
5. **tags** the tokens IOB2 (``B-`` on a span's first token, ``I-`` on the rest) and builds
   the split through :func:`benchcheck.io._ner.build_ner_split`, one instance per record.

Records are processed in blocks of about a million characters, on two threads, and the
parts combined exactly (:func:`benchcheck.io._ner.combine_splits`), as CoNLL chunks are.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl

from benchcheck.data import scripts
from benchcheck.data.model import DocumentReading, SpanReading, Split
from benchcheck.data.schemes import map_type
from benchcheck.errors import InputError
from benchcheck.io._ner import (
    SHOWN_EMPTY,
    TagCodes,
    build_ner_split,
    combine_splits,
    with_empty_records,
)
from benchcheck.io._options import NerOptions
from benchcheck.io._text import count_newlines, duplicate_key, nested_too_deeply, read_file_bytes
from benchcheck.io._tokens import string_buffers, strings_from_buffers
from benchcheck.io._workers import chunk_pool, settle

Tokenizer = Literal["unicode", "chars"]
Align = Literal["strict", "expand", "contract"]
Overlaps = Literal["error", "keep-longest", "keep-first"]
#: How each tokeniser is named in results.
TOKENIZATION = {
    "unicode": "unicode: one token per character of no-space scripts, else \\w+ runs and "
    "single other characters",
    "chars": "chars: one token per non-space character",
}
#: Characters per block of records.
BLOCK_CHARS = 1 << 22


class UnlabelledSplit(InputError):
    """A file of texts without any annotation (a test set released unlabelled).

    A folder's discovered split that raises this is skipped with a warning by
    :func:`benchcheck.io.load.load`; a file given by name is an error.
    """


@dataclass(frozen=True)
class SpanRecords:
    """What an offset-format reader hands over: texts and spans, in record order.

    ``line`` gives each record's line in the file (``None`` entries: not line-based), and
    ``names`` how messages call a record (``"task 3 (id 17)"``), for formats without lines.
    Spans are sorted by record (``span_record``), offsets in characters, end exclusive.
    ``tokens`` (optional) gives the file's own tokenisation: per token its record, start
    and end offsets and text, in order; ``tokenization`` then names its source. Document
    formats add each record's document id (``ids``) and their reading (``document``).
    """

    texts: pl.Series
    line: np.ndarray
    span_record: np.ndarray
    span_start: np.ndarray
    span_end: np.ndarray
    span_type: pl.Series
    names: Sequence[str] | None = None
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray, pl.Series] | None = None
    tokenization: str | None = None
    #: Document formats: each record's document id, and how the documents were read.
    ids: Sequence[str] | None = None
    document: DocumentReading | None = None
    tally: Any = None  # benchcheck.io._documents.DocumentTally: per-document counts
    #: Sentences cut from documents: each record's first character in its document.
    base: np.ndarray | None = None

    def where(self, record: int) -> tuple[int | None, str]:
        """(line for the error, prefix naming the record in its message)."""
        line = int(self.line[record])
        if line > 0:
            return line, "" if self.ids is None else f"document {self.ids[record]}: "
        name = self.names[record] if self.names is not None else f"record {record + 1}"
        return None, f"{name}: "

    def shown(self, record: int, start: int, end: int) -> str:
        """Show a span as messages do: in its document's offsets (``[s, e)``)."""
        at = 0 if self.base is None else int(self.base[record])
        return f"[{start + at}, {end + at})"


class RecordCollector:
    """Gather records (the reader parses, this keeps them); see :class:`SpanRecords`.

    Spans come per record as ``(start, end, type)`` triples (any order within the record);
    they are flattened and sorted by (record, start, end, type) once, when frozen.
    """

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.line: list[int] = []
        self.names: list[str] = []
        self.spans: list[Sequence[Sequence[Any]]] = []
        self.tok_record: list[int] = []
        self.tok_start: list[int] = []
        self.tok_end: list[int] = []
        self.tok_text: list[str] = []

    def extend(
        self, texts: list[str], lines: list[int], spans: list[Sequence[Sequence[Any]]]
    ) -> None:
        """Add many line-based records at once (texts, their lines, their spans)."""
        self.texts.extend(texts)
        self.line.extend(lines)
        self.names.extend([""] * len(texts))
        self.spans.extend(spans)

    def add(
        self, text: str, line: int = 0, name: str = "", spans: Sequence[Sequence[object]] = ()
    ) -> int:
        """Add a record and its spans (``line`` 0: not line-based; ``name`` then names it)."""
        self.texts.append(text)
        self.line.append(line)
        self.names.append(name)
        self.spans.append(spans)
        return len(self.texts) - 1

    def token(self, record: int, start: int, end: int, text: str) -> None:
        """Add a token the file gives (character offsets, end exclusive)."""
        self.tok_record.append(record)
        self.tok_start.append(start)
        self.tok_end.append(end)
        self.tok_text.append(text)

    def records(self, *, given_tokens: str | None = None) -> SpanRecords:
        """Freeze what was gathered; ``given_tokens`` names a file's own tokenisation."""
        tokens = None
        if given_tokens is not None:
            tokens = (
                np.array(self.tok_record, dtype=np.int64),
                np.array(self.tok_start, dtype=np.int64),
                np.array(self.tok_end, dtype=np.int64),
                pl.Series("token", self.tok_text, dtype=pl.String),
            )
        counts = np.fromiter(map(len, self.spans), dtype=np.int64, count=len(self.spans))
        flat = list(chain.from_iterable(self.spans))
        spans = pl.DataFrame(
            {
                "record": np.repeat(np.arange(counts.size, dtype=np.int64), counts),
                "start": np.fromiter((x[0] for x in flat), dtype=np.int64, count=len(flat)),
                "end": np.fromiter((x[1] for x in flat), dtype=np.int64, count=len(flat)),
                "type": pl.Series([x[2] for x in flat], dtype=pl.String),
            }
        ).sort(["record", "start", "end", "type"], maintain_order=True)
        return SpanRecords(
            texts=pl.Series("text", self.texts, dtype=pl.String),
            line=np.array(self.line, dtype=np.int64),
            span_record=spans.get_column("record").to_numpy(),
            span_start=spans.get_column("start").to_numpy(),
            span_end=spans.get_column("end").to_numpy(),
            span_type=spans.get_column("type"),
            names=self.names if any(self.names) else None,
            tokens=tokens,
            tokenization=given_tokens,
        )


def decode_lines(
    data: bytes,
    decoder: Any,
    path: Path,
    expected: str,
    *,
    keys: Callable[[Any], int] | None = None,
) -> tuple[list[Any], list[int]]:
    """Decode the non-blank lines of JSON-lines bytes with a ``msgspec`` typed decoder.

    Returns the records and their 1-based lines. ``msgspec`` checks each line against the
    reader's record type while it parses (four times the speed of ``json`` here, the
    whole file in one call); a line that is not JSON or not of the type raises
    :class:`InputError` with its line, msgspec's account of where (``at $.label[0][1]``)
    and ``expected``, the record shape in words. A key given twice in one object (msgspec
    keeps the last) is refused by :func:`refuse_duplicate_keys`, with ``keys`` counting
    the keys of one decoded record.
    """
    import msgspec

    try:
        rows = decoder.decode_lines(data)
    except (msgspec.ValidationError, msgspec.DecodeError):
        rows = None  # found again line by line, to name the line
    except RecursionError:
        raise nested_too_deeply(path) from None
    if rows is not None:
        n_lines = count_newlines(data) + (0 if data.endswith(b"\n") or not data else 1)
        if len(rows) == n_lines:  # no blank line: record k is on line k + 1
            refuse_duplicate_keys(data, rows, path, keys)
            return rows, list(range(1, n_lines + 1))
    out: list[Any] = []
    lines: list[int] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw or raw.isspace():
            continue
        try:
            out.append(decoder.decode(raw))
        except msgspec.ValidationError as exc:
            raise InputError(f"{exc}; expected {expected}", path=path, line=number) from None
        except msgspec.DecodeError as exc:
            raise InputError(f"invalid JSON ({exc})", path=path, line=number) from None
        except RecursionError:
            raise nested_too_deeply(path, number) from None
        lines.append(number)
    refuse_duplicate_keys(data, out, path, keys)
    return out, lines


def refuse_duplicate_keys(
    data: bytes, rows: Sequence[Any], path: Path, keys: Callable[[Any], int] | None
) -> None:
    """Raise :class:`InputError` at the first line that gives a key twice in one object.

    Fast when nothing is wrong: every key is written ``"key":`` (a quote then a colon
    occurs nowhere else in JSON: a quote inside a string is escaped), so the count of
    that pair in the bytes equals the keys the decoded ``rows`` hold (``keys`` counts one
    record's). Only when the counts differ (a key given twice, or keys the record type
    does not read) is each line parsed again (:func:`benchcheck.io._text.duplicate_key`),
    which also names a line whose keys are not UTF-8.
    """
    if keys is not None and data.count(b'" :') + data.count(b'"\t:') == 0:
        if data.count(b'":') == sum(map(keys, rows)):
            return
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw or raw.isspace():
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                "undecodable bytes; expected UTF-8",
                path=path,
                line=number,
                got=raw[exc.start : exc.start + 4],
            ) from None
        key = duplicate_key(raw)
        if key is not None:
            raise InputError(
                f"the key {key!r} is given twice in one object; expected each key once",
                path=path,
                line=number,
            )


def decode_document(data: bytes, path: Path) -> Any:
    """Decode one whole JSON document, refusing a key given twice in one object.

    msgspec parses (and keeps the last of two equal keys); the keys it kept are counted
    against the ``"key":`` pairs of the bytes, as :func:`refuse_duplicate_keys` does, and
    only when they differ is the document parsed again to name the key.
    """
    import msgspec

    try:
        value = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise InputError(f"invalid JSON ({exc})", path=path) from None
    except RecursionError:
        raise nested_too_deeply(path) from None
    written = data.count(b'":') + data.count(b'" :') + data.count(b'"\t:')
    if written != _count_keys(value):
        key = duplicate_key(data)
        if key is not None:
            raise InputError(
                f"the key {key!r} is given twice in one object; expected each key once",
                path=path,
            )
    return value


def _count_keys(value: Any) -> int:
    """Count the keys of every object inside ``value`` (iteratively: no recursion limit)."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def read_bytes(path: Path) -> bytes:
    """Read a file's bytes (:func:`benchcheck.io._text.read_file_bytes`), dropping a BOM."""
    return read_file_bytes(path).removeprefix(b"\xef\xbb\xbf")


def is_offset(value: object) -> bool:
    """Tell whether a JSON value is a character offset (an int, not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def spans_to_split(
    records: SpanRecords,
    *,
    name: str,
    source: str,
    format: str,
    options: NerOptions | None = None,
    keep_tokens: bool = True,
) -> Split:
    """Turn records of text and character spans into an NER split (see the module text).

    ``options`` give the tokeniser, alignment, overlap policy and type renaming
    (:class:`benchcheck.io._options.NerOptions`; defaults: unicode, strict, error, none).
    One instance per record: records cut into sentences first where asked
    (:func:`benchcheck.io.formats.records_to_split`).
    """
    options = options or NerOptions()
    tokenizer, align, overlaps = options.tokenizer, options.align, options.overlaps
    type_map, coarse_types = options.type_map, options.coarse_types
    char_len = records.texts.str.len_chars().fill_null(0).to_numpy().astype(np.int64)
    _check_spans(records, char_len, source)
    n_rec = records.texts.len()
    # Blocks of whole records, about BLOCK_CHARS characters each.
    cum = np.cumsum(char_len)
    cuts = np.unique(np.searchsorted(cum, np.arange(0, int(cum[-1]) if n_rec else 0, BLOCK_CHARS)))
    edges = [0, *[int(c) for c in cuts if 0 < c < n_rec], n_rec]
    edges = sorted(set(edges))
    span_cut = np.searchsorted(records.span_record, edges)
    tok_cut = np.searchsorted(records.tokens[0], edges) if records.tokens is not None else None
    # Types coded once: each distinct type is renamed once, spans carry a code.
    given_types = records.span_type.unique().sort().to_list()
    new_names = [map_type(t, type_map, coarse=coarse_types) for t in given_types]
    renamed = {t: m for t, m in zip(given_types, new_names, strict=True) if t != m}
    type_names = sorted(set(new_names))
    to_final = np.array([type_names.index(m) for m in new_names], dtype=np.int64)
    raw_code = records.span_type.cast(pl.Enum(given_types)).to_physical().to_numpy()
    mapped = to_final[raw_code.astype(np.int64)] if raw_code.size else np.zeros(0, np.int64)

    def block(k: int) -> tuple[Split | None, SpanReading, np.ndarray]:
        lo, hi = edges[k], edges[k + 1]
        s_lo, s_hi = int(span_cut[k]), int(span_cut[k + 1])
        given = None
        if records.tokens is not None and tok_cut is not None:
            t_lo, t_hi = int(tok_cut[k]), int(tok_cut[k + 1])
            rec, st, en, text = records.tokens
            given = (
                rec[t_lo:t_hi] - lo,
                st[t_lo:t_hi],
                en[t_lo:t_hi],
                text.slice(t_lo, t_hi - t_lo),
            )
        return _block(
            records,
            lo,
            hi,
            s_lo,
            s_hi,
            mapped,
            type_names,
            given,
            tokenizer=tokenizer,
            align=align,
            overlaps=overlaps,
            name=name,
            source=source,
            keep_tokens=keep_tokens,
        )

    jobs = range(len(edges) - 1)
    if len(jobs) > 1:  # on the shared reader threads (._workers), results in block order
        futures = [chunk_pool().submit(block, k) for k in jobs]
        try:
            done = [f.result() for f in futures]
        finally:
            settle(futures)
    else:
        done = [block(k) for k in jobs]
    parts = [p for p, _, _ in done if p is not None]
    reading = SpanReading(
        format=format,
        tokenization=records.tokenization or TOKENIZATION[tokenizer],
        align=align,
        overlaps=overlaps,
        document=records.document,
    )
    for _, r, _ in done:
        reading = reading + r
    if not parts:
        raise InputError(
            "empty split: expected at least one record with a non-empty text", path=source
        )
    split = combine_splits(parts)
    split = dataclasses.replace(split, reading=reading, type_map=renamed)
    empty = np.concatenate([e for _, _, e in done]) if done else np.zeros(0, np.int64)
    names = [record_name(records, int(k)) for k in empty[:SHOWN_EMPTY]]
    return with_empty_records(split, names, count=int(empty.size))


def record_name(records: SpanRecords, k: int) -> str:
    """Name record ``k`` as a note does: ``line 3``, ``document 17 (line 40)``, ``task 2``."""
    line = int(records.line[k])
    if records.ids is not None:
        return f"document {records.ids[k]}" + (f" (line {line})" if line > 0 else "")
    if line > 0:
        return f"line {line}"
    return records.names[k] if records.names is not None else f"record {k + 1}"


def check_spans(records: SpanRecords, source: str) -> None:
    """Reject spans outside their text or empty, naming the first one (record order)."""
    char_len = records.texts.str.len_chars().fill_null(0).to_numpy().astype(np.int64)
    _check_spans(records, char_len, source)


def _check_spans(records: SpanRecords, char_len: np.ndarray, source: str) -> None:
    """Reject spans outside their text or empty, naming the first one (record order)."""
    rec, start, end = records.span_record, records.span_start, records.span_end
    if rec.size == 0:
        return
    bad = (start < 0) | (end <= start) | (end > char_len[rec])
    if not bad.any():
        return
    k = int(np.flatnonzero(bad)[0])
    r = int(rec[k])
    line, prefix = records.where(r)
    s, e, t = int(start[k]), int(end[k]), records.span_type[k]
    if s < 0 or e <= s:
        what = f"span [{s}, {e}) {t!r} is empty or reversed; expected 0 <= start < end"
    else:
        what = (
            f"span [{s}, {e}) {t!r} ends past the end of the text ({int(char_len[r])} "
            "characters); expected end <= the text's length"
        )
    raise InputError(prefix + what, path=source, line=line)


def _block(
    records: SpanRecords,
    lo: int,
    hi: int,
    s_lo: int,
    s_hi: int,
    mapped: np.ndarray,
    type_names: list[str],
    given: tuple[np.ndarray, np.ndarray, np.ndarray, pl.Series] | None,
    *,
    tokenizer: str,
    align: str,
    overlaps: str,
    name: str,
    source: str,
    keep_tokens: bool,
) -> tuple[Split | None, SpanReading, np.ndarray]:
    """Tokenise, align, resolve and tag records ``[lo, hi)``; build their split.

    Also returns the records holding no token (an empty or blank text): no instance.
    """
    texts = records.texts.slice(lo, hi - lo)
    if given is None:
        tok_rec, tok_start, tok_end, token = tokenize(texts, tokenizer)
    else:
        tok_rec, tok_start, tok_end, token = given
    n_rec = hi - lo
    holds = np.zeros(n_rec, dtype=bool)
    holds[tok_rec] = True
    no_token = np.flatnonzero(~holds).astype(np.int64) + lo
    span_rec = records.span_record[s_lo:s_hi] - lo
    # Global character positions: each record's offsets shifted by the characters before it.
    char_len = texts.str.len_chars().fill_null(0).to_numpy().astype(np.int64)
    rec_char = np.zeros(n_rec + 1, dtype=np.int64)
    np.cumsum(char_len, out=rec_char[1:])
    g_tok_start = rec_char[tok_rec] + tok_start
    g_tok_end = rec_char[tok_rec] + tok_end
    g_start = rec_char[span_rec] + records.span_start[s_lo:s_hi]
    g_end = rec_char[span_rec] + records.span_end[s_lo:s_hi]
    first_tok, last_tok, moved = _align(
        g_tok_start, g_tok_end, tok_rec, span_rec, g_start, g_end, align, records, lo, s_lo, source
    )
    empty = first_tok > last_tok
    n_dropped = int(empty.sum())
    keep = ~empty
    span_idx = np.flatnonzero(keep) + s_lo
    first_tok, last_tok = first_tok[keep], last_tok[keep] + 1  # exclusive end
    span_rec = span_rec[keep]
    chosen, n_overlap = _resolve_overlaps(
        first_tok, last_tok, span_rec, span_idx, overlaps, records, lo, source
    )
    first_tok, last_tok, span_idx = first_tok[chosen], last_tok[chosen], span_idx[chosen]
    reading = SpanReading(
        format="",
        tokenization="",
        n_spans=s_hi - s_lo,
        span_alignments=int(moved.sum()),
        spans_dropped=n_dropped,
        overlapping_spans=n_overlap,
    )
    if token.len() == 0:
        return None, reading, no_token
    # IOB2 tags: O, then B- on each span's first token and I- on the others.
    distinct = ["O"] + [f"{p}-{t}" for t in type_names for p in "BI"]
    span_type = mapped[span_idx]
    code = np.zeros(token.len(), dtype=np.int64)
    inside_len = last_tok - first_tok - 1
    inner = np.repeat(first_tok + 1, inside_len) + (
        np.arange(int(inside_len.sum()), dtype=np.int64)
        - np.repeat(np.cumsum(inside_len) - inside_len, inside_len)
    )
    code[inner] = np.repeat(2 + 2 * span_type, inside_len)
    code[first_tok] = 1 + 2 * span_type
    start = np.ones(token.len(), dtype=bool)
    start[1:] = tok_rec[1:] != tok_rec[:-1]
    part = build_ner_split(
        name=name,
        source=source,
        token=token.alias("token"),
        tag=pl.Series("tag", distinct, dtype=pl.String).gather(code) if keep_tokens else None,
        tag_codes=TagCodes(code, distinct),
        sentence_start=start,
        line=records.line[tok_rec + lo],
        keep_tokens=keep_tokens,
        check_letters=False,
    )
    return part, reading, no_token


def _align(
    tok_start: np.ndarray,
    tok_end: np.ndarray,
    tok_rec: np.ndarray,
    span_rec: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    align: str,
    records: SpanRecords,
    lo: int,
    s_lo: int,
    source: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First and last token of each span, and whether it was moved (global positions).

    A span with no token left (``first > last``) is to be dropped.
    """
    n_tok = tok_start.size
    if start.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=bool)
    if align == "contract":
        first = np.searchsorted(tok_start, start, side="left")  # first token starting in it
        last = np.searchsorted(tok_end, end, side="right") - 1  # last token ending in it
    else:
        first = np.searchsorted(tok_end, start, side="right")  # first token ending after start
        last = np.searchsorted(tok_start, end, side="left") - 1  # last token starting before end
    inside = (first < n_tok) & (last >= 0) & (first <= last)
    safe_first = np.minimum(first, max(n_tok - 1, 0))
    safe_last = np.maximum(last, 0)
    if n_tok:
        inside &= (tok_rec[safe_first] == span_rec) & (tok_rec[safe_last] == span_rec)
    exact = inside.copy()
    if n_tok:
        exact &= (tok_start[safe_first] == start) & (tok_end[safe_last] == end)
    if align == "strict" and not exact.all():
        k = int(np.flatnonzero(~exact)[0])
        r = int(span_rec[k]) + lo
        line, prefix = records.where(r)
        s, e = int(records.span_start[s_lo + k]), int(records.span_end[s_lo + k])
        covered = records.texts[r][s:e]
        reason = (
            "covers no token" if not inside[k] else "does not start and end on token boundaries"
        )
        raise InputError(
            f"{prefix}span {records.shown(r, s, e)} {records.span_type[s_lo + k]!r} "
            f"({covered!r}) {reason}; "
            "expected spans on token boundaries (or choose {align} expand or contract)",
            path=source,
            line=line,
        )
    first = np.where(inside, first, 1)
    last = np.where(inside, last, 0)
    return first, last, ~exact


def _resolve_overlaps(
    first: np.ndarray,
    end: np.ndarray,
    rec: np.ndarray,
    span_idx: np.ndarray,
    overlaps: str,
    records: SpanRecords,
    lo: int,
    source: str,
) -> tuple[np.ndarray, int]:
    """Pick the spans to keep (in token order); also count the overlapping ones dropped."""
    if first.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    order = np.lexsort((-(end - first), first))  # by start, longer first
    s, e = first[order], end[order]
    reach = np.maximum.accumulate(e)
    clash = np.zeros(s.size, dtype=bool)
    clash[1:] = s[1:] < reach[:-1]  # starts before an earlier span has ended
    if not clash.any():
        return order, 0
    bad_records = np.unique(rec[order][clash])
    if overlaps == "error":
        k = int(np.flatnonzero(clash)[0])
        earlier = int(np.flatnonzero(e[:k] > s[k])[0])
        r = int(rec[order][k]) + lo
        line, prefix = records.where(r)
        a, b = int(span_idx[order][earlier]), int(span_idx[order][k])
        spans = [
            f"{records.shown(r, int(records.span_start[i]), int(records.span_end[i]))} "
            f"{records.span_type[i]!r}"
            for i in (a, b)
        ]
        raise InputError(
            f"{prefix}overlapping spans {spans[0]} and {spans[1]}; expected spans that do not "
            "overlap (or choose {overlaps} keep-longest or keep-first)",
            path=source,
            line=line,
        )
    keep = np.ones(s.size, dtype=bool)
    ordered_rec = rec[order]  # token order: each record's spans are contiguous
    lo_at = np.searchsorted(ordered_rec, bad_records, side="left")
    hi_at = np.searchsorted(ordered_rec, bad_records, side="right")
    for a, b in zip(lo_at.tolist(), hi_at.tolist(), strict=True):
        members = np.arange(a, b)
        chosen = _greedy(s[members], e[members], overlaps)
        keep[members] = False
        keep[members[chosen]] = True
    kept = order[keep]
    kept = kept[np.argsort(first[kept], kind="stable")]
    return kept, int((~keep).sum())


def _greedy(start: np.ndarray, end: np.ndarray, policy: str) -> np.ndarray:
    """Positions of the spans one record keeps: greedily, in the policy's preference order.

    ``start``/``end`` come sorted by start, longer first. ``keep-first`` takes them in that
    order; ``keep-longest`` longest first (ties: earlier start). A span is kept when it
    overlaps no span kept before it.
    """
    out: list[int] = []
    if policy != "keep-longest":  # in start order a span fits when no kept one reaches it
        reach = -1
        for k, (a, b) in enumerate(zip(start.tolist(), end.tolist(), strict=True)):
            if a >= reach:
                out.append(k)
                reach = b
        return np.array(out, dtype=np.int64)
    prefer = np.lexsort((start, -(end - start)))
    starts: list[int] = []  # the kept spans, disjoint, sorted by start
    ends: list[int] = []
    for k in prefer.tolist():
        a, b = int(start[k]), int(end[k])
        at = bisect.bisect_right(starts, a)
        if (at and ends[at - 1] > a) or (at < len(starts) and starts[at] < b):
            continue  # overlaps the kept span before or after it
        starts.insert(at, a)
        ends.insert(at, b)
        out.append(k)
    return np.array(sorted(out), dtype=np.int64)


@lru_cache(maxsize=2)
def _classes(ascii_only: bool) -> np.ndarray:
    """Token class per code point; for ASCII text the first 128 only (a table in cache)."""
    table = scripts.char_table() & np.uint8(3)
    return table[:128].copy() if ascii_only else table


def tokenize(
    texts: pl.Series, tokenizer: str = "unicode"
) -> tuple[np.ndarray, np.ndarray, np.ndarray, pl.Series]:
    """Cut texts into tokens: (record, start, end character offsets, token strings).

    Vectorised over the texts' UTF-8 bytes (see the module text for the two rules).

    >>> rec, start, end, tok = tokenize(pl.Series(["Hello, 北京!", "ab  c"]))
    >>> tok.to_list()
    ['Hello', ',', '北', '京', '!', 'ab', 'c']
    >>> rec.tolist(), start.tolist(), end.tolist()
    ([0, 0, 0, 0, 0, 1, 1], [0, 5, 7, 8, 9, 0, 4], [5, 6, 8, 9, 10, 2, 5])
    """
    offsets, data = string_buffers(texts)
    base, stop = int(offsets[0]), int(offsets[-1])
    body = data[base:stop]
    empty = np.zeros(0, dtype=np.int64)
    if body.size == 0:
        return empty, empty, empty, pl.Series("token", [], dtype=pl.String)
    ascii_only = int(body.max()) < 0x80
    if ascii_only:  # one byte per character: no decoding, offsets are byte offsets
        cp, at = body, None
        rec_first_char = (offsets[:-1] - base).astype(np.int64)
    else:
        cp, at = scripts.utf8_codepoints(body)
        rec_first_char = np.searchsorted(at, offsets[:-1] - base)
    n = cp.size
    nonempty = (offsets[1:] - offsets[:-1]) > 0
    heads = rec_first_char[nonempty]  # first character of each non-empty record
    cls = _classes(ascii_only)[cp]
    space = cls == scripts.SPACE
    mark = cls == scripts.MARK
    if mark.any():
        # A mark that opens a record or follows a space stands as a word character.
        lone = mark.copy()
        lone[1:] &= space[:-1]
        lone[heads] = mark[heads]
        cls[lone] = scripts.WORD
        mark &= ~lone
    joins = np.zeros(n, dtype=bool)  # the character continues the token before it
    if tokenizer == "chars":
        joins[1:] = mark[1:]
    elif mark.any():
        # A mark takes the class of the character it follows (runs of marks included).
        idx = np.where(mark, 0, np.arange(n))
        np.maximum.accumulate(idx, out=idx)
        word = cls[idx] == scripts.WORD
        joins[1:] = mark[1:] | (word[1:] & word[:-1])
    else:
        word = cls == scripts.WORD
        np.logical_and(word[1:], word[:-1], out=joins[1:])
    joins[heads] = False  # a record's first character opens a token
    token_char = ~space
    starts = np.flatnonzero(token_char & ~joins)
    # A token ends where the next character does not continue it.
    follows = np.zeros(n, dtype=bool)
    follows[:-1] = joins[1:]
    ends_at = np.flatnonzero(token_char & ~follows)
    # Each token's record (the count of record heads up to its first character).
    rec_ids = np.flatnonzero(nonempty)
    opens = np.zeros(n, dtype=np.int32)
    opens[heads] = 1
    which = np.cumsum(opens, dtype=np.int32)[starts] - 1
    tok_rec = rec_ids[which]
    tok_start = starts - heads[which]
    tok_end = ends_at + 1 - heads[which]
    # Token strings: the non-space bytes, compacted, cut at the tokens' first bytes.
    if ascii_only:
        compact = body[token_char]
        tok_bytes = ends_at + 1 - starts
    else:
        assert at is not None
        at_end = np.append(at, body.size)
        compact = body[np.repeat(token_char, np.diff(at_end))]
        tok_bytes = at_end[ends_at + 1] - at_end[starts]
    out_offsets = np.zeros(starts.size + 1, dtype=np.int64)
    np.cumsum(tok_bytes, out=out_offsets[1:])
    token = strings_from_buffers(out_offsets, compact).alias("token")
    return tok_rec.astype(np.int64), tok_start, tok_end, token
