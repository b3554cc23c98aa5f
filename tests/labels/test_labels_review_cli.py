"""review export/import and error-rate on the command line: never lose a reviewer's work,
refuse files that do not belong, and the audit sample's estimates end to end."""

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from _labels_synth import cli_ok, make_case, write_jsonl

from benchcheck.cli import main
from benchcheck.stats.stratified import plan_reviews, stratified_error_rate


@pytest.fixture()
def flagged(tmp_path, monkeypatch):
    """A flags file of 120 pairs (20% flipped) and the true labels, in the working folder."""
    monkeypatch.chdir(tmp_path)
    data, j, truth, _ = make_case(120, flip_rate=0.2, seed=11, strength=1.2)
    write_jsonl(data, Path("data.jsonl"))
    j.write_parquet("j.parquet")
    cli_ok("flag", "j.parquet", "--data", "data.jsonl", "-o", "flags.jsonl")
    return {i: str(t) for i, t in zip(data["id"], truth, strict=True)}


def _fill(folder: str, truth: dict[str, str], names=("expert_a", "expert_b")) -> None:
    key = {
        r["review_id"]: r["id"]
        for r in map(json.loads, open(f"{folder}/key.jsonl"))
        if r["review_id"]
    }
    for name in names:
        f = pl.read_csv(f"{folder}/{name}.csv", infer_schema=False)
        f.with_columns(pl.Series("label", [truth[key[r]] for r in f["review_id"]])).write_csv(
            f"{folder}/{name}.csv"
        )


def test_export_into_a_filled_review_is_refused_and_force_is_never_silent(flagged, capsys):
    cli_ok("review", "export", "flags.jsonl", "-o", "review", "--seed", "1")
    _fill("review", flagged, names=("expert_a",))
    filled = Path("review/expert_a.csv").read_bytes()
    key = Path("review/key.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["review", "export", "flags.jsonl", "-o", "review", "--seed", "2"]) == 2
    err = capsys.readouterr().err.replace("\n", " ")
    assert "expert_a.csv (" in err and "answer(s) filled" in err and "key.jsonl" in err
    assert "--force" in err and "Traceback" not in err
    assert Path("review/expert_a.csv").read_bytes() == filled
    assert Path("review/key.jsonl").read_bytes() == key
    # keep the expert's file, then overwrite with --force: it says what it replaced ...
    shutil.copy("review/expert_a.csv", "kept_expert_a.csv")
    cli_ok("review", "export", "flags.jsonl", "-o", "review", "--seed", "2", "--force")
    assert "replaced expert_a.csv" in capsys.readouterr().err.replace("\n", " ")
    # ... and the old answers cannot be imported against the new key (they would move gold)
    assert (
        main(
            [
                "review",
                "import",
                "kept_expert_a.csv",
                "--key",
                "review/key.jsonl",
                "-o",
                "gold.jsonl",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.replace("\n", " ")
    assert "kept_expert_a.csv:" in err and "not exported with this review key" in err
    assert not Path("gold.jsonl").exists()


def test_import_refuses_its_key_as_output_a_file_twice_and_an_existing_output(flagged, capsys):
    cli_ok("review", "export", "flags.jsonl", "-o", "review", "--seed", "1")
    _fill("review", flagged)
    key = Path("review/key.jsonl").read_bytes()
    capsys.readouterr()
    argv = ["review", "import", "review/expert_a.csv", "review/expert_b.csv"]
    assert main([*argv, "--key", "review/key.jsonl", "-o", "review/key.jsonl"]) == 2
    assert "input" in capsys.readouterr().err
    assert Path("review/key.jsonl").read_bytes() == key
    assert main([*argv, "-o", "review/expert_a.csv"]) == 2  # an expert file as output
    capsys.readouterr()
    assert (
        main(["review", "import", "review/expert_a.csv", "review/expert_a.csv", "-o", "g.jsonl"])
        == 2
    )
    assert "given twice" in capsys.readouterr().err
    cli_ok(*argv, "-o", "gold.jsonl")
    before = Path("gold.jsonl").read_bytes()
    assert main([*argv, "-o", "gold.jsonl"]) == 2
    assert "--force" in capsys.readouterr().err and Path("gold.jsonl").read_bytes() == before
    cli_ok(*argv, "-o", "gold.jsonl", "--force")


def test_audit_sample_to_error_rate_end_to_end(flagged, capsys):
    cli_ok(
        "review",
        "export",
        "flags.jsonl",
        "-o",
        "review",
        "--seed",
        "3",
        "--audit-sample",
        "40",
        "--json",
        "exp.json",
    )
    exp = json.loads(Path("exp.json").read_text())
    assert exp["n_audit"] == 40 and exp["n_items"] == exp["n_disputed"] + 40
    assert "argilla/records.json" in exp["files"]
    _fill("review", flagged)
    cli_ok(
        "review",
        "import",
        "review/expert_a.csv",
        "review/expert_b.csv",
        "-o",
        "gold.jsonl",
        "--json",
        "imp.json",
    )
    imp = json.loads(Path("imp.json").read_text())
    gold = [json.loads(line) for line in open("gold.jsonl")]
    audited = [g for g in gold if g["stratum"] == "undisputed" and g["review_id"]]
    assert imp["audited"] == 40 == len(audited)
    assert imp["audit_errors"] == sum(g["gold"] != g["label"] for g in audited)
    capsys.readouterr()
    cli_ok("error-rate", "gold.jsonl", "--population", "120", "--plan", "0.05", "--json", "er.json")
    out = capsys.readouterr().out
    assert "Strata" in out and "Whole dataset" in out and "Plan" in out
    er = json.loads(Path("er.json").read_text())
    # the paper's figure is there, unchanged in form
    assert {"errors", "sample", "ci", "ci_fpc", "lower_bound"} <= set(er)
    # the stratified figures are the library's on the counts by hand
    counts = {}
    for name in ("disputed", "undisputed"):
        part = [g for g in gold if g["stratum"] == name]
        done = [g for g in part if g["review_id"] and g["gold"] is not None]
        counts[name] = (sum(g["gold"] != g["label"] for g in done), len(done), len(part))
    want = stratified_error_rate(
        [counts["disputed"][0], counts["undisputed"][0]],
        [counts["disputed"][1], counts["undisputed"][1]],
        [counts["disputed"][2], counts["undisputed"][2]],
        names=["disputed", "undisputed"],
        flagged="disputed",
    )
    st = er["stratified"]
    assert st["error_rate"] == pytest.approx(want.error_rate)
    assert st["ci"] == pytest.approx(list(want.ci))
    assert st["recall"] == pytest.approx(want.recall)
    assert st["recall_ci"] == pytest.approx(list(want.recall_ci))
    assert [s["name"] for s in st["strata"]] == ["disputed", "undisputed"]
    # the lower bound never exceeds the stratified estimate's upper end
    assert er["lower_bound"] <= st["ci"][1]
    plan = er["plan"]
    rates = [(k + 0.5) / (n + 1) for k, n, _ in counts.values()]
    want_plan = plan_reviews(
        [c[2] for c in counts.values()], rates, width=0.05, reviewed=[c[1] for c in counts.values()]
    )
    assert [s["planned"] for s in plan["strata"]] == [s.planned for s in want_plan.strata]
    assert plan["expected_width"] <= 0.05
    cli_ok("error-rate", "gold.jsonl", "--method", "exact", "--json", "exact.json")
    ex = json.loads(Path("exact.json").read_text())["stratified"]
    assert ex["ci"][0] <= st["ci"][0] and ex["ci"][1] >= st["ci"][1]


def test_error_rate_options_are_checked(flagged, capsys):
    cli_ok("review", "export", "flags.jsonl", "-o", "review", "--seed", "3")
    _fill("review", flagged)
    cli_ok("review", "import", "review/expert_a.csv", "review/expert_b.csv", "-o", "gold.jsonl")
    capsys.readouterr()
    cli_ok("error-rate", "gold.jsonl", "--json", "er.json")
    er = json.loads(Path("er.json").read_text())
    assert er["stratified"] is None and "audit" in er["stratified_note"]
    assert "no stratified estimate" in capsys.readouterr().err
    # no audit yet: the plan needs the undisputed rate
    assert main(["error-rate", "gold.jsonl", "--plan", "0.05"]) == 2
    assert "--anticipated" in capsys.readouterr().err
    cli_ok(
        "error-rate",
        "gold.jsonl",
        "--plan",
        "0.05",
        "--anticipated",
        "undisputed=0.02",
        "--json",
        "p.json",
    )
    plan = json.loads(Path("p.json").read_text())["plan"]
    assert plan["strata"][1]["anticipated_rate"] == 0.02 and plan["strata"][1]["planned"] > 0
    for bad in (
        ["--plan", "2"],
        ["--anticipated", "x"],
        ["--method", "wilson"],
        ["--plan", "0.05", "--anticipated", "elsewhere=0.1"],
        ["--plan", "0.05", "--anticipated", "undisputed=0"],
    ):
        assert main(["error-rate", "gold.jsonl", *bad]) == 2, bad
        err = capsys.readouterr().err
        assert "Traceback" not in err and err.strip(), bad
    assert main(["review", "export", "flags.jsonl", "-o", "r2", "--audit-sample", "100000"]) == 2
    assert "--audit-sample" in capsys.readouterr().err
