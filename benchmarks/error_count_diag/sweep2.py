"""Judge-error-floor split: likelihood depends on c = pi + eps - 2 pi eps; split c by prior."""

import math
import pickle
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import error_count_bench as ecb  # noqa: E402
from detect_bench import plant  # noqa: E402
from diag import load  # noqa: E402
from sklearn.metrics import average_precision_score  # noqa: E402

from benchcheck.labels import detectors as det  # noqa: E402
from benchcheck.labels.base_rate import _grid2, count_interval  # noqa: E402

ALPHAS = np.exp(np.linspace(math.log(0.05), math.log(50), 14))


def prep(n, rate, draws, tag):
    f = Path(f"{Path(__file__).resolve().parents[1]}/_data/diag/g2_{tag}_{n}_{rate}_{draws}.pkl")
    if f.exists():
        return pickle.loads(f.read_bytes())
    y_pool, m_pool = load(tag)
    lo, hi = math.log(1e-3 / (1 - 1e-3)), math.log(0.499 / 0.501)
    pis = 1 / (1 + np.exp(-(lo + (hi - lo) / 39 * np.arange(40))))
    out = []
    for d in range(draws):
        rng = np.random.default_rng([0, int(round(rate * 1000)), n, d])
        pick = rng.choice(len(y_pool), size=n, replace=n > len(y_pool))
        y, members = y_pool[pick], m_pool[pick]
        noisy, mask = plant(y, rate, 2, rng)
        ids = [f"x{i}" for i in range(n)]
        data = pl.DataFrame({"id": ids, "label": [str(v) for v in noisy]})
        js = pl.concat(
            [
                pl.DataFrame(
                    {
                        "id": ids,
                        "judge": ["q"] * n,
                        "prompt": [p] * n,
                        "p_0": members[:, w, 0],
                        "p_1": members[:, w, 1],
                    }
                )
                for w, p in enumerate(ecb.PROMPTS)
            ]
        )
        found = det.detect(data, js, labels=("0", "1"), posterior="none")
        p = found.frame.select("p_0", "p_1").to_numpy()
        logp = np.log(np.clip(p, 1e-12, 1))
        ll, th = _grid2(logp, noisy, pis, ALPHAS)
        out.append(
            dict(
                ll=ll,
                th=th,
                mask=mask,
                disagree=p.argmax(1) != noisy,
                pis=pis,
                noisy=noisy,
                logp=logp,
            )
        )
    f.write_bytes(pickle.dumps(out))
    return out


def prior_alpha(name):
    la = np.log(ALPHAS)
    if name == "loguniform":
        return np.zeros_like(la)
    kind, a, b = name.split(":")
    return -0.5 * ((la - math.log(float(a))) / float(b)) ** 2


def comps(dr, prior, T, cprior):
    pis, ll, th, logp, y = dr["pis"], dr["ll"], dr["th"], dr["logp"], dr["noisy"]
    len(y)
    if cprior == "uniform":
        lpc = np.log(pis) + np.log1p(-pis)
    else:  # implied by independent uniforms on pi, eps: -log(1-2c)
        lpc = np.log(-np.log1p(-2 * pis)) + np.log(pis) + np.log1p(-pis)
    lp = ll + lpc[:, None] + prior_alpha(prior)[None, :]
    w = np.exp(lp - lp.max())
    w /= w.sum()
    G, H = w.shape
    ell = logp[:, 1] - logp[:, 0]
    s = np.where(y == 1, 1.0, -1.0)
    Ws, Es, Ps = [], [], []
    for g in range(G):
        for h in range(H):
            if w[g, h] < 1e-8:
                continue
            c = pis[g]
            qy = 1 / (1 + np.exp(-s * (th[g, h, 0] * ell + th[g, h, 1])))
            if T == 0:
                ts, tw = np.array([1.0]), np.array([1.0])
            else:
                ts = (np.arange(T) + 0.5) / T
                tw = 1 / (1 - 2 * ts * c)
                tw /= tw.sum()
            for t, wt in zip(ts, tw, strict=False):
                pi = t * c
                eps = (c - pi) / (1 - 2 * pi)
                q2 = eps + (1 - 2 * eps) * qy
                e = pi * (1 - q2) / (pi * (1 - q2) + (1 - pi) * q2)
                Ws.append(w[g, h] * wt)
                Es.append(e)
                Ps.append(pi)
    return np.array(Ws), np.array(Es), np.array(Ps)


def evaluate(draws, prior, T, cprior, target=0.5):
    res = []
    for dr in draws:
        w, E, P = comps(dr, prior, T, cprior)
        e = w @ E
        mask = dr["mask"]
        k = mask.sum()
        lo, hi, _ = count_interval(E, w)
        sc = np.where(dr["disagree"], e, np.nan)
        order = np.lexsort((np.arange(len(sc)), -np.nan_to_num(sc, nan=-1)))[
            : int((~np.isnan(sc)).sum())
        ]
        run = np.cumsum(e[order]) / np.arange(1, len(order) + 1)
        m = int(np.sum(run >= target - 1e-12))
        flags = np.zeros(len(e), bool)
        flags[order[:m]] = True
        res.append(
            dict(
                post_pi=float(w @ P),
                ratio=e.sum() / k,
                covers=float(lo <= k <= hi),
                width=hi - lo,
                flags=int(flags.sum()),
                tf=int(mask[flags].sum()),
                st=float(e[flags].sum()),
                rec=float(flags[mask].mean()),
                ap=average_precision_score(mask, e),
            )
        )
    df = pl.DataFrame(res)
    F = df["flags"].sum()
    return dict(
        prior=prior,
        T=T,
        cp=cprior,
        pi=df["post_pi"].mean(),
        ratio=df["ratio"].mean(),
        cov=df["covers"].mean(),
        width=df["width"].mean(),
        flags=df["flags"].mean(),
        P=(df["tf"].sum() / F) if F else float("nan"),
        stated=(df["st"].sum() / F) if F else float("nan"),
        rec=df["rec"].mean(),
        ap=df["ap"].mean(),
        noflag=float((df["flags"] == 0).mean()),
    )


if __name__ == "__main__":
    n, rate, draws, tag = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    ds = prep(n, rate, draws, tag)
    for spec in sys.argv[5].split(","):
        pr, T, cp = spec.split("/")
        r = evaluate(ds, pr, int(T), cp)
        print(
            f"n={n} rate={rate} "
            + " ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()
            ),
            flush=True,
        )
