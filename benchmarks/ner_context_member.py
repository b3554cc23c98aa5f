"""Experiment (issue 36): a context-only member against the real CoNLL-2003 errors.

Most real type errors of CoNLL-2003 train/dev are sports teams annotated LOC (a city name
standing for its team), annotated alike within their documents, so the CRF (which sees the
word) and both consistency members agree with the gold. This member predicts a gold span's
type from its context alone, the span's own words masked: a multinomial logistic regression
(scikit-learn, L2, ``C`` = 1) on the words at offsets -3..-1 and +1..+3 around the span
(lower-cased, with their shape: digits, capitalised, other) and the bag of words within 5
tokens, cross-fitted over 5 folds of *documents* (a span is scored by a model that never saw
its document). Its score is ``context_score = 1 - p(gold type | context)``; a sentence's is
its largest. Combined with the default detector as the noisy-or of the detector's calibrated
sentence probability (:data:`benchcheck.labels.ner_expected.CONLL_TRAIN`) and the context
score.

Needs ``benchmarks/_data/ner_real/flags.parquet`` from ``ner_detect_bench.py --real
--save-flags`` (same corpus folder). Only train/dev corrections are read (the test split's
are held out). Prints sentence AP and P@100 on the train/dev corrections, per member and
combined; writes ``benchmarks/results/ner_context_member.json``.

Run: ``nice -n 10 python benchmarks/ner_context_member.py``

Measured (2 cores shared, load 8-10, 561 s): sentence AP on the train+dev corrections 0.089
alone (random 0.050, the default detector 0.175), 0.094 combined by the noisy-or: worse
than the detector alone, so the member is not in the default (``flag-spans``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).parent
REAL = HERE / "_data" / "ner_real"
OUT = HERE / "results" / "ner_context_member.json"
WINDOW = 3
BAG = 5
FOLDS = 5


def _shape(word: str) -> str:
    if any(c.isdigit() for c in word):
        return "d"
    return "C" if word[:1].isupper() else "x"


def _features(words: list[str], a: int, b: int) -> dict[str, float]:
    f: dict[str, float] = {"bias": 1.0}
    for k in range(1, WINDOW + 1):
        for side, i in (("L", a - k), ("R", b - 1 + k)):
            w = words[i] if 0 <= i < len(words) else "<s>"
            f[f"{side}{k}={w.lower()}"] = 1.0
            f[f"{side}{k}s={_shape(w)}"] = 1.0
    for i in range(max(0, a - BAG), min(len(words), b + BAG)):
        if not a <= i < b:
            f[f"bag={words[i].lower()}"] = 1.0
    f[f"len={min(b - a, 3)}"] = 1.0  # how many words the span has, not which
    return f


def _ap(score: np.ndarray, y: np.ndarray) -> float:
    from sklearn.metrics import average_precision_score

    return float(average_precision_score(y, score))


def _p_at(score: np.ndarray, y: np.ndarray, k: int) -> float:
    rng = np.random.default_rng(0)
    order = np.lexsort((rng.random(score.size), -score))
    return float(y[order[:k]].mean())


def main() -> None:
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    sys.path.insert(0, str(HERE))
    from _ner_real import locate

    from benchcheck.io.conll import sentence_documents
    from benchcheck.labels.ner_expected import CONLL_TRAIN, sentence_logits
    from benchcheck.labels.ner_flags import spans_from_split
    from benchcheck.runs.flag_spans import read_corpus_folder

    t0 = time.perf_counter()
    load = os.getloadavg()
    found, ranges, _ = locate(REAL, REAL / "all_conll_corrections_combined.csv")
    hi = ranges["eng.testa"][1]
    y = np.zeros(hi, dtype=bool)
    for c in found:
        for s in c.sentences:
            y[s] = True
    corpus = read_corpus_folder(REAL)
    split = corpus.split
    assert split.tokens is not None
    n = split.n
    words: list[list[str]] = [[] for _ in range(n)]
    toks = split.tokens.sort("sentence", "position")
    for s, w in zip(toks["sentence"].to_list(), toks["token"].to_list(), strict=True):
        words[s].append(w)
    lines = split.table["line"].to_numpy()
    doc = np.zeros(n, dtype=np.int64)
    base = 0
    bounds = [*corpus.offsets, n]
    for f, lo, hi_ in zip(corpus.files, bounds[:-1], bounds[1:], strict=True):
        d = sentence_documents(f, lines[lo:hi_])
        d = np.zeros(hi_ - lo, dtype=np.int64) if d is None else d
        doc[lo:hi_] = d + base
        base += int(d.max()) + 1
    spans = spans_from_split(split)
    s_arr = spans["sentence"].cast(pl.Int64).to_numpy()
    a_arr = spans["start"].to_numpy()
    b_arr = spans["end"].to_numpy()
    t_arr = np.asarray(spans["type"].cast(pl.String).to_list())
    feats = [_features(words[s], a, b) for s, a, b in zip(s_arr, a_arr, b_arr, strict=True)]
    fold = (doc[s_arr] * 2654435761 % 2**32) % FOLDS
    p_gold = np.zeros(len(feats))
    types = sorted(set(t_arr.tolist()))
    for k in range(FOLDS):
        train, test = fold != k, fold == k
        vec = DictVectorizer()
        x_tr = vec.fit_transform([feats[i] for i in np.flatnonzero(train)])
        model = LogisticRegression(C=1.0, max_iter=300)
        model.fit(x_tr, t_arr[train])
        proba = model.predict_proba(vec.transform([feats[i] for i in np.flatnonzero(test)]))
        col = {t: j for j, t in enumerate(model.classes_)}
        p_gold[test] = proba[np.arange(test.sum()), [col[t] for t in t_arr[test]]]
    ctx = np.zeros(n)
    np.maximum.at(ctx, s_arr, 1.0 - p_gold)
    flags = pl.read_parquet(REAL / "flags.parquet")
    z = sentence_logits(flags, n)
    p_tag = CONLL_TRAIN.probability(z)
    p_tag_rank = np.where(np.isnan(z), -1e9, z)
    combined = 1.0 - (1.0 - p_tag) * (1.0 - ctx)
    sl = slice(0, hi)
    tr = slice(*ranges["eng.train"])
    dv = slice(*ranges["eng.testa"])
    out: dict[str, object] = {
        "experiment": "context-only member (span words masked), cross-fitted by documents",
        "types": types,
        "spans": len(feats),
        "seconds": time.perf_counter() - t0,
        "load_average_start": load,
        "load_average_end": os.getloadavg(),
    }
    for name, score in (
        ("detector", p_tag_rank),
        ("context", ctx),
        ("combined_noisy_or", combined),
    ):
        out[name] = {
            part: {"ap": _ap(score[r], y[r]), "p_at_100": _p_at(score[r], y[r], 100)}
            for part, r in (("train+dev", sl), ("train", tr), ("dev", dv))
        }
    out["base_rate"] = float(y.mean())
    print(json.dumps(out, indent=1))
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
