"""Blind span review of NER flags in Label Studio: the package, and the corrected spans.

``benchcheck flag-spans`` flags entity spans; this module turns the *sentences* that hold a
flag into a Label Studio NER review and reads the reviewers' corrections back as a gold
span table (methods.md section 2, step 3, for spans).

**Export.** One task per flagged sentence (rows with ``flagged`` false, as tagger flags
below their threshold, are not reviewed): the sentence's tokens joined as benchcheck joins
them (:func:`benchcheck.data.scripts.join_tokens`: one space, none beside CJK) as ``text``,
and the sentence's *gold* spans as pre-annotations (``predictions``) that the reviewer
corrects: moves a boundary, changes a type, deletes a span or adds one. Nothing shows which
span was flagged or what the model said (blind); sentences are shuffled with
``numpy.random.default_rng(seed)`` as :func:`benchcheck.labels.review.build_review`
shuffles flags (``sample`` keeps a seeded subset; ``audit_sample`` mixes in sentences
without a flag, drawn with the same generator). Every task carries ``content_hash``
(:func:`benchcheck.labels.review.content_hash` of the review id and the text). The private
key keeps, per task, the split and sentence, the text, the character offset of every
token (``char_starts``/``char_ends``, end exclusive), the gold spans and the flags.

**Import.** Each reviewer's regions are mapped from characters back to tokens: Label
Studio counts UTF-16 code units (converted to characters where the text holds a character
beyond U+FFFF), whitespace at a region's edge is dropped, and a region whose ends are then
not a token's start and a token's end is refused (:class:`InputError` naming the task). A
skipped task (``was_cancelled``) is no answer; a submitted annotation with no region says
"no entity here". A sentence's gold spans are, by ``consensus``:

* ``unanimous`` (default): every reviewer answered and all marked the same spans
  (``experts_agree``; ``one_expert`` in a review with a single reviewer), else the
  sentence is ``unresolved`` (no gold);
* ``majority``: each span more than half of the reviewers who answered marked
  (``majority`` where they did not all agree); a span exactly half of them marked (a tie)
  leaves the sentence ``unresolved``;
* ``adjudicator``: the named reviewer's spans (``adjudicated``) where they disagree.

A span (start, end, type) *agrees* when every reviewer who answered the task marked it.
A flag is **confirmed** (the gold was wrong) when the gold span it disputes is not among the
sentence's corrected spans (changed or removed), or, for a flag without a gold span (a
``missing_annotation``: the model's span the gold lacks), when a corrected span overlaps the
model's; else **rejected**;
``unresolved`` with its sentence.

Pure: mappings and frames in, frames and frozen results out; the files are
:mod:`benchcheck.io.review`'s.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.scripts import (
    NO_SPACE,
    char_offset,
    char_table,
    join_tokens,
    utf16_offset,
)
from benchcheck.errors import InputError, UsageError
from benchcheck.labels.flags import normalise_flags
from benchcheck.labels.guidelines import Guidelines, default_guidelines
from benchcheck.labels.review import HASH_COLUMN, STRATA, content_hash

__all__ = [
    "SPAN_CONSENSUS",
    "SPAN_FLAG_COLUMNS",
    "Region",
    "SpanAnswers",
    "SpanReviewPackage",
    "SpanReviewSummary",
    "SpanTask",
    "build_span_review",
    "combine_span_review",
    "is_span_flags",
    "joined_offsets",
    "span_key_tasks",
]

#: Columns that make a flags table span flags (``benchcheck flag-spans -o``).
SPAN_FLAG_COLUMNS = ("sentence", "start", "end", "kind")
#: Consensus rules of a span review (crowd models are for one label per item).
SPAN_CONSENSUS = ("unanimous", "majority", "adjudicator")
_DECIDED = {"majority": "majority", "adjudicator": "adjudicated"}
#: The flag columns the key keeps (missing ones are null; extra ones are not kept).
_FLAG_FIELDS = (
    "id",
    "kind",
    "gold_start",
    "gold_end",
    "gold_type",
    "pred_start",
    "pred_end",
    "pred_type",
)
#: Key columns that mark a span review key.
SPAN_KEY_MARK = "char_starts"

Span = tuple[int, int, str]


def is_span_flags(columns: Sequence[str]) -> bool:
    """Whether a flags table holds span flags (:data:`SPAN_FLAG_COLUMNS`).

    >>> is_span_flags(["id", "text", "sentence", "start", "end", "kind", "error_score"])
    True
    >>> is_span_flags(["id", "text", "label", "llm_label", "flagged"])
    False
    """
    return set(SPAN_FLAG_COLUMNS) <= set(columns)


def joined_offsets(tokens: Sequence[str]) -> tuple[str, list[int], list[int]]:
    """Join tokens as :func:`~benchcheck.data.scripts.join_tokens` does; keep their offsets.

    Returns the text and every token's character offsets in it (start, end exclusive).

    >>> joined_offsets(["New", "York", "北", "京"])
    ('New York北京', [0, 4, 8, 9], [3, 8, 9, 10])
    """
    starts: list[int] = []
    ends: list[int] = []
    pieces: list[str] = []
    at = 0
    table = None if all(t.isascii() for t in tokens) else char_table()
    for k, token in enumerate(tokens):
        if k:
            prev = tokens[k - 1]
            spaced = table is None or not (
                (prev and table[ord(prev[-1])] & NO_SPACE)
                or (token and table[ord(token[0])] & NO_SPACE)
            )
            if spaced:
                pieces.append(" ")
                at += 1
        starts.append(at)
        pieces.append(token)
        at += len(token)
        ends.append(at)
    text = "".join(pieces)
    if text != join_tokens(list(tokens)):  # one joining rule: never two
        raise AssertionError("joined_offsets disagrees with join_tokens")
    return text, starts, ends


@dataclass(frozen=True)
class SpanTask:
    """One reviewed sentence: what the key keeps about it."""

    review_id: str
    content_hash: str
    stratum: str
    split: str
    sentence: int
    text: str
    char_starts: tuple[int, ...]
    char_ends: tuple[int, ...]
    gold: tuple[Span, ...]
    flags: tuple[Mapping[str, Any], ...]
    before: str = ""
    after: str = ""
    document: str | None = None

    def key_row(self) -> dict[str, Any]:
        """Return the task's line of ``key.jsonl``."""
        return {
            "review_id": self.review_id,
            HASH_COLUMN: self.content_hash,
            "stratum": self.stratum,
            "split": self.split,
            "sentence": self.sentence,
            "text": self.text,
            "char_starts": list(self.char_starts),
            "char_ends": list(self.char_ends),
            "gold_spans": [list(s) for s in self.gold],
            "flags": [dict(f) for f in self.flags],
        }

    def label_studio_task(self, number: int) -> dict[str, Any]:
        """Return the Label Studio task: the text, and the gold spans as pre-annotations."""
        result = []
        for k, (s, e, t) in enumerate(self.gold):
            a, b = self.char_starts[s], self.char_ends[e - 1]
            value = {
                "start": utf16_offset(self.text, a),
                "end": utf16_offset(self.text, b),
                "text": self.text[a:b],
                "labels": [t],
            }
            result.append(
                {
                    "id": f"g{k + 1}",
                    "from_name": "label",
                    "to_name": "text",
                    "type": "labels",
                    "value": value,
                }
            )
        return {
            "id": number,
            "data": {
                "review_id": self.review_id,
                HASH_COLUMN: self.content_hash,
                "text": self.text,
                "before": self.before,
                "after": self.after,
                "document": self.document or "",
            },
            "predictions": [{"model_version": "gold", "result": result}],
        }


@dataclass(frozen=True)
class SpanReviewPackage:
    """A blind span review in memory (:mod:`benchcheck.io.review` writes it)."""

    tasks: tuple[SpanTask, ...]
    types: tuple[str, ...]
    seed: int
    split: str
    n_flags: int
    n_flagged_sentences: int
    n_disputed: int
    n_audit: int
    n_undisputed: int
    guidelines: Guidelines | None = None

    @property
    def n_items(self) -> int:
        """Tasks (sentences) shown to each reviewer."""
        return len(self.tasks)

    @property
    def review_guidelines(self) -> Guidelines:
        """The guidelines given, over the NER default (:mod:`benchcheck.labels.guidelines`)."""
        default = default_guidelines("ner", self.types)
        return default if self.guidelines is None else self.guidelines.over(default)

    def guidelines_markdown(self) -> str:
        """Return the reviewers' guidelines (``guidelines.md``): task and entity types."""
        columns = {
            "document": "the document the sentence comes from",
            "before / after": "the sentences around it (context: not to be corrected)",
            "text": "the sentence to correct, its current spans pre-annotated",
        }
        return self.review_guidelines.to_markdown(self.types, columns)

    def label_studio_tasks(self) -> list[dict[str, Any]]:
        """Label Studio tasks in review order."""
        return [t.label_studio_task(i + 1) for i, t in enumerate(self.tasks)]

    def label_studio_config(self) -> str:
        """Label Studio NER interface: the task, the types, the sentence and its neighbours.

        Each type carries its meaning (``hint``, also listed); regions snap to whole words
        (``granularity="word"``).
        """
        g = self.review_guidelines
        esc = html.escape
        labels = "\n".join(
            f'    <Label value="{esc(t)}"'
            + (f' hint="{esc(found)}"' if (found := g.meaning(t)) else "")
            + "/>"
            for t in self.types
        )
        meanings = "\n".join(
            f'  <Header value="{esc(g.choice_text(t))}" size="6"/>' for t in self.types
        )
        return (
            "<View>\n"
            f'  <Header value="{esc(" ".join(g.task.split()))}" size="5"/>\n'
            f"{meanings}\n"
            '  <Header value="Document" size="6"/>\n'
            '  <Text name="document" value="$document"/>\n'
            '  <Text name="before" value="$before"/>\n'
            '  <Labels name="label" toName="text">\n'
            f"{labels}\n"
            "  </Labels>\n"
            '  <Text name="text" value="$text" granularity="word"/>\n'
            '  <Text name="after" value="$after"/>\n'
            "</View>\n"
        )

    def key_rows(self) -> list[dict[str, Any]]:
        """Return the private key, one row per task."""
        return [t.key_row() for t in self.tasks]


def _int_col(frame: pl.DataFrame, col: str) -> list[int | None]:
    return frame[col].cast(pl.Int64, strict=False).to_list()


def _flag_entry(row: Mapping[str, Any]) -> dict[str, Any]:
    """Return the key's record of one flag: its id, kind, the gold and model spans.

    The spans come from ``gold_start`` … ``pred_type`` where the flags have them, else from
    the id ``<sentence>:<gold start>-<gold end>|<model start>-<model end>`` (``-``: none)
    with ``label`` / ``llm_label`` as the types (``O``: none), as
    :func:`benchcheck.labels.ner_flags.span_review_frame` writes them.

    >>> entry = _flag_entry({"id": "3:-|3-4", "kind": "spurious", "label": "O",
    ...                      "llm_label": "LOC"})
    >>> entry["gold_start"], entry["pred_start"], entry["pred_end"], entry["pred_type"]
    (None, 3, 4, 'LOC')
    """
    entry: dict[str, Any] = {c: None if row.get(c) == "" else row.get(c) for c in _FLAG_FIELDS}
    entry["id"] = None if entry["id"] is None else str(entry["id"])
    if "gold_start" not in row and "pred_start" not in row:
        rid = entry["id"] or ""
        _, _, parts = rid.partition(":")
        gold_part, _, pred_part = parts.partition("|")
        for side, part, col in (("gold", gold_part, "label"), ("pred", pred_part, "llm_label")):
            a, sep, b = part.partition("-")
            if sep and a.strip().isdigit() and b.strip().isdigit():
                entry[f"{side}_start"], entry[f"{side}_end"] = int(a), int(b)
                typ = row.get(col)
                entry[f"{side}_type"] = None if typ in (None, "O") else str(typ)
    for c in ("gold_start", "gold_end", "pred_start", "pred_end"):
        entry[c] = None if entry[c] is None else int(entry[c])
    for c in ("gold_type", "pred_type", "kind"):
        entry[c] = None if entry[c] is None else str(entry[c])
    return entry


def build_span_review(
    flags: pl.DataFrame,
    tokens: pl.DataFrame,
    gold: pl.DataFrame,
    *,
    split: str,
    seed: int = 1,
    sample: int | None = None,
    audit_sample: int = 0,
    labels: Sequence[str] = (),
    guidelines: Guidelines | None = None,
    documents: Sequence[str | None] | None = None,
) -> SpanReviewPackage:
    """Build the Label Studio span review of the flagged sentences of one NER split.

    ``flags`` are span flags (:data:`SPAN_FLAG_COLUMNS`; other columns are tolerated, a
    ``flagged`` column selects, a ``split`` column must name ``split``); ``tokens`` the
    split's token table (``sentence``, ``position``, ``token``) and ``gold`` its span table
    (``sentence``, ``start``, ``end``, ``type``). The labels offered are the split's gold
    types, the model's types in the flags and ``labels``. ``guidelines`` go over the NER
    default; ``documents`` (one id per sentence, or None) give each task its document, and
    its context (the sentence before and after) never crosses a document's boundary.
    """
    if sample is not None and sample < 1:
        raise UsageError(f"{{sample}} must be >= 1, got {sample}")
    if audit_sample < 0:
        raise UsageError(f"{{audit_sample}} must be >= 0, got {audit_sample}")
    if not is_span_flags(flags.columns):
        raise InputError(f"not span flags: needs columns {list(SPAN_FLAG_COLUMNS)}")
    if "split" in flags.columns:
        other = sorted({str(v) for v in flags["split"].to_list() if v is not None} - {split})
        if other:
            raise InputError(
                f"span flags of split {other[0]!r}, but the NER file is split {split!r}"
            )
    flags = normalise_flags(flags)  # read back from CSV: true/false as booleans
    chosen_rows = flags
    if "flagged" in flags.columns:
        chosen_rows = flags.filter(pl.col("flagged").fill_null(False))
    sent_of_flag = _int_col(chosen_rows, "sentence")
    if any(s is None or s < 0 for s in sent_of_flag):
        raise InputError("a span flag without a valid sentence number")
    tok = tokens.select(pl.col("sentence").cast(pl.Int64), "position", "token").sort(
        "sentence", "position", maintain_order=True
    )
    words = tok.group_by("sentence", maintain_order=True).agg("token")
    words_of = dict(zip(words["sentence"].to_list(), words["token"].to_list(), strict=True))
    missing = sorted({s for s in sent_of_flag if s is not None and s not in words_of})
    if missing:
        raise InputError(f"a span flag names sentence {missing[0]}, which the NER file lacks")
    flagged = np.array(sorted({s for s in sent_of_flag if s is not None}), dtype=np.int64)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(flagged))
    if sample is not None:
        order = order[:sample]
    chosen = flagged[order]
    n_disputed = len(chosen)
    all_flag_sents = set(_int_col(flags, "sentence"))
    undisputed = np.array(sorted(s for s in words_of if s not in all_flag_sents), dtype=np.int64)
    if audit_sample > len(undisputed):
        raise UsageError(
            f"{{audit_sample}} ({audit_sample}) is more than the {len(undisputed)} "
            "sentences without a flag"
        )
    if audit_sample:
        audit = rng.choice(undisputed, size=audit_sample, replace=False)
        both = np.concatenate([chosen, audit])
        chosen = both[rng.permutation(len(both))]
    g = gold.select(
        pl.col("sentence").cast(pl.Int64),
        pl.col("start").cast(pl.Int64),
        pl.col("end").cast(pl.Int64),
        pl.col("type").cast(pl.String),
    ).sort("sentence", "start", "end", "type")
    gold_of: dict[int, list[Span]] = {}
    for s, a, b, t in g.iter_rows():
        gold_of.setdefault(s, []).append((a, b, t))
    flags_of: dict[int, list[dict[str, Any]]] = {}
    for row in chosen_rows.iter_rows(named=True):
        flags_of.setdefault(int(row["sentence"]), []).append(_flag_entry(row))
    disputed_set = {int(s) for s in flagged}
    tasks = []
    for k, s in enumerate(chosen.tolist()):
        rid = f"r{k + 1:04d}"
        text, starts, ends = joined_offsets([str(w) for w in words_of[s]])
        spans = tuple(gold_of.get(s, ()))
        for _, b, _ in spans:
            if b > len(starts):
                raise InputError(
                    f"a gold span of sentence {s} ends at token {b}, after its {len(starts)} tokens"
                )
        doc = None if documents is None or s >= len(documents) else documents[s]

        def neighbour(k: int, doc: str | None = doc) -> str:
            same = documents is None or (0 <= k < len(documents) and documents[k] == doc)
            return join_tokens([str(w) for w in words_of[k]]) if same and k in words_of else ""

        tasks.append(
            SpanTask(
                review_id=rid,
                content_hash=content_hash(rid, {"text": text}),
                stratum=STRATA[0] if s in disputed_set else STRATA[1],
                split=split,
                sentence=int(s),
                text=text,
                char_starts=tuple(starts),
                char_ends=tuple(ends),
                gold=spans,
                flags=tuple(flags_of.get(s, ())),
                before=neighbour(s - 1),
                after=neighbour(s + 1),
                document=doc,
            )
        )
    types = set(g["type"].to_list())
    for col in ("pred_type", "gold_type", "label", "llm_label"):
        if col in flags.columns:
            types |= {str(v) for v in flags[col].to_list() if v is not None}
    types |= set(labels)
    types.discard("O")
    return SpanReviewPackage(
        tasks=tuple(tasks),
        types=tuple(sorted(types)),
        seed=seed,
        split=split,
        n_flags=chosen_rows.height,
        n_flagged_sentences=len(flagged),
        n_disputed=n_disputed,
        n_audit=audit_sample,
        n_undisputed=len(undisputed),
        guidelines=guidelines,
    )


def span_key_tasks(
    rows: Sequence[Mapping[str, Any]], *, source: str | None = None
) -> list[SpanTask]:
    """Read the rows of a span review key back into tasks (refusing duplicate review ids)."""
    tasks: list[SpanTask] = []
    seen: set[str] = set()
    for line, row in enumerate(rows, start=1):
        try:
            rid = str(row["review_id"])
            task = SpanTask(
                review_id=rid,
                content_hash=str(row[HASH_COLUMN]),
                stratum=str(row.get("stratum") or STRATA[0]),
                split=str(row["split"]),
                sentence=int(row["sentence"]),
                text=str(row["text"]),
                char_starts=tuple(int(x) for x in row["char_starts"]),
                char_ends=tuple(int(x) for x in row["char_ends"]),
                gold=tuple((int(a), int(b), str(t)) for a, b, t in row["gold_spans"]),
                flags=tuple(dict(f) for f in row.get("flags") or ()),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(
                f"not a span review key row ({type(exc).__name__}: {exc})", path=source, line=line
            ) from None
        if rid in seen:
            raise InputError(
                "review_id given twice in the review key", path=source, line=line, got=rid
            )
        seen.add(rid)
        tasks.append(task)
    return tasks


@dataclass(frozen=True)
class Region:
    """One labelled region as Label Studio exports it (offsets in UTF-16 code units)."""

    start: int
    end: int
    label: str
    text: str | None = None


@dataclass(frozen=True)
class SpanAnswers:
    """One reviewer's regions per review id (``None``: skipped, or no annotation).

    ``hashes`` maps review ids to the export's ``content_hash``; ``where`` names each task
    for messages (``task 3 (review_id r0002)``).
    """

    name: str
    source: str
    regions: Mapping[str, tuple[Region, ...] | None]
    hashes: Mapping[str, str | None]
    where: Mapping[str, str] = field(default_factory=dict)
    #: what the reader of the file left out (drafts never submitted), counted
    notes: tuple[str, ...] = ()


def _token_span(task: SpanTask, region: Region, where: str, source: str) -> Span:
    """Map a region's characters to tokens ``[start, end)``; refuse one off token boundaries."""
    text = task.text
    a, b = region.start, region.end
    if any(ord(c) > 0xFFFF for c in text):
        shown = region.text
        if not (isinstance(shown, str) and text[a:b] == shown):
            a, b = char_offset(text, a), char_offset(text, b)
    if not 0 <= a < b <= len(text):
        raise InputError(
            f"{where}: region {region.start}-{region.end} ({region.label}) is outside the "
            f"text of {len(text)} characters",
            path=source,
        )
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    first = {c: k for k, c in enumerate(task.char_starts)}
    last = {c: k for k, c in enumerate(task.char_ends)}
    if a not in first or b not in last or first[a] > last[b]:
        raise InputError(
            f"{where}: region {region.start}-{region.end} {text[a:b]!r} ({region.label}) is "
            "not on token boundaries; mark whole tokens",
            path=source,
        )
    return first[a], last[b] + 1, region.label


@dataclass(frozen=True)
class SpanReviewSummary:
    """Outcome of a span review round (``to_dict`` is the JSON of ``review import``)."""

    experts: tuple[str, ...]
    consensus: str
    n_reviewed: int
    status_counts: dict[str, int]
    span_agreement: dict[str, Any]
    changes: dict[str, int]
    flag_counts: dict[str, int]
    flags: tuple[dict[str, Any], ...]
    spans: tuple[dict[str, Any], ...]
    unresolved_ids: tuple[str, ...]
    audited: int
    audit_errors: int
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "review": "spans",
            "consensus": self.consensus,
            "experts": list(self.experts),
            "n_reviewed": self.n_reviewed,
            "status_counts": dict(self.status_counts),
            "span_agreement": dict(self.span_agreement),
            "changes": dict(self.changes),
            "flag_counts": dict(self.flag_counts),
            "flags": [dict(f) for f in self.flags],
            "spans": [dict(s) for s in self.spans],
            "unresolved": len(self.unresolved_ids),
            "unresolved_ids": list(self.unresolved_ids),
            "audited": self.audited,
            "audit_errors": self.audit_errors,
            "warnings": list(self.warnings),
        }


def _check_belongs(answers: SpanAnswers, tasks: Mapping[str, SpanTask]) -> None:
    for rid in answers.regions:
        if rid not in tasks:
            raise InputError(
                "review_id not in the review key (an export of another review?)",
                path=answers.source,
                got=rid,
            )
        got = answers.hashes.get(rid)
        if got != tasks[rid].content_hash:
            raise InputError(
                f"{answers.where.get(rid, rid)}: its {HASH_COLUMN} (or its text) differs from "
                "the key's (an export of another review, or an edited text?)",
                path=answers.source,
            )


def _verdict(flag: Mapping[str, Any], gold: set[Span]) -> tuple[str, bool | None]:
    """Return the verdict (module docstring), and whether the model's span is gold."""
    ps, pe, pt = flag.get("pred_start"), flag.get("pred_end"), flag.get("pred_type")
    model = None if ps is None or pe is None else (int(ps), int(pe), str(pt)) in gold
    gs, ge, gt = flag.get("gold_start"), flag.get("gold_end"), flag.get("gold_type")
    if gs is not None and ge is not None:
        wrong = (int(gs), int(ge), str(gt)) not in gold
    elif ps is not None and pe is not None:
        wrong = any(a < int(pe) and int(ps) < b for a, b, _ in gold)
    else:
        wrong = False
    return ("confirmed" if wrong else "rejected"), model


def combine_span_review(
    tasks: Sequence[SpanTask],
    experts: Sequence[SpanAnswers],
    *,
    types: Sequence[str],
    consensus: str = "unanimous",
    adjudicator: str | None = None,
) -> tuple[pl.DataFrame, SpanReviewSummary]:
    """Corrected gold spans of a span review (module docstring), and the summary.

    Returns the gold span table (``review_id``, ``split``, ``sentence``, ``start``, ``end``
    exclusive, ``type``, ``status``, ``original``: the span was gold before, ``experts``:
    reviewers who marked it, ``stratum``: ``disputed`` for a flagged sentence,
    ``undisputed`` for an audit-sample one) of every resolved sentence, and a
    :class:`SpanReviewSummary`. A resolved sentence with no entity has one row whose
    ``start``, ``end``, ``type``, ``original`` and ``experts`` are null, so that every
    settled sentence is in the table (what ``stats --reviewed`` and ``remedy --spans`` read).

    >>> t = SpanTask("r0001", "h", "disputed", "test", 0, "Ann met Bob",
    ...              (0, 4, 8), (3, 7, 11), ((0, 1, "PER"),),
    ...              ({"id": "0:0-1|-", "kind": "missing", "gold_start": 0, "gold_end": 1,
    ...                "gold_type": "PER"},))
    >>> a = SpanAnswers("a", "x", {"r0001": (Region(0, 3, "PER"), Region(8, 11, "PER"))},
    ...                 {"r0001": "h"})
    >>> b = SpanAnswers("b", "x", {"r0001": (Region(0, 3, "PER"), Region(8, 11, "PER"))},
    ...                 {"r0001": "h"})
    >>> gold, s = combine_span_review([t], [a, b], types=["PER"])
    >>> gold.select("start", "end", "type", "original").rows()
    [(0, 1, 'PER', True), (2, 3, 'PER', False)]
    >>> s.flag_counts
    {'confirmed': 0, 'rejected': 1, 'unresolved': 0}
    """
    if not experts:
        raise UsageError("give at least one export")
    if consensus not in SPAN_CONSENSUS:
        raise UsageError(
            f"{{consensus}} must be one of {list(SPAN_CONSENSUS)} for a span review, got "
            f"{consensus!r}"
        )
    names = [e.name for e in experts]
    if (consensus == "adjudicator") != (adjudicator is not None):
        raise UsageError("{adjudicator} goes with {consensus} adjudicator, and only with it")
    if adjudicator is not None and adjudicator not in names:
        raise UsageError(f"{{adjudicator}} {adjudicator!r} is none of the reviewers {names}")
    dup = [n for n, c in Counter(names).items() if c > 1]
    if dup:
        raise UsageError(f"two reviewers are both named {dup[0]!r}; rename one file")
    by_id = {t.review_id: t for t in tasks}
    allowed = set(types)
    marked: dict[str, list[set[Span] | None]] = {t.review_id: [] for t in tasks}
    warnings: list[str] = list(dict.fromkeys(n for e in experts for n in e.notes))
    for e in experts:
        _check_belongs(e, by_id)
        answered = 0
        for t in tasks:
            regions = e.regions.get(t.review_id)
            if regions is None:
                marked[t.review_id].append(None)
                continue
            answered += 1
            where = e.where.get(t.review_id, f"review_id {t.review_id}")
            spans = set()
            for r in regions:
                if r.label not in allowed:
                    raise InputError(
                        f"{where}: label {r.label!r} is none of the review's types "
                        f"{sorted(allowed)}",
                        path=e.source,
                    )
                spans.add(_token_span(t, r, where, e.source))
            marked[t.review_id].append(spans)
        if answered == 0:
            raise InputError(
                f"reviewer {e.name!r} answered nothing (no submitted annotation of any of the "
                f"{len(tasks)} tasks)",
                path=e.source,
            )
        if answered < len(tasks):
            warnings.append(f"{e.name}: {len(tasks) - answered} task(s) skipped or not annotated")
    rows: list[dict[str, Any]] = []
    status_of: dict[str, str] = {}
    settled: dict[str, set[Span] | None] = {}
    span_rows: list[dict[str, Any]] = []
    flag_rows: list[dict[str, Any]] = []
    changes = Counter({"kept": 0, "added": 0, "removed": 0})
    for t in tasks:
        votes = marked[t.review_id]
        given = [v for v in votes if v is not None]
        union = sorted(set().union(*given)) if given else []
        for span in union:
            who = [n for n, v in zip(names, votes, strict=True) if v is not None and span in v]
            span_rows.append(
                {
                    "review_id": t.review_id,
                    "sentence": t.sentence,
                    "start": span[0],
                    "end": span[1],
                    "type": span[2],
                    "marked_by": who,
                    "agree": len(who) == len(given),
                }
            )
        gold: set[Span] | None
        if given and len(given) == len(votes) and all(v == given[0] for v in given):
            gold, status = set(given[0]), "experts_agree" if len(votes) > 1 else "one_expert"
        elif (
            consensus == "majority"
            and given
            and not any(2 * sum(s in v for v in given) == len(given) for s in union)
        ):
            gold = {s for s in union if 2 * sum(s in v for v in given) > len(given)}
            status = _DECIDED[consensus]
        elif consensus == "adjudicator" and votes[names.index(adjudicator or "")] is not None:
            gold = set(votes[names.index(adjudicator or "")] or ())
            status = _DECIDED[consensus]
        else:
            gold, status = None, "unresolved"
        status_of[t.review_id] = status
        settled[t.review_id] = gold
        before = set(t.gold)
        if gold is not None:
            changes["kept"] += len(before & gold)
            changes["added"] += len(gold - before)
            changes["removed"] += len(before - gold)
            for a, b, ty in sorted(gold):
                rows.append(
                    {
                        "review_id": t.review_id,
                        "split": t.split,
                        "sentence": t.sentence,
                        "start": a,
                        "end": b,
                        "type": ty,
                        "status": status,
                        "original": (a, b, ty) in before,
                        "experts": sum(1 for v in given if (a, b, ty) in v),
                        "stratum": t.stratum,
                    }
                )
            if not gold:  # settled with no entity: one row without a span says so
                rows.append(
                    {
                        "review_id": t.review_id,
                        "split": t.split,
                        "sentence": t.sentence,
                        "status": status,
                        "stratum": t.stratum,
                    }
                )
        for f in t.flags:
            verdict, model = ("unresolved", None) if gold is None else _verdict(f, gold)
            flag_rows.append(
                {
                    "id": f.get("id"),
                    "kind": f.get("kind"),
                    "review_id": t.review_id,
                    "verdict": verdict,
                    "prediction_in_gold": model,
                }
            )
    shown = (
        "experts_agree" if len(names) > 1 else "one_expert",
        *([_DECIDED[consensus]] if consensus in _DECIDED else []),
        "unresolved",
    )
    statuses = Counter(status_of.values())
    multi = [s for s in span_rows if len([v for v in marked[s["review_id"]] if v is not None]) >= 2]
    agreed = sum(1 for s in multi if s["agree"])
    schema = {
        "review_id": pl.String,
        "split": pl.String,
        "sentence": pl.Int64,
        "start": pl.Int64,
        "end": pl.Int64,
        "type": pl.String,
        "status": pl.String,
        "original": pl.Boolean,
        "experts": pl.Int64,
        "stratum": pl.String,
    }
    frame = pl.DataFrame(rows, schema=schema).sort(
        "split", "sentence", "start", "end", "type", nulls_last=False
    )
    audited = [t for t in tasks if t.stratum == STRATA[1]]
    audit_errors = sum(
        1 for t in audited if (g := settled[t.review_id]) is not None and g != set(t.gold)
    )
    summary = SpanReviewSummary(
        experts=tuple(names),
        consensus=consensus,
        n_reviewed=len(tasks),
        status_counts={s: statuses.get(s, 0) for s in shown},
        span_agreement={
            "spans": len(multi),
            "agreed": agreed,
            "percent": agreed / len(multi) if multi else None,
        },
        changes=dict(changes),
        flag_counts={
            v: sum(1 for f in flag_rows if f["verdict"] == v)
            for v in ("confirmed", "rejected", "unresolved")
        },
        flags=tuple(flag_rows),
        spans=tuple(span_rows),
        unresolved_ids=tuple(t.review_id for t in tasks if status_of[t.review_id] == "unresolved"),
        audited=len(audited),
        audit_errors=audit_errors,
        warnings=tuple(warnings),
    )
    return frame, summary
