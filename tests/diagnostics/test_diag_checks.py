import json
from pathlib import Path

from benchcheck.diagnostics import check_suite, sample_suite_path
from benchcheck.runs.diagnose import load_suite

DATA = Path(__file__).parent / "data"


def test_glue_mini_checks():
    res = check_suite(load_suite(DATA / "glue_mini.tsv")).to_json()
    assert res["directions"]["both_labelled"] == 3
    assert res["directions"]["unpaired"] == ["6", "7"]
    assert res["unknown_tags"] == {"Telepathy": {"count": 1, "ids": ["7"], "lines": [9]}}
    assert res["label_distribution"]["counts"] == {
        "entailment": 3,
        "neutral": 3,
        "contradiction": 2,
    }
    logic = res["categories"]["Logic"]
    assert logic["n"] == 4 and logic["counts"] == {
        "entailment": 1,
        "neutral": 1,
        "contradiction": 2,
    }
    assert res["label_distribution"]["glue_reference_shares"]["entailment"] == 0.42
    checks = {f["check"] for f in res["findings"] if f["level"] == "warning"}
    assert checks == {"directions", "unknown_tags"}
    # Rows 0 and 7 share the premise "The lamp is on." but 7 is its own (unpaired) pair:
    # the two pairs from that source have labels (contradiction, contradiction) vs entailment.
    assert res["minimal_sets"]["n_sets"] == 1


def test_minimal_sets_and_duplicates(tmp_path):
    res = check_suite(load_suite(DATA / "suite_mini.jsonl")).to_json()
    assert res["minimal_sets"]["sets"] == [
        {"pairs": ["p3", "p4"], "labels": [["entailment", "entailment"], ["contradiction", None]]}
    ]
    assert res["directions"]["forward_only"] == ["p4"]
    path = tmp_path / "dup.jsonl"
    rows = [
        {
            "id": "a",
            "sentence1": "X is here.",
            "sentence2": "Y is here.",
            "forward": "neutral",
            "backward": "neutral",
            "tags": ["Negation"],
        },
        {
            "id": "b",
            "sentence1": "x is  here.",
            "sentence2": "y is here.",
            "forward": "entailment",
            "backward": "neutral",
            "tags": [],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = check_suite(load_suite(path)).to_json()
    assert res["duplicates"]["n_groups"] == 2 and res["duplicates"]["n_conflicting"] == 1
    assert res["untagged"]["count"] == 2


def test_sample_suite_is_clean():
    res = check_suite(load_suite(sample_suite_path()))
    assert res.warnings == []
    js = res.to_json()
    assert js["directions"]["both_labelled"] == js["directions"]["n_pairs"] == 45
    assert all(js["categories"][c]["n"] > 0 for c in js["categories"])
    assert js["unknown_tags"] == {}
