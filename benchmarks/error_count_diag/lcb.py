"""Candidate (b): the flag set by a lower credible bound of its precision (dev pool; run after sweep.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from sweep import evaluate, prep  # noqa: E402

ds = prep(int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), "dev")
for pr in sys.argv[4].split(","):
    for lcb in (0.2, 0.1):
        r = evaluate(ds, pr, rule="lcb", lcb=lcb)
        print(
            lcb,
            " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()),
            flush=True,
        )
