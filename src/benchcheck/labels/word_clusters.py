r"""Word clusters learned from the corpus itself, for the out-of-fold tagger's features.

Distributional clusters (Brown et al. 1992; as NER features: Miller et al. 2004, Ratinov &
Roth 2009, Turian et al. 2010) let a tagger generalise from the words it saw labelled to
words that occur in the same contexts. Here they are learned from the audited corpus' own
tokens, labels never read, so the held-out sentences' words get clusters too without any of
their labels reaching the folds that tag them.

For the lowercased words ``w`` seen at least ``min_count`` times and the directed contexts
``c = (offset, word)`` at offsets ``−window … +window``, with co-occurrence counts
``n(w, c)``,

.. math:: \operatorname{PPMI}(w, c) = \max\Bigl(0, \log \frac{n(w, c)\, N}{n(w)\, n(c)}\Bigr)

(Church & Hanks 1990; Levy & Goldberg 2014), ``N = Σ n(w, c)``; each word's PPMI row is
reduced to ``dims`` dimensions by truncated SVD, normalised to unit length, and k-means
(``k`` clusters, seeded) gives each word its cluster. Written here, not taken from a library,
because no maintained Python package computes Brown or PPMI clusters: the parts are SciPy
sparse counts and scikit-learn's ``TruncatedSVD`` and ``KMeans``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["word_clusters"]

#: Below this many words with enough occurrences, no clusters (the features stay as they were).
MIN_VOCABULARY = 200


def word_clusters(
    sentences: Sequence[Sequence[str]],
    *,
    min_count: int = 3,
    window: int = 2,
    dims: int = 64,
    k: int = 256,
    seed: int = 0,
) -> dict[str, int]:
    """Cluster id of each frequent lowercased word (module docstring); ``{}`` when too few.

    Deterministic for a corpus and ``seed``. Words of the same distribution share a cluster:

    >>> s = [["flew", "to", c, "on"] for c in ("paris", "rome", "oslo")] * 40
    >>> s += [["mr", p, "said", "that"] for p in ("smith", "jones", "brown")] * 40
    >>> s += [[f"w{i}", f"v{i}", "today"] for i in range(200)] * 3
    >>> cl = word_clusters(s, k=30)
    >>> cl["paris"] == cl["rome"] == cl["oslo"], cl["smith"] == cl["jones"] == cl["brown"]
    (True, True)
    >>> cl["paris"] == cl["smith"]
    False
    """
    from scipy import sparse
    from sklearn.cluster import KMeans
    from sklearn.decomposition import TruncatedSVD

    low = [[w.lower() for w in s] for s in sentences]
    flat = [w for s in low for w in s]
    if not flat:
        return {}
    words, inverse, counts = np.unique(
        np.asarray(flat, dtype=object), return_inverse=True, return_counts=True
    )
    keep = counts >= min_count
    if int(keep.sum()) < MIN_VOCABULARY:
        return {}
    row_of = np.full(words.size, -1, dtype=np.int64)
    row_of[keep] = np.arange(int(keep.sum()))
    ids = row_of[inverse]  # vocabulary row of each token, -1 if rare
    lengths = np.fromiter((len(s) for s in low), dtype=np.int64, count=len(low))
    sent = np.repeat(np.arange(lengths.size), lengths)
    n_vocab = int(keep.sum())
    offsets = [o for o in range(-window, window + 1) if o]
    rows, cols = [], []
    for j, off in enumerate(offsets):
        a = np.arange(max(0, -off), ids.size - max(0, off))
        b = a + off
        ok = (sent[a] == sent[b]) & (ids[a] >= 0) & (ids[b] >= 0)
        rows.append(ids[a][ok])
        cols.append(ids[b][ok] * len(offsets) + j)
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    counts_wc = sparse.coo_matrix(
        (np.ones(r.size), (r, c)), shape=(n_vocab, n_vocab * len(offsets))
    ).tocsr()
    counts_wc.sum_duplicates()
    total = counts_wc.sum()
    n_w = np.asarray(counts_wc.sum(axis=1)).ravel()
    n_c = np.asarray(counts_wc.sum(axis=0)).ravel()
    coo = counts_wc.tocoo()
    pmi = np.log(coo.data * total / (n_w[coo.row] * n_c[coo.col]))
    pos = pmi > 0
    ppmi = sparse.csr_matrix((pmi[pos], (coo.row[pos], coo.col[pos])), shape=counts_wc.shape)
    n_dims = min(dims, n_vocab - 1, ppmi.shape[1] - 1)
    vectors = TruncatedSVD(n_components=n_dims, random_state=seed).fit_transform(ppmi)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms > 0, norms, 1.0)
    n_clusters = min(k, n_vocab // 2)
    labels = KMeans(n_clusters=n_clusters, n_init=1, random_state=seed).fit_predict(vectors)
    return dict(zip(words[keep].tolist(), labels.tolist(), strict=True))
