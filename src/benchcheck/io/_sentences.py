"""Documents → sentences, never cutting inside a mention (``instances="sentence"``).

The NER metrics are per instance, and the paper's instances are sentences (Entity Density,
Eq. 6, divides by each sentence's tokens; Entity-Null Rate, Eq. 9, counts sentences; so
does Redundancy, Eq. 1). Document formats are therefore cut into sentences by
`sentencex <https://pypi.org/project/sentencex/>`_ (Wikimedia's rule-based segmenter, ~300
languages, compiled), chosen by ``benchmarks/sentence_split_bench.py`` over pySBD, spaCy's
rule-based ``sentencizer`` and nupunkt. On gold sentence boundaries its F1 is close to the
best (CoNLL-2003 English 0.50 against pySBD's 0.56 — headlines without a full stop cap
every splitter's recall there; CoNLL-2002 Spanish 0.87, the best; MSRA Chinese 0.80, as
pySBD); it cuts inside as few gold mentions as the best (0.04 per thousand on MedMentions,
5.6 on the Spanish sample, as pySBD; the sentencizer 0.25 and 7.4); and it runs at 37
times the sentencizer's speed, 10 times nupunkt's and 250 times pySBD's (ratios in one
run), which reading 20 MB of PubTator in seconds needs.

A cut that falls strictly inside a mention (``start < cut < end``, nested mentions
included) moves to that mention's end, repeatedly while the new place is inside another,
and is counted (``splits_moved``). A piece without a letter or digit (the ``.`` left by a
moved cut in ``Dr. No|. She``, a stray ``. .``) stays with the sentence before it; a
document's leading whitespace-only piece is dropped. Offsets are re-based on each sentence;
each sentence keeps its document's id and line, and messages show document offsets.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata

import numpy as np
import polars as pl

from benchcheck.data.model import DocumentReading
from benchcheck.errors import UsageError
from benchcheck.io._spans import SpanRecords


def splitter_name(language: str) -> str:
    """How the splitter is named in ``reading`` (package, version, language)."""
    return f"sentencex {importlib.metadata.version('sentencex')} ({language})"


def sentence_starts(text: str, language: str = "en") -> list[int]:
    """Character offsets where sentences start, the first (0) excluded.

    >>> sentence_starts("Dr. Smith left. He came back! Ok")
    [16, 30]
    """
    import sentencex

    bounds = sentencex.get_sentence_boundaries(language, text)
    return [b["start_index"] for b in bounds[1:]]


def split_sentences(records: SpanRecords, *, language: str = "en") -> SpanRecords:
    """Cut each record into sentences (see the module text); spans follow their sentence.

    >>> from benchcheck.io._spans import RecordCollector
    >>> out = RecordCollector()
    >>> _ = out.add("He saw Dr. No. She left.", 1, spans=[(7, 13, "PER")])
    >>> cut = split_sentences(out.records())
    >>> cut.texts.to_list(), cut.span_start.tolist(), cut.document.n_sentences
    (['He saw Dr. No. ', 'She left.'], [7], 2)
    """
    if records.tokens is not None:
        raise UsageError(
            "{instances} sentence cannot cut a file that gives its own tokens (a spaCy "
            "DocBin); read it with instances document"
        )
    texts = records.texts.fill_null("")
    n_rec = texts.len()
    char_len = texts.str.len_chars().to_numpy().astype(np.int64)
    rec_start = np.zeros(n_rec, dtype=np.int64)
    if n_rec:
        np.cumsum(char_len[:-1], out=rec_start[1:])
    rec_end = rec_start + char_len
    cuts_list: list[int] = []
    for r, text in enumerate(texts.to_list()):
        base = int(rec_start[r])
        cuts_list.extend(base + c for c in sentence_starts(text, language))
    cuts = np.array(cuts_list, dtype=np.int64)
    g_start = rec_start[records.span_record] + records.span_start
    g_end = rec_start[records.span_record] + records.span_end
    moved = _move_out_of_mentions(cuts, g_start, g_end)
    n_moved = int(moved.sum())
    # Pieces: each non-empty record's start and every cut, up to its record's end.
    heads = rec_start[char_len > 0]
    starts, ends, piece_rec, pieces = _pieces(
        texts, np.concatenate([heads, cuts]), rec_start, rec_end
    )
    # A piece without a letter or digit ("." after a moved cut, a stray ". .") is no
    # sentence: it stays with the one before it.
    wordless = ~pieces.str.contains(r"[\p{L}\p{N}]").to_numpy()
    fold = wordless & ~np.isin(starts, heads)
    if fold.any():
        starts, ends, piece_rec, pieces = _pieces(texts, starts[~fold], rec_start, rec_end)
    span_piece = np.searchsorted(starts, g_start, side="right") - 1
    has_span = np.zeros(starts.size, dtype=bool)
    has_span[span_piece] = True
    blank = (pieces.str.strip_chars().str.len_chars() == 0).to_numpy()
    keep = ~blank | has_span
    new_index = np.cumsum(keep) - 1
    piece_rec, starts = piece_rec[keep], starts[keep]
    names = None
    if records.names is not None:
        first = np.searchsorted(piece_rec, piece_rec, side="left")
        nth = np.arange(piece_rec.size) - first + 1
        names = [
            f"{records.names[r]}, sentence {k}"
            for r, k in zip(piece_rec.tolist(), nth.tolist(), strict=True)
        ]
    span_piece = new_index[span_piece]
    read = records.document or DocumentReading(
        instances="document", n_documents=n_rec, n_sentences=n_rec
    )
    document = dataclasses.replace(
        read,
        instances="sentence",
        splitter=splitter_name(language),
        n_sentences=int(keep.sum()),
        splits_moved=n_moved,
    )
    return SpanRecords(
        texts=pieces.filter(pl.Series(keep)).alias("text"),
        line=records.line[piece_rec],
        span_record=span_piece.astype(np.int64),
        span_start=g_start - starts[span_piece],
        span_end=g_end - starts[span_piece],
        span_type=records.span_type,
        names=names,
        ids=None if records.ids is None else [records.ids[r] for r in piece_rec.tolist()],
        document=document,
        base=starts - rec_start[piece_rec],
    )


def _pieces(
    texts: pl.Series, cuts: np.ndarray, rec_start: np.ndarray, rec_end: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, pl.Series]:
    """Cut records at global positions ``cuts`` (record starts included).

    Returns each piece's global start and end, its record, and its text.
    """
    starts = np.unique(cuts)
    piece_rec = np.searchsorted(rec_end, starts, side="right")
    inside = piece_rec < rec_end.size
    starts, piece_rec = starts[inside], piece_rec[inside]
    ends = np.minimum(np.append(starts[1:], np.iinfo(np.int64).max), rec_end[piece_rec])
    keep = ends > starts
    starts, ends, piece_rec = starts[keep], ends[keep], piece_rec[keep]
    pieces = texts.gather(piece_rec).str.slice(
        pl.Series(starts - rec_start[piece_rec]), pl.Series(ends - starts)
    )
    return starts, ends, piece_rec, pieces


def _move_out_of_mentions(cuts: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Move each cut inside a mention to that mention's end, in place; return which moved.

    Spans are sorted by start and the running maximum of their ends taken: a cut ``c`` is
    inside a mention exactly when the spans starting before it reach past it.
    """
    moved = np.zeros(cuts.size, dtype=bool)
    if cuts.size == 0 or start.size == 0:
        return moved
    order = np.argsort(start, kind="stable")
    s_sorted = start[order]
    reach = np.maximum.accumulate(end[order])
    while True:
        before = np.searchsorted(s_sorted, cuts, side="left")
        far = np.where(before > 0, reach[np.maximum(before - 1, 0)], -1)
        inside = far > cuts
        if not inside.any():
            return moved
        moved |= inside
        cuts[inside] = far[inside]
