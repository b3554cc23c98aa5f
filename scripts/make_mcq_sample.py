"""Write the bundled multiple-choice sample: 48 MMLU-Redux v1 questions, 14 models' answers.

Drawn from a local git directory of github.com/aryopg/mmlu-redux (the tables of
``benchmarks/_mcq_data.py``, at its pinned commit; only the 30 v1 subjects are read, the
27 subjects added in 2.0 are held out and never opened). Four v1 subjects, chosen for
what they show: the two with the most expert-marked wrong keys (virology, college
chemistry), one with a few (global facts) and one with none (high-school geography). From
each, a seeded simple random sample of :data:`PER_SUBJECT` questions (numpy
``default_rng(SEED)``, subjects in :data:`SUBJECTS` order), drawn without looking at the
experts' verdicts or the models' answers, so each subject's share of errors is a random
sample of its own.

Writes beside the sample's README (``src/benchcheck/sample_data/mcq/``):

* ``questions.jsonl``: ``id`` (MMLU-Redux subject and row), ``subject``, ``question``,
  ``options`` (four), ``answer`` (MMLU's key, a letter);
* ``answers.csv``: the long table ``id,model,answer`` (a letter; empty where the model's
  output named no option);
* ``experts.csv``: ``id,error_type,expert_answer,verdict``, the MMLU-Redux annotation (error
  types normalised to its seven labels; the experts' answer as a letter where they gave
  one) and what a reviewer of ``benchcheck review`` answers for it (:func:`verdict`: the
  key's letter for ``ok``, the experts' letter for a wrong key, ``none`` where they name no
  other option or find none correct, ``several``, ``unclear``; empty for ``expert``,
  undecided), as ``benchmarks/mcq_review_check.py`` reads the annotation.

Run: python scripts/make_mcq_sample.py --repo GITDIR
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import _mcq_data as md  # noqa: E402

OUT = ROOT / "src" / "benchcheck" / "sample_data" / "mcq"
SUBJECTS = ("virology", "college_chemistry", "global_facts", "high_school_geography")
PER_SUBJECT = 12
SEED = 35


VERDICTS = {
    "no_correct_answer": "none",
    "multiple_correct_answers": "several",
    "bad_question_clarity": "unclear",
    "bad_options_clarity": "unclear",
    "expert": "",
}


def verdict(error: str, key: int, expert: int | None) -> str:
    """Return what a reviewer answers for one annotated question (module docstring).

    >>> wrong = "wrong_groundtruth"
    >>> verdict("ok", 2, None), verdict(wrong, 2, 0), verdict(wrong, 2, 2)
    ('C', 'A', 'none')
    """
    if error == "ok":
        return md.LETTERS[key]
    if error == "wrong_groundtruth":
        return "none" if expert is None or expert == key else md.LETTERS[expert]
    return VERDICTS[error]


def main() -> None:
    """Build the v1 tables in a temporary folder, draw the sample, write the three files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help="git dir of aryopg/mmlu-redux")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        items, answers = md.build(args.repo, Path(tmp))
    rng = np.random.default_rng(SEED)
    chosen: list[dict] = []
    for subject in SUBJECTS:
        rows = [r for r in items.iter_rows(named=True) if r["subject"] == subject]
        picks = sorted(rng.choice(len(rows), size=PER_SUBJECT, replace=False).tolist())
        chosen += [rows[i] for i in picks]
    ids = {r["id"] for r in chosen}
    letters = md.LETTERS
    with (OUT / "questions.jsonl").open("w", encoding="utf-8", newline="\n") as fh:
        for r in chosen:
            row = {
                "id": r["id"],
                "subject": r["subject"],
                "question": r["question"],
                "options": r["options"],
                "answer": letters[r["key"]],
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    order = {r["id"]: k for k, r in enumerate(chosen)}
    model_order = {m: k for k, m in enumerate(md.MODELS)}
    picked = sorted(
        (a for a in answers.iter_rows(named=True) if a["id"] in ids),
        key=lambda a: (order[a["id"]], model_order[a["model"]]),
    )
    with (OUT / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["id", "model", "answer"])
        out.writerows([a["id"], a["model"], a["answer"] or ""] for a in picked)
    with (OUT / "experts.csv").open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["id", "error_type", "expert_answer", "verdict"])
        for r in chosen:
            expert = r["expert_answer"]
            out.writerow(
                [
                    r["id"],
                    r["error"],
                    "" if expert is None else letters[expert],
                    verdict(r["error"], r["key"], expert),
                ]
            )


if __name__ == "__main__":
    main()
