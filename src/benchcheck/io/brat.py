"""BRAT standoff: ``doc.txt`` + ``doc.ann`` pairs, one document per pair.

An ``.ann`` file holds one annotation per line, its kind in the first letter of its id
(brat's standoff specification):

* ``T1<TAB>Type start end[;start end]...<TAB>text``: a text-bound annotation. Fragments
  are character offsets into ``doc.txt`` (end exclusive); several make a discontinuous
  span (``discontinuous`` decides), whose text column joins the fragments with one space.
  The text column is checked against ``doc.txt`` (``offset_check``).
* ``E``: an event, ``R``: a relation, ``A``/``M``: an attribute, ``N``: a normalisation,
  ``*``: an equivalence, ``#``: a note. None is an entity mention: each is skipped and
  counted under ``skipped``. A ``T`` annotation that is an event's trigger (``E1<TAB>
  Phosphorylation:T5 ...``) is an event, not an entity: it is skipped as ``trigger``.

A corpus is a folder of pairs (read recursively, in path order; a document's id is its path
without the suffix), or one ``.ann`` beside its ``.txt``. A ``.ann`` without its ``.txt`` is
an error; a ``.txt`` without a ``.ann`` is an unannotated document, skipped and counted.
A folder with no ``.ann`` but ``train``/``dev``/``test`` subfolders that have them is a
corpus of splits (:func:`split_folders`).
"""

from __future__ import annotations

from pathlib import Path

from benchcheck.data.model import SPLIT_ALIASES, in_split_order
from benchcheck.errors import InputError
from benchcheck.io._documents import OFFSET, DocumentCollector
from benchcheck.io._options import NerOptions
from benchcheck.io._spans import SpanRecords
from benchcheck.io._text import decode_utf8, read_file_bytes

#: Annotation kinds that are not entity mentions, by the first letter of their id.
_OTHER = {
    "E": "event",
    "R": "relation",
    "A": "attribute",
    "M": "attribute",
    "N": "normalization",
    "*": "equivalence",
    "#": "note",
}


def has_ann(folder: Path) -> bool:
    """Tell whether a folder holds ``.ann`` files (at any depth)."""
    return next(folder.rglob("*.ann"), None) is not None


def split_folders(folder: Path) -> dict[str, Path]:
    """Map split names to the folders of a BRAT corpus.

    A folder with ``.ann`` files of its own is one split (named after the folder when its
    name says which, else after the folder); else its subfolders named like splits
    (``train``, ``dev``/``valid``, ``test``) that hold ``.ann`` files are the splits.
    """
    if next(folder.glob("*.ann"), None) is not None:
        name = SPLIT_ALIASES.get(folder.name.lower(), folder.name)
        return {name: folder}
    found: dict[str, Path] = {}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        split = SPLIT_ALIASES.get(sub.name.lower())
        if split is not None and has_ann(sub):
            if split in found:
                raise InputError(
                    f"two folders look like the {split!r} split: {found[split].name} and "
                    f"{sub.name}; give each split's folder by name ({{splits}})",
                    path=folder,
                )
            found[split] = sub
    if not found:
        raise InputError(
            "no BRAT split found: expected .ann files in the folder, or in subfolders named "
            "train, dev or test",
            path=folder,
        )
    return in_split_order(found)


def records(path: str | Path, options: NerOptions | None = None) -> SpanRecords:
    """Read a BRAT folder (or one ``.ann`` file) as one record per document."""
    path = Path(path)
    out = DocumentCollector(
        options or NerOptions(), uses=("multi_type", "discontinuous", "offset_check")
    )
    if path.is_dir():
        anns = sorted(path.rglob("*.ann"))
        root = path
        if not anns:
            raise InputError("no .ann files found; expected BRAT .txt + .ann pairs", path=path)
        texts = {p.with_suffix("") for p in path.rglob("*.txt")}
        unannotated = len(texts - {p.with_suffix("") for p in anns})
    else:
        if path.suffix.lower() != ".ann":
            raise InputError(
                "expected a BRAT .ann file or a folder of .txt + .ann pairs", path=path
            )
        anns, root, unannotated = [path], path.parent, 0
    for ann in anns:
        txt = ann.with_suffix(".txt")
        if not txt.is_file():
            raise InputError(
                f"{ann.name} has no {txt.name} beside it; expected each .ann with its .txt",
                path=ann,
            )
        doc_id = ann.relative_to(root).with_suffix("").as_posix()
        text = decode_utf8(read_file_bytes(txt), txt)
        record = out.document(doc_id, text, path=ann)
        _read_ann(out, record, ann)
    if unannotated and anns:
        out.skip(0, "text without .ann", unannotated)
    return out.records()


def _read_ann(out: DocumentCollector, record: int, ann: Path) -> None:
    """Add the entity mentions of one ``.ann`` file; count the other annotations."""
    lines = decode_utf8(read_file_bytes(ann), ann).split("\n")
    triggers: set[str] = set()
    mentions: list[tuple[int, str, str, str | None]] = []  # without a text column: unchecked
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        kind = line[0]
        if kind == "T":
            fields = line.split("\t")
            if len(fields) < 2:
                raise InputError(
                    "expected ID<TAB>Type start end<TAB>text", path=ann, line=number, got=line
                )
            mentions.append((number, fields[0], fields[1], fields[2] if len(fields) > 2 else None))
        elif kind in _OTHER:
            out.skip(record, _OTHER[kind])
            if kind == "E":
                body = line.split("\t")[1] if "\t" in line else ""
                trigger = body.split(" ", 1)[0].partition(":")[2]
                if trigger:
                    triggers.add(trigger)
        else:
            raise InputError(
                "unknown annotation kind; expected an id starting with T, E, R, A, M, N, * or #",
                path=ann,
                line=number,
                got=line[:40],
            )
    for number, ident, body, text in mentions:
        if ident in triggers:
            out.skip(record, "trigger")
            continue
        type_name, _, where = body.partition(" ")
        try:
            # ASCII digits only (int() would take "２９" or "2_9"): one rule with PubTator's
            fragments = [
                (_offset(a), _offset(b)) for a, b in (frag.split() for frag in where.split(";"))
            ]
        except ValueError:
            raise InputError(
                f"{ident}: expected 'Type start end' (fragments joined by ';')",
                path=ann,
                line=number,
                got=body,
            ) from None
        out.mention(record, fragments, [type_name], text=text, path=ann, line=number)


def _offset(field: str) -> int:
    """Read an offset written in ASCII digits (the rule of :data:`._documents.OFFSET`).

    >>> _offset("29")
    29
    >>> _offset("2_9")
    Traceback (most recent call last):
    ...
    ValueError: not ASCII digits: '2_9'
    """
    if not OFFSET.fullmatch(field):
        raise ValueError(f"not ASCII digits: {field!r}")
    return int(field)
