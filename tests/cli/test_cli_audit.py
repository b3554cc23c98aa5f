"""``benchcheck audit`` is a thin layer over runs.audit.run_audit: options in, files out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from _golden import without_wall_clock

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.diagnostics import sample_predictions_path
from benchcheck.io.canonical import dumps
from benchcheck.runs.audit import (
    AuditInputs,
    ContaminationInput,
    NerInput,
    SuiteInput,
    TableInput,
    run_audit,
)
from benchcheck.runs.leakage import LeakageOptions
from benchcheck.sample_data import DIAGNOSTIC_SAMPLE, NER_SAMPLE, PAIR_SAMPLE


def _cli(tmp_path: Path, *argv: str) -> tuple[int, str]:
    rc = main(["audit", *argv, "-o", str(tmp_path)])
    text = (tmp_path / "results.json").read_text(encoding="utf-8") if rc == 0 else ""
    return rc, text


def test_samples_run_equals_the_library_on_the_same_inputs(tmp_path: Path) -> None:
    rc, text = _cli(tmp_path, "--no-judge", "--seed", "2")
    assert rc == 0
    inputs = AuditInputs(
        ner=NerInput(str(NER_SAMPLE)),
        table=TableInput(str(PAIR_SAMPLE), Columns(text_a="grounding", text_b="generated_text")),
        judge=None,
        suite=SuiteInput(
            str(DIAGNOSTIC_SAMPLE), {"overlap-baseline": str(sample_predictions_path())}
        ),
        seed=2,
    )
    # the same results but for the tagger's measured seconds (NER label errors)
    assert without_wall_clock(text) == without_wall_clock(dumps(run_audit(inputs).results))


def test_options_become_inputs(tmp_path: Path) -> None:
    splits = [f"{n}={NER_SAMPLE / f'{n}.txt'}" for n in ("train", "test")]
    argv = [a for s in splits for a in ("--split", s)]
    rc, text = _cli(tmp_path, *argv, "--scores", "93,91", "--compare", f"again={NER_SAMPLE}")
    assert rc == 0
    inputs = AuditInputs(
        ner=NerInput(
            splits={n: str(NER_SAMPLE / f"{n}.txt") for n in ("train", "test")},
            scores={"model_1": 93.0, "model_2": 91.0},
            compare={"again": str(NER_SAMPLE)},
        )
    )
    # the same results but for the tagger's measured seconds (NER label errors)
    assert without_wall_clock(text) == without_wall_clock(dumps(run_audit(inputs).results))
    assert json.loads(text)["stats"]["model_scores"] == {"model_1": 93.0, "model_2": 91.0}


def test_bad_scores_are_reported_before_reading_the_data(tmp_path: Path, capsys) -> None:
    rc = main(["audit", str(tmp_path / "missing"), "--scores", "93,abc", "-o", str(tmp_path)])
    assert rc == 2
    assert "--scores expects comma-separated numbers, got 'abc'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--split", "train"], "--split expects NAME=VALUE, got 'train'"),
        (["--compare", "x"], "--compare expects NAME=VALUE, got 'x'"),
        (["--text-a", "a", "--text-b", "b"], "name the data file these options apply to (DATA)"),
        (["--text-a", "a"], "--text-a and --text-b go together: give both"),
    ],
)
def test_option_errors_exit_2_with_the_option_named(tmp_path, capsys, argv, message) -> None:
    assert main(["audit", *argv, "-o", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists()


def test_scheme_in_any_case_reads_the_predictions_too(tmp_path: Path) -> None:
    # --scheme iob2 was capitalised for the dataset but not for the prediction files, which
    # then failed with "unknown tagging scheme" (stats capitalises it once for both).
    rc, text = _cli(
        tmp_path,
        str(NER_SAMPLE),
        "--scheme",
        "iob2",
        "--predictions",
        f"gold={NER_SAMPLE / 'test.txt'}",
    )
    assert rc == 0
    assert json.loads(text)["stats"]["model_scores"] == {"gold": 100.0}


def _contamination_case(folder: Path) -> dict[str, Path]:
    sys.path.insert(0, str(Path(__file__).parents[1] / "runs" / "audit"))
    from _contamination_case import contamination_case

    return contamination_case(folder)


def test_corpus_adds_the_contamination_section(tmp_path: Path) -> None:
    case = _contamination_case(tmp_path / "case")
    pattern = str(tmp_path / "case" / "corpus" / "*.jsonl")
    models = {m: str(case[m]) for m in ("memo", "honest")}
    rc, text = _cli(
        tmp_path / "out",
        str(case["test"]),
        "--text",
        "text",
        "--no-judge",
        "--corpus",
        pattern,
        "--corpus-id-column",
        "doc",
        *[a for m, p in models.items() for a in ("--predictions", f"{m}={p}")],
        "--definition",
        "palm",
        "--n",
        "5",
        "--seed",
        "3",
    )
    assert rc == 0
    leak = ContaminationInput(
        (pattern,), LeakageOptions(definition="palm", n=5), corpus_id_column="doc"
    )
    table = TableInput(str(case["test"]), Columns(text="text"), predictions=models)
    inputs = AuditInputs(table=table, judge=None, contamination=leak, seed=3)
    # the same results but for the tagger's measured seconds (NER label errors)
    assert without_wall_clock(text) == without_wall_clock(dumps(run_audit(inputs).results))
    c = json.loads(text)["contamination"]
    assert (c["parameters"]["definition"], c["parameters"]["n"]) == ("palm+custom", 5)
    # PaLM's cut-offs (0.7): d1, d2 dirty; h1 has 6 of its 16 5-grams (0.375): clean
    assert c["buckets"] == {"clean": 4, "not_clean": 2, "not_dirty": 4, "dirty": 2}
    assert c["scores"]["seed"] == 3
    page = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Contamination by a corpus" in page


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--definition", "gpt3"], "the contamination options need --corpus"),
        (["--corpus-id-column", "doc"], "the contamination options need --corpus"),
        (["--corpus", "{corpus}", "--clean-below", "2"], "--clean-below must be a finite"),
        (["--corpus", "{none}"], "no corpus files match"),
        (["--corpus", "{corpus}", "--test-column", "nope"], "no column 'nope'"),
    ],
)
def test_contamination_option_errors_exit_2(tmp_path, capsys, argv, message) -> None:
    case = _contamination_case(tmp_path / "case")
    where = {"corpus": str(case["corpus"]), "none": str(tmp_path / "no" / "*.jsonl")}
    argv = [a.format(**where) for a in argv]
    out = tmp_path / "out"
    argv = ["audit", str(case["test"]), "--text", "text", "--no-judge", *argv, "-o", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2
    assert not (out / "results.json").exists()


def test_corpus_on_a_suite_is_refused(tmp_path, capsys) -> None:
    case = _contamination_case(tmp_path / "case")
    out = tmp_path / "o"
    argv = ["audit", str(DIAGNOSTIC_SAMPLE), "--corpus", str(case["corpus"]), "-o", str(out)]
    assert main(argv) == 2
    assert "--corpus needs a table or a NER dataset" in capsys.readouterr().err
    assert not out.exists()


DOCS = Path(__file__).parents[1] / "io" / "fixtures" / "documents"
LISTS = f"train={DOCS / 'train_ids.txt'},test={DOCS / 'test_ids.txt'}"


def _stats_json(tmp_path: Path, *argv: str) -> dict:
    out = tmp_path / "stats.json"
    assert main(["stats", *argv, "--json", str(out)]) == 0
    payload = json.loads(out.read_text(encoding="utf-8"))
    payload.pop("schema_version")
    return payload


@pytest.mark.parametrize(
    "argv",
    [
        [str(DOCS / "corpus.pubtator"), "--split-by-list", LISTS, "--overlaps", "keep-longest"],
        [str(DOCS / "brat"), "--overlaps", "keep-first", "--instances", "document"],
        [str(DOCS / "brat"), "--overlaps", "keep-longest", "--offset-check", "warn"],
    ],
    ids=["pubtator sentences", "brat documents", "brat offset check"],
)
def test_document_corpora_are_read_with_the_stats_options(tmp_path: Path, argv) -> None:
    """The fixtures nest "kidney failure" inside "acute kidney failure" (issue 26)."""
    rc, text = _cli(tmp_path / "out", *argv)
    assert rc == 0
    results = json.loads(text)
    assert results["stats"] == _stats_json(tmp_path, *argv)
    reading = results["stats"]["splits"]["train"]["reading"]
    assert reading["overlapping_spans"] == 2 and reading["n_documents"] == 2
    assert reading["overlaps"] == argv[argv.index("--overlaps") + 1]
    instances = argv[argv.index("--instances") + 1] if "--instances" in argv else "sentence"
    assert reading["instances"] == instances
    assert [r["split"] for r in results["split_overlap"]["rows"]] == ["test"]


def test_nested_mentions_need_an_overlaps_policy(tmp_path: Path, capsys) -> None:
    rc = main(["audit", str(DOCS / "brat"), "-o", str(tmp_path / "out")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "--overlaps" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_compared_datasets_are_read_the_same_way(tmp_path: Path) -> None:
    pubtator = str(DOCS / "corpus.pubtator")
    argv = [pubtator, "--overlaps", "keep-longest", "--split-by-list", LISTS]
    rc, text = _cli(tmp_path / "out", *argv, "--compare", f"again={pubtator}")
    assert rc == 0
    datasets = json.loads(text)["comparison"]["datasets"]
    assert list(datasets) == ["corpus.pubtator", "again"]
    for stats in datasets.values():  # the split lists and the overlap policy apply to both
        assert list(stats["splits"]) == ["train", "test"]
        assert stats["splits"]["train"]["reading"]["overlapping_spans"] == 2
    assert datasets["again"]["metrics"] == datasets["corpus.pubtator"]["metrics"]


def test_a_document_corpus_with_nested_mentions_against_a_corpus(tmp_path: Path) -> None:
    """BRAT test document 1003, cut into its two sentences; the second is in the corpus."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"text": "No adverse events were seen in the trial."}) + "\n")
    argv = [str(DOCS / "brat"), "--overlaps", "keep-longest", "--corpus", str(corpus)]
    rc, text = _cli(tmp_path / "out", *argv, "--n", "5", "--min-length", "5")
    assert rc == 0
    results = json.loads(text)
    assert results["stats"]["splits"]["train"]["reading"]["overlapping_spans"] == 2
    c = results["contamination"]
    assert (c["n_items"], c["test_column"]) == (2, "tokens of split test")
    assert [(i["id"], i["overlap"]) for i in c["top_items"]] == [("1", 1.0)]
    assert c["buckets"] == {"clean": 1, "not_clean": 1, "not_dirty": 1, "dirty": 1}


def test_test_column_on_a_ner_dataset_is_refused(tmp_path: Path, capsys) -> None:
    case = _contamination_case(tmp_path / "case")
    out = tmp_path / "out"
    argv = ["audit", str(NER_SAMPLE), "--corpus", str(case["corpus"]), "--test-column", "x"]
    assert main([*argv, "-o", str(out)]) == 2
    assert "--test-column names a column of a table" in capsys.readouterr().err
    assert not (out / "results.json").exists()


@pytest.mark.parametrize(("gate", "rc"), [("dirty_rate>0.3", 1), ("dirty_rate>0.34", 0)])
def test_fail_on_a_contamination_rate(tmp_path: Path, gate: str, rc: int) -> None:
    """The case has 2 dirty items of 6 (1/3): a CI gate on contamination."""
    case = _contamination_case(tmp_path / "case")
    argv = [str(case["test"]), "--text", "text", "--no-judge", "--corpus", str(case["corpus"])]
    assert main(["audit", *argv, "--fail-on", gate, "-o", str(tmp_path / "out")]) == rc
