"""Coverage of the stratified error-rate interval, and of the alternatives it was chosen over.

A review with an audit sample is a stratified random sample without replacement: the
disputed stratum (flags: ``N_D`` examples, ``E_D`` of them wrong, ``n_D`` reviewed) and the
undisputed one (``N_U``, ``E_U``, ``n_U`` audited). For a fixed population the coverage of an
interval is computed **exactly**: the sum, over every outcome ``(k_D, k_U)``, of its
hypergeometric probability times whether the interval holds the true rate
``(E_D + E_U) / N`` — no simulation noise. The percentile bootstrap, random by nature, is
simulated instead (``--bootstrap-reviews`` reviews per setting, 400 resamples each).

Methods (nominal 95%):

* ``midp`` / ``exact`` — benchcheck's: per-stratum mid-p / exact hypergeometric interval,
  MOVER combination (:mod:`benchcheck.stats.stratified`);
* ``wilson`` — per-stratum Wilson score interval with the finite population correction
  (effective size ``n / f²``), MOVER (Zou, Huang & Zhang 2009);
* ``jeffreys`` — per-stratum Jeffreys interval, shrunk by ``f = sqrt((N - n)/(N - 1))``, MOVER;
* ``wald`` — the textbook stratified Wald interval with the FPC (Cochran 1977, eq. 5.6);
* ``bootstrap`` — stratified percentile bootstrap (resampling within strata).

The grid (default): ``N`` in {1,000, 10,000}, 10% flagged of which 30% wrong; every flag or
50 of them reviewed; 30, 50, 100, 200 or 400 audited; undisputed error rates from 0.2% to
12% in 40 steps: 800 settings. Prints a table and writes JSON.

    python benchmarks/error_rate_bench.py [--json out.json] [--bootstrap-reviews 1000]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as st
from statsmodels.stats.proportion import proportion_confint

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from benchcheck.stats.stratified import hypergeometric_bounds  # noqa: E402

ALPHA = 0.05
Z = float(st.norm.ppf(1 - ALPHA / 2))
METHODS = ("midp", "exact", "wilson", "jeffreys", "wald")


@functools.cache
def per_stratum(method: str, n: int, big_n: int) -> tuple[np.ndarray, np.ndarray]:
    """Interval of one stratum's rate for every count ``k = 0..n``."""
    k = np.arange(n + 1)
    p = k / n
    f2 = 0.0 if n == big_n else (big_n - n) / (big_n - 1)
    if method in ("midp", "exact"):
        lo, hi = hypergeometric_bounds(k, n, big_n, midp=method == "midp")
        return lo / big_n, hi / big_n
    if f2 == 0:
        return p, p
    if method == "wilson":
        lo, hi = proportion_confint(k / f2, n / f2, ALPHA, method="wilson")
        return np.asarray(lo), np.asarray(hi)
    if method == "jeffreys":
        lo, hi = proportion_confint(k, n, ALPHA, method="jeffreys")
        lo, hi = np.where(k == 0, 0.0, lo), np.where(k == n, 1.0, hi)
        f = np.sqrt(f2)
        return p - f * (p - lo), p + f * (hi - p)
    raise ValueError(method)


def exact_coverage(
    setting: tuple[int, int, int, int, int, int], method: str
) -> tuple[float, float]:
    """Exact coverage and mean width of one method in one setting (population fixed)."""
    nd_pop, ed, nu_pop, eu, nd, nu = setting
    big_n = nd_pop + nu_pop
    w = np.array([nd_pop, nu_pop]) / big_n
    truth = (ed + eu) / big_n
    kd, ku = np.arange(nd + 1), np.arange(nu + 1)
    pd = st.hypergeom.pmf(kd, nd_pop, ed, nd)
    pu = st.hypergeom.pmf(ku, nu_pop, eu, nu)
    phd, phu = kd / nd, ku / nu
    est = w[0] * phd[:, None] + w[1] * phu[None, :]
    if method == "wald":
        fd = 0.0 if nd == nd_pop else (nd_pop - nd) / nd_pop
        fu = 0.0 if nu == nu_pop else (nu_pop - nu) / nu_pop
        vd = w[0] ** 2 * fd * phd * (1 - phd) / max(nd - 1, 1)
        vu = w[1] ** 2 * fu * phu * (1 - phu) / max(nu - 1, 1)
        half = Z * np.sqrt(vd[:, None] + vu[None, :])
        lo, hi = est - half, est + half
    else:
        ld, ud = per_stratum(method, nd, nd_pop)
        lu, uu = per_stratum(method, nu, nu_pop)
        lo = est - np.sqrt((w[0] * (phd - ld))[:, None] ** 2 + (w[1] * (phu - lu))[None, :] ** 2)
        hi = est + np.sqrt((w[0] * (ud - phd))[:, None] ** 2 + (w[1] * (uu - phu))[None, :] ** 2)
    eps = 1e-12
    cover = ((lo <= truth + eps) & (hi >= truth - eps)).astype(float)
    return float(pd @ cover @ pu), float(pd @ (hi - lo) @ pu)


def bootstrap_coverage(setting, reviews: int, seed: int) -> tuple[float, float]:
    """Simulated coverage of the stratified percentile bootstrap (400 resamples a review)."""
    nd_pop, ed, nu_pop, eu, nd, nu = setting
    rng = np.random.default_rng(seed)
    w = np.array([nd_pop, nu_pop]) / (nd_pop + nu_pop)
    truth = (ed + eu) / (nd_pop + nu_pop)
    kd = rng.hypergeometric(ed, nd_pop - ed, nd, size=reviews)
    ku = rng.hypergeometric(eu, nu_pop - eu, nu, size=reviews)
    star = (
        w[0] * rng.binomial(nd, (kd / nd)[:, None], size=(reviews, 400)) / nd
        + w[1] * rng.binomial(nu, (ku / nu)[:, None], size=(reviews, 400)) / nu
    )
    lo, hi = np.quantile(star, [ALPHA / 2, 1 - ALPHA / 2], axis=1)
    eps = 1e-12
    return float(np.mean((lo <= truth + eps) & (hi >= truth - eps))), float(np.mean(hi - lo))


def grid() -> list[tuple[int, int, int, int, int, int]]:
    out = []
    for big_n in (1000, 10000):
        nd_pop = big_n // 10
        nu_pop = big_n - nd_pop
        ed = int(0.3 * nd_pop)
        for nd in (nd_pop, 50):
            for nu in (30, 50, 100, 200, 400):
                for pu in np.linspace(0.002, 0.12, 40):
                    eu = max(1, int(round(nu_pop * pu)))
                    out.append((nd_pop, ed, nu_pop, eu, nd, nu))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--bootstrap-reviews", type=int, default=1000)
    ap.add_argument("--bootstrap-settings", type=int, default=80, help="every k-th setting")
    args = ap.parse_args()
    settings = grid()
    start = time.perf_counter()
    results: dict[str, dict[str, object]] = {}
    for m in METHODS:
        cw = np.array([exact_coverage(s, m) for s in settings])
        worst = settings[int(np.argmin(cw[:, 0]))]
        results[m] = {
            "settings": len(settings),
            "coverage_mean": float(cw[:, 0].mean()),
            "coverage_min": float(cw[:, 0].min()),
            "share_below_0.93": float(np.mean(cw[:, 0] < 0.93)),
            "share_below_0.94": float(np.mean(cw[:, 0] < 0.94)),
            "width_mean": float(cw[:, 1].mean()),
            "worst_setting": dict(
                zip(("N_D", "E_D", "N_U", "E_U", "n_D", "n_U"), worst, strict=True)
            ),
            "coverage": "exact",
        }
    step = max(1, len(settings) // args.bootstrap_settings)
    sub = settings[::step]
    cw = np.array([bootstrap_coverage(s, args.bootstrap_reviews, i) for i, s in enumerate(sub)])
    results["bootstrap"] = {
        "settings": len(sub),
        "coverage_mean": float(cw[:, 0].mean()),
        "coverage_min": float(cw[:, 0].min()),
        "share_below_0.93": float(np.mean(cw[:, 0] < 0.93)),
        "share_below_0.94": float(np.mean(cw[:, 0] < 0.94)),
        "width_mean": float(cw[:, 1].mean()),
        "coverage": f"simulated, {args.bootstrap_reviews} reviews per setting",
    }
    seconds = time.perf_counter() - start
    print(
        f"{'method':10s} {'settings':>8s} {'mean':>7s} {'min':>7s} {'<0.93':>7s} {'<0.94':>7s} {'width':>7s}"
    )
    for m, r in results.items():
        print(
            f"{m:10s} {r['settings']:8d} {r['coverage_mean']:7.4f} {r['coverage_min']:7.4f} "
            f"{r['share_below_0.93']:7.3f} {r['share_below_0.94']:7.3f} {r['width_mean']:7.4f}"
        )
    print(f"({seconds:.0f} s)")
    if args.json is not None:
        args.json.write_text(json.dumps({"nominal": 0.95, "methods": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
