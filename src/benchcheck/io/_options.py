"""The NER formats and reading options as data (no reader imported): see :mod:`.formats`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from benchcheck.errors import UsageError

#: The offset formats' tokenisers, span alignments and overlap policies
#: (see :mod:`benchcheck.io._spans`).
TOKENIZERS: tuple[str, ...] = ("unicode", "chars")
ALIGNS: tuple[str, ...] = ("strict", "expand", "contract")
OVERLAPS: tuple[str, ...] = ("error", "keep-longest", "keep-first")
#: Document formats' policies (see :mod:`benchcheck.io._documents`) and instances.
MULTI_TYPES: tuple[str, ...] = ("first", "all", "error")
DISCONTINUOUS: tuple[str, ...] = ("error", "merge", "drop")
OFFSET_CHECKS: tuple[str, ...] = ("error", "warn", "trim")
INSTANCES: tuple[str, ...] = ("document", "sentence")
MEDCAT_KEEP: tuple[str, ...] = ("all", "correct")
#: The fields ``spans-json`` maps (``--span-fields``), and their defaults.
SPAN_FIELDS: dict[str, str | None] = {
    "text": "text",
    "spans": "spans",
    "start": "start",
    "end": "end",
    "type": "label",
    "mention": None,
    "id": None,
}


def check_options(tokenizer: str, align: str, overlaps: str, **more: str | None) -> None:
    """Raise :class:`UsageError` for an unknown value of a reading policy.

    ``more`` takes the document formats' policies by parameter name (``multi_type``, ...).
    """
    allowed_of = {
        "tokenizer": TOKENIZERS,
        "align": ALIGNS,
        "overlaps": OVERLAPS,
        "multi_type": MULTI_TYPES,
        "discontinuous": DISCONTINUOUS,
        "offset_check": OFFSET_CHECKS,
        "instances": INSTANCES,
        "medcat_keep": MEDCAT_KEEP,
    }
    given = {"tokenizer": tokenizer, "align": align, "overlaps": overlaps, **more}
    for name, value in given.items():
        allowed = allowed_of[name]
        if value is not None and value not in allowed:
            raise UsageError(f"{{{name}}} must be one of {', '.join(allowed)}, got {value!r}")


def parse_pairs(items: Iterable[str], label: str) -> dict[str, str]:
    """Parse ``NAME=VALUE`` items into an ordered dict; errors name ``label``.

    ``label`` is how the message names the option: a flag (``--split``) or a parameter
    (``{span_fields}``, shown as its flag by the command line).

    >>> parse_pairs("text=full_text,start=pos.0".split(","), "{span_fields}")
    {'text': 'full_text', 'start': 'pos.0'}
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise UsageError(f"{label} expects NAME=VALUE, got {item!r}")
        if name in out:
            raise UsageError(f"{label}: name {name!r} given twice")
        out[name] = value
    return out


@dataclass(frozen=True)
class NerFormat:
    """One format: its name, what it is, the file suffixes it comes in, an example line."""

    name: str
    title: str
    suffixes: tuple[str, ...]
    example: str
    #: Read from text and character offsets (tokeniser, alignment and overlaps apply).
    offsets: bool = False
    #: Documents, not sentences: read as sentences unless ``instances="document"``.
    documents: bool = False


#: One example line (record) of each offset format, as its specification writes it.
_EX = {
    "cluener": '{"text": "浙商银行企业信贷部", "label": {"company": {"浙商银行": [[0, 3]]}}}',
    "doccano": '{"text": "EU rejects German call", "label": [[0, 2, "ORG"], [11, 17, "MISC"]]}',
    "label-studio": '[{"data": {"text": "EU rejects"}, "annotations": [{"result": [{"type": '
    '"labels", "value": {"start": 0, "end": 2, "labels": ["ORG"]}}]}]}]',
    "spacy": '{"text": "EU rejects", "spans": [{"start": 0, "end": 2, "label": "ORG"}]}',
    "pubtator": "25763772|t|DCTN4 as a modifier ... then 25763772|a|Pseudomonas aeruginosa ... "
    "then 25763772<TAB>0<TAB>5<TAB>DCTN4<TAB>T116,T123<TAB>C4308010",
    "brat": "doc.txt holds 'lung and liver cancer'; doc.ann: T1<TAB>Disease 0 4;15 21<TAB>lung "
    "cancer",
    "medcat": '{"projects": [{"documents": [{"name": "d1", "text": "Has fever", "annotations": '
    '[{"start": 4, "end": 9, "value": "fever", "cui": "C0015967", "correct": true}]}]}]}',
    "spans-json": "--span-fields text=full_text,spans=label,type=type,start=pos.0,end=pos.1 "
    '--inclusive-end: {"full_text": "EU rejects", "label": [{"type": "ORG", "pos": [0, 1]}]}',
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
            "pubtator",
            "PubTator documents (CDR, NCBI-disease, MedMentions): title and abstract lines, "
            "then one TAB-separated mention per line",
            (".pubtator", ".txt"),
            _EX["pubtator"],
            offsets=True,
            documents=True,
        ),
        NerFormat(
            "brat",
            "BRAT standoff: a folder of .txt + .ann pairs, or one .ann beside its .txt",
            (".ann",),
            _EX["brat"],
            offsets=True,
            documents=True,
        ),
        NerFormat(
            "medcat",
            "MedCATtrainer export (projects[].documents[].annotations[]; --medcat-keep)",
            (".json",),
            _EX["medcat"],
            offsets=True,
            documents=True,
        ),
        NerFormat(
            "spans-json",
            "any JSON array or JSON lines of texts with spans, fields named by --span-fields",
            (".json", ".jsonl", ".ndjson"),
            _EX["spans-json"],
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
    multi_type, discontinuous, offset_check
        Document formats: a mention with several types keeps the first, becomes one span per
        type (``all``) or is an error; a discontinuous BRAT span is an error, merged into
        the span from its first start to its last end, or dropped; a mention whose text in
        the file differs from the text at its offsets is an error, counted (``warn``) or,
        when only surrounding whitespace differs, moved to the stripped span (``trim``).
    instances, sentence_language
        ``document`` (one instance per record) or ``sentence`` (cut by ``sentencex`` in
        that language; see :mod:`benchcheck.io._sentences`). ``None``: sentences for the
        document formats (``FORMATS[...].documents``), records for the others.
    span_fields, inclusive_end
        ``spans-json``: where each field is (``text``, ``spans``, ``start``, ``end``,
        ``type``, and optionally ``mention`` and ``id``; dotted paths, list indices as
        numbers), and whether ``end`` is inclusive.
    medcat_keep
        ``all`` annotations not ``deleted`` (default), or only the ``correct`` ones (not
        ``killed``, ``correct`` not false).
    split_lists
        Split name → file of document ids, one per line: the documents of one file (or
        BRAT folder) divided into splits, as MedMentions and CDR publish them.

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
    multi_type: str = "first"
    discontinuous: str = "error"
    offset_check: str = "error"
    instances: str | None = None
    sentence_language: str = "en"
    span_fields: Mapping[str, str] = field(default_factory=dict)
    inclusive_end: bool = False
    medcat_keep: str = "all"
    split_lists: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.format is not None and self.format not in FORMATS:
            raise UsageError(
                f"unknown format {self.format!r}; expected one of {', '.join(FORMATS)}"
            )
        check_options(
            self.tokenizer,
            self.align,
            self.overlaps,
            multi_type=self.multi_type,
            discontinuous=self.discontinuous,
            offset_check=self.offset_check,
            instances=self.instances,
            medcat_keep=self.medcat_keep,
        )
        unknown = sorted(set(self.span_fields) - set(SPAN_FIELDS))
        if unknown:
            raise UsageError(
                f"{{span_fields}} names unknown field {unknown[0]!r}; expected some of "
                f"{', '.join(SPAN_FIELDS)}"
            )
        if not self.sentence_language.strip():
            raise UsageError("{sentence_language} must be a language code such as en")
        object.__setattr__(self, "span_fields", MappingProxyType(dict(self.span_fields)))
        object.__setattr__(self, "split_lists", MappingProxyType(dict(self.split_lists)))
        bad = [k for k, v in self.type_map.items() if not (isinstance(v, str) and v and k)]
        if bad:
            raise UsageError(
                f"{{type_map}} must map type names to non-empty type names, got {bad[0]!r}"
            )
        object.__setattr__(self, "type_map", MappingProxyType(dict(self.type_map)))

    def instances_for(self, fmt: str) -> str:
        """Return the instances a file of format ``fmt`` is read as (see ``instances``)."""
        if self.instances is not None:
            return self.instances
        known = FORMATS.get(fmt)
        return "sentence" if known is not None and known.documents else "document"

    def fields(self) -> dict[str, str | None]:
        """Return the ``spans-json`` field mapping: defaults overridden by ``span_fields``."""
        return {**SPAN_FIELDS, **self.span_fields}

    @property
    def renames(self) -> bool:
        """Whether entity types are renamed while reading."""
        return bool(self.type_map) or self.coarse_types

    def to_json(self) -> dict[str, Any]:
        """Return the renaming in the result's terms (``type_map`` of the stats JSON)."""
        return {"map": dict(self.type_map), "coarse_types": self.coarse_types}
