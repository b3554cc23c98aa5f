"""NER file formats: one table of names, readers and examples, and detection from the file.

:data:`FORMATS` lists every format :func:`benchcheck.io.load.load` reads, with one example
line each (the command line's help prints them). :func:`detect_format` tells a file's
format from its extension and, for JSON, its first record; ``format=`` overrides it.
:class:`NerOptions` carries the reading options (format, tokeniser, span alignment,
overlaps, type renaming) as one frozen value.
"""

from __future__ import annotations

import json
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
)
from benchcheck.io._text import loads_json, read_text_file

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
    "read_ner_file",
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
        mapping = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{{type_map}} expects a JSON object: {exc.msg}") from None
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


def detect_format(path: Path) -> str:
    """Tell a file's NER format from its suffix and, for JSON, its first record.

    ``.spacy`` is a spaCy DocBin; ``.json``/``.jsonl``/``.ndjson`` are told apart by their
    first record (a JSON array: Label Studio; ``tokens`` with ``tags``/``ner_tags``: token
    JSONL; ``spans``: spaCy/Prodigy; ``entities`` or a ``label`` list: doccano; a ``label``
    object: CLUENER); anything else is CoNLL.
    """
    suffix = path.suffix.lower()
    if suffix == ".spacy":
        return "spacy"
    if suffix not in (".json", ".jsonl", ".ndjson"):
        return "conll"
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
    raise InputError(
        "cannot tell the NER format from the first record (expected tokens and tags, "
        '"spans", "entities", or a "label" list or object); give the format '
        f"({', '.join(n for n, f in FORMATS.items() if n != 'hf')})",
        path=path,
        line=1,
    )


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
    fmt = options.format or detect_format(path)
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
    from benchcheck.io._spans import spans_to_split

    return spans_to_split(
        _offset_records(fmt, path)(path),
        name=name,
        source=str(path),
        format=fmt,
        options=options,
        keep_tokens=keep_tokens,
    )


def _offset_records(fmt: str, path: Path) -> Callable[[Path], SpanRecords]:
    """Return the function that reads one offset format's file as span records."""
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
