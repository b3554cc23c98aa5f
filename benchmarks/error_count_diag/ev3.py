"""Stated vs realised precision of the top 2/5/10/20 % under each model (dev pool; after sweep2.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
from sweep2 import comps, prep  # noqa: E402

n, rate, draws = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
ds = prep(n, rate, draws, "dev")
for spec in sys.argv[4].split(","):
    pr, T, cp = spec.split("/")
    acc = {}
    for dr in ds:
        w, E, P = comps(dr, pr, int(T), cp)
        e = w @ E
        mask = dr["mask"]
        order = np.lexsort((np.arange(len(e)), -e))
        for frac in (0.02, 0.05, 0.1, 0.2):
            kk = max(1, int(round(frac * n)))
            a = acc.setdefault(frac, [0, 0.0, 0])
            a[0] += mask[order[:kk]].sum()
            a[1] += e[order[:kk]].sum()
            a[2] += kk
        a = acc.setdefault("max", [0, 0.0, 0])
        a[1] += e.max()
        a[2] += 1
    print(
        spec, " ".join(f"top{f}: P={a[0] / a[2]:.2f}/st={a[1] / a[2]:.2f}" for f, a in acc.items())
    )
