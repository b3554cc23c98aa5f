"""The documented journeys, end to end, as a user types them (issue 33, "Done when").

Each journey of README.md and docs/labels.md runs through the real commands, in a fresh
folder, on the bundled samples (real CoNLL-format NER sentences, and the pair sample with
its three planted label errors). Where a person acts — a reviewer in Label Studio, two
experts filling spreadsheets — a stand-in writes what they would; where a judge acts, a
stand-in judge (no model) gives fixed probabilities, so the journey's numbers can be
asserted exactly. The numbers asserted are the ones a user reads: which examples are
flagged, how many reviewed, the error rate, the reviewed accuracy (Eq. 2), the lines the
remedy changes, the rank change.

1. CoNLL: ``audit`` → ``flag-spans`` → ``review export --ner`` → Label Studio JSON-MIN
   export → ``review import`` → ``stats --reviewed`` → ``remedy --spans``; the files are
   named as CoNLL-2003 names them (``eng.testb``), so the split names must agree.
2. Pair: ``judge`` → ``flag`` (no text columns repeated) → ``review export`` → two experts
   → ``review import`` → ``error-rate`` → ``remedy`` → ``rerank``.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import polars as pl
import pytest

from benchcheck.cli import main
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore
from benchcheck.sample_data import NER_SAMPLE, PAIR_SAMPLE

#: The pair sample's deliberately wrong labels (src/benchcheck/sample_data/pair/README.md).
PLANTED = {"p08": "0", "p10": "1", "p18": "0"}


def _ok(*argv: str) -> dict:
    """Run one command with ``--json``; require exit code 0; return its JSON."""
    out = Path(f"_{len(list(Path().glob('_*.json')))}.json")
    assert main([*argv, "--json", str(out)]) == 0, argv
    return json.loads(out.read_text())


def test_conll_journey(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    corpus = Path("conll2003")
    corpus.mkdir()
    for ours, theirs in (("train", "eng.train"), ("dev", "eng.testa"), ("test", "eng.testb")):
        shutil.copy(Path(NER_SAMPLE) / f"{ours}.txt", corpus / theirs)
    audit = _ok("audit", str(corpus), "-o", "report")
    assert list(audit["stats"]["splits"]) == ["train", "dev", "test"]
    assert Path("report/report.html").exists()

    flags = _ok("flag-spans", str(corpus / "eng.testb"), "-o", "span_flags.jsonl")
    table = pl.read_ndjson("span_flags.jsonl")
    assert set(table["split"]) == {"test"}  # eng.testb is the test split, as the folder says
    flagged = sorted(set(table.filter(pl.col("flagged"))["sentence"].to_list()))
    assert flagged and flags["flagged"] == table["flagged"].sum()

    export = _ok(
        "review", "export", "span_flags.jsonl", "--ner", str(corpus / "eng.testb"),
        "--audit-sample", "1", "--seed", "1", "-o", "review",
    )  # fmt: skip
    assert export["split"] == "test" and export["n_items"] == len(flagged) + 1
    tasks = json.loads(Path("review/tasks.json").read_text())
    # the stand-in reviewer keeps every pre-annotated span but one: the first reviewed
    # sentence's first entity gets another type (a correction the remedy must write)
    changed_text, new_type = None, None
    rows = []
    for t in tasks:
        d = t["data"]
        spans = [dict(r["value"]) for r in t["predictions"][0]["result"]]
        if changed_text is None and spans and key_stratum(d["review_id"]) == "disputed":
            old = spans[0]["labels"][0]
            new_type = next(x for x in export["types"] if x != old)
            spans[0]["labels"] = [new_type]
            changed_text = spans[0]["text"]
        rows.append({**d, "id": t["id"], "label": spans, "annotator": 1, "annotation_id": t["id"]})
    assert changed_text is not None
    Path("ls_min.json").write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")

    imported = _ok(
        "review", "import", "ls_min.json", "--key", "review/key.jsonl", "-o", "corrected.jsonl"
    )
    assert imported["status_counts"] == {"one_expert": len(tasks), "unresolved": 0}
    assert imported["changes"]["added"] == 1 and imported["changes"]["removed"] == 1

    stats = _ok("stats", str(corpus / "eng.testb"), "--reviewed", "corrected.jsonl")
    reviewed = stats["reviewed_accuracy"]["splits"]["test"]
    # Eq. 2 on the audit sample: one sentence reviewed, unchanged; over all reviewed: 1 of n
    assert (reviewed["n_reviewed"], reviewed["n_changed"], reviewed["accuracy"]) == (1, 0, 1.0)
    assert (reviewed["n_reviewed_all"], reviewed["n_changed_all"]) == (len(tasks), 1)
    # the folder gives the same split name: the review joins the corpus's test split
    folder = _ok("stats", str(corpus), "--reviewed", "corrected.jsonl")
    assert folder["reviewed_accuracy"]["splits"]["test"] == reviewed

    remedy = _ok(
        "remedy", str(corpus / "eng.testb"), "--spans", "corrected.jsonl", "--mode", "correct",
        "-o", "fixed",
    )  # fmt: skip
    assert (remedy["n_reviewed"], remedy["n_changed"], remedy["n_written"]) == (
        len(tasks), 1, 8
    )  # fmt: skip
    before = (corpus / "eng.testb").read_text().splitlines()
    after = Path("fixed/eng.testb").read_text().splitlines()
    diff = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    words = changed_text.split()
    assert [a.split()[0] for a, _ in diff] == words
    assert all(b.split()[-1].endswith(f"-{new_type}") for _, b in diff)


def key_stratum(review_id: str) -> str:
    """The stratum of a task in ``review/key.jsonl`` (the working directory's)."""
    for line in Path("review/key.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["review_id"] == review_id:
            return str(row["stratum"])
    raise KeyError(review_id)


class StandInJudge(Judge):
    """A judge that disputes exactly the planted labels (``sure`` against them), no model."""

    identity = JudgeIdentity("stand-in", "planted", "0" * 8)

    def __init__(self, truth: dict[str, str], sure: float = 0.97) -> None:
        self.truth = truth  # the text_b of each pair → its correct label
        self.sure = sure  # its probability of the correct label

    def score(self, requests, *, on_result=None):  # type: ignore[no-untyped-def]
        out = []
        for i, req in enumerate(requests):
            if tuple(req.labels) != ("0", "1"):  # another task (the options of a question)
                k = len(req.labels)
                s = JudgeScore.from_logprobs(tuple(req.labels), (-math.log(k),) * k, 1, 0.0)
                if on_result:
                    on_result(i, s)
                out.append(s)
                continue
            said = next((lab for text, lab in self.truth.items() if text in str(req)), None)
            p1 = 0.5 if said is None else (self.sure if said == "1" else 1 - self.sure)
            s = JudgeScore.from_logprobs(("0", "1"), (math.log(1 - p1), math.log(p1)), 1, 0.0)
            if on_result:
                on_result(i, s)
            out.append(s)
        return out


def test_pair_journey(tmp_path, monkeypatch):
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod

    monkeypatch.chdir(tmp_path)
    Path("data.jsonl").write_bytes(Path(PAIR_SAMPLE).read_bytes())
    rows = [json.loads(line) for line in Path("data.jsonl").read_text().splitlines()]
    truth = {r["id"]: PLANTED.get(r["id"], str(r["label"])) for r in rows}
    judge = StandInJudge({r["generated_text"]: truth[r["id"]] for r in rows})
    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: judge)
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")

    judged = _ok(
        "judge", "data.jsonl", "--text-a", "grounding", "--text-b", "generated_text",
        "--label", "label", "-o", "judgments.parquet",
    )  # fmt: skip
    assert judged["computed"] > 0
    # --budget (README: "or --budget 200"): the three highest error scores, whatever the
    # default threshold and calibration are
    flags = _ok(
        "flag", "judgments.parquet", "--data", "data.jsonl", "--budget", "3", "-o", "flags.jsonl"
    )
    table = pl.read_ndjson("flags.jsonl")
    assert sorted(table.filter(pl.col("flagged"))["id"].to_list()) == sorted(PLANTED)
    assert flags["summary"]["flagged"] == 3
    assert sum(flags["summary"]["flagged_by_bin"].values()) == 3

    export = _ok(
        "review", "export", "flags.jsonl", "--experts", "2", "--audit-sample", "4",
        "--seed", "1", "-o", "review",
    )  # fmt: skip
    assert (export["n_flagged"], export["n_audit"], export["n_items"]) == (3, 4, 7)
    key = pl.read_ndjson("review/key.jsonl")
    ids = dict(zip(key["review_id"], key["id"], strict=True))
    for name in ("expert_a", "expert_b"):  # two experts who answer the truth
        sheet = pl.read_csv(f"review/{name}.csv", infer_schema=False)
        assert sheet.columns[2:4] == ["grounding", "generated_text"]  # the data's names
        answers = [truth[ids[r]] for r in sheet["review_id"]]
        sheet.with_columns(pl.Series("label", answers)).write_csv(f"review/{name}.csv")
    imported = _ok(
        "review", "import", "review/expert_a.csv", "review/expert_b.csv", "-o", "gold.jsonl"
    )
    assert imported["status_counts"]["experts_agree"] == 7
    assert (imported["flags_decided"], imported["sided_with_llm"]) == (3, 3)
    assert (imported["audited"], imported["audit_errors"]) == (4, 0)

    rate = _ok("error-rate", "gold.jsonl", "--population", "20")
    # the paper's sample: the 3 reviewed flags + the 17 examples the LLM agrees with
    assert (rate["errors"], rate["sample"]) == (3, 20)
    assert rate["sample_parts"] == {"reviewed": 3, "llm_agrees": 17}
    assert rate["error_rate"] == pytest.approx(3 / 20)
    strata = {s["name"]: s for s in rate["stratified"]["strata"]}
    assert (strata["disputed"]["reviewed"], strata["disputed"]["errors"]) == (3, 3)
    assert (strata["undisputed"]["reviewed"], strata["undisputed"]["errors"]) == (4, 0)

    # the stand-in's calibrated confidence in its label is 0.892 (the prior shift): act on it
    remedy = _ok(
        "remedy", "data.jsonl", "--flags", "flags.jsonl", "--min-confidence", "0.85",
        "--mode", "flip", "-o", "cleaned",
    )  # fmt: skip
    assert remedy["n_selected"] == 3 and sorted(remedy["selected_ids"]) == sorted(PLANTED)
    cleaned = [json.loads(x) for x in Path("cleaned/cleaned.jsonl").read_text().splitlines()]
    assert {r["id"]: str(r["label"]) for r in cleaned} == truth  # the three labels flipped

    # two models: one copies the original labels (errors included), one predicts the truth
    for name, labels in (
        ("copycat", {r["id"]: str(r["label"]) for r in rows}),
        ("faithful", truth),
    ):
        Path(f"{name}.jsonl").write_text(
            "".join(json.dumps({"id": i, "pred": lab}) + "\n" for i, lab in labels.items())
        )
    rerank = _ok(
        "rerank", "--gold", "gold.jsonl", "--scores", "copycat=copycat.jsonl",
        "--scores", "faithful=faithful.jsonl", "--bootstrap", "200",
    )  # fmt: skip
    acc = {name: m["accuracy"] for name, m in rerank["models"].items()}
    assert acc["copycat"] == {"original": 1.0, "gold": pytest.approx(17 / 20)}
    assert acc["faithful"] == {"original": pytest.approx(17 / 20), "gold": 1.0}
    # the review turns the ranking round
    assert rerank["ranks"]["faithful"]["accuracy"] == {"original": 2, "gold": 1, "change": 1}
