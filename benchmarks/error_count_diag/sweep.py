"""Prior sweep on the dev pool: grid likelihood once per draw, re-weighted by each prior on alpha."""

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
from benchcheck.labels.base_rate import _errors_at, _grid2, count_interval  # noqa: E402

PIS = None
ALPHAS = np.exp(np.linspace(math.log(0.05), math.log(50), 28))


def prep(n, rate, draws, tag):
    f = Path(f"{Path(__file__).resolve().parents[1]}/_data/diag/grid_{tag}_{n}_{rate}_{draws}.pkl")
    if f.exists():
        return pickle.loads(f.read_bytes())
    y_pool, m_pool = load(tag)
    k = 2
    pi_max = (k - 1) / k - 1e-3
    lo, hi = math.log(1e-3 / (1 - 1e-3)), math.log(pi_max / (1 - pi_max))
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
        E = np.stack(
            [
                _errors_at(logp, noisy, float(pis[g]), th[g, h])
                for g in range(40)
                for h in range(len(ALPHAS))
            ]
        )
        out.append(
            dict(
                ll=ll,
                E=E.astype(np.float32),
                mask=mask,
                disagree=p.argmax(1) != noisy,
                pis=pis,
                y=y,
                noisy=noisy,
                p=p,
            )
        )
    f.write_bytes(pickle.dumps(out))
    return out


def prior_alpha(name):
    la = np.log(ALPHAS)
    if name == "loguniform":
        return np.zeros_like(la)
    kind, a, b = name.split(":")
    a, b = float(a), float(b)
    if kind == "lognorm":  # log alpha ~ N(log a, b)
        return -0.5 * ((la - math.log(a)) / b) ** 2
    if kind == "trunc":  # log-uniform on [a, b]
        return np.where((ALPHAS >= a * 0.999) & (ALPHAS <= b * 1.001), 0.0, -np.inf)
    raise ValueError(name)


def evaluate(draws, prior, rule="mean", target=0.5, lcb=0.1):
    res = []
    for dr in draws:
        pis = dr["pis"]
        lp = dr["ll"] + (np.log(pis) + np.log1p(-pis))[:, None] + prior_alpha(prior)[None, :]
        w = np.exp(lp - lp.max()).ravel()
        w /= w.sum()
        keep = w > 1e-8
        w2, E = w[keep] / w[keep].sum(), dr["E"][keep].astype(np.float64)
        e = w2 @ E
        mask = dr["mask"]
        k = mask.sum()
        lo, hi, _ = count_interval(E, w2)
        s = np.where(dr["disagree"], e, np.nan)
        order = np.lexsort((np.arange(len(s)), -np.nan_to_num(s, nan=-1)))[
            : int((~np.isnan(s)).sum())
        ]
        if rule == "mean":
            run = np.cumsum(e[order]) / np.arange(1, len(order) + 1)
            m = int(np.sum(run >= target - 1e-12))
        else:  # lower credible bound of the set's precision over the grid mixture (normal approx)
            # per component: mean mu_c=sum e_c over set, var_c=sum e_c(1-e_c); mixture quantile via sampling grid
            cs = np.cumsum(E[:, order], axis=1)  # C x m
            vs = np.cumsum(E[:, order] * (1 - E[:, order]), axis=1)
            from scipy.stats import norm

            m = 0
            sizes = np.arange(1, len(order) + 1)
            for j in range(len(order)):
                # P(count >= target*size) under the mixture
                thr = target * sizes[j]
                pr = w2 @ norm.sf((thr - 0.5 - cs[:, j]) / np.sqrt(np.clip(vs[:, j], 1e-9, None)))
                if pr >= 1 - lcb:
                    m = j + 1
        flags = np.zeros(len(e), bool)
        flags[order[:m]] = True
        res.append(
            dict(
                post_pi=float(w @ np.repeat(pis, len(ALPHAS))),
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
        rule=rule,
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
    priors = sys.argv[5].split(",") if len(sys.argv) > 5 else ["loguniform"]
    for pr in priors:
        r = evaluate(ds, pr)
        print(
            " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()),
            flush=True,
        )
