"""Candidate detectors on the real CoNLL-2003 train/dev errors, from cached tagger runs (issue 36).

``ner_detect_bench.py --real`` runs the whole ``flag-spans`` path (≈6 min at load 7). This
script measures a candidate change of the detector without re-running everything: each
out-of-fold tagger run (the five CRFs of :func:`benchcheck.labels.ner_tagger.oof_tagging`
for one fold assignment) is computed once and cached (pickled) under the git-ignored
``benchmarks/_data/ner_real/cache/``; a candidate is then scored by running
:func:`benchcheck.labels.ner_detect.tagger_flags` with ``oof_tagging`` replaced by the cached
(or combined) tagging. The corpus, the document ids and the scoring (sentence AP, P@k, the
default flags' sentence precision and recall on the 17,291 train/dev sentences; the test
split audited but never scored, its corrections never read) are those of ``--real``.

Candidates (``--candidates``, comma-separated):

* ``base`` (or any other name): the package's detector as it stands (the plain 5-fold view;
  the topic member included); the tagger's options can be named by parts of the candidate
  (:func:`tagger_options`): ``plain`` (the plain view only), ``disjoint`` (its folds
  entity-disjoint), ``cwN`` (N entity-disjoint runs as a second view, per token the less
  supporting, :mod:`benchcheck.labels.ner_tagger`), ``itN``, ``c2X``; e.g. ``cw1`` or
  ``plain-disjoint`` (one entity-disjoint k-fold alone);
* ``seeds``: repeated seeded k-fold computed as separate cached runs — the marginals averaged
  over seeds ``0 … S-1`` (``--seeds``), the labels the arg-max of the averaged marginals
  (``seeds-plain-disjoint`` is what the package's default computes in one run); word
  clusters learned from the corpus were measured as ``clusters`` (commit e90b93a, removed:
  they lowered AP);
* ``minview`` / ``minviewN``: per token, the marginals of whichever of a plain run and the
  mean of ``N`` entity-disjoint runs (default 3) gives the gold label less probability;
* ``mix`` / ``mixN``: a plain run's marginals and the mean of ``N`` entity-disjoint runs'
  (seeds ``0 … N-1``; ``mix``: one), weighed half and half;
* ``docfolds``: folds dealt by document (every sentence of a ``-DOCSTART-`` section held out
  together), so that a fold's CRF has not seen the other sentences of the held-out story;
* ``genre``: the consistency member counted within each *genre* (documents grouped by their
  headline's leading word before `` - ``, e.g. ``CRICKET``, ``SOCCER``), beside the
  corpus-wide and document members (noisy-or; scores only the rows that exist, adds none);
* ``topicK`` (e.g. ``topic50``): the same, the groups k-means clusters of the documents'
  TF-IDF vectors (the prototype of the package's topic member, which also adds rows).

Results (load 9–10 on the 2 shared cores; flags = ``error_score >= 0.995``), recorded in
``candidates`` of ``benchmarks/results/ner_real_errors.json``: see docs/labels.md.

Run: ``nice -n 10 python benchmarks/ner_real_candidates.py --candidates base,docfolds``;
prints one JSON line per candidate and merges them into
``benchmarks/results/ner_real_errors.json`` under ``candidates``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))

from ner_detect_bench import REAL_DATA, REAL_K, REAL_OUT, _rank_metrics, build_real  # noqa: E402

import benchcheck.labels.ner_detect as nd  # noqa: E402
from benchcheck.labels import ner_tagger  # noqa: E402
from benchcheck.labels.ner_flags import spans_from_split  # noqa: E402
from benchcheck.labels.ner_tagger import OofTagging, TaggerOptions  # noqa: E402

CACHE = REAL_DATA / "cache"
#: Appended to every cache key: a change of the tagger's feature template changes it.
FEATURES_KEY = ""
_ORIGINAL_OOF = ner_tagger.oof_tagging
_ORIGINAL_DEAL = ner_tagger.deal_folds


def _corpus() -> tuple[object, np.ndarray, dict[str, tuple[int, int]], np.ndarray]:
    """The corpus split, document ids, split ranges and corrected-sentence truth."""
    from benchcheck.runs.flag_spans import _places, read_corpus_folder

    _, truth = build_real(REAL_DATA, REAL_DATA / "all_conll_corrections_combined.csv")
    corpus = read_corpus_folder(REAL_DATA)
    split = corpus.split
    place = _places(split, str(REAL_DATA), corpus)
    ranges = truth["ranges"]
    hi = ranges["eng.testa"][1]  # type: ignore[index]
    y = np.zeros(hi, dtype=bool)
    for c in truth["corrections"]:  # type: ignore[attr-defined]
        for s_ in c.sentences:
            y[s_] = True
    return split, np.asarray(place.tagger_documents), ranges, y  # type: ignore[return-value]


def _cached_tagging(key: str, compute) -> OofTagging:  # type: ignore[no-untyped-def]
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{key}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())  # noqa: S301 - our own cache file
    t0 = time.perf_counter()
    load = os.getloadavg()[0]
    out = compute()
    print(
        json.dumps({"computed": key, "seconds": time.perf_counter() - t0, "load_start": load}),
        flush=True,
    )
    path.write_bytes(pickle.dumps(out))
    return out


def _doc_deal(documents: np.ndarray):  # type: ignore[no-untyped-def]
    """``deal_folds`` by document: whole documents dealt round-robin after a seeded shuffle."""

    def deal(has_entity: np.ndarray, folds: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        docs = np.unique(documents)
        order = rng.permutation(docs)
        fold_of = dict(zip(order.tolist(), (np.arange(order.size) % folds).tolist(), strict=True))
        return np.array([fold_of[int(d)] for d in documents.tolist()], dtype=np.int64)

    return deal


def tagging_for(
    words: list[list[str]],
    labels: list[list[str]],
    surfaces: list[frozenset[str]],
    opts: TaggerOptions,
    documents: np.ndarray,
    folds_by: str,
) -> OofTagging:
    """One out-of-fold run, cached by the corpus, the options and the fold dealing."""
    digest = hashlib.sha1(repr((len(words), sum(map(len, words)))).encode()).hexdigest()[:8]
    key = (
        f"{digest}-{folds_by}-seed{opts.seed}-k{opts.folds}-it{opts.max_iterations}"
        f"-c2{opts.c2:g}-{opts.algorithm}-cw{opts.crossweigh}"
        + ("-disjoint" if opts.entity_disjoint else "")
        + FEATURES_KEY
    )

    def compute() -> OofTagging:
        if folds_by == "document":
            ner_tagger.deal_folds = _doc_deal(documents)  # type: ignore[assignment]
        try:
            return _ORIGINAL_OOF(words, labels, surfaces, opts)
        finally:
            ner_tagger.deal_folds = _ORIGINAL_DEAL  # type: ignore[assignment]

    return _cached_tagging(key, compute)


def tagger_options(cand: str) -> TaggerOptions:
    """The tagger's options a candidate names, from the package's defaults.

    Parts: ``plain`` (one plain k-fold: no entity-disjoint view), ``disjoint`` (the filter
    on the main run's folds), ``cwN`` (entity-disjoint runs of the second view), ``itN``
    (epochs), ``c2X``.

    >>> o = tagger_options("plain-it60")
    >>> o.entity_disjoint, o.crossweigh, o.max_iterations
    (False, 0, 60)
    """
    opts: dict[str, object] = {}
    for part in cand.split("-"):
        if part == "plain":
            opts.update(entity_disjoint=False, crossweigh=0)
        elif part == "disjoint":
            opts["entity_disjoint"] = True
        elif part.startswith("cw") and part[2:].isdigit():
            opts["crossweigh"] = int(part[2:])
        elif part.startswith("it") and part[2:].isdigit():
            opts["max_iterations"] = int(part[2:])
        elif part.startswith("c2") and part[2:]:
            opts["c2"] = float(part[2:])
    return replace(TaggerOptions(), **opts)  # type: ignore[arg-type]


def average(runs: list[OofTagging]) -> OofTagging:
    """The runs' marginals averaged; the labels re-decoded as the averaged arg-max (IOB2-fixed)."""
    classes = runs[0].classes
    assert all(r.classes == classes for r in runs)
    marg = tuple(
        np.mean([r.marginals[s] for r in runs], axis=0) for s in range(len(runs[0].marginals))
    )
    pred = []
    for m in marg:
        labs = [classes[j] for j in m.argmax(axis=1)]
        pred.append(tuple(labs))
    return OofTagging(classes=classes, marginals=marg, predicted=tuple(pred), fold=runs[0].fold)


def least_supporting(runs: list[OofTagging], labels: list[list[str]]) -> OofTagging:
    """Per token, the marginals of the run giving the gold label the least probability."""
    classes = runs[0].classes
    assert all(r.classes == classes for r in runs)
    col = {c: j for j, c in enumerate(classes)}
    marg = []
    for s in range(len(runs[0].marginals)):
        stack = np.stack([r.marginals[s] for r in runs])  # runs x tokens x classes
        gold = np.array([col[g] for g in labels[s]], dtype=np.int64)
        p_gold = stack[:, np.arange(gold.size), gold]  # runs x tokens
        pick = p_gold.argmin(axis=0)
        marg.append(stack[pick, np.arange(gold.size)])
    pred = tuple(tuple(classes[j] for j in m.argmax(axis=1)) for m in marg)
    return OofTagging(classes=classes, marginals=tuple(marg), predicted=pred, fold=runs[0].fold)


def genres(words: list[list[str]], documents: np.ndarray) -> np.ndarray:
    """Each sentence's genre id: its document's first sentence's leading word before ``-``."""
    first: dict[int, str] = {}
    for s, d in enumerate(documents.tolist()):
        if d not in first:
            w = words[s]
            first[d] = w[0].upper() if len(w) > 1 and w[1] == "-" else ""
    names = {g: i for i, g in enumerate(sorted(set(first.values())))}
    return np.array([names[first[d]] for d in documents.tolist()], dtype=np.int64)


def score(flags: pl.DataFrame, y: np.ndarray, seconds: float, load: float) -> dict[str, object]:
    """Sentence AP, P@k and the default flags' sentence precision/recall on train/dev."""
    hi = y.size
    scored = flags.filter(pl.col("sentence") < hi)
    z = np.full(hi, -1e9)
    for s_, v in scored.group_by("sentence").agg(pl.col("error_logit").max()).iter_rows():
        z[s_] = v
    rng = np.random.default_rng(0)
    out: dict[str, object] = dict(_rank_metrics(z, y, rng))
    order = np.lexsort((rng.random(hi), -z))
    for k in REAL_K:
        out[f"p_at_{k}"] = float(y[order[:k]].mean())
    on = np.zeros(hi, dtype=bool)
    on[scored.filter(pl.col("flagged"))["sentence"].unique().to_numpy()] = True
    tp = int((on & y).sum())
    out["flagged_sentences"] = int(on.sum())
    out["flag_precision"] = tp / max(int(on.sum()), 1)
    out["flag_recall"] = tp / int(y.sum())
    for col in (
        "crf_score",
        "consistency_score",
        "document_score",
        "topic_score",
        "genre_score",
        "dispute_share",
    ):
        if col in scored.columns:
            m = np.zeros(hi)
            for s_, v in scored.group_by("sentence").agg(pl.col(col).max()).iter_rows():
                m[s_] = v or 0.0
            out[f"ap_{col.removesuffix('_score')}"] = _rank_metrics(m, y, rng)["ap"]
    out["seconds"] = seconds
    out["load"] = load
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidates", default="base")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    split, documents, ranges, y = _corpus()
    tokens = split.tokens  # type: ignore[attr-defined]
    spans = spans_from_split(split)  # type: ignore[arg-type]
    n = split.n  # type: ignore[attr-defined]
    words = nd._sentence_words(tokens, n)
    results: dict[str, object] = {}
    for cand in args.candidates.split(","):
        t0 = time.perf_counter()
        load = os.getloadavg()[0]

        def fake_oof(w, labels, surfaces, opts, progress=None, _cand=cand):  # type: ignore[no-untyped-def]
            if _cand.startswith("seeds"):
                runs = [
                    tagging_for(
                        w,
                        labels,
                        surfaces,
                        replace(tagger_options(_cand), seed=k, crossweigh=0),
                        documents,
                        "sentence",
                    )
                    for k in range(args.seeds)
                ]
                return average(runs)
            if _cand.startswith("minview"):  # per token the view least supporting the gold
                plain = replace(tagger_options(_cand), entity_disjoint=False, crossweigh=0)
                n_disjoint = int(_cand.split("-")[0][7:] or 3)
                disjoint = average(
                    [
                        tagging_for(
                            w,
                            labels,
                            surfaces,
                            replace(plain, entity_disjoint=True, seed=k),
                            documents,
                            "sentence",
                        )
                        for k in range(n_disjoint)
                    ]
                )
                return least_supporting(
                    [tagging_for(w, labels, surfaces, plain, documents, "sentence"), disjoint],
                    labels,
                )
            if _cand.startswith("mix"):  # a plain run and mixN: N disjoint runs, halves
                plain = replace(tagger_options(_cand), entity_disjoint=False, crossweigh=0)
                n_disjoint = int(_cand.split("-")[0][3:] or 1)
                disjoint = [
                    tagging_for(
                        w,
                        labels,
                        surfaces,
                        replace(plain, entity_disjoint=True, seed=k),
                        documents,
                        "sentence",
                    )
                    for k in range(n_disjoint)
                ]
                return average(
                    [
                        tagging_for(w, labels, surfaces, plain, documents, "sentence"),
                        average(disjoint),
                    ]
                )
            if _cand.startswith("docfolds"):
                plain = replace(tagger_options(_cand), entity_disjoint=False, crossweigh=0)
                return tagging_for(w, labels, surfaces, plain, documents, "document")
            return tagging_for(w, labels, surfaces, tagger_options(_cand), documents, "sentence")

        nd.oof_tagging = fake_oof  # type: ignore[assignment]
        found = nd.tagger_flags(tokens, spans, n, documents=documents)
        flags = found.flags
        if "genre" in cand:
            flags = add_genre(flags, words, spans, documents)
        if "topic" in cand:
            k = int(cand.split("topic")[1].split("-")[0] or 50)
            flags = add_genre(flags, words, spans, documents, topics=k)
        row = score(flags, y, time.perf_counter() - t0, load)
        row["candidate"] = cand
        results[cand] = row
        print(json.dumps(row), flush=True)
        flags.write_parquet(CACHE / f"flags-{cand}.parquet")
    if not args.no_save and REAL_OUT.exists():
        payload = json.loads(REAL_OUT.read_text())
        payload.setdefault("candidates", {}).update(results)
        REAL_OUT.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")


def topic_clusters(words: list[list[str]], documents: np.ndarray, k: int) -> np.ndarray:
    """Each sentence's topic: k-means (k) of its document's TF-IDF vector (lowercased words)."""
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    ids = np.unique(documents)
    text = {int(d): [] for d in ids}
    for s, d in enumerate(documents.tolist()):
        text[d].extend(w.lower() for w in words[s])
    x = TfidfVectorizer(min_df=2, sublinear_tf=True, analyzer=lambda t: t).fit_transform(
        [text[int(d)] for d in ids]
    )
    lab = KMeans(n_clusters=k, n_init=4, random_state=0).fit_predict(x)
    of = dict(zip(ids.tolist(), lab.tolist(), strict=True))
    return np.array([of[d] for d in documents.tolist()], dtype=np.int64)


def add_genre(
    flags: pl.DataFrame,
    words: list[list[str]],
    spans: pl.DataFrame,
    documents: np.ndarray,
    topics: int = 0,
) -> pl.DataFrame:
    """Noisy-or a genre-consistency member into ``error_logit`` (overlapping rows only)."""
    from benchcheck.labels.ner_consistency import document_votes

    g = topic_clusters(words, documents, topics) if topics else genres(words, documents)
    by_sentence: list[list[tuple[int, int, str]]] = [[] for _ in words]
    for s, a, b, t in spans.select("sentence", "start", "end", "type").iter_rows():
        by_sentence[s].append((a, b, t))
    votes = document_votes(words, by_sentence, g.tolist())
    gscore = nd._overlap_max(flags, votes)
    flags = flags.with_columns(pl.Series("genre_score", gscore))
    extra = -np.log1p(-np.minimum(gscore, 1 - 1e-16))
    logit = np.clip(flags["error_logit"].to_numpy() + extra, -700, 700)
    return flags.with_columns(
        pl.Series("error_logit", logit),
        pl.Series("error_score", nd._sigmoid(logit)),
        (pl.Series(nd._sigmoid(logit)) >= nd.MIN_ERROR_SCORE).alias("flagged"),
    )


if __name__ == "__main__":
    main()
