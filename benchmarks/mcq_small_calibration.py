"""Is P(key wrong) calibrated on a small multiple-choice set? Random small draws of MMLU-Redux v1.

The bundled sample (48 questions, 4 subjects × 12) scores the four keys all 14 models
reject at 0.496, under the default threshold, and each is a wrong key: is the score too low
on small sets? Here: ``--draws`` random sets of ``--subjects`` subjects × ``--per`` questions
from the 30 v1 subjects (``_mcq_data.py``; the held-out 2.0 subjects are never read), each
scored alone by :func:`benchcheck.labels.mcq_answers.answer_flags` with the 14 HELM models'
answers (what ``flag --task mcq`` runs). Pooled over draws, per bin of the score: questions,
mean score, the share that are wrong keys and any error by the experts (``expert`` rows
count as errors, as in ``mcq_detect_bench.py``); per draw, expected wrong keys (sum of the
scores) against the experts' count; the temper τ's mean and spread. Seeded.

    python benchmarks/mcq_small_calibration.py [--subjects 4] [--per 12] [--draws 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _mcq_data as md  # noqa: E402
import mcq_detect_bench as bench_mod  # noqa: E402

from benchcheck.labels.mcq_answers import answer_flags  # noqa: E402

BINS = (0.0, 0.05, 0.15, 0.3, 0.45, 0.55, 0.8, 1.0001)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subjects", type=int, default=4)
    ap.add_argument("--per", type=int, default=12)
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repo", type=Path, default=None, help="git dir of aryopg/mmlu-redux")
    args = ap.parse_args()
    items, answers = md.load(args.repo)
    b = bench_mod.matrix(items, answers)
    one_hot = bench_mod.one_hot(b)
    wrong = b.error == "wrong_groundtruth"
    any_error = b.error != "ok"
    subjects = np.unique(b.subject)
    rng = np.random.default_rng(args.seed)
    scores, wrongs, anys, tempers, counts = [], [], [], [], []
    for _ in range(args.draws):
        picked = rng.choice(subjects, args.subjects, replace=False)
        idx = np.concatenate(
            [rng.choice(np.flatnonzero(b.subject == s), args.per, replace=False) for s in picked]
        )
        out = answer_flags(
            [str(i) for i in idx], b.key[idx], np.full(len(idx), 4), one_hot[idx], md.MODELS,
            groups=list(b.subject[idx]),
        )  # fmt: skip
        scores.append(out.error_score)
        wrongs.append(wrong[idx])
        anys.append(any_error[idx])
        tempers.append(out.temper)
        counts.append((float(out.error_score.sum()), int(wrong[idx].sum())))
    s, w, a = (np.concatenate(x) for x in (scores, wrongs, anys))
    c = np.array(counts)
    bins = []
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        m = (s >= lo) & (s < hi)
        if m.any():
            bins.append(
                {
                    "bin": [lo, min(hi, 1.0)],
                    "questions": int(m.sum()),
                    "mean_score": round(float(s[m].mean()), 3),
                    "wrong_key_share": round(float(w[m].mean()), 3),
                    "any_error_share": round(float(a[m].mean()), 3),
                }
            )
    result = {
        "draws": args.draws,
        "questions_per_draw": args.subjects * args.per,
        "seed": args.seed,
        "temper_mean": round(float(np.mean(tempers)), 3),
        "temper_sd": round(float(np.std(tempers)), 3),
        "expected_wrong_keys_per_draw": round(float(c[:, 0].mean()), 2),
        "wrong_keys_per_draw": round(float(c[:, 1].mean()), 2),
        "bins": bins,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
