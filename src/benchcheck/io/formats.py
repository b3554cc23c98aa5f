"""NER file formats: one table of names, readers and examples, and detection from the file.

:data:`FORMATS` lists every format :func:`benchcheck.io.load.load` reads, with one example
line each (the command line's help prints them). :func:`detect_format` tells a file's
format from its extension and, for JSON, its first record; ``format=`` overrides it.
:class:`NerOptions` carries the reading options (format, tokeniser, span alignment,
overlaps, type renaming) as one frozen value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.errors import InputError, UsageError
from benchcheck.io._options import (  # the data half, re-exported
    ALIGNS,
    FORMATS,
    OVERLAPS,
    TOKENIZERS,
    NerFormat,
    NerOptions,
    check_options,
    parse_pairs,
)
from benchcheck.io._text import HugeNumber, json_int, loads_json, read_text_file

if TYPE_CHECKING:
    from benchcheck.data.model import Split
    from benchcheck.io._spans import SpanRecords

__all__ = [
    "ALIGNS",
    "FORMATS",
    "OVERLAPS",
    "TOKENIZERS",
    "NerFormat",
    "NerOptions",
    "check_options",
    "detect_format",
    "parse_pairs",
    "read_ner_file",
    "read_records",
    "records_to_split",
    "read_type_map",
]


def read_type_map(value: str | None) -> dict[str, str]:
    """Parse an entity type map: a JSON object, or ``@FILE`` holding one (None: no renaming).

    >>> read_type_map('{"PER.NAM": "PER"}')
    {'PER.NAM': 'PER'}
    """
    if not value:
        return {}
    text = value
    if value.startswith("@"):
        return _type_map_file(Path(value[1:]))
    try:
        mapping = json.loads(text, parse_int=json_int)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{{type_map}} expects a JSON object: {exc.msg}") from None
    except HugeNumber as exc:
        raise UsageError(
            f"{{type_map}} expects a JSON object of type names; it holds an integer of "
            f"{len(exc.digits)} digits"
        ) from None
    except RecursionError:
        raise UsageError("{type_map} expects a JSON object of type names") from None
    if not isinstance(mapping, dict):
        raise UsageError(f"{{type_map}} expects a JSON object, got {text!r}")
    return mapping


def _type_map_file(path: Path) -> dict[str, str]:
    """Read a type map file (``--type-map @FILE``): a JSON object of type names."""
    mapping = loads_json(read_text_file(path), path)
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise InputError('expected a JSON object of type names, e.g. {"PER.NAM": "PER"}', path=path)
    return mapping


def detect_format(path: Path, *, span_fields: bool = False) -> str:
    """Tell a file's NER format from its suffix and, for JSON and text, its first record.

    A folder holding ``.ann`` files, or a ``.ann`` file, is BRAT; ``.pubtator``, or a text
    file whose first line is ``PMID|t|...``, is PubTator; ``.spacy`` is a spaCy DocBin.
    ``.json``/``.jsonl``/``.ndjson`` are a MedCATtrainer export when the object opens with
    ``"projects"``, span JSON when a field mapping is given (``span_fields``), else told
    apart by their first record (a JSON array: Label Studio; ``tokens`` with
    ``tags``/``ner_tags``: token JSONL; ``spans``: spaCy/Prodigy; ``entities`` or a
    ``label`` list: doccano; a ``label`` object: CLUENER); anything else is CoNLL.
    """
    suffix = path.suffix.lower()
    if path.is_dir():
        from benchcheck.io import brat

        if brat.has_ann(path):
            return "brat"
        raise InputError("a folder without .ann files; expected a BRAT folder or a file", path=path)
    if suffix == ".ann":
        return "brat"
    if suffix == ".pubtator":
        return "pubtator"
    if suffix == ".spacy":
        return "spacy"
    if suffix not in (".json", ".jsonl", ".ndjson"):
        from benchcheck.io.pubtator import looks_like_pubtator

        return "pubtator" if looks_like_pubtator(_first_line(path)) else "conll"
    if _MEDCAT.match(_head(path)):
        return "medcat"
    if span_fields:
        return "spans-json"
    head = _first_record(path)
    if head is None:
        return "label-studio"  # a JSON array
    if isinstance(head, dict):
        if "tokens" in head and ("tags" in head or "ner_tags" in head):
            return "jsonl"
        if "spans" in head:
            return "spacy"
        if "entities" in head or isinstance(head.get("label"), list):
            return "doccano"
        if isinstance(head.get("label"), dict):
            return "cluener"
        texts = [k for k, v in head.items() if isinstance(v, str) and k not in ("id", "label")]
        if "label" in head and len(texts) >= 2:
            a, b = texts[:2]
            raise InputError(
                f"the first record looks like a pair table, not NER (text fields {a!r} and "
                f"{b!r}, and a label): read it with {{task}} pair, {{text_a}} {a} and "
                f"{{text_b}} {b}",
                path=path,
                line=1,
            )
    raise InputError(
        "cannot tell the NER format from the first record (expected tokens and tags, "
        '"spans", "entities", or a "label" list or object); give the format '
        f"({', '.join(n for n, f in FORMATS.items() if n != 'hf')}), or name span fields "
        "with {span_fields}",
        path=path,
        line=1,
    )


#: A MedCATtrainer export opens with its "projects" key.
_MEDCAT = re.compile(rb'\s*(\xef\xbb\xbf)?\s*\{\s*"projects"\s*:')


def _head(path: Path, size: int = 4096) -> bytes:
    """Return a file's first bytes (``b""`` if it cannot be read: its reader says why)."""
    try:
        with path.open("rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def _first_line(path: Path) -> str:
    """Return a text file's first non-blank line (decoded leniently; "" if none in 64 KiB)."""
    head = _head(path, 1 << 16).decode("utf-8", errors="replace").lstrip("\ufeff")
    return next((ln for ln in head.splitlines() if ln.strip()), "")


def _first_record(path: Path) -> Any:
    """Return the first JSON line of a file, or ``None`` when the file is a JSON array."""
    try:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                text = raw.decode("utf-8", errors="replace").lstrip("\ufeff").strip()
                if not text:
                    continue
                if text.startswith("["):
                    return None
                return loads_json(text, path, line=number)
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a directory", path=path) from None
    raise InputError("empty file: expected JSON records", path=path)


def read_ner_file(
    path: Path,
    *,
    name: str,
    scheme: str | None = None,
    strict: bool = False,
    label_names: Any = None,
    keep_tokens: bool = True,
    options: NerOptions | None = None,
) -> Split:
    """Read one NER file in its given or detected format (the one dispatch of every reader)."""
    options = options or NerOptions()
    fmt = options.format or detect_format(path, span_fields=bool(options.span_fields))
    rename: dict[str, Any] = {"type_map": options.type_map, "coarse_types": options.coarse_types}
    if fmt == "conll":
        from benchcheck.io.conll import read_conll

        return read_conll(
            path, name=name, scheme=scheme, strict=strict, keep_tokens=keep_tokens, **rename
        )
    if fmt == "jsonl":
        from benchcheck.io.ner_jsonl import read_ner_jsonl

        return read_ner_jsonl(
            path, name=name, scheme=scheme, strict=strict, label_names=label_names, **rename
        )
    if fmt == "hf":
        raise UsageError("format hf reads a Hub dataset named hf:NAME, not a file")
    return records_to_split(
        read_records(path, fmt, options),
        name=name,
        source=str(path),
        fmt=fmt,
        options=options,
        keep_tokens=keep_tokens,
    )


def records_to_split(
    records: SpanRecords,
    *,
    name: str,
    source: str,
    fmt: str,
    options: NerOptions,
    keep_tokens: bool = True,
) -> Split:
    """Make span records a split: cut into sentences first where ``options`` ask for them.

    ``instances`` (``NerOptions.instances_for``): ``sentence`` — the default of the document
    formats — cuts each record by :func:`benchcheck.io._sentences.split_sentences`.
    """
    import numpy as np

    from benchcheck.io._ner import SHOWN_EMPTY, warn_empty, with_empty_records
    from benchcheck.io._spans import check_spans, record_name, spans_to_split

    blank: list[str] = []
    n_blank = 0
    if options.instances_for(fmt) == "sentence":
        from benchcheck.io._sentences import split_sentences

        check_spans(records, source)
        # A blank document gives no sentence: counted here, as the records left without
        # a token are by spans_to_split.
        empty = np.flatnonzero(
            (records.texts.fill_null("").str.strip_chars().str.len_chars() == 0).to_numpy()
        )
        n_blank = int(empty.size)
        blank = [record_name(records, int(k)) for k in empty[:SHOWN_EMPTY]]
        records = split_sentences(records, language=options.sentence_language)
    split = spans_to_split(
        records,
        name=name,
        source=source,
        format=fmt,
        options=options,
        keep_tokens=keep_tokens,
    )
    return warn_empty(with_empty_records(split, blank, count=n_blank))


def read_records(path: Path, fmt: str, options: NerOptions) -> SpanRecords:
    """Read one offset format's file (or BRAT folder) as span records."""
    if fmt in ("pubtator", "brat", "medcat", "spans-json"):
        import importlib

        module = {"spans-json": "span_json"}.get(fmt, fmt)
        reader = importlib.import_module(f"benchcheck.io.{module}")
        return reader.records(path, options)  # type: ignore[no-any-return]
    return _offset_records(fmt, path)(path)


def _offset_records(fmt: str, path: Path) -> Callable[[Path], SpanRecords]:
    """Return the function that reads one sentence-level offset format's file."""
    if fmt == "cluener":
        from benchcheck.io import cluener

        return cluener.records
    if fmt == "doccano":
        from benchcheck.io import doccano

        return doccano.records
    if fmt == "label-studio":
        from benchcheck.io import label_studio

        return label_studio.records
    from benchcheck.io import spacy_docs

    return (
        spacy_docs.docbin_records if path.suffix.lower() == ".spacy" else spacy_docs.jsonl_records
    )
