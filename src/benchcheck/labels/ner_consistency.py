"""Label consistency of repeated entity surfaces: the variation principle, scored.

A string annotated one way in most of its occurrences and another way in a few is suspect:
the *variation n-gram* principle of annotation error detection (Dickinson & Meurers 2003,
"Detecting Inconsistencies in Treebanks"; for spans Larson et al. 2020, "Inconsistencies in
Crowdsourced Slot-Filling Annotations"; surveyed by Klie et al. 2023, "Annotation Error
Detection", Computational Linguistics 49(1)).

**Occurrences.** A *surface* is the lowercased token sequence of a gold span of the split
(at most ``max_tokens`` tokens). Every run of tokens equal to a surface is an occurrence; its
label is the type of the gold span exactly on it, or ``O`` when no gold span touches it (an
occurrence partly inside a gold span, e.g. "York" in "New York", has no label and is left
out).

**Score.** For an occurrence ``o`` of surface ``x`` with label ``l``, ``n`` the other labelled
occurrences of ``x`` and ``a`` those among them labelled ``l``,

    consistency_score(o) = (n − a) / (n + α)        (α = 0.5)

the share of the other occurrences that disagree with ``o``, shrunk towards 0 when ``x`` is
rare (a surface seen twice, annotated two ways, scores 1/1.5 = 0.67; seen 21 times with 20
others agreeing among themselves, 20/20.5 = 0.98). The proposed label is the most frequent
label among the other occurrences (ties: the type first in sorted order, ``O`` last). An
occurrence whose own label is that label agrees with the majority and is not reported.

Written here: nessie (MIT) implements the principle as boolean flaggers over labelled spans
only (it cannot see an unlabelled repeat, i.e. a missing annotation) and pulls in PyTorch and
flair; a score over labelled and unlabelled occurrences is a few dozen lines of counting.
``α`` was chosen on benchmarks/ner_detect_bench.py (0.5, 1, 2, 4 tried; 0.5 best for the mean
sentence AP over the four kinds and corpora when combined with the tagger).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import polars as pl

__all__ = [
    "ALPHA",
    "DOCS_PER_TOPIC",
    "MAX_TOKENS",
    "OUTSIDE_LABEL",
    "consistency_votes",
    "document_votes",
    "topic_groups",
]

#: Shrinkage of the disagreement share towards 0 for rare surfaces.
ALPHA = 0.5
#: Longest surface compared, in tokens.
MAX_TOKENS = 8
#: Documents per topic cluster of :func:`topic_groups` (CoNLL-2003: 1,393 documents, 93
#: topics; 20, 50 and 100 topics gave sentence AP 0.198, 0.195, 0.203 on its real errors).
DOCS_PER_TOPIC = 15
#: The label of an occurrence that no gold span touches.
OUTSIDE_LABEL = "O"

_SCHEMA = {
    "sentence": pl.Int64,
    "start": pl.Int64,
    "end": pl.Int64,
    "gold_type": pl.String,
    "proposed_type": pl.String,
    "consistency_score": pl.Float64,
    "support": pl.Int64,
}


def consistency_votes(
    words: Sequence[Sequence[str]],
    spans: Sequence[Sequence[tuple[int, int, str]]],
    *,
    max_tokens: int = MAX_TOKENS,
    alpha: float = ALPHA,
) -> pl.DataFrame:
    """Occurrences whose label disagrees with other occurrences of the same surface, scored.

    ``words[s]``: the tokens of sentence ``s``; ``spans[s]``: its gold spans ``(start, end
    exclusive, type)``. One row per inconsistent occurrence: ``sentence``, ``start``,
    ``end``, ``gold_type`` (null for ``O``), ``proposed_type`` (null for ``O``),
    ``consistency_score`` (module docstring) and ``support`` (``n``), ordered by sentence
    and start.

    >>> w = [["Paris", "is", "big"], ["in", "Paris"], ["Paris", "again"]]
    >>> s = [[(0, 1, "LOC")], [(1, 2, "LOC")], []]
    >>> consistency_votes(w, s).rows()
    [(2, 0, 1, None, 'LOC', 0.8, 2)]
    """
    low = [[w.lower() for w in ws] for ws in words]
    surfaces = {
        tuple(low[s][a:b]) for s, row in enumerate(spans) for a, b, _ in row if b - a <= max_tokens
    }
    lengths = sorted({len(x) for x in surfaces})
    occurrences: dict[tuple[str, ...], list[tuple[int, int, int, str]]] = {}
    for s, tokens in enumerate(low):
        n = len(tokens)
        exact = {(a, b): t for a, b, t in spans[s]}
        inside = [False] * n
        for a, b, _ in spans[s]:
            for k in range(a, min(b, n)):
                inside[k] = True
        for a in range(n):
            for length in lengths:
                b = a + length
                if b > n:
                    break
                key = tuple(tokens[a:b])
                if key not in surfaces:
                    continue
                if (a, b) in exact:
                    label = exact[(a, b)]
                elif any(inside[a:b]):
                    continue
                else:
                    label = OUTSIDE_LABEL
                occurrences.setdefault(key, []).append((s, a, b, label))
    rows: list[tuple[int, int, int, str | None, str | None, float, int]] = []
    for found in occurrences.values():
        if len(found) < 2:
            continue
        counts = Counter(label for *_, label in found)
        if len(counts) < 2:
            continue
        others_n = len(found) - 1
        for s, a, b, label in found:
            others = counts.copy()
            others[label] -= 1
            best = min(
                (c for c in others if others[c] > 0),
                key=lambda c: (-others[c], c == OUTSIDE_LABEL, c),
            )
            if best == label:
                continue
            disagree = others_n - others[label]
            rows.append(
                (
                    s,
                    a,
                    b,
                    None if label == OUTSIDE_LABEL else label,
                    None if best == OUTSIDE_LABEL else best,
                    disagree / (others_n + alpha),
                    others_n,
                )
            )
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    return pl.DataFrame(rows, schema=_SCHEMA, orient="row")


def document_votes(
    words: Sequence[Sequence[str]],
    spans: Sequence[Sequence[tuple[int, int, str]]],
    documents: Sequence[int],
    *,
    max_tokens: int = MAX_TOKENS,
    alpha: float = ALPHA,
) -> pl.DataFrame:
    """:func:`consistency_votes` within each document: one story repeats its entities.

    ``documents[s]``: the document of sentence ``s`` (CoNLL's ``-DOCSTART-`` sections). The
    surfaces, occurrences and score are those of :func:`consistency_votes`, counted over
    the sentences of one document only (a news story names a team or a person several times,
    with one type).

    >>> w = [["Leeds", "won"], ["Leeds", "lost"], ["Leeds", "drew"], ["in", "Leeds"],
    ...      ["Leeds", "again"]]
    >>> s = [[(0, 1, "ORG")], [(0, 1, "ORG")], [(0, 1, "ORG")], [(1, 2, "LOC")],
    ...      [(0, 1, "LOC")]]
    >>> document_votes(w, s, [1, 1, 1, 1, 2]).rows()
    [(3, 1, 2, 'LOC', 'ORG', 0.8571428571428571, 3)]
    """
    by_doc: dict[int, list[int]] = {}
    for s, d in enumerate(documents):
        by_doc.setdefault(int(d), []).append(s)
    parts: list[pl.DataFrame] = []
    for members in by_doc.values():
        if len(members) < 2 or not any(spans[s] for s in members):
            continue
        found = consistency_votes(
            [words[s] for s in members],
            [spans[s] for s in members],
            max_tokens=max_tokens,
            alpha=alpha,
        )
        if found.height:
            index = pl.Series("sentence", members, dtype=pl.Int64)
            parts.append(found.with_columns(index.gather(found["sentence"])))
    if not parts:
        return pl.DataFrame(schema=_SCHEMA)
    return pl.concat(parts).sort("sentence", "start", "end")


def topic_groups(
    words: Sequence[Sequence[str]],
    documents: Sequence[int],
    *,
    docs_per_topic: int = DOCS_PER_TOPIC,
    seed: int = 0,
) -> list[int] | None:
    """Topic of each sentence: its document's cluster among documents of similar words.

    Each document is the TF-IDF vector of its lowercased tokens (sublinear term frequency,
    words of at least two documents; Salton & Buckley 1988), the documents are clustered
    by k-means (``k = round(documents / docs_per_topic)``, ``seed``; scikit-learn's
    ``KMeans``, Lloyd 1982), and a sentence gets its document's cluster. Counting
    :func:`consistency_votes` within a topic (:func:`document_votes` over these groups)
    asks whether a string is annotated as in *stories of the same kind*: a city that names
    the team in sports results but the place in the news (CoNLL-2003's most frequent real
    error: sports teams annotated LOC) is consistent corpus-wide and within its story, not
    within its topic. ``None`` below two topics' worth of documents.

    >>> w = [["goal", "Leeds", "won"], ["rain", "in", "Leeds"]] * 2
    >>> g = topic_groups(w, [0, 1, 2, 3], docs_per_topic=2)
    >>> g[0] == g[2] != g[1] == g[3]
    True
    """
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    ids = sorted(set(documents))
    k = round(len(ids) / docs_per_topic)
    if k < 2:
        return None
    text: dict[int, list[str]] = {d: [] for d in ids}
    for s, d in enumerate(documents):
        text[d].extend(w.lower() for w in words[s])
    x = TfidfVectorizer(min_df=2, sublinear_tf=True, analyzer=lambda tokens: tokens).fit_transform(
        [text[d] for d in ids]
    )
    found = KMeans(n_clusters=k, n_init=4, random_state=seed).fit_predict(x)
    cluster = dict(zip(ids, found.tolist(), strict=True))
    return [cluster[d] for d in documents]
