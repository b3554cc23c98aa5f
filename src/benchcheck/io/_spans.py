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

import dataclasses
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

import numpy as np
import polars as pl

from benchcheck.data import scripts
from benchcheck.data.model import SpanReading, Split
from benchcheck.data.schemes import map_type
from benchcheck.errors import InputError
from benchcheck.io._ner import build_ner_split, combine_splits
from benchcheck.io._tokens import string_buffers, strings_from_buffers
from benchcheck.io.formats import check_options

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
BLOCK_CHARS = 1 << 20
_WORKERS = 2


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
    and end offsets and text, in order; ``tokenization`` then names its source.
    """

    texts: pl.Series
    line: np.ndarray
    span_record: np.ndarray
    span_start: np.ndarray
    span_end: np.ndarray
    span_type: list[str]
    names: Sequence[str] | None = None
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray, pl.Series] | None = None
    tokenization: str | None = None

    def where(self, record: int) -> tuple[int | None, str]:
        """(line for the error, prefix naming the record in its message)."""
        line = int(self.line[record])
        if line > 0:
            return line, ""
        name = self.names[record] if self.names is not None else f"record {record + 1}"
        return None, f"{name}: "


class RecordCollector:
    """Gather records one by one (the reader parses, this keeps them); see :class:`SpanRecords`."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.line: list[int] = []
        self.names: list[str] = []
        self.span_record: list[int] = []
        self.span_start: list[int] = []
        self.span_end: list[int] = []
        self.span_type: list[str] = []
        self.tok_record: list[int] = []
        self.tok_start: list[int] = []
        self.tok_end: list[int] = []
        self.tok_text: list[str] = []

    def add(self, text: str, line: int = 0, name: str = "") -> int:
        """Add a record (``line`` 0: not line-based, then ``name`` names it); its index."""
        self.texts.append(text)
        self.line.append(line)
        self.names.append(name)
        return len(self.texts) - 1

    def span(self, record: int, start: int, end: int, entity_type: str) -> None:
        """Add a span (character offsets, end exclusive) of ``record``."""
        self.span_record.append(record)
        self.span_start.append(start)
        self.span_end.append(end)
        self.span_type.append(entity_type)

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
        return SpanRecords(
            texts=pl.Series("text", self.texts, dtype=pl.String),
            line=np.array(self.line, dtype=np.int64),
            span_record=np.array(self.span_record, dtype=np.int64),
            span_start=np.array(self.span_start, dtype=np.int64),
            span_end=np.array(self.span_end, dtype=np.int64),
            span_type=self.span_type,
            names=self.names if any(self.names) else None,
            tokens=tokens,
            tokenization=given_tokens,
        )


def is_offset(value: object) -> bool:
    """Tell whether a JSON value is a character offset (an int, not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def spans_to_split(
    records: SpanRecords,
    *,
    name: str,
    source: str,
    format: str,
    tokenizer: Tokenizer = "unicode",
    align: Align = "strict",
    overlaps: Overlaps = "error",
    type_map: Mapping[str, str] | None = None,
    coarse_types: bool = False,
    keep_tokens: bool = True,
) -> Split:
    """Turn records of text and character spans into an NER split (see the module text)."""
    check_options(tokenizer, align, overlaps)
    n_rec = records.texts.len()
    char_len = records.texts.str.len_chars().fill_null(0).to_numpy().astype(np.int64)
    _check_spans(records, char_len, source)
    # Blocks of whole records, about BLOCK_CHARS characters each.
    cum = np.cumsum(char_len)
    cuts = np.unique(np.searchsorted(cum, np.arange(0, int(cum[-1]) if n_rec else 0, BLOCK_CHARS)))
    edges = [0, *[int(c) for c in cuts if 0 < c < n_rec], n_rec]
    edges = sorted(set(edges))
    span_cut = np.searchsorted(records.span_record, edges)
    tok_cut = np.searchsorted(records.tokens[0], edges) if records.tokens is not None else None
    mapped = [map_type(t, type_map, coarse=coarse_types) for t in records.span_type]
    renamed = {t: m for t, m in zip(records.span_type, mapped, strict=True) if t != m}

    def block(k: int) -> tuple[Split | None, SpanReading]:
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
            given,
            tokenizer=tokenizer,
            align=align,
            overlaps=overlaps,
            name=name,
            source=source,
            keep_tokens=keep_tokens,
        )

    jobs = range(len(edges) - 1)
    if len(jobs) > 1:
        with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
            done = list(pool.map(block, jobs))
    else:
        done = [block(k) for k in jobs]
    parts = [p for p, _ in done if p is not None]
    reading = SpanReading(
        format=format,
        tokenization=records.tokenization or TOKENIZATION[tokenizer],
        align=align,
        overlaps=overlaps,
    )
    for _, r in done:
        reading = reading + r
    if not parts:
        raise InputError(
            "empty split: expected at least one record with a non-empty text", path=source
        )
    split = combine_splits(parts)
    return dataclasses.replace(split, reading=reading, type_map=renamed)


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
    mapped: list[str],
    given: tuple[np.ndarray, np.ndarray, np.ndarray, pl.Series] | None,
    *,
    tokenizer: str,
    align: str,
    overlaps: str,
    name: str,
    source: str,
    keep_tokens: bool,
) -> tuple[Split | None, SpanReading]:
    """Tokenise, align, resolve and tag records ``[lo, hi)``; build their split."""
    texts = records.texts.slice(lo, hi - lo)
    if given is None:
        tok_rec, tok_start, tok_end, token = tokenize(texts, tokenizer)
    else:
        tok_rec, tok_start, tok_end, token = given
    n_rec = hi - lo
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
        return None, reading
    # IOB2 tags: O, then B- on each span's first token and I- on the others.
    type_names = sorted({mapped[i] for i in span_idx.tolist()})
    distinct = ["O"] + [f"{p}-{t}" for t in type_names for p in "BI"]
    type_of = {t: k for k, t in enumerate(type_names)}
    span_type = np.array([type_of[mapped[i]] for i in span_idx.tolist()], dtype=np.int64)
    code = np.zeros(token.len(), dtype=np.int64)
    inside_len = last_tok - first_tok - 1
    inner = np.repeat(first_tok + 1, inside_len) + (
        np.arange(int(inside_len.sum()), dtype=np.int64)
        - np.repeat(np.cumsum(inside_len) - inside_len, inside_len)
    )
    code[inner] = np.repeat(2 + 2 * span_type, inside_len)
    code[first_tok] = 1 + 2 * span_type
    tag = pl.Series("tag", distinct, dtype=pl.String).gather(code)
    start = np.ones(token.len(), dtype=bool)
    start[1:] = tok_rec[1:] != tok_rec[:-1]
    part = build_ner_split(
        name=name,
        source=source,
        token=token.alias("token"),
        tag=tag,
        sentence_start=start,
        line=records.line[tok_rec + lo],
        keep_tokens=keep_tokens,
        check_letters=False,
    )
    return part, reading


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
            f"{prefix}span [{s}, {e}) {records.span_type[s_lo + k]!r} ({covered!r}) {reason}; "
            "expected spans on token boundaries (or choose align=expand or contract)",
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
            f"[{int(records.span_start[i])}, {int(records.span_end[i])}) {records.span_type[i]!r}"
            for i in (a, b)
        ]
        raise InputError(
            f"{prefix}overlapping spans {spans[0]} and {spans[1]}; expected spans that do not "
            "overlap (or choose overlaps=keep-longest or keep-first)",
            path=source,
            line=line,
        )
    keep = np.ones(s.size, dtype=bool)
    ordered_rec = rec[order]
    for r in bad_records.tolist():
        members = np.flatnonzero(ordered_rec == r)
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
    if policy == "keep-longest":
        prefer = np.lexsort((start, -(end - start)))
    else:
        prefer = np.arange(start.size)
    taken: list[tuple[int, int]] = []
    out: list[int] = []
    for k in prefer.tolist():
        a, b = int(start[k]), int(end[k])
        if all(b <= x or a >= y for x, y in taken):
            taken.append((a, b))
            out.append(k)
    return np.array(sorted(out), dtype=np.int64)


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
    cp, at = scripts.utf8_codepoints(body)
    n = cp.size
    empty = np.zeros(0, dtype=np.int64)
    if n == 0:
        return empty, empty, empty, pl.Series("token", [], dtype=pl.String)
    # Each character's record, and whether it opens its record.
    rec_first_char = np.searchsorted(at, offsets[:-1] - base)
    rec_start = np.zeros(n, dtype=bool)
    nonempty = (offsets[1:] - offsets[:-1]) > 0
    rec_start[rec_first_char[nonempty]] = True
    char_rec = np.cumsum(rec_start) - 1
    # Records are numbered through the non-empty ones; map back to all records.
    char_rec = np.flatnonzero(nonempty)[char_rec]
    cls = scripts.char_table()[cp] & np.uint8(3)
    space = cls == scripts.SPACE
    mark = cls == scripts.MARK
    after_space = np.zeros(n, dtype=bool)
    after_space[1:] = space[:-1]
    # A mark that opens a record or follows a space stands as a word character.
    lone = mark & (rec_start | after_space)
    cls[lone] = scripts.WORD
    mark &= ~lone
    joins = np.zeros(n, dtype=bool)  # the character continues the token before it
    if tokenizer == "chars":
        joins[1:] = mark[1:]
    else:
        # A mark takes the class of the character it follows (runs of marks included).
        idx = np.where(mark, 0, np.arange(n))
        np.maximum.accumulate(idx, out=idx)
        eff = cls[idx]
        word = eff == scripts.WORD
        joins[1:] = mark[1:] | (word[1:] & word[:-1])
    joins &= ~rec_start & ~after_space & ~space
    token_char = ~space
    starts = np.flatnonzero(token_char & ~joins)
    # A token ends where the next character does not continue it.
    ends_at = np.flatnonzero(token_char & ~np.append(joins[1:], False))
    # Character offsets within each record.
    first_of_rec = np.zeros(texts.len(), dtype=np.int64)
    first_of_rec[np.flatnonzero(nonempty)] = rec_first_char[nonempty]
    tok_rec = char_rec[starts]
    tok_start = starts - first_of_rec[tok_rec]
    tok_end = ends_at + 1 - first_of_rec[tok_rec]
    # Token strings: the non-space bytes, compacted, cut at the tokens' first bytes.
    width = np.diff(np.append(at, body.size))
    keep_bytes = np.repeat(token_char, width)
    compact = body[keep_bytes]
    kept_width = np.where(token_char, width, 0)
    byte_before = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(kept_width, out=byte_before[1:])
    out_offsets = np.append(byte_before[starts], byte_before[-1])
    token = strings_from_buffers(out_offsets, compact).alias("token")
    return tok_rec.astype(np.int64), tok_start, tok_end, token
