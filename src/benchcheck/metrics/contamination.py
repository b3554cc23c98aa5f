"""Test-set contamination against a corpus that never fits in memory (benchmark decontamination).

The corpus arrives in batches of documents (Parquet files streamed record batch by record
batch: :mod:`benchcheck.io.corpus`): memory is bounded by the test set plus one batch.
Three checks, per test item:

- **exact**: corpus documents equal to the item's text;
- **normalised**: documents equal after :func:`normalise` (Unicode NFKC, ``str.casefold``,
  whitespace runs collapsed to one space, ends stripped);
- **n-gram overlap**, as in the decontamination of GPT-3 (Brown et al., 2020, App. C) and
  later benchmarks: the item's distinct word n-grams (words of the normalised text, split on
  spaces; default n = 13) are looked up in every corpus document's n-grams. The item's
  *overlap* is the share of its distinct n-grams found in the corpus,
  ``|G_n(x) ∩ G_n(C)| / |G_n(x)|``; it is *contaminated* when that share is above 0. Items
  with fewer than n words have no n-gram: their overlap is ``None`` and they are never
  n-gram-contaminated (the exact and normalised checks still cover them).

Dataset level: the share of items with at least one exact match, one normalised match, one
shared n-gram, and with any of the three. N-grams are matched through 64-bit hashes and every
hash hit is confirmed by comparing the n-gram's words, so a hash collision never counts.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from benchcheck._hashset import member
from benchcheck.data.hashing import mix64, string_hash
from benchcheck.data.hashing import position_keys as _position_keys
from benchcheck.errors import UsageError


def normalise(text: str) -> str:
    r"""NFKC, casefold, collapse whitespace runs into one space and strip the ends.

    >>> normalise("  The\u00a0STRASSE\n is  ﬁne ")
    'the strasse is fine'
    >>> normalise("Straße") == normalise("STRASSE")
    True
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def ngram_hashes(words: np.ndarray, doc_len: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Hash every word n-gram of each document; return (hashes, index of the first word).

    ``words`` holds each word's 64-bit hash, documents one after the other; ``doc_len`` the
    number of words of each document. An n-gram never crosses a document boundary.
    The hash is order-sensitive: each word's hash is mixed with its offset in the n-gram.

    >>> h, at = ngram_hashes(np.arange(5, dtype=np.uint64), np.array([3, 2]), 2)
    >>> at.tolist()
    [0, 1, 3]
    """
    total = int(doc_len.sum())
    doc_len = np.asarray(doc_len, dtype=np.int64)
    doc_first = np.cumsum(doc_len) - doc_len
    pos = np.arange(total, dtype=np.int64) - np.repeat(doc_first, doc_len)
    room = np.repeat(doc_len, doc_len) - pos  # words from here to the document's end
    starts = np.flatnonzero(room >= n)
    keys = _position_keys(n)
    acc = np.zeros(starts.size, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(n):
            acc += mix64(words[starts + j] ^ keys[j])
    return mix64(acc), starts


@dataclass(frozen=True)
class ItemLeak:
    """One test item's contamination."""

    id: str
    exact_matches: int
    normalised_matches: int
    n_ngrams: int
    n_ngrams_found: int

    @property
    def ngram_overlap(self) -> float | None:
        """Share of the item's distinct n-grams found in the corpus (None below n words)."""
        return self.n_ngrams_found / self.n_ngrams if self.n_ngrams else None

    @property
    def contaminated(self) -> bool:
        """Any exact, normalised or n-gram match."""
        return bool(self.exact_matches or self.normalised_matches or self.n_ngrams_found)


@dataclass(frozen=True)
class LeakageResult:
    """Contamination of a test set against a corpus (see the module docstring)."""

    n: int
    corpus_files: int
    corpus_documents: int
    items: tuple[ItemLeak, ...]

    def rates(self) -> dict[str, float | None]:
        """Dataset-level shares of contaminated items."""
        m = len(self.items)

        def share(k: int) -> float | None:
            return k / m if m else None

        return {
            "exact_rate": share(sum(i.exact_matches > 0 for i in self.items)),
            "normalised_rate": share(sum(i.normalised_matches > 0 for i in self.items)),
            "ngram_rate": share(sum(i.n_ngrams_found > 0 for i in self.items)),
            "contaminated_rate": share(sum(i.contaminated for i in self.items)),
        }

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON object."""
        return {
            "n": self.n,
            "n_items": len(self.items),
            "n_short_items": sum(i.n_ngrams == 0 for i in self.items),
            "corpus": {"files": self.corpus_files, "documents": self.corpus_documents},
            "metrics": self.rates(),
            "items": [
                {
                    "id": i.id,
                    "exact_matches": i.exact_matches,
                    "normalised_matches": i.normalised_matches,
                    "n_ngrams": i.n_ngrams,
                    "n_ngrams_found": i.n_ngrams_found,
                    "ngram_overlap": i.ngram_overlap,
                    "contaminated": i.contaminated,
                }
                for i in self.items
            ],
        }


def _words(norm: pl.Series) -> tuple[pl.Series, np.ndarray]:
    """Words of normalised texts (split on single spaces) and each text's word count."""
    lists = norm.str.split(" ")
    lengths = lists.list.len().to_numpy().astype(np.int64)
    lengths[(norm == "").to_numpy()] = 0
    words = lists.explode()
    words = words.filter(words != "") if bool((lengths == 0).any()) else words
    return words, lengths


def contamination(
    texts: Sequence[str],
    batches: Iterable[pl.Series],
    *,
    ids: Sequence[str] | None = None,
    n: int = 13,
    n_files: int = 0,
) -> LeakageResult:
    """Exact, normalised and n-gram contamination of ``texts`` by a corpus given in batches.

    ``batches`` yields the corpus documents, a text Series at a time (e.g.
    :func:`benchcheck.io.corpus.corpus_batches`); memory holds the test set and one batch.
    ``n_files`` is reported as the corpus's number of files.
    """
    if n < 1:
        raise UsageError(f"{{n}} must be a positive number of words, got {n}")
    ids = [str(i) for i in ids] if ids is not None else [str(k) for k in range(len(texts))]
    norm_test = [normalise(t) for t in texts]
    exact_keys = pl.DataFrame({"text": list(dict.fromkeys(texts))}, schema={"text": pl.String})
    norm_keys = pl.DataFrame({"norm": list(dict.fromkeys(norm_test))}, schema={"norm": pl.String})
    exact_count: dict[str, int] = {}
    norm_count: dict[str, int] = {}

    # The test set's distinct n-grams: hash → the n-gram strings with that hash.
    words, lengths = _words(pl.Series(norm_test, dtype=pl.String))
    word_list = words.to_list()
    h, at = ngram_hashes(string_hash(words), lengths, n)
    item_of_word = np.repeat(np.arange(len(texts)), lengths)
    grams_of_item: list[set[str]] = [set() for _ in texts]
    table: dict[int, set[str]] = {}
    for key, start in zip(h.tolist(), at.tolist(), strict=True):
        gram = " ".join(word_list[start : start + n])
        grams_of_item[int(item_of_word[start])].add(gram)
        table.setdefault(key, set()).add(gram)
    wanted = np.fromiter(table, dtype=np.uint64, count=len(table))
    found: set[str] = set()

    n_docs = 0
    for batch in batches:
        n_docs += batch.len()
        hits = pl.DataFrame({"text": batch}).join(exact_keys, on="text", how="inner")
        for text, c in hits.group_by("text").len().iter_rows():
            exact_count[text] = exact_count.get(text, 0) + c
        norm = pl.Series("norm", [normalise(t) for t in batch.to_list()], dtype=pl.String)
        hits = pl.DataFrame({"norm": norm}).join(norm_keys, on="norm", how="inner")
        for text, c in hits.group_by("norm").len().iter_rows():
            norm_count[text] = norm_count.get(text, 0) + c
        if wanted.size:
            cw, clen = _words(norm)
            ch, cat = ngram_hashes(string_hash(cw), clen, n)
            hit = member(ch, wanted)
            if hit.any():
                for key, start in zip(ch[hit].tolist(), cat[hit].tolist(), strict=True):
                    gram = " ".join(cw.slice(start, n).to_list())
                    if gram in table[key]:  # confirm: a hash collision never counts
                        found.add(gram)
    items = tuple(
        ItemLeak(
            id=ids[k],
            exact_matches=exact_count.get(texts[k], 0),
            normalised_matches=norm_count.get(norm_test[k], 0),
            n_ngrams=len(grams_of_item[k]),
            n_ngrams_found=len(grams_of_item[k] & found),
        )
        for k in range(len(texts))
    )
    return LeakageResult(n=n, corpus_files=n_files, corpus_documents=n_docs, items=items)
