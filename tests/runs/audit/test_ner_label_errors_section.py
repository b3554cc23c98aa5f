"""The audit's NER label-errors section: the tagger's numbers per split, or why not."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn_crfsuite")

from benchcheck.io.conll import read_conll  # noqa: E402
from benchcheck.labels.ner_detect import tagger_flags  # noqa: E402
from benchcheck.labels.ner_flags import spans_from_split  # noqa: E402
from benchcheck.runs.audit import AuditInputs, NerInput, run_audit  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[2] / "labels"))
from test_labels_ner_detect import corpus  # noqa: E402


def test_split_counts_match_flag_spans_and_a_small_split_says_why(tmp_path):
    (tmp_path / "train.txt").write_text(corpus(n=30, wrong={5: "B-PER", 9: "O"}))
    (tmp_path / "dev.txt").write_text(corpus(n=3))
    results = run_audit(AuditInputs(ner=NerInput(str(tmp_path)))).results
    section = results["ner_label_errors"]
    rows = {r["split"]: r for r in section["splits"]}
    dev = rows["dev"]
    assert dev["checked"] == 0 and dev["flagged"] == 0
    assert "at least 5 sentences with entities for --folds 5" in dev["skipped"]
    split = read_conll(tmp_path / "train.txt")
    found = tagger_flags(split.tokens, spans_from_split(split), split.n)
    train = rows["train"]
    assert train["skipped"] is None and train["checked"] == 30
    assert train["disagreements"] == found.flags.height
    assert train["flagged"] == int(found.flags["flagged"].sum()) == section["examples_total"]
    scores = [e["error_score"] for e in section["examples"]]
    assert scores == sorted(scores, reverse=True)
    assert [e["rank"] for e in section["examples"]] == list(range(1, len(scores) + 1))


# --label-error-seconds ---------------------------------------------------------------------


def test_budget_to_tokens_and_sentences_by_hand():
    from benchcheck.runs.audit.sections.ner_label_errors import (
        TAGGER_TOKENS_PER_SECOND,
        sentences_within,
        token_budget,
    )

    assert token_budget(2.5, 1000.0) == 2500 and token_budget(0.0) == 0
    assert token_budget(60) == math.floor(60 * TAGGER_TOKENS_PER_SECOND)
    lengths = [10, 12, 8, 20, 5, 7]
    entity = [True, False, True, True, False, True]
    # 10 + 12 + 8 = 30 <= 35 < 50: three sentences, two with entities
    assert sentences_within(lengths, entity, 35, 2) == 3
    # three folds need the third entity sentence (index 3): four sentences, over the budget
    assert sentences_within(lengths, entity, 35, 3) == 4
    # more folds than entity sentences: the whole split (the tagger then says why not)
    assert sentences_within(lengths, entity, 35, 5) == 6
    assert sentences_within(lengths, entity, 10**9, 2) == 6


def _audit(tmp_path: Path, *extra: str) -> tuple[int, dict, str]:
    from benchcheck.cli import main
    from benchcheck.sample_data import NER_SAMPLE

    out = tmp_path / "report"
    rc = main(["audit", str(NER_SAMPLE), "--no-judge", *extra, "-o", str(out)])
    if rc != 0:
        return rc, {}, ""
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return rc, results, (out / "report.md").read_text(encoding="utf-8")


def test_a_tiny_budget_checks_the_first_sentences_of_each_split(tmp_path, capsys):
    from benchcheck.io.load import load
    from benchcheck.report.numbers import short
    from benchcheck.runs.audit.sections.ner_label_errors import TAGGER_TOKENS_PER_SECOND
    from benchcheck.sample_data import NER_SAMPLE

    train = next(s for s in load(NER_SAMPLE) if s.name == "train")
    lengths = train.tokens.group_by("sentence").len().sort("sentence")["len"].to_list()
    first8 = sum(lengths[:8])  # the budget: the first 8 sentences' tokens (69), + 0.5 to floor
    seconds = (first8 + 0.5) / TAGGER_TOKENS_PER_SECOND
    rc, results, md = _audit(tmp_path, "--label-error-seconds", repr(seconds))
    assert rc == 0
    le = results["ner_label_errors"]
    assert le["budget_seconds"] == seconds and le["budget_tokens"] == first8
    assert le["tokens_per_second"] == TAGGER_TOKENS_PER_SECOND
    rows = {r["split"]: r for r in le["splits"]}
    assert (rows["train"]["checked"], rows["train"]["sentences"]) == (8, 22)
    assert rows["train"]["tokens_checked"] == first8 < rows["train"]["tokens"]
    assert all(r["seconds"] > 0 for r in rows.values())
    # dev (44 tokens) fits whole; test's sentences of 10 8 9 7 8 11 10 | 8 tokens: 63 <= 69
    assert (rows["dev"]["checked"], rows["dev"]["sentences"]) == (6, 6)
    assert (rows["test"]["checked"], rows["test"]["sentences"]) == (7, 8)
    shown = f"checked 8 of 22 sentences (budget {short(seconds)} s)"
    assert shown in md and "checked 7 of 8 sentences" in md and "of 6 sentences" not in md
    detail = next(a["detail"] for a in results["analyses"] if a["name"] == "ner label errors")
    assert f"train: {shown}" in detail and "test: checked 7 of 8" in detail
    assert shown in (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    # 28 tokens (train's first 3 sentences) hold 3 entity sentences; 5 folds need 5: train
    # goes on to its fifth (sentence 4), dev to its sixth, test to its sixth
    seconds = (sum(lengths[:3]) + 0.5) / TAGGER_TOKENS_PER_SECOND
    rc, results, _ = _audit(tmp_path / "folds", "--label-error-seconds", repr(seconds))
    rows = {r["split"]: r for r in results["ner_label_errors"]["splits"]}
    assert {k: r["checked"] for k, r in rows.items()} == {"train": 5, "dev": 6, "test": 6}
    assert all(r["skipped"] is None for r in rows.values())


def test_zero_seconds_skips_the_section_and_a_negative_budget_is_refused(tmp_path, capsys):
    rc, results, _ = _audit(tmp_path, "--label-error-seconds", "0")
    assert rc == 0 and "ner_label_errors" not in results
    row = next(a for a in results["analyses"] if a["name"] == "ner label errors")
    assert (row["status"], row["detail"]) == ("skipped", "--label-error-seconds 0")
    assert "skipped ner label errors: --label-error-seconds 0" in capsys.readouterr().out
    rc, _, _ = _audit(tmp_path / "neg", "--label-error-seconds", "-1")
    err = " ".join(capsys.readouterr().err.split())
    assert rc == 2 and "--label-error-seconds must be a finite number" in err, err
    assert not (tmp_path / "neg" / "report").exists()


def test_the_option_flows_through_audit_inputs():
    from benchcheck.errors import UsageError
    from benchcheck.runs.audit import audit_inputs

    inp = audit_inputs("x.conll", splits={}, predictions={}, scores={}, label_error_seconds=5)
    assert inp.ner is not None and inp.ner.label_error_seconds == 5
    with pytest.raises(UsageError, match="must be a number of seconds >= 0"):
        audit_inputs("x.conll", splits={}, predictions={}, scores={}, label_error_seconds=-2)


def test_a_version_1_0_section_still_reads_and_renders(tmp_path):
    """Before the budget: max_sentences was a fixed cap and the budget keys did not exist."""
    from benchcheck.runs.audit.sections.ner_label_errors import NerLabelErrorsSection

    (tmp_path / "train.txt").write_text(corpus(n=30, wrong={5: "B-PER"}))
    results = run_audit(AuditInputs(ner=NerInput(str(tmp_path)))).results
    section = results["ner_label_errors"]
    assert section["max_sentences"] == 30 == section["splits"][0]["checked"]
    old = {k: v for k, v in section.items() if not k.startswith(("budget_", "tokens_"))}
    old["max_sentences"] = 5000
    old["splits"] = [
        {k: v for k, v in s.items() if k not in ("tokens", "tokens_checked", "seconds")}
        for s in section["splits"]
    ]
    sec = NerLabelErrorsSection()
    read = sec.read({"ner_label_errors": old}, strict=True)
    assert read is not None
    md = "\n".join(sec.markdown(read))
    assert "Up to 5000 sentences per split." in md and "budget" not in md
    assert "Up to 5000 sentences per split." in sec.html(read)


def test_every_flag_goes_to_ner_flags_jsonl_and_the_page_says_so(tmp_path):
    """Issue 36: the page keeps its top list; the folder holds every flag, located."""
    import polars as pl

    data = tmp_path / "data"
    data.mkdir()
    text = corpus(n=30, wrong={5: "B-PER", 9: "O"})
    (data / "train.txt").write_text("-DOCSTART- O\n\n" + text)
    out = tmp_path / "report"
    report = run_audit(AuditInputs(ner=NerInput(str(data))), output=out)
    section = report.results["ner_label_errors"]
    assert section["flags_file"] == "ner_flags.jsonl"
    assert out / "ner_flags.jsonl" in report.written
    rows = pl.read_ndjson(out / "ner_flags.jsonl")
    assert rows.height == section["examples_total"] >= 1
    assert rows["rank"].to_list() == list(range(1, rows.height + 1))
    first = rows.row(0, named=True)
    example = section["examples"][0]
    # the same flag in both; its line: -DOCSTART- and a blank line, then 5 lines a sentence
    for key in ("split", "sentence", "kind", "gold_type", "pred_type", "text", "line"):
        assert first[key] == example[key], key
    assert first["line"] == 3 + 5 * first["sentence"] and first["document"] == 1
    assert first["file"].endswith("train.txt")
    assert first["id"].startswith(f"{first['sentence']}:")
    # expected wrong sentences: the calibrated count of the checked sentences, by hand
    import numpy as np

    from benchcheck.labels.ner_expected import CONLL_TRAIN

    z = np.full(30, np.nan)
    for s, logit in rows.group_by("sentence").agg(pl.col("error_logit").max()).iter_rows():
        z[s] = logit
    exp = section["expected_errors"]
    assert exp["sentences"] == 30 == section["splits"][0]["expected_errors"]["sentences"]
    # every disagreement of this split is flagged (all are in the file): the fitted
    # calibration's plug-in sum is near the mean over the calibration's draws
    assert section["splits"][0]["disagreements"] == rows.height
    assert exp["expected"] == pytest.approx(CONLL_TRAIN.probability(z).sum(), rel=0.05)
    total = section["examples_total"]
    said = f"all {total} in ner_flags.jsonl beside this report"
    assert said in (out / "report.html").read_text()
    assert said.replace("_", "\\_") in (out / "report.md").read_text()  # Markdown-escaped
    # a later run that flags nothing removes the earlier run's file
    again = run_audit(
        AuditInputs(ner=NerInput(str(data), label_error_seconds=0)), output=out, force=True
    )
    assert not (out / "ner_flags.jsonl").exists() and out / "ner_flags.jsonl" not in again.written
