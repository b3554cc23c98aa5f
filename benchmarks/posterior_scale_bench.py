"""Scale of the error posterior's fit: ``rate_posterior`` on two labels at growing n.

The two-label fit profiles the offset δ at every (π, α) grid cell (40 × 14 = 560 cells,
:func:`benchcheck.labels.base_rate.profile_grid`). Each size runs in a fresh process with
its own peak RSS (:mod:`_harness`), twice in the same run: the shipped fit (cells solved in
blocks of ``BLOCK_CELLS`` values) and the baseline of all 560 cells × n at once
(``BLOCK_CELLS`` set past 560·n, the implementation before the blocks); the two must give
bit-identical posteriors (checked: the scores' SHA-256). Synthetic judge probabilities
(log-odds ~ N(±2, 1.5), 10 % flipped labels), seed 0. Medians of ``--repeat``; the load
average is printed beside the numbers.

    python benchmarks/posterior_scale_bench.py [--sizes 20000,150000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import timed  # noqa: E402

_CHILD = r"""
import hashlib, json, sys, time
import numpy as np
import benchcheck.labels.base_rate as br
n, baseline = int(sys.argv[1]), sys.argv[2] == "baseline"
if baseline:
    br.BLOCK_CELLS = 10**12
rng = np.random.default_rng(0)
z = rng.integers(0, 2, n)
p1 = 1 / (1 + np.exp(-rng.normal(2.0 * (2 * z - 1), 1.5)))
y = np.where(rng.random(n) < 0.1, 1 - z, z)
t = time.perf_counter()
r = br.rate_posterior(np.column_stack([1 - p1, p1]), y)
s = time.perf_counter() - t
print(json.dumps({"fit_s": s, "sha": hashlib.sha256(r.score.tobytes()).hexdigest()[:16]}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20000,150000")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    load = [os.getloadavg()[0]]
    rows = []
    for n in (int(v) for v in args.sizes.split(",")):
        got = {}
        for kind in ("blocks", "baseline"):
            runs = [timed([sys.executable, "-c", _CHILD, str(n), kind]) for _ in range(args.repeat)]
            outs = [json.loads(out) for _, _, out in runs]
            got[kind] = {
                "wall_s": round(statistics.median(w for w, _, _ in runs), 2),
                "fit_s": round(statistics.median(o["fit_s"] for o in outs), 2),
                "peak_mb": round(statistics.median(m for _, m, _ in runs)),
                "sha": outs[0]["sha"],
            }
        same = got["blocks"]["sha"] == got["baseline"]["sha"]
        rows.append(
            {
                "n": n,
                **got,
                "identical": same,
                "fit_speedup": round(got["baseline"]["fit_s"] / got["blocks"]["fit_s"], 1),
            }
        )
        print(
            f"n={n:>8}  blocks {got['blocks']['fit_s']:7.2f} s {got['blocks']['peak_mb']:6} MB"
            f"  baseline {got['baseline']['fit_s']:7.2f} s {got['baseline']['peak_mb']:6} MB"
            f"  identical {same}",
            flush=True,
        )
    load.append(os.getloadavg()[0])
    print(json.dumps({"rows": rows, "load_average_before_after": load}, indent=2))


if __name__ == "__main__":
    main()
