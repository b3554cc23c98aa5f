"""The MCQ review workflow on MMLU-Redux v1, the experts' annotation standing in for a review.

``python benchmarks/mcq_review_check.py --repo GITDIR [--audit-sample 300] [--seed 1]``

The 30 v1 subjects only (:mod:`_mcq_data`; the 27 held-out subjects are never read).
``flag --task mcq`` with the 14 HELM models' answers, ``review export`` of the flags plus a
seeded audit sample of unflagged questions, one "expert" whose answers are MMLU-Redux's
annotation of each exported question (a wrong key → the experts' option, or ``none`` when
they name none; no correct answer → ``none``; multiple correct → ``several``; bad question
or options clarity → ``unclear``; ``expert``, undecided → left empty), then ``review
import``, ``error-rate --task mcq``, ``remedy --task mcq`` and ``rerank --task mcq``.

Printed: the stratified wrong-key and any-error estimates with their intervals beside the
rates of the whole annotation (does the interval hold the truth?), per subject how many
intervals hold it, and the models re-ranked on the reviewed keys beside the ranking on
every annotated key (Kendall tau between the two corrected accuracy vectors).
Everything is written under the git-ignored ``benchmarks/_data/mmlu_redux/review_check``.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _mcq_data  # noqa: E402

LETTERS = "ABCD"
VERDICT = {
    "no_correct_answer": "none",
    "multiple_correct_answers": "several",
    "bad_question_clarity": "unclear",
    "bad_options_clarity": "unclear",
}


def _answer(row: dict) -> str:
    kind = row["error"]
    if kind == "ok":
        return LETTERS[row["key"]]
    if kind == "wrong_groundtruth":
        e = row["expert_answer"]
        return "none" if e is None or e == row["key"] else LETTERS[e]
    if kind == "expert":
        return ""  # undecided: no answer
    return VERDICT[kind]


def main(argv: list[str] | None = None) -> int:
    from benchcheck.labels.mcq_review import VERDICTS
    from benchcheck.runs.mcq_flag import run_mcq_flag
    from benchcheck.runs.mcq_review import run_mcq_error_rate, run_mcq_remedy, run_mcq_rerank
    from benchcheck.runs.review import run_review_export, run_review_import

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=None)
    ap.add_argument("--audit-sample", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    items, answers = _mcq_data.load(args.repo)
    out = _mcq_data.DATA / "review_check"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    data = out / "test.jsonl"
    with data.open("w", encoding="utf-8") as f:
        for r in items.iter_rows(named=True):
            row = {"id": r["id"], "question": r["question"], "choices": r["options"],
                   "answer": LETTERS[r["key"]], "subject": r["subject"]}  # fmt: skip
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    ans_file = out / "answers.csv"
    answers.write_csv(ans_file)
    t0 = time.perf_counter()
    flag = run_mcq_flag(str(data), [str(ans_file)], output=str(out / "flags.jsonl"))
    review = out / "review"
    run_review_export(
        out / "flags.jsonl", review, experts=1, seed=args.seed, audit_sample=args.audit_sample,
        labels=["A", "B", "C", "D", *VERDICTS],
    )  # fmt: skip
    truth = {r["id"]: r for r in items.iter_rows(named=True)}
    key = pl.read_ndjson(review / "key.jsonl").filter(pl.col("review_id").is_not_null())
    by_rid = dict(zip(key["review_id"], key["id"], strict=True))
    sheet = review / "expert_a.csv"
    with sheet.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["label"] = _answer(truth[by_rid[r["review_id"]]])
    with sheet.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    gold = out / "gold.jsonl"
    run_review_import([sheet], output=gold)
    rates = run_mcq_error_rate(gold).to_json()
    remedy = run_mcq_remedy(data, gold, out / "fixed").to_json()
    ranked = run_mcq_rerank(gold, [ans_file]).to_json()
    seconds = time.perf_counter() - t0

    decided = items.filter(pl.col("error") != "expert")
    true_rate = {
        "wrong_key": float((decided["error"] == "wrong_groundtruth").mean()),  # type: ignore[arg-type]
        "any_error": float((decided["error"] != "ok").mean()),  # type: ignore[arg-type]
    }
    print(f"{items.height} questions, {flag.flags['flagged'].sum()} flagged, "
          f"audit sample {args.audit_sample} (seed {args.seed}); "
          f"{items.height - decided.height} undecided (expert) rows left out of the truth")  # fmt: skip
    print("| rate | truth (whole annotation) | lower bound | stratified | 95% CI | holds |")
    print("|---|---|---|---|---|---|")
    for d in ("wrong_key", "any_error"):
        r = rates["overall"][d]
        s = r["stratified"]
        hold = s["ci"][0] <= true_rate[d] <= s["ci"][1]
        print(f"| {d} | {true_rate[d]:.4f} | {r['error_rate']:.4f} | {s['error_rate']:.4f} | "
              f"[{s['ci'][0]:.4f}, {s['ci'][1]:.4f}] | {hold} |")  # fmt: skip
    for d in ("wrong_key", "any_error"):
        held, total = 0, 0
        for subject, g in rates["by_group"].items():
            s = g[d]["stratified"]
            if s is None:
                continue
            part = decided.filter(pl.col("subject") == subject)
            t = float(((part["error"] == "wrong_groundtruth") if d == "wrong_key"
                       else (part["error"] != "ok")).mean())  # type: ignore[arg-type]  # fmt: skip
            total += 1
            held += s["ci"][0] - 1e-12 <= t <= s["ci"][1] + 1e-12
        print(f"per subject, {d}: the stratified interval holds the truth in {held}/{total}")
    print("remedy:", remedy["counts"])
    # every annotated key: experts' option for wrong keys, verdicts removed, undecided kept
    full = items.with_columns(
        pl.when(pl.col("error") == "ok").then(pl.col("key"))
        .when((pl.col("error") == "wrong_groundtruth") & pl.col("expert_answer").is_not_null()
              & (pl.col("expert_answer") != pl.col("key"))).then(pl.col("expert_answer"))
        .when(pl.col("error") == "expert").then(pl.col("key"))
        .otherwise(-1).alias("full")
    )  # fmt: skip
    wide = answers.pivot(on="model", index="id", values="answer")
    wide = full.select("id", "full").join(wide, on="id", how="left")
    acc_full = {}
    for m in ranked["models"]:
        keep = wide.filter(pl.col("full") >= 0)
        letters = keep["full"].map_elements(lambda i: LETTERS[i], return_dtype=pl.String)
        acc_full[m["model"]] = float((keep[m["model"]] == letters).fill_null(False).mean())  # type: ignore[arg-type]
    names = [m["model"] for m in ranked["models"]]
    a_rev = np.array([m["accuracy_corrected"] for m in ranked["models"]])
    a_orig = np.array([m["accuracy_original"] for m in ranked["models"]])
    a_full = np.array([acc_full[n] for n in names])
    print(f"rerank on the reviewed keys: Kendall tau original vs reviewed {ranked['kendall_tau']:.3f}, "
          f"{ranked['moved']} models moved; reviewed vs every annotated key "
          f"{kendalltau(a_rev, a_full).statistic:.3f}; original vs every annotated key "
          f"{kendalltau(a_orig, a_full).statistic:.3f}")  # fmt: skip
    sure = sum(d["ci"][0] > 0 or d["ci"][1] < 0 for d in ranked["neighbours"])
    print(f"neighbours in the reviewed ranking whose gap's 95% interval excludes 0: "
          f"{sure}/{len(ranked['neighbours'])}")  # fmt: skip
    print(f"seconds (flag → rerank): {seconds:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
