"""The NER formats and reading options as data (no reader imported): see :mod:`.formats`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from benchcheck.errors import UsageError

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
