"""Speed of item analysis (CTT) and the 2PL fit on a benchmark-sized matrix (issue 16).

Targets on 2 cores: the CTT statistics of 10,000 items × 50 models (difficulty,
discrimination, upper–lower index, alpha if deleted, KR-20/alpha with a 1,000-resample
bootstrap over items, SEM) under 10 s; the 2PL fit with abilities and their standard errors
under 60 s. Also how both grow with items (2,500 → 10,000) and with models (12 → 50).

The matrix is simulated from a 2PL (a ~ lognormal(0, 0.3), b ~ N(0, 1), theta ~ N(0, 1),
seed 0). Each figure is the median of ``--repeat`` runs in this process; the baseline, in
the same run, is one vectorised numpy pass (totals and every item's Pearson correlation
with them), so figures can be read as ratios on a loaded machine.

    python benchmarks/items_bench.py [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from benchcheck.items.analysis import analyse_items
from benchcheck.items.irt import fit_irt
from benchcheck.items.matrix import item_matrix


def simulate(k: int, m: int, seed: int = 0):  # type: ignore[no-untyped-def]
    """A k × m 0/1 matrix from a 2PL with random parameters, as an ItemMatrix."""
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0, 0.3, k)
    b = rng.normal(0, 1, k)
    theta = rng.normal(0, 1, m)
    p = 1 / (1 + np.exp(-a[:, None] * (theta[None, :] - b[:, None])))
    x = (rng.random((k, m)) < p).astype(float)
    return item_matrix([f"i{i}" for i in range(k)], [f"m{j}" for j in range(m)], x)


def baseline(x: np.ndarray) -> None:
    """One numpy pass: totals and each item's Pearson correlation with them."""
    t = x.sum(axis=0)
    xc = x - x.mean(axis=1, keepdims=True)
    tc = t - t.mean()
    _ = (xc @ tc) / np.sqrt((xc * xc).sum(axis=1) * (tc @ tc) + 1e-300)


def median_time(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Median wall seconds of ``fn()`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = []
    shapes = [(2500, 50), (5000, 50), (10000, 50), (10000, 12), (10000, 25)]
    for k, m in shapes:
        mat = simulate(k, m)
        base = median_time(lambda mat=mat: baseline(np.asarray(mat.scores)), args.repeat)
        ctt = median_time(lambda mat=mat: analyse_items(mat, n_resamples=1000), args.repeat)
        irt = median_time(lambda mat=mat: fit_irt(mat, model="2pl"), args.repeat)
        row = {
            "items": k,
            "models": m,
            "baseline_s": round(base, 4),
            "ctt_s": round(ctt, 3),
            "irt_2pl_s": round(irt, 3),
            "ctt_over_baseline": round(ctt / base, 1),
            "irt_over_baseline": round(irt / base, 1),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = {
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        "repeat": args.repeat,
        "rows": rows,
        "targets": {"ctt_s": 10, "irt_2pl_s": 60, "shape": [10000, 50]},
    }
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    print(json.dumps({"load_average": out["load_average"]}))


if __name__ == "__main__":
    main()
