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

from collections.abc import Mapping
from pathlib import Path

from benchcheck.data.model import Split
from benchcheck.errors import InputError, require
from benchcheck.io._spans import (
    Align,
    Overlaps,
    RecordCollector,
    Tokenizer,
    is_offset,
    spans_to_split,
)
from benchcheck.io.tables import json_lines, read_utf8


def read_docbin(
    path: str | Path,
    *,
    name: str | None = None,
    align: Align = "strict",
    overlaps: Overlaps = "error",
    type_map: Mapping[str, str] | None = None,
    coarse_types: bool = False,
    keep_tokens: bool = True,
) -> Split:
    """Read a spaCy DocBin (``.spacy``) into an NER split: its own tokens, ``doc.ents``."""
    path = Path(path)
    require("spacy", "spacy")
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a directory", path=path) from None
    try:
        docs = list(DocBin().from_bytes(data).get_docs(Vocab()))
    except Exception as exc:  # noqa: BLE001 - any msgpack/spaCy error is a bad file here
        raise InputError(f"cannot read as a spaCy DocBin: {exc}", path=path) from None
    out = RecordCollector()
    for k, doc in enumerate(docs, start=1):
        record = out.add(doc.text, 0, f"doc {k}")
        for token in doc:
            if not token.is_space:
                out.token(record, token.idx, token.idx + len(token.text), token.text)
        for ent in doc.ents:
            out.span(record, ent.start_char, ent.end_char, ent.label_)
    return spans_to_split(
        out.records(given_tokens="spacy: the DocBin's own tokens"),
        name=name or path.stem,
        source=str(path),
        format="spacy",
        align=align,
        overlaps=overlaps,
        type_map=type_map,
        coarse_types=coarse_types,
        keep_tokens=keep_tokens,
    )


def read_spacy_jsonl(
    path: str | Path,
    *,
    name: str | None = None,
    tokenizer: Tokenizer = "unicode",
    align: Align = "strict",
    overlaps: Overlaps = "error",
    type_map: Mapping[str, str] | None = None,
    coarse_types: bool = False,
    keep_tokens: bool = True,
) -> Split:
    """Read spaCy/Prodigy JSON lines (``text``, ``spans``, optional ``tokens``)."""
    path = Path(path)
    out = RecordCollector()
    with_tokens: bool | None = None
    for number, row in json_lines(read_utf8(path), path):
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            raise InputError('expected an object with a "text" string', path=path, line=number)
        if row.get("answer") in ("reject", "ignore"):
            continue
        text = row["text"]
        has_tokens = "tokens" in row
        if with_tokens is None:
            with_tokens = has_tokens
        elif with_tokens != has_tokens:
            raise InputError(
                '"tokens" on some lines only; expected every line with its tokens or none',
                path=path,
                line=number,
            )
        record = out.add(text, number)
        if has_tokens:
            _tokens(out, record, row["tokens"], text, path, number)
        spans = row.get("spans") or []
        if not isinstance(spans, list) or not all(
            isinstance(x, dict)
            and is_offset(x.get("start"))
            and is_offset(x.get("end"))
            and isinstance(x.get("label"), str)
            for x in spans
        ):
            raise InputError(
                '"spans" must be a list of {"start", "end", "label"}', path=path, line=number
            )
        for x in sorted(spans, key=lambda x: (x["start"], x["end"], x["label"])):
            out.span(record, x["start"], x["end"], x["label"])
    return spans_to_split(
        out.records(given_tokens='the file\'s "tokens"' if with_tokens else None),
        name=name or path.stem,
        source=str(path),
        format="spacy",
        tokenizer=tokenizer,
        align=align,
        overlaps=overlaps,
        type_map=type_map,
        coarse_types=coarse_types,
        keep_tokens=keep_tokens,
    )


def _tokens(
    out: RecordCollector, record: int, tokens: object, text: str, path: Path, line: int
) -> None:
    """Add a line's given tokens: in order, not overlapping, inside the text."""
    if not isinstance(tokens, list):
        raise InputError(
            '"tokens" must be a list of {"text", "start", "end"}', path=path, line=line
        )
    end_before = 0
    for tok in tokens:
        if not (
            isinstance(tok, dict) and is_offset(tok.get("start")) and is_offset(tok.get("end"))
        ):
            raise InputError(
                'expected each token as {"text", "start", "end"}', path=path, line=line, got=tok
            )
        start, end = tok["start"], tok["end"]
        if not end_before <= start < end <= len(text):
            raise InputError(
                f"token [{start}, {end}) is out of order, empty or past the end of the text; "
                "expected tokens in order inside the text",
                path=path,
                line=line,
                got=tok,
            )
        piece = text[start:end]
        if not piece.strip():
            end_before = end
            continue  # a whitespace token (spaCy keeps runs of spaces as tokens)
        out.token(record, start, end, piece)
        end_before = end
