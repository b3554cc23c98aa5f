"""The peers of ``leakage_bench.py``: each scans the first ``limit`` bytes of the corpus.

Both read the shards with benchcheck's reader (not what is timed against benchcheck: their
cost is per document, in Python) and print ``{"bytes", "dirty_docs", "index_s", "s"}``:
``index_s`` to index the test items, ``s`` to scan.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Iterator

N = 10


def _texts(corpus: str, limit: int) -> Iterator[str]:
    from benchcheck.io.corpus import corpus_files, corpus_units, read_unit

    seen = 0
    for unit in corpus_units(corpus_files(corpus), column="text"):
        for batch in read_unit(unit, column="text", batch_mb=8):
            for text in batch.texts.to_pylist():
                yield text
                seen += len(text.encode())
                if seen >= limit:
                    return


def _scan(corpus: str, limit: int, dirty: Callable[[str], bool], t_index: float) -> None:
    t0 = time.perf_counter()
    seen = flagged = 0
    for text in _texts(corpus, limit):
        seen += len(text.encode())
        flagged += dirty(text)
    out = {"bytes": seen, "dirty_docs": flagged, "index_s": t_index}
    print(json.dumps({**out, "s": time.perf_counter() - t0}))


def set_of_hashes(corpus: str, test: str, limit: str) -> None:
    """Lower-cased whitespace words, Python's hash of each 10-gram, one set."""
    t0 = time.perf_counter()
    grams = set()
    for line in open(test, encoding="utf-8"):
        w = json.loads(line)["text"].lower().split()
        grams.update(hash(" ".join(w[i : i + N])) for i in range(len(w) - N + 1))

    def dirty(text: str) -> bool:
        w = text.lower().split()
        return any(hash(" ".join(w[i : i + N])) in grams for i in range(len(w) - N + 1))

    _scan(corpus, int(limit), dirty, time.perf_counter() - t0)


def datatrove_filter(corpus: str, test: str, limit: str) -> None:
    """datatrove's NGramsDecontFilter: its text normalisation, xxhash64 of 10-grams."""
    import datatrove.utils.hashes.xxhash as dt_xxhash
    import numpy as np
    import xxhash
    from datatrove.data import Document
    from datatrove.pipeline.decont import NGramsDecontConfig, NGramsDecontFilter
    from datatrove.utils.hashing import create_hash_func
    from datatrove.utils.text import ngrams, simplify_text
    from datatrove.utils.word_tokenizers import WordTokenizer

    # datatrove hashes str with xxhash, which since xxhash 4 takes bytes only (its
    # 'processing' extra pins xxhash<4; benchcheck needs 4): encode as xxhash 3 did.
    dt_xxhash.xxhash64 = lambda data: xxhash.xxh64_intdigest(
        data.encode() if isinstance(data, str) else data
    )

    class Words(WordTokenizer):  # whitespace words: no NLTK model (it would be downloaded)
        def word_tokenize(self, text: str) -> list[str]:
            return text.split()

        def sent_tokenize(self, text: str) -> list[str]:
            return [text]

        def span_tokenize(self, text: str) -> list[tuple[int, int]]:
            return [(0, len(text))]

    t0 = time.perf_counter()
    config = NGramsDecontConfig(n_grams=N)
    folder = tempfile.mkdtemp()
    # The index as NGramsDecontIndexer.compute_hashes builds it for a label (the indexer
    # itself needs lighteval, which loads its tasks from the Hub).
    hash_func, words = create_hash_func(config.hash_config), Words()
    hashes: set[int] = set()
    for line in open(test, encoding="utf-8"):
        tokens = words.word_tokenize(simplify_text(json.loads(line)["text"], config.norm_config))
        hashes.update(hash_func(" ".join(g)) for g in ngrams(tokens, config.n_grams))
    np.array(sorted(hashes), dtype=np.uint64).tofile(f"{folder}/bench.index.hashes")
    filt = NGramsDecontFilter(folder, config=config)
    filt.tokenizer = words
    filt.filter(Document(text="", id=""))  # loads the index

    def dirty(text: str) -> bool:
        return filt.filter(Document(text=text, id="")) is not True

    _scan(corpus, int(limit), dirty, time.perf_counter() - t0)
