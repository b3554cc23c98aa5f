"""Diagnosis of the error-count model on real pairs (issue 34): one script, five subcommands.

Every subcommand draws ``N`` pairs from a judged pool of ``error_count_bench.py`` (``--pool
dev`` by default; the pool's arrays are cached in ``benchmarks/_data/diag/``), plants
balanced flips at ``RATE`` with the seeds ``[0, rate·1000, N, draw]`` (the bench's draws for
``--seed 0``) and prints one line per candidate:

* ``diag N RATE DRAWS``: per draw the flip rate's posterior (mean, 95 % range, maximum
  likelihood) against the truth, the posterior temperature against the one fitted on the
  clean labels, and the log-likelihood gap between the grid's maximum and the truth;
* ``sweep N RATE DRAWS --priors P,…``: the (π, α) grid once per draw, re-weighted by each
  prior on the temperature (``loguniform``, ``lognorm:MEDIAN:SD``, ``trunc:LO:HI``); the
  default flags (expected precision ≥ 0.5), or with ``--rule lcb`` the largest set whose
  precision is ≥ 0.5 with posterior probability ≥ 1 − ``--lcb`` (0.2 and 0.1);
* ``split N RATE DRAWS --specs PRIOR/T/CPRIOR,…``: the combined rate split between flips
  and the judge's errors at ``T`` midpoints (0: no split), ``CPRIOR`` ``uniform`` on the
  combined rate or ``implied`` by uniform priors on both;
* ``top N RATE DRAWS --specs …``: stated against realised precision of the top 2 / 5 / 10 /
  20 % of the scores of each ``split`` model.

    python benchmarks/error_count_diag.py diag 120 0.1 12
    python benchmarks/error_count_diag.py sweep 120 0.1 30 --priors loguniform,lognorm:1:1
    python benchmarks/error_count_diag.py sweep 120 0.1 30 --priors loguniform --rule lcb
    python benchmarks/error_count_diag.py split 120 0.1 30 --specs loguniform/6/uniform
    python benchmarks/error_count_diag.py top 120 0.1 30 --specs loguniform/6/uniform

Grids are pickled per (pool, N, rate, draws) under ``benchmarks/_data/diag/``; delete them
after changing the library.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import error_count_bench as ecb  # noqa: E402
from detect_bench import plant  # noqa: E402

from benchcheck.labels import detectors as det  # noqa: E402
from benchcheck.labels.base_rate import count_interval, errors_at, profile_grid  # noqa: E402

CACHE_DIR = HERE / "_data" / "diag"
#: The temperature grids of ``sweep`` (28 points) and ``split`` (14, the library's).
ALPHAS_SWEEP = np.exp(np.linspace(math.log(0.05), math.log(50), 28))
ALPHAS_SPLIT = np.exp(np.linspace(math.log(0.05), math.log(50), 14))


def load(tag: str) -> tuple[np.ndarray, np.ndarray]:
    """The pool's true labels and n × members × 2 judge vectors (cached)."""
    f = CACHE_DIR / f"pool_{tag}.npz"
    if f.exists():
        z = np.load(f)
        return z["y"], z["m"]
    from benchcheck.judges.cache import JudgeCache
    from benchcheck.judges.run import make_judge

    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    judge = make_judge("llama-cpp")
    cache = JudgeCache(str(ecb.CACHE))
    try:
        for t, fr in ecb.pools(80, 60, 0).items():
            j = ecb.judged(fr, judge, cache)
            ids = fr["id"].to_list()
            y = np.array([int(v) for v in fr["label"].to_list()])
            np.savez(CACHE_DIR / f"pool_{t}.npz", y=y, m=ecb.member_array(j, ids))
    finally:
        cache.close()
        judge.close()
    return load(tag)


def draws(n: int, rate: float, count: int, tag: str) -> list[dict[str, Any]]:
    """The seeded draws: clean and noisy labels, planted mask, detector probabilities."""
    y_pool, m_pool = load(tag)
    out = []
    for d in range(count):
        rng = np.random.default_rng([0, int(round(rate * 1000)), n, d])
        pick = rng.choice(len(y_pool), size=n, replace=n > len(y_pool))
        y, members = y_pool[pick], m_pool[pick]
        noisy, mask = plant(y, rate, 2, rng)
        data = pl.DataFrame({"id": [f"x{i}" for i in range(n)], "label": [str(v) for v in noisy]})
        found = det.detect(data, ecb.judgments(members), labels=("0", "1"), posterior="none")
        p = found.frame.select("p_0", "p_1").to_numpy()
        out.append({"y": y, "noisy": noisy, "mask": mask, "members": members, "p": p})
    return out


def logit_grid(k: int = 2, size: int = 40) -> np.ndarray:
    """The library's flip-rate grid: ``size`` points uniform in logit from 1e-3 to (K−1)/K."""
    pi_max = (k - 1) / k - 1e-3
    lo, hi = math.log(1e-3 / (1 - 1e-3)), math.log(pi_max / (1 - pi_max))
    return 1 / (1 + np.exp(-(lo + (hi - lo) / (size - 1) * np.arange(size))))


def cached(name: str, build: Any) -> Any:
    """Pickle ``build()`` under the diag cache as ``name`` (read it back when present)."""
    f = CACHE_DIR / name
    if f.exists():
        return pickle.loads(f.read_bytes())
    out = build()
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    f.write_bytes(pickle.dumps(out))
    return out


def prior_alpha(name: str, alphas: np.ndarray) -> np.ndarray:
    """Log prior of the temperature on ``alphas`` (flat: the log-uniform grid)."""
    la = np.log(alphas)
    if name == "loguniform":
        return np.zeros_like(la)
    kind, a, b = name.split(":")
    if kind == "lognorm":  # log alpha ~ N(log a, b)
        return -0.5 * ((la - math.log(float(a))) / float(b)) ** 2
    if kind == "trunc":  # log-uniform on [a, b]
        return np.where((alphas >= float(a) * 0.999) & (alphas <= float(b) * 1.001), 0.0, -np.inf)
    raise SystemExit(f"unknown prior {name!r}: loguniform, lognorm:M:S or trunc:LO:HI")


def flags_by_mean(e: np.ndarray, disagree: np.ndarray, target: float = 0.5) -> np.ndarray:
    """The default rule: the largest top set of disagreements with mean score ≥ ``target``."""
    order = disagree_order(e, disagree)
    run = np.cumsum(e[order]) / np.arange(1, len(order) + 1)
    flags = np.zeros(len(e), bool)
    flags[order[: int(np.sum(run >= target - 1e-12))]] = True
    return flags


def disagree_order(e: np.ndarray, disagree: np.ndarray) -> np.ndarray:
    """The disagreements by decreasing score (ties by position)."""
    s = np.where(disagree, e, np.nan)
    return np.lexsort((np.arange(len(s)), -np.nan_to_num(s, nan=-1)))[: int(disagree.sum())]


def row(
    e: np.ndarray, comps: np.ndarray, w: np.ndarray, mask: np.ndarray, flags: np.ndarray
) -> dict[str, float]:
    """One draw's numbers: Σe / planted, interval coverage and width, the flags'."""
    from sklearn.metrics import average_precision_score

    k = mask.sum()
    lo, hi, _ = count_interval(comps, w)
    return {
        "ratio": float(e.sum() / k),
        "covers": float(lo <= k <= hi),
        "width": hi - lo,
        "flags": int(flags.sum()),
        "tf": int(mask[flags].sum()),
        "st": float(e[flags].sum()),
        "rec": float(flags[mask].mean()),
        "ap": float(average_precision_score(mask, e)),
    }


def summary(res: list[dict[str, float]], **head: Any) -> dict[str, Any]:
    """Means over the draws; precision pooled over them (Σ true flags / Σ flags)."""
    df = pl.DataFrame(res)
    f = df["flags"].sum()
    return {
        **head,
        "pi": df["post_pi"].mean(),
        "ratio": df["ratio"].mean(),
        "cov": df["covers"].mean(),
        "width": df["width"].mean(),
        "flags": df["flags"].mean(),
        "P": (df["tf"].sum() / f) if f else float("nan"),
        "stated": (df["st"].sum() / f) if f else float("nan"),
        "rec": df["rec"].mean(),
        "ap": df["ap"].mean(),
        "noflag": float((df["flags"] == 0).mean()),
    }


def show(r: dict[str, Any], prefix: str = "") -> None:
    print(
        prefix
        + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()),
        flush=True,
    )


def cmd_diag(a: argparse.Namespace) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    rows = []
    for d, dr in enumerate(draws(a.n, a.rate, a.draws, a.pool)):
        y, noisy, mask = dr["y"], dr["noisy"], dr["mask"]
        data = pl.DataFrame({"id": [f"x{i}" for i in range(a.n)], "label": [str(v) for v in noisy]})
        found = det.detect(data, ecb.judgments(dr["members"]), labels=("0", "1"))
        rp = found.posterior.rate
        p = found.frame.select("p_0", "p_1").to_numpy()
        ell = np.log(p[:, 1]) - np.log(p[:, 0])
        # the temperature fitted on the clean labels (the oracle calibration)
        a_or = float(LogisticRegression(C=1e6).fit(ell[:, None], y).coef_[0, 0])
        e = found.frame["error_score"].to_numpy()
        k = mask.sum()
        ll_true, _ = profile_grid(np.log(p), noisy, np.array([k / a.n]), np.array([a_or]))
        ll_grid, _ = profile_grid(np.log(p), noisy, np.unique(rp.grid), np.unique(rp.alpha))
        rows.append(
            {
                "d": d,
                "true": k / a.n,
                "post": rp.mean,
                "lo": rp.quantile(0.025),
                "hi": rp.quantile(0.975),
                "mle": rp.mle,
                "alpha_post": float(np.exp(rp.weight @ np.log(rp.alpha))),
                "alpha_or": a_or,
                "auc": float(roc_auc_score(y, ell)),
                "ll_gap": float(ll_grid.max() - ll_true[0, 0]),
                "sum_e_flip": float(e[mask].sum()),
                "sum_e_clean": float(e[~mask].sum()),
                "k": int(k),
            }
        )
        show(rows[-1])
    print(pl.DataFrame(rows).mean())


def sweep_grids(a: argparse.Namespace) -> list[dict[str, Any]]:
    """Per draw the (π, α) log-likelihood and every grid point's error scores (``sweep``)."""

    def build() -> list[dict[str, Any]]:
        pis = logit_grid()
        out = []
        for dr in draws(a.n, a.rate, a.draws, a.pool):
            logp = np.log(np.clip(dr["p"], 1e-12, 1))
            ll, th = profile_grid(logp, dr["noisy"], pis, ALPHAS_SWEEP)
            comps = [
                errors_at(logp, dr["noisy"], float(pis[g]), th[g, h])
                for g in range(len(pis))
                for h in range(len(ALPHAS_SWEEP))
            ]
            out.append(
                {
                    "ll": ll,
                    "E": np.stack(comps).astype(np.float32),
                    "mask": dr["mask"],
                    "disagree": dr["p"].argmax(1) != dr["noisy"],
                    "pis": pis,
                }
            )
        return out

    return cached(f"grid_{a.pool}_{a.n}_{a.rate}_{a.draws}.pkl", build)


def cmd_sweep(a: argparse.Namespace) -> None:
    from scipy.stats import norm

    grids = sweep_grids(a)
    for prior in a.priors.split(","):
        for lcb in a.lcb if a.rule == "lcb" else [None]:
            res = []
            for dr in grids:
                pis = dr["pis"]
                lp = dr["ll"] + (np.log(pis) + np.log1p(-pis))[:, None]
                lp = lp + prior_alpha(prior, ALPHAS_SWEEP)[None, :]
                w = np.exp(lp - lp.max()).ravel()
                w /= w.sum()
                keep = w > 1e-8
                w2, comps = w[keep] / w[keep].sum(), dr["E"][keep].astype(np.float64)
                e = w2 @ comps
                if lcb is None:
                    flags = flags_by_mean(e, dr["disagree"])
                else:
                    # P(set's count ≥ 0.5·size) under the grid mixture, normal per component
                    order = disagree_order(e, dr["disagree"])
                    cs = np.cumsum(comps[:, order], axis=1)
                    vs = np.cumsum(comps[:, order] * (1 - comps[:, order]), axis=1)
                    m = 0
                    for j in range(len(order)):
                        z = (0.5 * (j + 1) - 0.5 - cs[:, j]) / np.sqrt(
                            np.clip(vs[:, j], 1e-9, None)
                        )
                        if w2 @ norm.sf(z) >= 1 - lcb:
                            m = j + 1
                    flags = np.zeros(len(e), bool)
                    flags[order[:m]] = True
                r = row(e, comps, w2, dr["mask"], flags)
                r["post_pi"] = float(w @ np.repeat(pis, len(ALPHAS_SWEEP)))
                res.append(r)
            head = {"prior": prior, "rule": a.rule}
            show(summary(res, **head), "" if lcb is None else f"lcb={lcb} ")


def split_grids(a: argparse.Namespace, pool: str) -> list[dict[str, Any]]:
    """Per draw the (π, α) log-likelihood and the profiled parameters (``split``, ``top``)."""

    def build() -> list[dict[str, Any]]:
        pis = logit_grid()
        out = []
        for dr in draws(a.n, a.rate, a.draws, pool):
            logp = np.log(np.clip(dr["p"], 1e-12, 1))
            ll, th = profile_grid(logp, dr["noisy"], pis, ALPHAS_SPLIT)
            out.append(
                {
                    "ll": ll,
                    "th": th,
                    "mask": dr["mask"],
                    "disagree": dr["p"].argmax(1) != dr["noisy"],
                    "pis": pis,
                    "noisy": dr["noisy"],
                    "logp": logp,
                }
            )
        return out

    return cached(f"g2_{pool}_{a.n}_{a.rate}_{a.draws}.pkl", build)


def split_components(
    dr: dict[str, Any], prior: str, t_points: int, cprior: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights, error scores and flip rates of the split model's components (two labels).

    The combined rate c at each grid point is split at ``t_points`` midpoints ρ = t·c,
    ε = (c − ρ)/(1 − 2ρ), weights ∝ 1/(1 − 2ρ) (uniform priors on ρ and ε given c).
    """
    pis, ll, th, logp, y = dr["pis"], dr["ll"], dr["th"], dr["logp"], dr["noisy"]
    if cprior == "uniform":
        lpc = np.log(pis) + np.log1p(-pis)
    else:  # implied by independent uniforms on pi, eps: -log(1-2c)
        lpc = np.log(-np.log1p(-2 * pis)) + np.log(pis) + np.log1p(-pis)
    lp = ll + lpc[:, None] + prior_alpha(prior, ALPHAS_SPLIT)[None, :]
    w = np.exp(lp - lp.max())
    w /= w.sum()
    ell = logp[:, 1] - logp[:, 0]
    s = np.where(y == 1, 1.0, -1.0)
    ws, es, ps = [], [], []
    for g, h in zip(*np.nonzero(w >= 1e-8), strict=True):
        c = pis[g]
        qy = 1 / (1 + np.exp(-s * (th[g, h, 0] * ell + th[g, h, 1])))
        if t_points == 0:
            ts, tw = np.array([1.0]), np.array([1.0])
        else:
            ts = (np.arange(t_points) + 0.5) / t_points
            tw = 1 / (1 - 2 * ts * c)
            tw /= tw.sum()
        for t, wt in zip(ts, tw, strict=True):
            pi = t * c
            eps = (c - pi) / (1 - 2 * pi)
            q2 = eps + (1 - 2 * eps) * qy
            ws.append(w[g, h] * wt)
            es.append(pi * (1 - q2) / (pi * (1 - q2) + (1 - pi) * q2))
            ps.append(pi)
    return np.array(ws), np.array(es), np.array(ps)


def cmd_split(a: argparse.Namespace) -> None:
    grids = split_grids(a, a.pool)
    for spec in a.specs.split(","):
        prior, t_points, cprior = spec.split("/")
        res = []
        for dr in grids:
            w, comps, ps = split_components(dr, prior, int(t_points), cprior)
            e = w @ comps
            r = row(e, comps, w, dr["mask"], flags_by_mean(e, dr["disagree"]))
            r["post_pi"] = float(w @ ps)
            res.append(r)
        show(summary(res, prior=prior, T=int(t_points), cp=cprior), f"n={a.n} rate={a.rate} ")


def cmd_top(a: argparse.Namespace) -> None:
    grids = split_grids(a, "dev")
    for spec in a.specs.split(","):
        prior, t_points, cprior = spec.split("/")
        acc: dict[Any, list[float]] = {}
        for dr in grids:
            w, comps, _ = split_components(dr, prior, int(t_points), cprior)
            e = w @ comps
            mask = dr["mask"]
            order = np.lexsort((np.arange(len(e)), -e))
            for frac in (0.02, 0.05, 0.1, 0.2):
                kk = max(1, int(round(frac * a.n)))
                s = acc.setdefault(frac, [0, 0.0, 0])
                s[0] += mask[order[:kk]].sum()
                s[1] += e[order[:kk]].sum()
                s[2] += kk
            s = acc.setdefault("max", [0, 0.0, 0])
            s[1] += e.max()
            s[2] += 1
        print(
            spec,
            " ".join(f"top{f}: P={s[0] / s[2]:.2f}/st={s[1] / s[2]:.2f}" for f, s in acc.items()),
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    parsers = {}
    for name, fn in (
        ("diag", cmd_diag),
        ("sweep", cmd_sweep),
        ("split", cmd_split),
        ("top", cmd_top),
    ):
        p = sub.add_parser(name, help=fn.__name__)
        p.add_argument("n", type=int)
        p.add_argument("rate", type=float)
        p.add_argument("draws", type=int)
        p.add_argument("--pool", default="dev", choices=("dev", "heldout"))
        p.set_defaults(fn=fn)
        parsers[name] = p
    parsers["sweep"].add_argument("--priors", default="loguniform")
    parsers["sweep"].add_argument("--rule", default="mean", choices=("mean", "lcb"))
    parsers["sweep"].add_argument(
        "--lcb", type=lambda s: [float(v) for v in s.split(",")], default=[0.2, 0.1]
    )
    for name in ("split", "top"):
        parsers[name].add_argument("--specs", default="loguniform/6/uniform")
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
