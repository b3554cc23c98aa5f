"""Every command's JSON (and written files) on fixed inputs: the refactor's golden record.

``run_chain(folder)`` runs the commands below in ``folder`` (relative paths, so outputs
never name the machine) and returns {name: bytes}. ``python tests/cli/_golden_chain.py``
rewrites ``tests/cli/golden/`` from the code on ``PYTHONPATH``; the goldens were first
written from the code before the run layer existed, so the test proves that moving the
pipelines kept every JSON object byte for byte. Deliberate changes are listed in
:data:`CHANGED` with the reason.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"

#: Outputs whose bytes changed on purpose since the goldens were frozen, with why.
CHANGED: dict[str, str] = {
    "review_export.json": "review export reports the audit sample and writes the Argilla files",
    "review__key.jsonl": "the review key records each example's stratum and content hash",
    "review_import.json": "review import reports its files and the audit counts; its consensus "
    "rule and Krippendorff's alpha beside the kappa (issue 28)",
    "agreement.json": "Krippendorff's alpha and its interval beside every Fleiss' kappa (issue 28)",
    "gold.jsonl": "gold files carry the key's stratum and content hash",
    "error_rate.json": "error-rate adds the stratified estimate (here: why there is none)",
    "flag.json": "the default flag rule is 'precision' (the same 14 flags here), the expected "
    "errors give their interval as rates, and the disagreements the flags leave out are listed "
    "(issue 34)",
}


def _synthetic(folder: Path) -> None:
    """Pair data with planted flips and judgments of two judges × two prompts (seeded)."""
    sys.path.insert(0, str(HERE.parent / "labels"))
    import numpy as np
    import polars as pl
    from _labels_synth import make_case, write_jsonl

    data, j, truth, _ = make_case(80, flip_rate=0.2, seed=3)
    write_jsonl(data, folder / "data.jsonl")
    j.write_parquet(folder / "j.parquet")
    write_jsonl(
        data.select("id", pl.Series("truth", [str(t) for t in truth])), folder / "truth.jsonl"
    )
    rng = np.random.default_rng(0)
    g = np.asarray(truth)
    for name, acc in (("a", 0.9), ("b", 0.6)):
        s = np.where(rng.random(80) < acc, g, 1 - g) * 0.6 + rng.random(80) * 0.4
        write_jsonl(pl.DataFrame({"id": data["id"], "score": s}), folder / f"{name}.jsonl")


def _fill_experts(review: Path) -> None:
    """Both experts label every shown example with its true label (as the labels test does)."""
    import polars as pl

    truth = dict(pl.read_ndjson("truth.jsonl").iter_rows())
    key = {r["review_id"]: r["id"] for r in pl.read_ndjson(review / "key.jsonl").to_dicts()}
    for name in ("expert_a", "expert_b"):
        f = pl.read_csv(review / f"{name}.csv", infer_schema=False)
        labels = [truth[key[r]] for r in f["review_id"]]
        f.with_columns(pl.Series("label", labels)).write_csv(review / f"{name}.csv")


def _commands() -> list[tuple[str, list[str]]]:
    from benchcheck.diagnostics import sample_predictions_path
    from benchcheck.sample_data import DIAGNOSTIC_SAMPLE, NER_SAMPLE, PAIR_SAMPLE

    ner, pair, suite = str(NER_SAMPLE), str(PAIR_SAMPLE), str(DIAGNOSTIC_SAMPLE)
    base = str(sample_predictions_path())
    pair_cols = ["--task", "pair", "--text-a", "grounding", "--text-b", "generated_text"]
    return [
        ("stats_ner.json", ["stats", ner]),
        ("stats_scores.json", ["stats", ner, "--scores", "93.1,92.8,92.4"]),
        ("stats_predictions.json", ["stats", ner, "--predictions", f"oracle={ner}/test.txt"]),
        ("stats_pair_near.json", ["stats", pair, *pair_cols, "--near-duplicates"]),
        ("compare.json", ["compare", f"a={ner}", f"b={ner}"]),
        ("audit_ner.json", ["audit", ner, "--no-judge", "-o", "audit_ner"]),
        (
            "diagnose.json",
            ["diagnose", "--suite", suite, "--predictions", f"base={base}", "--resamples", "200"],
        ),
        ("check_suite.json", ["check-suite", suite]),
        # posterior "none": the chain records the run layer on the detector's own score (the
        # posterior is tested in tests/labels/test_labels_posterior.py); issue 24 added
        # detector_error_score, expected_errors and operating_point to these two outputs
        (
            "flag.json",
            [
                "flag",
                "j.parquet",
                "--data",
                "data.jsonl",
                "-o",
                "flags.jsonl",
                "--posterior",
                "none",
            ],
        ),
        ("review_export.json", ["review", "export", "flags.jsonl", "-o", "review", "--seed", "1"]),
        ("experts", []),
        (
            "review_import.json",
            ["review", "import", "review/expert_a.csv", "review/expert_b.csv", "-o", "gold.jsonl"],
        ),
        ("error_rate.json", ["error-rate", "gold.jsonl", "--population", "1000"]),
        (
            "error_rate_counts.json",
            ["error-rate", "--errors", "12", "--sample", "200", "--population", "5000"],
        ),
        ("bins.json", ["bins", "gold.jsonl", "--bootstrap", "100"]),
        (
            "remedy.json",
            [
                "remedy",
                "data.jsonl",
                "--judgments",
                "j.parquet",
                "--min-confidence",
                "0.8",
                "--mode",
                "flip",
                "-o",
                "cleaned",
            ],
        ),
        (
            "rerank.json",
            [
                "rerank",
                "--gold",
                "gold.jsonl",
                "--scores",
                "a=a.jsonl",
                "--scores",
                "b=b.jsonl",
                "--bootstrap",
                "100",
            ],
        ),
        (
            "agreement.json",
            [
                "agreement",
                "--source",
                "original=gold.jsonl#label",
                "--source",
                "gold=gold.jsonl",
                "--judgments",
                "j.parquet",
            ],
        ),
        (
            "ensemble_curve.json",
            ["ensemble-curve", "j.parquet", "--gold", "gold.jsonl", "--repeats", "3"],
        ),
    ]


#: Files the commands write, recorded beside their JSON.
FILES = (
    "flags.jsonl",
    "review/key.jsonl",
    "gold.jsonl",
    "cleaned/cleaned.jsonl",
    "cleaned/ablation_random.jsonl",
    "audit_ner/report.md",
)


def run_chain(folder: Path) -> dict[str, bytes]:
    """Run every command in ``folder``; {golden name: bytes}."""
    from benchcheck.cli import main

    folder.mkdir(parents=True, exist_ok=True)
    old = Path.cwd()
    os.chdir(folder)
    try:
        _synthetic(Path("."))
        out: dict[str, bytes] = {}
        for name, argv in _commands():
            if name == "experts":
                _fill_experts(Path("review"))
                continue
            rc = main([*argv, "--json", name])
            if rc != 0:
                raise AssertionError(f"benchcheck {' '.join(argv)} exited {rc}")
            out[name] = Path(name).read_bytes()
        for name in FILES:
            out[name.replace("/", "__")] = Path(name).read_bytes()
        # Bundled files are named by their installed path in some outputs: not a golden fact.
        from benchcheck.sample_data import HERE as SAMPLES

        where = str(SAMPLES).encode()
        return {k: v.replace(where, b"<sample_data>") for k, v in out.items()}
    finally:
        os.chdir(old)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        produced = run_chain(Path(tmp) / "chain")
    GOLDEN.mkdir(exist_ok=True)
    for name, content in produced.items():
        (GOLDEN / name).write_bytes(content)
    print(json.dumps(sorted(produced)))
