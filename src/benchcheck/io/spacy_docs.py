"""spaCy's DocBin (``.spacy``, needs the ``spacy`` extra) and spaCy/Prodigy JSON lines.

A DocBin holds tokenised ``Doc`` objects: each doc is a record, its tokens are the file's
own (no re-tokenisation) and its entities ``doc.ents``. The JSON lines are Prodigy's and
spaCy's training shape: ``{"text": ..., "tokens": [{"text", "start", "end"}, ...],
"spans": [{"start": s, "end": e, "label": "PER"}, ...]}`` with character offsets, end
exclusive; ``tokens`` is optional (without it the text is tokenised), and a line whose
``answer`` is ``"reject"`` or ``"ignore"`` (Prodigy's review decisions) is skipped.
Both go through :mod:`benchcheck.io._spans`.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from benchcheck.errors import InputError, require
from benchcheck.io._decoded import inflate
from benchcheck.io._spans import (
    RecordCollector,
    SpanRecords,
    decode_lines,
    read_bytes,
)
from benchcheck.io._text import read_file_bytes


class _Span(msgspec.Struct):
    start: int
    end: int
    label: str
    #: Prodigy's indices of the span's first and last token (inclusive), when given.
    token_start: int | None = None
    token_end: int | None = None


class _Token(msgspec.Struct):
    start: int
    end: int


class _Line(msgspec.Struct):
    text: str
    spans: list[_Span] | None = None
    tokens: list[_Token] | None = None
    answer: str | None = None


_DECODER = msgspec.json.Decoder(_Line)
_EXPECTED = (
    'an object with "text", "spans" [{"start", "end", "label"}, ...] and, optionally, '
    '"tokens" [{"start", "end"}, ...]'
)


def _keys(row: _Line) -> int:
    """Count the keys of one decoded line (its fields, and those of each span and token)."""
    spans = 0
    if row.spans is not None:
        spans = 1 + sum(
            3 + (x.token_start is not None) + (x.token_end is not None) for x in row.spans
        )
    tokens = 0 if row.tokens is None else 1 + 2 * len(row.tokens)
    return 1 + spans + tokens + (row.answer is not None)


def docbin_records(path: str | Path) -> SpanRecords:
    """Read a spaCy DocBin (``.spacy``) as span records: its own tokens, ``doc.ents``."""
    path = Path(path)
    require("spacy", "spacy")
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    data = read_file_bytes(path)
    # DocBin.from_bytes inflates whole: measure the inflation first, bounded as it inflates.
    inflate(data, path, what="the DocBin")
    try:
        docs = list(DocBin().from_bytes(data).get_docs(Vocab()))
    except Exception as exc:  # noqa: BLE001 - any msgpack/spaCy error is a bad file here
        raise InputError(f"cannot read as a spaCy DocBin: {exc}", path=path) from None
    out = RecordCollector()
    for k, doc in enumerate(docs, start=1):
        spans = [(ent.start_char, ent.end_char, ent.label_) for ent in doc.ents]
        record = out.add(doc.text, 0, f"doc {k}", spans=spans)
        for token in doc:
            if not token.is_space:
                out.token(record, token.idx, token.idx + len(token.text), token.text)
    return out.records(given_tokens="spacy: the DocBin's own tokens")


def jsonl_records(path: str | Path) -> SpanRecords:
    """Read spaCy/Prodigy JSON lines (``text``, ``spans``, optional ``tokens``)."""
    path = Path(path)
    out = RecordCollector()
    with_tokens: bool | None = None
    rows, lines = decode_lines(read_bytes(path), _DECODER, path, _EXPECTED, keys=_keys)
    decided: list[int] = []  # lines Prodigy's review rejected or ignored: counted, said
    for number, row in zip(lines, rows, strict=True):
        if row.answer in ("reject", "ignore"):
            decided.append(number)
            continue
        has_tokens = row.tokens is not None
        if with_tokens is None:
            with_tokens = has_tokens
        elif with_tokens != has_tokens:
            raise InputError(
                '"tokens" on some lines only; expected every line with its tokens or none',
                path=path,
                line=number,
            )
        spans = [(x.start, x.end, x.label) for x in row.spans or ()]
        record = out.add(row.text, number, spans=spans)
        if row.tokens is not None:
            _tokens(out, record, row.tokens, row.text, path, number)
            _check_token_indices(row.spans or [], row.tokens, path, number)
    _warn_decided(path, decided)
    return out.records(given_tokens='the file\'s "tokens"' if with_tokens else None)


def _warn_decided(path: Path, lines: list[int]) -> None:
    """Say in one warning how many lines were left out as rejected or ignored, and where."""
    import warnings

    from benchcheck.errors import DataWarning
    from benchcheck.io._ner import SHOWN_EMPTY

    if not lines:
        return
    shown = ", ".join(f"line {k}" for k in lines[:SHOWN_EMPTY])
    more = ", ..." if len(lines) > SHOWN_EMPTY else ""
    what = "lines" if len(lines) > 1 else "line"
    warnings.warn(
        DataWarning(
            f'{path}: {len(lines):,} {what} marked "answer": "reject" or "ignore" left out '
            f"(Prodigy's review decisions): {shown}{more}"
        ),
        stacklevel=3,
    )


def _check_token_indices(spans: list[_Span], tokens: list[_Token], path: Path, line: int) -> None:
    """Refuse a span whose ``token_start``/``token_end`` disagree with its character offsets.

    The two describe the same span twice; when they differ one of them is wrong, and which
    one the annotator meant cannot be told.
    """
    for x in spans:
        if x.token_start is None and x.token_end is None:
            continue
        first = x.token_start if x.token_start is not None else x.token_end
        last = x.token_end if x.token_end is not None else x.token_start
        assert first is not None and last is not None
        if not (0 <= first <= last < len(tokens)):
            raise InputError(
                f"span [{x.start}, {x.end}) {x.label!r} names tokens {first}..{last}, outside "
                f"the line's {len(tokens)} tokens",
                path=path,
                line=line,
            )
        if tokens[first].start != x.start or tokens[last].end != x.end:
            raise InputError(
                f"span [{x.start}, {x.end}) {x.label!r} disagrees with its token_start/"
                f"token_end ({first}..{last} cover [{tokens[first].start}, "
                f"{tokens[last].end})); expected offsets and token indices of one span",
                path=path,
                line=line,
            )


def _tokens(
    out: RecordCollector, record: int, tokens: list[_Token], text: str, path: Path, line: int
) -> None:
    """Add a line's given tokens: in order, not overlapping, inside the text."""
    end_before = 0
    for tok in tokens:
        start, end = tok.start, tok.end
        if not end_before <= start < end <= len(text):
            raise InputError(
                f"token [{start}, {end}) is out of order, empty or past the end of the text; "
                "expected tokens in order inside the text",
                path=path,
                line=line,
            )
        end_before = end
        piece = text[start:end]
        if piece.strip():  # spaCy keeps runs of spaces as tokens: they are no tokens here
            out.token(record, start, end, piece)
