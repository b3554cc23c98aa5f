"""Real, hand-corrected CoNLL-2003 label errors for the NER detector benchmark (issue 36).

Inputs (public, never committed; ``ner_detect_bench.py --real`` builds them into the
git-ignored ``benchmarks/_data/ner_real/``):

* the original CoNLL-2003 English files ``eng.train``, ``eng.testa``, ``eng.testb`` (IOB1,
  4 columns, ``-DOCSTART-`` lines): 14,041 / 3,250 / 3,453 sentences, checked;
* Reiss et al. 2020, "Identifying Incorrect Labels in the CoNLL-2003 Corpus" (CoNLL 2020),
  ``corrected_labels/all_conll_corrections_combined.csv``: one row per correction with
  ``fold`` (train/dev/test), ``doc_offset`` (0-based document of the fold), ``corpus_span`` and
  ``correct_span`` (``[begin, end): 'text'``, character offsets into the document's text) and
  ``error_type`` (Tag, Span, Both, Wrong, Missing, Sentence, Token).

Only the **train and dev** corrections are read: every test-split row is dropped as the CSV
is parsed, before its spans are looked at (the test corrections are held out,
``/shared/design/real-errors.md``).

**Character offsets.** The corrections were made with Text Extensions for Pandas, whose
document text is: the document's sentences (its ``-DOCSTART-`` line counts as the first
one) joined by ``\\n``; within a sentence the tokens joined by one space, except no space
before a token that is one punctuation character or a right bracket (``! # % ) * + , - .
/ : ; = > ? @ ] ^ _ ` | } ~``) or an apostrophe followed by one or two letters, and none
after a token made of left brackets or ``$`` (``( < [ { $``). :func:`sentence_text`
reproduces that rule; every correction's quoted text must equal the text at its offsets
(a line break quoted as a space: a correction of the Sentence kind joins two sentences),
else :class:`AlignmentError`: one line, the benchmark exits 2.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Sentences of each file once ``-DOCSTART-`` lines are dropped (the published counts).
EXPECTED_SENTENCES = {"eng.train": 14_041, "eng.testa": 3_250, "eng.testb": 3_453}
#: The correction folds scored, and the file each one's offsets refer to.
FOLD_FILES = {"train": "eng.train", "dev": "eng.testa"}
FILES = ("eng.train", "eng.testa", "eng.testb")
DOCSTART = "-DOCSTART-"

_NO_SPACE_BEFORE = re.compile(r"[!#%)*+,\-./:;=>?@\]^_`|}~]|'[a-zA-Z]{1,2}")
_NO_SPACE_AFTER = re.compile(r"[(<\[{$]+")
_SPAN = re.compile(r"^\[(\d+), (\d+)\): ?(.*)$", re.DOTALL)
_KEY = re.compile("[\\s'\"\xca]")


class AlignmentError(Exception):
    """A correction or a corpus file does not fit the other: one line, exit 2."""


@dataclass(frozen=True)
class Sentence:
    """One sentence of a corpus file: tokens, 1-based line of its first token, offsets."""

    tokens: tuple[str, ...]
    line: int
    begins: tuple[int, ...]  # character offsets of the tokens in the document text
    ends: tuple[int, ...]


@dataclass(frozen=True)
class Correction:
    """One train/dev correction, located: the corpus sentences (file order) it touches."""

    fold: str
    doc: int
    error_type: str
    sentences: tuple[int, ...]  # indices into the whole corpus (train, dev, test in order)
    tokens: tuple[tuple[int, int, int], ...]  # (sentence, start, end exclusive) it covers


def sentence_text(tokens: Sequence[str]) -> tuple[str, list[int], list[int]]:
    """Text of one sentence by the Text Extensions for Pandas rule, and token offsets.

    >>> sentence_text(["(", "Reuters", ")", "U.S.", "'s", "$", "5", "."])
    ("(Reuters) U.S.'s $5.", [0, 1, 8, 10, 14, 17, 18, 19], [1, 8, 9, 14, 16, 18, 19, 20])
    """
    parts: list[str] = []
    begins: list[int] = []
    ends: list[int] = []
    pos = 0
    for i, tok in enumerate(tokens):
        space = (
            i > 0
            and _NO_SPACE_BEFORE.fullmatch(tok) is None
            and _NO_SPACE_AFTER.fullmatch(tokens[i - 1]) is None
        )
        if space:
            parts.append(" ")
            pos += 1
        begins.append(pos)
        parts.append(tok)
        pos += len(tok)
        ends.append(pos)
    return "".join(parts), begins, ends


def read_documents(path: Path) -> tuple[list[str], list[list[int]], list[Sentence]]:
    """Document texts, each document's sentence indices, and the file's sentences.

    Sentences are numbered in file order without the ``-DOCSTART-`` lines, as
    :func:`benchcheck.io.conll.read_conll` numbers them.
    """
    texts: list[str] = []
    members: list[list[int]] = []
    sentences: list[Sentence] = []
    doc_parts: list[str] | None = None
    offset = 0
    block: list[tuple[int, str]] = []

    def close(block: list[tuple[int, str]]) -> None:
        nonlocal doc_parts, offset
        tokens = [line.split(" ")[0] for _, line in block]
        is_docstart = tokens[0] == DOCSTART
        if is_docstart:
            if len(tokens) > 1:
                raise AlignmentError(f"{path}:{block[0][0]}: -DOCSTART- shares its sentence")
            if doc_parts is not None:
                texts.append("\n".join(doc_parts))
            doc_parts, offset = [], 0
            members.append([])
        if doc_parts is None:
            raise AlignmentError(f"{path}:{block[0][0]}: a sentence before the first -DOCSTART-")
        text, b, e = sentence_text(tokens)
        if not is_docstart:
            members[-1].append(len(sentences))
            sentences.append(
                Sentence(
                    tuple(tokens),
                    block[0][0],
                    tuple(x + offset for x in b),
                    tuple(x + offset for x in e),
                )
            )
        doc_parts.append(text)
        offset += len(text) + 1

    for number, raw in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        line = raw.strip()
        if line:
            if line.startswith(DOCSTART) and block:  # a DOCSTART line also ends a sentence
                close(block)
                block = []
            block.append((number, line))
        elif block:
            close(block)
            block = []
    if block:
        close(block)
    if doc_parts is not None:
        texts.append("\n".join(doc_parts))
    return texts, members, sentences


def parse_span(cell: str) -> tuple[int, int, str] | None:
    """``[begin, end): 'text'`` → ``(begin, end, quoted text)``; a blank cell → ``None``.

    >>> parse_span("[122, 129): 'England'"), parse_span(' ')
    ((122, 129, "'England'"), None)
    """
    cell = cell.strip()
    if not cell:
        return None
    m = _SPAN.match(cell)
    if m is None:
        raise ValueError(cell)
    return int(m.group(1)), int(m.group(2)), m.group(3)


def _same(text: str, quoted: str) -> bool:
    """Whether a correction quotes ``text``, compared without spaces, line breaks and quote
    marks: the published file was typed by hand (a line break quoted as a space where a
    Sentence correction joins two sentences, stray or missing quote marks, a space typed
    as Mac Roman's no-break space read as ``Ê``); any other difference is a misalignment.

    >>> _same("Czech\\nRepublic", "'Czech Republic "), _same("Czech", "Czech Republic")
    (True, False)
    >>> _same("John Hinckley Jr", "John\\xcaHinckley\\xcaJr")
    True
    """
    return _KEY.sub("", text) == _KEY.sub("", quoted)


def read_corrections(csv_path: Path) -> list[dict[str, str]]:
    """Rows of the train and dev folds; test rows are dropped unread (held out)."""
    with csv_path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        need = {"fold", "doc_offset", "corpus_span", "correct_span", "error_type"}
        if reader.fieldnames is None or not need <= set(reader.fieldnames):
            raise AlignmentError(f"{csv_path}:1: expected columns {sorted(need)}")
        return [dict(row) for row in reader if row["fold"] in FOLD_FILES]


def locate(
    corpus_dir: Path,
    csv_path: Path,
    *,
    expected: dict[str, int] | None = None,
) -> tuple[list[Correction], dict[str, tuple[int, int]], list[Sentence]]:
    """Align the train/dev corrections with the corpus; return them, file ranges, sentences.

    File ranges: ``name → (first, end)`` sentence indices in the whole corpus (the three
    files in order). Raises :class:`AlignmentError` on a sentence count off the published
    one, a document index past the fold's documents, or a quoted text that differs from
    the document's text at its offsets. ``expected``: sentences per file (default
    :data:`EXPECTED_SENTENCES`).
    """
    expected = EXPECTED_SENTENCES if expected is None else expected
    ranges: dict[str, tuple[int, int]] = {}
    docs: dict[str, tuple[list[str], list[list[int]]]] = {}
    all_sentences: list[Sentence] = []
    for name in FILES:
        path = corpus_dir / name
        if not path.is_file():
            raise AlignmentError(f"{path}: missing (eng.train, eng.testa, eng.testb expected)")
        texts, members, sentences = read_documents(path)
        if len(sentences) != expected[name]:
            raise AlignmentError(
                f"{path}: {len(sentences)} sentences, the original has "
                f"{expected[name]} (not the original CoNLL-2003 file?)"
            )
        base = len(all_sentences)
        ranges[name] = (base, base + len(sentences))
        docs[name] = (texts, [[base + i for i in m] for m in members])
        all_sentences += sentences
    out: list[Correction] = []
    for k, row in enumerate(read_corrections(csv_path), start=2):
        fold = row["fold"]
        texts, members = docs[FOLD_FILES[fold]]
        where = f"{csv_path}: row {k} ({fold} doc {row['doc_offset']})"
        try:
            doc = int(row["doc_offset"])
            spans = [parse_span(row["corpus_span"]), parse_span(row["correct_span"])]
        except ValueError as exc:
            raise AlignmentError(f"{where}: unreadable span {exc}") from None
        if not 0 <= doc < len(texts):
            raise AlignmentError(f"{where}: the fold has {len(texts)} documents")
        hit: set[int] = set()
        covered: set[tuple[int, int, int]] = set()
        for span in spans:
            if span is None:
                continue
            b, e, quoted = span
            if not _same(texts[doc][b:e], quoted):
                raise AlignmentError(
                    f"{where}: the text at [{b}, {e}) is {texts[doc][b:e]!r}, the correction "
                    f"quotes {quoted!r}"
                )
            for s in members[doc]:
                sent = all_sentences[s]
                toks = [
                    i for i in range(len(sent.tokens)) if sent.begins[i] < e and b < sent.ends[i]
                ]
                if toks:
                    hit.add(s)
                    covered.add((s, toks[0], toks[-1] + 1))
        if not hit:
            raise AlignmentError(f"{where}: the correction covers no token")
        out.append(
            Correction(fold, doc, row["error_type"], tuple(sorted(hit)), tuple(sorted(covered)))
        )
    return out, ranges, all_sentences
