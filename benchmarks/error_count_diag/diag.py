"""Diagnosis (issue 34): per draw the flip-rate posterior vs the truth, the posterior and oracle temperature."""

import sys
from pathlib import Path

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

HERE = Path(str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(HERE))
import error_count_bench as ecb  # noqa: E402
from detect_bench import plant  # noqa: E402

from benchcheck.judges.cache import JudgeCache  # noqa: E402
from benchcheck.judges.run import make_judge  # noqa: E402
from benchcheck.labels import detectors as det  # noqa: E402
from benchcheck.labels.base_rate import _grid2  # noqa: E402


def load(tag):
    f = Path(f"{Path(__file__).resolve().parents[1]}/_data/diag/pool_{tag}.npz")
    if f.exists():
        z = np.load(f)
        return z["y"], z["m"]
    judge = make_judge("llama-cpp")
    cache = JudgeCache(str(ecb.CACHE))
    frames = ecb.pools(80, 60, 0)
    for t, fr in frames.items():
        j = ecb.judged(fr, judge, cache)
        ids = fr["id"].to_list()
        y = np.array([int(v) for v in fr["label"].to_list()])
        np.savez(
            f"{Path(__file__).resolve().parents[1]}/_data/diag/pool_{t}.npz",
            y=y,
            m=ecb.member_array(j, ids),
        )
    cache.close()
    judge.close()
    return load(tag)


def run(n, rate, draws, tag="dev"):
    y_pool, m_pool = load(tag)
    rows = []
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
        found = det.detect(data, js, labels=("0", "1"))
        rp = found.posterior.rate
        p = found.frame.select("p_0", "p_1").to_numpy()
        ell = np.log(p[:, 1]) - np.log(p[:, 0])
        # oracle calibration on the clean labels
        from sklearn.linear_model import LogisticRegression

        lr = LogisticRegression(C=1e6).fit(ell[:, None], y)
        a_or, d_or = float(lr.coef_[0, 0]), float(lr.intercept_[0])
        1 / (1 + np.exp(-(a_or * ell + d_or)))
        auc_clean = __import__("sklearn.metrics").metrics.roc_auc_score(y, ell)
        e = found.frame["error_score"].to_numpy()
        k = mask.sum()
        la = np.log(rp.alpha)
        # loglik at the truth vs. the max
        pis = np.array([k / n])
        alphas = np.array([a_or])
        ll_true, _ = _grid2(np.log(p), noisy, pis, alphas)
        ll_grid, _ = _grid2(np.log(p), noisy, np.unique(rp.grid), np.unique(rp.alpha))
        rows.append(
            dict(
                d=d,
                true=k / n,
                post=rp.mean,
                lo=rp.quantile(0.025),
                hi=rp.quantile(0.975),
                mle=rp.mle,
                alpha_post=float(np.exp(rp.weight @ la)),
                alpha_or=a_or,
                auc=auc_clean,
                ll_gap=float(ll_grid.max() - ll_true[0, 0]),
                sum_e_flip=float(e[mask].sum()),
                sum_e_clean=float(e[~mask].sum()),
                k=int(k),
            )
        )
        r = rows[-1]
        print(
            " ".join(
                f"{kk}={v:.3f}" if isinstance(v, float) else f"{kk}={v}" for kk, v in r.items()
            ),
            flush=True,
        )
    df = pl.DataFrame(rows)
    print(df.mean())
    return df


if __name__ == "__main__":
    n, rate, draws = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    run(n, rate, draws, sys.argv[4] if len(sys.argv) > 4 else "dev")
