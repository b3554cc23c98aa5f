"""NER file formats: one table of names, readers and examples, and detection from the file.

:data:`FORMATS` lists every format :func:`benchcheck.io.load.load` reads, with one example
line each (the command line's help prints them). :func:`detect_format` tells a file's
format from its extension and, for JSON, its first record; ``format=`` overrides it.
:class:`NerOptions` carries the reading options (format, tokeniser, span alignment,
overlaps, type renaming) as one frozen value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from benchcheck.errors import InputError, UsageError

if TYPE_CHECKING:
    from benchcheck.data.model import Split

__all__ = ["FORMATS", "NerFormat", "NerOptions", "detect_format", "read_ner_file"]

#: The offset formats' tokenisers, span alignments and overlap policies
#: (see :mod:`benchcheck.io._spans`).
TOKENIZERS: tuple[str, ...] = ("unicode", "chars")
ALIGNS: tuple[str, ...] = ("strict", "expand", "contract")
OVERLAPS: tuple[str, ...] = ("error", "keep-longest", "keep-first")


def check_options(tokenizer: str, align: str, overlaps: str) -> None:
    """Raise :class:`UsageError` for an unknown tokeniser, alignment or overlap policy."""
    for value, allowed, name in (
        (tokenizer, TOKENIZERS, "tokenizer"),
        (align, ALIGNS, "align"),
        (overlaps, OVERLAPS, "overlaps"),
    ):
        if value not in allowed:
            raise UsageError(f"{{{name}}} must be one of {', '.join(allowed)}, got {value!r}")


@dataclass(frozen=True)
class NerFormat:
    """One format: its name, what it is, the file suffixes it comes in, an example line."""

    name: str
    title: str
    suffixes: tuple[str, ...]
    example: str
    #: Read from text and character offsets (tokeniser, alignment and overlaps apply).
    offsets: bool = False


#: One example line (record) of each offset format, as its specification writes it.
_EX = {
    "cluener": '{"text": "浙商银行企业信贷部", "label": {"company": {"浙商银行": [[0, 3]]}}}',
    "doccano": '{"text": "EU rejects German call", "label": [[0, 2, "ORG"], [11, 17, "MISC"]]}',
    "label-studio": '[{"data": {"text": "EU rejects"}, "annotations": [{"result": [{"type": '
    '"labels", "value": {"start": 0, "end": 2, "labels": ["ORG"]}}]}]}]',
    "spacy": '{"text": "EU rejects", "spans": [{"start": 0, "end": 2, "label": "ORG"}]}',
}
FORMATS: dict[str, NerFormat] = {
    f.name: f
    for f in (
        NerFormat(
            "conll",
            "CoNLL columns: token first, tag last, blank line between sentences",
            (".conll", ".txt", ".tsv", ".bio", ".iob", ".iob2", ".bmes", ".bioes", ".ner", ""),
            "EU\tNNP\tB-ORG",
        ),
        NerFormat(
            "jsonl",
            "JSON lines of tokens and tags (or ner_tags indices with label names)",
            (".jsonl", ".ndjson"),
            '{"tokens": ["EU", "rejects"], "tags": ["B-ORG", "O"]}',
        ),
        NerFormat(
            "cluener",
            "CLUENER 2020 JSON lines, inclusive offsets under type and surface",
            (".json", ".jsonl"),
            _EX["cluener"],
            offsets=True,
        ),
        NerFormat(
            "doccano",
            'doccano JSONL export: "label" [[start, end, type]] or "entities"',
            (".jsonl", ".json"),
            _EX["doccano"],
            offsets=True,
        ),
        NerFormat(
            "label-studio",
            "Label Studio JSON export (annotations[].result[].value) or JSON-MIN",
            (".json",),
            _EX["label-studio"],
            offsets=True,
        ),
        NerFormat(
            "spacy",
            "spaCy DocBin (.spacy, the spacy extra) or spaCy/Prodigy JSONL with spans",
            (".spacy", ".jsonl", ".json"),
            _EX["spacy"],
            offsets=True,
        ),
        NerFormat(
            "hf",
            "a HuggingFace Hub dataset (datasets.load_dataset; the hf extra): hf:NAME[:CONFIG]",
            (),
            "hf:conll2003",
        ),
    )
}


@dataclass(frozen=True)
class NerOptions:
    """How NER files are read, beyond the tagging scheme.

    Attributes
    ----------
    format
        A name of :data:`FORMATS`; ``None`` detects it per file (:func:`detect_format`).
    tokenizer, align, overlaps
        Offset formats: the tokeniser, the policy for spans off token boundaries and for
        overlapping spans (see :mod:`benchcheck.io._spans`).
    type_map, coarse_types
        Rename entity types (types not listed are kept), then cut them at the first ``.``.

    >>> NerOptions(format="bogus")
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: unknown format 'bogus'; expected one of conll, jsonl, ...

    """

    format: str | None = None
    tokenizer: str = "unicode"
    align: str = "strict"
    overlaps: str = "error"
    type_map: Mapping[str, str] = field(default_factory=dict)
    coarse_types: bool = False

    def __post_init__(self) -> None:
        if self.format is not None and self.format not in FORMATS:
            raise UsageError(
                f"unknown format {self.format!r}; expected one of {', '.join(FORMATS)}"
            )
        check_options(self.tokenizer, self.align, self.overlaps)
        bad = [k for k, v in self.type_map.items() if not (isinstance(v, str) and v and k)]
        if bad:
            raise UsageError(
                f"{{type_map}} must map type names to non-empty type names, got {bad[0]!r}"
            )
        object.__setattr__(self, "type_map", MappingProxyType(dict(self.type_map)))

    @property
    def renames(self) -> bool:
        """Whether entity types are renamed while reading."""
        return bool(self.type_map) or self.coarse_types

    def to_json(self) -> dict[str, Any]:
        """Return the renaming in the result's terms (``type_map`` of the stats JSON)."""
        return {"map": dict(self.type_map), "coarse_types": self.coarse_types}


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
                try:
                    return json.loads(text)
                except json.JSONDecodeError as exc:
                    raise InputError(f"invalid JSON ({exc.msg})", path=path, line=number) from None
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
    spans: dict[str, Any] = {
        "align": options.align,
        "overlaps": options.overlaps,
        "keep_tokens": keep_tokens,
        **rename,
    }
    reader = _offset_reader(fmt, path)
    if reader.__name__ != "read_docbin":
        spans["tokenizer"] = options.tokenizer
    return reader(path, name=name, **spans)


def _offset_reader(fmt: str, path: Path) -> Callable[..., Split]:
    if fmt == "cluener":
        from benchcheck.io.cluener import read_cluener

        return read_cluener
    if fmt == "doccano":
        from benchcheck.io.doccano import read_doccano

        return read_doccano
    if fmt == "label-studio":
        from benchcheck.io.label_studio import read_label_studio

        return read_label_studio
    from benchcheck.io import spacy_docs

    return (
        spacy_docs.read_docbin if path.suffix.lower() == ".spacy" else spacy_docs.read_spacy_jsonl
    )
