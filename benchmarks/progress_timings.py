"""Wall time of every command on inputs of the sizes users meet (issue 33: progress on long work).

Builds, in ``benchmarks/_data/progress/``:

- a pair label-error case of ``--pairs`` examples (150,000 by default) with one judge × one
  prompt of judgments (``tests/labels/_labels_synth.make_case``, as the kill-while-writing
  test's large case), its flags, a review package, both experts' sheets filled with the
  true labels and imported (``gold.jsonl``), a scores file and two prediction files;
- a CoNLL corpus of CoNLL-2003 English's size (15,000 / 3,250 / 3,500 sentences, ~300k
  tokens) cut from ``benchmarks/_data/conll_1000000_100000`` (made by the shared synthetic
  corpus generator), its audit (``results.json``) and a sample;
- the bundled MCQ sample repeated ``--mcq-repeat`` times (300: 14,400 questions, MMLU's
  size) with its model answers and expert verdicts, flagged, exported and imported;
- the bundled diagnostic suite repeated ``--suite-repeat`` times (200: 9,000 items) with
  predictions, two annotators, training pairs and a leakage corpus.

Then runs each command once in a fresh process (as a user does: start-up included) and
prints a table: command, seconds, and the 1-minute load average before it started.

    python benchmarks/progress_timings.py [--pairs 150000] [--only rerank,bins]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "_data" / "progress"
CONLL = HERE / "_data" / "conll_1000000_100000"


_MAIN = "import sys; from benchcheck.cli import main; sys.exit(main(sys.argv[1:]))"


def _cli(argv: list[str], cwd: Path) -> tuple[float, float, int, str]:
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _MAIN, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    return time.perf_counter() - t0, load, proc.returncode, proc.stderr[-400:]


def _sentences(path: Path, start: int, n: int) -> list[str]:
    out, cur, k = [], [], 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                cur.append(line)
                continue
            if cur:
                if k >= start:
                    out.append("".join(cur))
                k += 1
                cur = []
                if len(out) >= n:
                    break
    return out


def build(folder: Path, pairs: int, mcq_repeat: int, suite_repeat: int, conll: Path) -> None:
    import numpy as np
    import polars as pl

    from benchcheck.diagnostics import sample_predictions_path
    from benchcheck.sample_data import DIAGNOSTIC_SAMPLE, MCQ_ANSWERS, MCQ_EXPERTS, MCQ_SAMPLE

    sys.path.insert(0, str(ROOT / "tests" / "labels"))
    from _labels_synth import make_case

    folder.mkdir(parents=True, exist_ok=True)

    def run(argv: list[str]) -> None:
        seconds, load, rc, err = _cli(argv, folder)
        assert rc == 0, (argv, err)
        print(f"  built with {' '.join(argv[:2])} in {seconds:.1f} s (load {load:.2f})")

    # pairs
    data, j, truth, _ = make_case(pairs, flip_rate=0.2, seed=5, judges=("m",), prompts=("nli",))
    data.write_ndjson(folder / "data.jsonl")
    j.select("id", "judge", "prompt", "p_0", "p_1").write_parquet(folder / "j.parquet")
    rng = np.random.default_rng(0)
    score = np.where(rng.random(pairs) < 0.8, truth, 1 - truth) * 0.6 + rng.random(pairs) * 0.4
    pl.DataFrame({"id": data["id"], "score": score}).write_ndjson(folder / "a.jsonl")
    lab = data["label"].to_numpy()
    for name, acc in (("pa", 0.9), ("pb", 0.7)):
        pred = np.where(rng.random(lab.size) < acc, lab, 1 - lab)
        pl.DataFrame({"id": data["id"], "pred": [str(x) for x in pred]}).write_ndjson(
            folder / f"{name}.jsonl"
        )
    run(["flag", "j.parquet", "--data", "data.jsonl", "-o", "flags.jsonl", "--force"])
    shutil.rmtree(folder / "review", ignore_errors=True)
    run(["review", "export", "flags.jsonl", "-o", "review", "--seed", "1"])
    key = pl.read_ndjson(folder / "review/key.jsonl").filter(pl.col("review_id").is_not_null())
    key_of = dict(zip(key["review_id"], key["id"], strict=True))
    truth_of = dict(zip(data["id"].to_list(), [str(t) for t in truth], strict=True))
    for name in ("expert_a", "expert_b"):
        sheet = pl.read_csv(folder / f"review/{name}.csv", infer_schema=False)
        labels = [truth_of[key_of[r]] for r in sheet["review_id"]]
        sheet.with_columns(pl.Series("label", labels)).write_csv(folder / f"review/{name}.csv")
    run(
        [
            "review",
            "import",
            "review/expert_a.csv",
            "review/expert_b.csv",
            "-o",
            "gold.jsonl",
            "--force",
        ]
    )

    # CoNLL of CoNLL-2003's size
    ner = folder / "ner"
    ner.mkdir(exist_ok=True)
    for name, src, start, n in (
        ("train", "train.txt", 0, 15_000),
        ("dev", "train.txt", 15_000, 3_250),
        ("test", "test.txt", 0, 3_500),
    ):
        text = "-DOCSTART- O\n\n" + "\n".join(_sentences(conll / src, start, n))
        (ner / f"{name}.txt").write_text(text, encoding="utf-8")
    if not (folder / "results.json").exists():  # the audit is long: made once
        shutil.rmtree(folder / "audit", ignore_errors=True)
        run(["audit", "ner", "--no-judge", "-o", "audit"])
        shutil.copy(folder / "audit/results.json", folder / "results.json")
    run(["sample", "ner", "-o", "sample.jsonl", "--per-split", "100", "--force"])
    rows = [json.loads(x) for x in (folder / "sample.jsonl").read_text().splitlines()]
    for k, r in enumerate(rows):
        r["annotations"] = {"a": True, "b": k % 3 != 0}
    (folder / "annotated.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    # MCQ
    questions = [json.loads(x) for x in MCQ_SAMPLE.read_text().splitlines() if x.strip()]
    with MCQ_ANSWERS.open(encoding="utf-8") as fh:
        answers = list(csv.DictReader(fh))
    with MCQ_EXPERTS.open(encoding="utf-8") as fh:
        verdict = {r["id"]: r["verdict"] for r in csv.DictReader(fh)}
    with (folder / "mcq.jsonl").open("w", encoding="utf-8") as fh:
        for k in range(mcq_repeat):
            for q in questions:
                fh.write(json.dumps({**q, "id": f"{q['id']}-{k}"}) + "\n")
    with (folder / "mcq_answers.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, ["id", "model", "answer"])
        w.writeheader()
        for k in range(mcq_repeat):
            for a in answers:
                w.writerow({**a, "id": f"{a['id']}-{k}"})
    mcq = ["--data", "mcq.jsonl", "--task", "mcq", "--answers", "mcq_answers.csv"]
    run(["flag", *mcq, "--min-error-score", "0.25", "-o", "mcq_flags.jsonl", "--force"])
    shutil.rmtree(folder / "mrev", ignore_errors=True)
    labels = "A,B,C,D,none,several,unclear"
    run(
        [
            "review",
            "export",
            "mcq_flags.jsonl",
            "--labels",
            labels,
            "--experts",
            "1",
            "--seed",
            "1",
            "-o",
            "mrev",
        ]
    )
    key = pl.read_ndjson(folder / "mrev/key.jsonl").filter(pl.col("review_id").is_not_null())
    question = dict(zip(key["review_id"], key["id"], strict=True))
    sheet = pl.read_csv(folder / "mrev/expert_a.csv", infer_schema=False)
    labs = [verdict[question[r].rsplit("-", 1)[0]] for r in sheet["review_id"]]
    sheet.with_columns(pl.Series("label", labs)).write_csv(folder / "mrev/expert_a.csv")
    run(["review", "import", "mrev/expert_a.csv", "-o", "mcq_gold.jsonl", "--force"])

    # diagnostic suite
    suite0 = [json.loads(x) for x in DIAGNOSTIC_SAMPLE.read_text().splitlines() if x.strip()]
    preds0 = [json.loads(x) for x in sample_predictions_path().read_text().splitlines()]
    suite = [{**r, "id": f"{r['id']}-{k}"} for k in range(suite_repeat) for r in suite0]
    preds = []
    for k in range(suite_repeat):
        for p in preds0:
            item, direction = p["id"].split(":")
            preds.append({**p, "id": f"{item}-{k}:{direction}"})
    (folder / "suite.jsonl").write_text("".join(json.dumps(r) + "\n" for r in suite))
    (folder / "preds.jsonl").write_text("".join(json.dumps(r) + "\n" for r in preds))
    ann = []
    for r in suite:
        for d in ("forward", "backward"):
            if r.get(d):
                ann += [{"id": f"{r['id']}:{d}", "annotator": a, "label": r[d]} for a in "xy"]
    (folder / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ann))
    train_pairs = [
        {"premise": r["sentence1"], "hypothesis": r["sentence2"], "label": r["forward"]}
        for r in suite
    ] * 3
    (folder / "train_pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in train_pairs))
    (folder / "test_items.jsonl").write_text(
        "".join(
            json.dumps({"id": f"t{i}", "text": r["sentence1"]}) + "\n" for i, r in enumerate(suite)
        )
    )


def commands() -> dict[str, list[str]]:
    """The command lines timed: each command's sweep invocation at the built sizes."""
    mcq = ["--task", "mcq", "--answers", "mcq_answers.csv"]
    return {
        "remedy": ["remedy", "data.jsonl", "--judgments", "j.parquet", "-o", "out_remedy"],
        "remedy mcq": [
            "remedy",
            "mcq.jsonl",
            "--task",
            "mcq",
            "--gold",
            "mcq_gold.jsonl",
            "-o",
            "out_remedy_mcq",
        ],
        "rerank": ["rerank", "--gold", "gold.jsonl", "--scores", "a=a.jsonl"],
        "rerank mcq": ["rerank", "--gold", "mcq_gold.jsonl", *mcq],
        "items": [
            "items",
            "data.jsonl",
            "--predictions",
            "a=pa.jsonl",
            "--predictions",
            "b=pb.jsonl",
            "-o",
            "out_items",
        ],
        "items mcq": ["items", "mcq.jsonl", *mcq, "--intersect", "-o", "out_items_mcq"],
        "rank": [
            "rank",
            "data.jsonl",
            "--predictions",
            "a=pa.jsonl",
            "--predictions",
            "b=pb.jsonl",
            "--gold",
            "gold.jsonl",
        ],
        "diff": ["diff", "results.json", "results.json"],
        "adjust": [
            "adjust",
            "ner",
            "--split",
            "test",
            "--metric",
            "leakage_ratio",
            "--target",
            "0.2",
            "-o",
            "out_adjust",
        ],
        "compare": ["compare", "a=ner", "b=ner"],
        "sample": ["sample", "ner", "-o", "out_sample.jsonl", "--per-split", "100"],
        "accuracy": ["accuracy", "annotated.jsonl"],
        "convert": ["convert", "ner", "-o", "out_convert"],
        "review export": ["review", "export", "flags.jsonl", "-o", "out_review", "--seed", "1"],
        "review import": [
            "review",
            "import",
            "review/expert_a.csv",
            "review/expert_b.csv",
            "-o",
            "out_gold.jsonl",
        ],
        "error-rate": ["error-rate", "gold.jsonl"],
        "error-rate mcq": ["error-rate", "mcq_gold.jsonl", "--task", "mcq"],
        "bins": ["bins", "gold.jsonl"],
        "agreement": [
            "agreement",
            "--source",
            "original=gold.jsonl#label",
            "--source",
            "gold=gold.jsonl",
        ],
        "ensemble-curve": ["ensemble-curve", "j.parquet", "--gold", "gold.jsonl"],
        "report": ["report", "results.json", "-o", "out_report.html"],
        "diagnose": ["diagnose", "--suite", "suite.jsonl", "--predictions", "base=preds.jsonl"],
        "artifacts": [
            "artifacts",
            "--train",
            "train_pairs.jsonl",
            "--eval",
            "suite.jsonl",
            "--text-a",
            "premise",
            "--text-b",
            "hypothesis",
        ],
        "human": ["human", "--suite", "suite.jsonl", "--annotations", "annotations.jsonl"],
        "check-suite": ["check-suite", "suite.jsonl"],
        "glossary": ["glossary"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=150_000)
    ap.add_argument("--mcq-repeat", type=int, default=300)
    ap.add_argument("--suite-repeat", type=int, default=200)
    ap.add_argument("--folder", type=Path, default=DATA)
    ap.add_argument("--conll", type=Path, default=CONLL, help="train.txt/test.txt to cut from")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    if not args.no_build:
        build(args.folder, args.pairs, args.mcq_repeat, args.suite_repeat, args.conll)
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    print(f"{'command':<16} {'seconds':>8} {'load':>5}  rc")
    for name, argv in commands().items():
        if only and name not in only:
            continue
        for out in args.folder.glob("out_*"):
            shutil.rmtree(out) if out.is_dir() else out.unlink()
        seconds, load, rc, err = _cli(argv, args.folder)
        tail = "" if rc == 0 else "  " + err.strip().splitlines()[-1][:100]
        print(f"{name:<16} {seconds:8.1f} {load:5.2f}  {rc}{tail}", flush=True)


if __name__ == "__main__":
    main()
