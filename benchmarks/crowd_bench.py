"""Crowd models against majority vote on simulated crowds with known reviewer accuracies.

The issue's crowd: 1,000 items, five reviewers of accuracy 0.95 / 0.9 / 0.8 / 0.7 / 0.55
who answer every item (a wrong answer is another label, uniformly), 2 and 3 labels, three
seeds. A harder crowd closer to practice: each item answered by 3 of the 5 reviewers
(random), labels 80/20, and the weakest reviewer biased (answers the majority class 90% of
the time whatever the truth). For each model (:mod:`benchcheck.labels.crowd`) and each
setting: gold accuracy against the truth, the gain over majority vote (ties broken by the
first label, as a team would), the largest error of the estimated reviewer accuracies
(against each reviewer's accuracy in that sample) and the fit time; the ratio of each
model's time to Dawid-Skene's in the same run (times depend on the machine's load).

    python benchmarks/crowd_bench.py [--json out.json] [--seeds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

import numpy as np

from benchcheck.labels.crowd import CROWD_MODELS, fit_crowd_model

ACCURACY = (0.95, 0.9, 0.8, 0.7, 0.55)


def simulate(n: int, k: int, seed: int, *, hard: bool) -> tuple[list, list[str], dict]:
    """Answers ``(item, reviewer, label)``, the truth, and each reviewer's observed accuracy."""
    rng = np.random.default_rng(seed)
    prior = np.array([0.8, 0.2] + [0.0] * (k - 2)) if hard else np.full(k, 1 / k)
    if hard and k > 2:
        prior = np.array([0.8] + [0.2 / (k - 1)] * (k - 1))
    truth = rng.choice(k, size=n, p=prior)
    answers, right, seen = [], Counter(), Counter()
    for i in range(n):
        who = rng.choice(len(ACCURACY), size=3, replace=False) if hard else range(len(ACCURACY))
        for w in who:
            if hard and w == len(ACCURACY) - 1 and rng.random() < 0.9:
                given = 0  # the biased reviewer: the majority class, whatever the truth
            elif rng.random() < ACCURACY[w]:
                given = int(truth[i])
            else:
                given = int((truth[i] + rng.integers(1, k)) % k)
            answers.append((f"i{i:04d}", f"r{w}", str(given)))
            right[f"r{w}"] += given == truth[i]
            seen[f"r{w}"] += 1
    observed = {r: right[r] / seen[r] for r in seen}
    return answers, [str(t) for t in truth], observed


def majority(answers: list, n: int) -> list[str]:
    """Majority vote per item; a tie goes to the smallest label."""
    by: dict[str, Counter] = {}
    for item, _, lab in answers:
        by.setdefault(item, Counter())[lab] += 1
    out = []
    for i in range(n):
        c = by[f"i{i:04d}"]
        top = max(c.values())
        out.append(min(lab for lab, v in c.items() if v == top))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run every setting; print a table; write JSON when asked."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--items", type=int, default=1000)
    args = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    rows = []
    for hard in (False, True):
        for k in (2, 3):
            for seed in range(args.seeds):
                answers, truth, observed = simulate(args.items, k, seed, hard=hard)
                mv = float(
                    np.mean(
                        [a == b for a, b in zip(majority(answers, args.items), truth, strict=True)]
                    )
                )
                base = None
                for method in CROWD_MODELS:
                    start = time.perf_counter()
                    model = fit_crowd_model(answers, method=method, seed=seed)
                    took = time.perf_counter() - start
                    gold = model.gold()
                    acc = float(np.mean([gold[f"i{i:04d}"] == t for i, t in enumerate(truth)]))
                    err = max(abs(model.accuracy[r] - observed[r]) for r in observed)
                    nominal = max(abs(model.accuracy[f"r{w}"] - a) for w, a in enumerate(ACCURACY))
                    base = took if method == "dawid-skene" else base
                    rows.append(
                        {
                            "crowd": "hard" if hard else "issue",
                            "labels": k,
                            "seed": seed,
                            "method": method,
                            "gold_accuracy": acc,
                            "majority_accuracy": mv,
                            "gain_over_majority": acc - mv,
                            "max_accuracy_error_vs_sample": err,
                            "max_accuracy_error_vs_nominal": nominal,
                            "seconds": took,
                            "time_ratio_to_dawid_skene": took / base if base else None,
                        }
                    )
                    r = rows[-1]
                    print(
                        f"{r['crowd']:5} K={k} seed={seed} {method:11} gold {acc:.3f} "
                        f"(MV {mv:.3f}, +{acc - mv:.3f}) acc err {err:.3f} "
                        f"(nominal {nominal:.3f}) {took:6.1f}s x{r['time_ratio_to_dawid_skene']:.1f}",
                        flush=True,
                    )
    summary = {}
    for crowd in ("issue", "hard"):
        for method in CROWD_MODELS:
            sel = [r for r in rows if r["crowd"] == crowd and r["method"] == method]
            summary[f"{crowd}/{method}"] = {
                "gain_over_majority_mean": float(np.mean([r["gain_over_majority"] for r in sel])),
                "gold_accuracy_mean": float(np.mean([r["gold_accuracy"] for r in sel])),
                "max_accuracy_error_vs_sample": float(
                    max(r["max_accuracy_error_vs_sample"] for r in sel)
                ),
                "max_accuracy_error_vs_nominal": float(
                    max(r["max_accuracy_error_vs_nominal"] for r in sel)
                ),
                "time_ratio_to_dawid_skene_median": float(
                    np.median([r["time_ratio_to_dawid_skene"] for r in sel])
                ),
            }
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(
                {"load_1min": load, "items": args.items, "summary": summary, "rows": rows},
                fh,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
