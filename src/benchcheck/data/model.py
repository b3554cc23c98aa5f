"""The dataset model: a frozen set of named splits over columnar (polars) tables.

Task kinds and the columns their instance table carries:

- ``ner``: ``sentence`` (0-based index), ``line`` (first line in the file), ``n_tokens``,
  ``x_hash`` (hash of the token sequence), ``xy_hash`` (tokens and tags), ``n_entities``;
  plus a token table (``sentence``, ``position``, ``token``, ``tag``, ``token_hash``) and a
  span table (``sentence``, ``start``, ``end``, ``type``, ``surface``, ``surface_hash``),
  decoded once when the split is read.
- ``classification``: ``id``, ``text``, ``label``.
- ``pair``: ``id``, ``text_a``, ``text_b``, ``label``.
- ``mcq``: the classification columns (``text`` is the question, ``label`` the key's
  letter) plus ``options`` (list of strings), ``key`` (0-based index) and ``group``
  (see :mod:`benchcheck.data.mcq`).

Hashes are 64-bit and order-sensitive (each token's hash is mixed with its position before
the sentence sum); two different sequences collide with probability about 2**-64 per pair,
i.e. below 1e-7 for ten million distinct sentences. An NER ``xy_hash`` combines the token
sequence's hash with the tag sequence's hash (``mix64(x ^ mix64(tags ^ K))``, as a
classification ``xy_hash`` combines the text's hash with the label's), so one sentence
with two taggings gets two ``xy_hash`` values and one ``x_hash``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Literal, TypeVar

import polars as pl

_T = TypeVar("_T")
TaskKind = Literal["ner", "classification", "pair", "mcq"]
TASK_KINDS: tuple[TaskKind, ...] = ("ner", "classification", "pair", "mcq")

#: Canonical split names, and the file-name words that map onto them.
SPLIT_ALIASES: dict[str, str] = {
    "train": "train",
    "training": "train",
    "dev": "dev",
    "valid": "dev",
    "validation": "dev",
    "val": "dev",
    "testa": "dev",
    "test": "test",
    "testb": "test",
}


def in_split_order(found: Mapping[str, _T]) -> dict[str, _T]:
    """Order a split mapping train, dev, test, then the others as found.

    >>> list(in_split_order({"test": 1, "extra": 2, "train": 3}))
    ['train', 'test', 'extra']
    """
    order = {"train": 0, "dev": 1, "test": 2}
    return dict(sorted(found.items(), key=lambda kv: order.get(kv[0], 3)))


def split_name_of(path: PurePath) -> str | None:
    """Return the canonical split a file name points to, or None.

    The words of the name (runs of letters) are looked up in :data:`SPLIT_ALIASES`; a name
    with words of two different splits points to none.

    >>> names = ("eng.testa", "wnut17_train.conll", "notes.txt")
    >>> tuple(split_name_of(PurePath(n)) for n in names)
    ('dev', 'train', None)
    """
    words = [w for w in re.split(r"[^a-z]+", path.name.lower()) if w]
    found = {SPLIT_ALIASES[w] for w in words if w in SPLIT_ALIASES}
    return found.pop() if len(found) == 1 else None


def file_split_name(path: PurePath) -> str:
    """Return the name of the split one file holds: its canonical split, else its stem.

    The one rule for every reader and command that names a split after its file, so
    ``flag-spans``, ``stats --reviewed`` and the folder reader agree on ``eng.testb``.

    >>> file_split_name(PurePath("conll2003/eng.testb")), file_split_name(PurePath("a.conll"))
    ('test', 'a')
    """
    return split_name_of(path) or path.stem


@dataclass(frozen=True)
class DocumentReading:
    """How a document-level file (PubTator, BRAT, MedCAT, span JSON) became instances.

    ``instances`` is ``document`` (one instance per document) or ``sentence`` (documents cut
    by ``splitter``; a cut inside a mention moves to the mention's end, counted as
    ``splits_moved``). The reading policies (``multi_type``, ``discontinuous``,
    ``offset_check``) are recorded with what they changed: ``multi_type_mentions`` (mentions
    with several types), ``discontinuous_spans``, ``offset_mismatches`` (mentions whose text
    differs from the file's text at their offsets) and ``offsets_trimmed`` (moved to the
    whitespace-stripped span). ``skipped`` counts the lines that are not entity mentions
    (relations, events, attributes, notes) by kind; ``rejected`` lists the annotations a
    reviewer rejected (MedCAT ``killed`` or not ``correct``), with ``reviewed`` saying which
    of them were kept (``medcat_keep``). A policy the format has no use for is ``None``.
    """

    instances: str
    n_documents: int
    n_sentences: int
    splitter: str | None = None
    splits_moved: int = 0
    multi_type: str | None = None
    multi_type_mentions: int = 0
    discontinuous: str | None = None
    discontinuous_spans: int = 0
    offset_check: str | None = None
    offset_mismatches: int = 0
    offsets_trimmed: int = 0
    skipped: Mapping[str, int] = field(default_factory=dict)
    medcat_keep: str | None = None
    rejected: tuple[Mapping[str, object], ...] = ()

    def to_json(self) -> dict[str, object]:
        """Return the keys this adds to a split's ``reading`` object."""
        out: dict[str, object] = {
            "instances": self.instances,
            "splitter": self.splitter,
            "n_documents": self.n_documents,
            "n_sentences": self.n_sentences,
            "splits_moved": self.splits_moved,
            "multi_type": self.multi_type,
            "multi_type_mentions": self.multi_type_mentions,
            "discontinuous": self.discontinuous,
            "discontinuous_spans": self.discontinuous_spans,
            "offset_check": self.offset_check,
            "offset_mismatches": self.offset_mismatches,
            "offsets_trimmed": self.offsets_trimmed,
            "skipped": dict(sorted(self.skipped.items())),
        }
        if self.medcat_keep is not None:
            out["medcat_keep"] = self.medcat_keep
            out["rejected"] = [dict(r) for r in self.rejected]
        return out


@dataclass(frozen=True)
class SpanReading:
    """How a split read from text and character offsets became tokens and tags.

    ``tokenization`` names the rule that cut the text (see :mod:`benchcheck.io._spans`);
    ``align`` and ``overlaps`` the policies used for spans off token boundaries and for
    overlapping spans; ``span_alignments`` counts spans moved onto token boundaries,
    ``spans_dropped`` those left with no token by the move, ``overlapping_spans`` the spans
    dropped because they overlapped a kept one.
    """

    format: str
    tokenization: str
    align: str = "strict"
    overlaps: str = "error"
    n_spans: int = 0
    span_alignments: int = 0
    spans_dropped: int = 0
    overlapping_spans: int = 0
    #: Document-level formats (and ``instances="sentence"``): how documents were read.
    document: DocumentReading | None = None

    def __add__(self, other: SpanReading) -> SpanReading:
        """Combine the readings of two parts of one split (counts add up)."""
        return SpanReading(
            document=self.document or other.document,
            format=self.format,
            tokenization=self.tokenization,
            align=self.align,
            overlaps=self.overlaps,
            n_spans=self.n_spans + other.n_spans,
            span_alignments=self.span_alignments + other.span_alignments,
            spans_dropped=self.spans_dropped + other.spans_dropped,
            overlapping_spans=self.overlapping_spans + other.overlapping_spans,
        )

    def to_json(self) -> dict[str, object]:
        """Return the JSON object the statistics print under a split's ``reading``."""
        return {
            "format": self.format,
            "tokenization": self.tokenization,
            "align": self.align,
            "overlaps": self.overlaps,
            "n_spans": self.n_spans,
            "span_alignments": self.span_alignments,
            "spans_dropped": self.spans_dropped,
            "overlapping_spans": self.overlapping_spans,
            **(self.document.to_json() if self.document is not None else {}),
        }


@dataclass(frozen=True)
class Split:
    """One named split.

    ``table`` has one row per instance; ``tokens`` and ``spans`` are set for NER only.
    ``tag_repairs`` counts invalid tag transitions that were repaired the way seqeval reads
    them (0 for other task kinds).
    """

    name: str
    source: str
    table: pl.DataFrame
    tokens: pl.DataFrame | None = None
    spans: pl.DataFrame | None = None
    scheme: str | None = None
    tag_repairs: int = 0
    #: Invalid transitions under each scheme (NER), kept so that parts read separately
    #: (streamed chunks, shards) combine into exactly the whole file's scheme and repairs.
    scheme_violations: Mapping[str, int] = field(default_factory=dict)
    #: NER: each tag prefix letter met, with the first (line, tag) holding it; parts read
    #: separately combine into the whole file's (the check that a file keeps one scheme).
    tag_letters: Mapping[str, tuple[int, str]] = field(default_factory=dict)
    #: NER: entity types renamed while reading (original → name used); empty when none were.
    type_map: Mapping[str, str] = field(default_factory=dict)
    #: NER read from character offsets: how the text became tokens (None otherwise).
    reading: SpanReading | None = None
    #: NER: records of the file holding no token (an empty text, no tokens), so no
    #: instance: how many, and where the first few are (``line 3``); reported, never
    #: dropped without a word.
    empty_records: int = 0
    empty_at: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        """Number of instances."""
        return self.table.height

    def __repr__(self) -> str:
        """Name, size and source; the tables are attributes (``split.table``)."""
        return f"<Split {self.name!r}: {self.n:,} instances from {self.source!r}>"


@dataclass(frozen=True)
class Dataset:
    """A dataset: a task kind and its named splits (``train``, ``dev``, ``test`` or any name)."""

    task: TaskKind
    splits: Mapping[str, Split]
    name: str = "dataset"
    label_names: tuple[str, ...] | None = None
    meta: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.task not in TASK_KINDS:
            raise ValueError(f"task must be one of {TASK_KINDS}, got {self.task!r}")

    def __getitem__(self, name: str) -> Split:
        return self.splits[name]

    def __repr__(self) -> str:
        """One line: name, task and each split's size (the tables stay out of it).

        >>> import polars as pl
        >>> split = Split("test", "t.jsonl", pl.DataFrame({"id": [1, 2]}))
        >>> Dataset("classification", {"test": split}, name="toy")
        <Dataset 'toy' (classification): test 2>
        """
        sizes = ", ".join(f"{s.name} {s.n:,}" for s in self.splits.values()) or "no splits"
        return f"<Dataset {self.name!r} ({self.task}): {sizes}>"

    def __contains__(self, name: object) -> bool:
        return name in self.splits

    def __iter__(self) -> Iterator[Split]:
        return iter(self.splits.values())

    @property
    def split_names(self) -> list[str]:
        """The split names, in reading order."""
        return list(self.splits)
