"""The embedded judge's contribution beside the 14 models' answers on MMLU-Redux v1 (issue 35).

``--detector answers`` vs ``both`` of ``flag --task mcq``, measured on a few questions:
the embedded judge costs about 10 s a request on the 2 shared cores, so only ``--n``
questions are judged (``benchcheck judge --task mcq``, every option at every letter:
4 requests a question). The Dawid–Skene model is fitted on all 3,000 v1 questions either
way (``benchcheck.labels.mcq_answers.answer_flags``); with ``both`` the judge is one more
soft annotator that answered only the judged questions (its rows elsewhere are empty, as
a model that gave no answer), so the fit, the key's per-subject accuracy and the design
effect are those of the real run and only the judged questions can move.

The judged questions: a seeded draw **stratified by the experts' verdict** — ``--n / 2``
wrong keys and ``--n / 2`` other questions (every other verdict, ``ok`` included), each a
simple random sample (numpy ``default_rng(--seed)``) of its stratum. A simple random
sample of a few dozen of the 3,000 would hold one wrong key or none (2.8 %), and nothing
could be measured; the price is a 50 % base rate, so AP's chance level here is 0.5, not
0.028. On these questions, per detector: ROC AUC and AP of ``error_score`` for wrong keys,
the number flagged at the default threshold (on the judged questions and on all 3,000: one
more annotator changes the design effect, so every question's weight of evidence moves),
the fit's temper and mean correlation, and how each judged question's error score moved; and the judge alone: its accuracy on the keys the experts accept, and on the
experts' corrections of the wrong keys. A few dozen questions: these are indications, not
measurements (say so with the numbers).

Only the 30 v1 subjects are read (``_mcq_data.py``); the 27 subjects added in 2.0 are held
out. Run: ``nice -n 10 python benchmarks/mcq_judge_contrib.py --n 12`` (after
``mcq_detect_bench.py --repo GITDIR`` built the cache); writes
``benchmarks/results/mcq_judge_contribution.json`` (numbers only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _mcq_data as md  # noqa: E402

CACHE = HERE / "_data" / "mcq_judge_contrib_cache.sqlite"


def main(argv: list[str] | None = None) -> int:
    """Judge the drawn questions, fit both detectors on all of v1, compare on the drawn."""
    from benchcheck.labels.mcq_answers import answer_flags
    from benchcheck.runs.judging import JudgeSetup
    from benchcheck.runs.mcq_judge import run_mcq_judge

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", type=Path, default=HERE / "results" / "mcq_judge_contribution.json"
    )
    args = parser.parse_args(argv)
    items, answers = md.load(None)
    ids = items["id"].to_list()
    index = {i: k for k, i in enumerate(ids)}
    n = len(ids)
    key = items["key"].to_numpy()
    error = items["error"].to_numpy()
    expert = items["expert_answer"].to_list()
    wrong = error == "wrong_groundtruth"
    rng = np.random.default_rng(args.seed)
    half = args.n // 2
    drawn = np.concatenate(
        [
            rng.choice(np.flatnonzero(wrong), size=half, replace=False),
            rng.choice(np.flatnonzero(~wrong), size=args.n - half, replace=False),
        ]
    )
    drawn.sort()
    # the models' answers, one-hot (n × J × 4)
    models = list(md.MODELS)
    probs = np.zeros((n, len(models) + 1, 4))
    for row in answers.iter_rows(named=True):
        if row["answer"] is not None:
            probs[index[row["id"]], models.index(row["model"]), "ABCD".index(row["answer"])] = 1
    # the judge on the drawn questions
    data = HERE / "_data" / f"mmlu_redux_v1_judged_seed{args.seed}_n{args.n}.jsonl"
    with data.open("w", encoding="utf-8") as fh:
        for k in drawn:
            row = {"id": ids[k], "question": items["question"][int(k)],
                   "options": list(items["options"][int(k)]), "answer": int(key[k])}  # fmt: skip
            fh.write(json.dumps(row) + "\n")
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    run = run_mcq_judge(str(data), setup=JudgeSetup(cache=str(CACHE)))
    judge_seconds = time.perf_counter() - start
    p_judge = run.judgments.select(["p_A", "p_B", "p_C", "p_D"]).to_numpy()
    judged_rows = np.array([index[i] for i in run.judgments["id"].to_list()])
    probs[judged_rows, len(models), :] = p_judge
    groups = items["subject"].to_list()
    n_options = np.full(n, 4)
    fits = {
        "answers": answer_flags(ids, key, n_options, probs[:, :-1], models, groups=groups),
        "both": answer_flags(ids, key, n_options, probs, [*models, "judge"], groups=groups),
    }
    y = wrong[drawn]
    result: dict = {
        "data": "MMLU-Redux v1 (30 subjects, 3,000 questions, 14 HELM models)",
        "judge": sorted(set(run.judgments["judge"].to_list())),
        "seed": args.seed,
        "judged": len(drawn),
        "judged_wrong_keys": int(y.sum()),
        "judged_other": int((~y).sum()),
        "judged_other_verdicts": {
            v: int(c) for v, c in zip(*np.unique(error[drawn][~y], return_counts=True), strict=True)
        },
        "chance_ap": float(y.mean()),
        "requests": run.n_requests,
        "cached_requests": run.n_cached,
        "judge_seconds": judge_seconds,
        "seconds_per_fresh_request": (
            judge_seconds / (run.n_requests - run.n_cached)
            if run.n_requests > run.n_cached
            else None
        ),
        "load_average_before": round(load_before, 2),
        "machine": "2 CPU cores shared by five engineers (loaded), nice -n 10",
    }
    top = np.argmax(p_judge, axis=1)
    by_row = dict(zip(judged_rows.tolist(), range(len(judged_rows)), strict=True))
    ok_rows = [k for k in drawn if not wrong[k] and error[k] == "ok"]
    fixes = [k for k in drawn if wrong[k] and expert[k] is not None and expert[k] != key[k]]
    result["judge_alone"] = {
        "top_option_is_key_on_ok_questions": [
            int(sum(top[by_row[k]] == key[k] for k in ok_rows)),
            len(ok_rows),
        ],
        "top_option_is_experts_correction_on_wrong_keys": [
            int(sum(top[by_row[k]] == expert[k] for k in fixes)),
            len(fixes),
        ],
        "mean_p_key": {
            "wrong_keys": float(np.mean([p_judge[by_row[k], key[k]] for k in drawn if wrong[k]])),
            "others": float(np.mean([p_judge[by_row[k], key[k]] for k in drawn if not wrong[k]])),
        },
    }
    for name, fit in fits.items():
        score = fit.error_score[drawn]
        result[name] = {
            "roc_auc": float(roc_auc_score(y, score)) if 0 < y.sum() < len(y) else None,
            "average_precision": float(average_precision_score(y, score)) if y.any() else None,
            "flagged": int(fit.flagged[drawn].sum()),
            "flagged_wrong_keys": int((fit.flagged[drawn] & y).sum()),
            "flagged_all_3000": int(fit.flagged.sum()),
            "temper": float(fit.temper),
            "mean_model_correlation": float(fit.model_correlation),
        }
    moved = fits["both"].error_score[drawn] - fits["answers"].error_score[drawn]
    result["error_score_change_both_minus_answers"] = {
        "wrong_keys_mean": float(moved[y].mean()) if y.any() else None,
        "others_mean": float(moved[~y].mean()) if (~y).any() else None,
        "max_abs": float(np.abs(moved).max()),
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
