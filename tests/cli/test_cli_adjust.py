"""The adjust command: files in the input's format, the report, refusals."""

from __future__ import annotations

import json

import polars as pl

from benchcheck.cli import main
from benchcheck.io.load import load
from benchcheck.metrics.difficulty import unseen_entity_ratio
from benchcheck.sample_data import NER_SAMPLE


def test_adjust_conll_two_targets(tmp_path, capsys):
    out = tmp_path / "null"
    rc = main(
        [
            "adjust",
            str(NER_SAMPLE),
            "--split",
            "train",
            "--metric",
            "entity_null_rate",
            "--target",
            "0.0",
            "--target",
            "0.1",
            "--seed",
            "0",
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    report = json.loads((out / "adjustment.json").read_text(encoding="utf-8"))
    assert report["schema_version"]
    assert [s["target"] for s in report["subsets"]] == [0.0, 0.1]
    assert len({s["n"] for s in report["subsets"]}) == 1
    written = load(splits={"train": out / "target_0" / "train.txt"})["train"]
    assert written.n == report["size"]
    assert int((written.table["n_entities"] == 0).sum()) == 0
    # Original lines, original order: every written block is a block of the source.
    src_blocks = (NER_SAMPLE / "train.txt").read_text(encoding="utf-8").split("\n\n")
    for block in (out / "target_0.1" / "train.txt").read_text(encoding="utf-8").split("\n\n"):
        assert block.strip() in {b.strip() for b in src_blocks}
    # Never overwrite.
    rc = main(
        ["adjust", str(NER_SAMPLE), "--split", "train", "--metric", "entity_null_rate"]
        + ["--target", "0", "-o", str(out)]
    )
    assert rc == 2
    assert "already holds adjustment.json" in capsys.readouterr().err
    assert json.loads((out / "adjustment.json").read_text(encoding="utf-8")) == report


def test_adjust_refuses_out_of_reach_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "leak"
    rc = main(
        [
            "adjust",
            str(NER_SAMPLE),
            "--split",
            "test",
            "--metric",
            "leakage_ratio",
            "--target",
            "1.0",
            "--size",
            "8",
            "-o",
            str(out),
        ]
    )
    assert rc == 2
    assert "out of reach" in capsys.readouterr().err
    assert not out.exists()


def test_adjust_unseen_achieved_matches_stats(tmp_path):
    out = tmp_path / "u"
    rc = main(
        ["adjust", str(NER_SAMPLE), "--split", "test", "--metric", "unseen_entity_ratio"]
        + ["--target", "0.5", "--size", "4", "--tolerance", "0.2", "-o", str(out), "--json", "-"]
    )
    assert rc == 0
    report = json.loads((out / "adjustment.json").read_text(encoding="utf-8"))
    ds = load(splits={"train": NER_SAMPLE / "train.txt", "test": out / "test.txt"})
    assert unseen_entity_ratio(ds["test"], [ds["train"]]) == report["subsets"][0]["achieved"]


def test_adjust_classification_csv_and_jsonl(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    labels = ["a"] * 30 + ["b"] * 10 + ["c"] * 5
    frame = pl.DataFrame(
        {
            "sid": [f"s{i}" for i in range(45)],
            "sentence": [f"t {i}" for i in range(45)],
            "y": labels,
            "extra": list(range(45)),
        }
    )
    frame.write_csv(data / "train.csv")
    out = tmp_path / "bal"
    rc = main(
        ["adjust", str(data), "--task", "classification", "--text", "sentence", "--label", "y"]
        + ["--id", "sid", "--split", "train", "--metric", "label_imbalance_degree"]
        + ["--target", "0.0", "--size", "15", "-o", str(out)]
    )
    assert rc == 0
    written = pl.read_csv(out / "train.csv")
    assert written.columns == frame.columns  # every original column kept
    assert written["y"].value_counts()["count"].to_list() == [5, 5, 5]
    jl = tmp_path / "jl"
    jl.mkdir()
    lines = [json.dumps({"text": f"t{i}", "label": lab}) for i, lab in enumerate(labels)]
    (jl / "train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc = main(
        ["adjust", str(jl), "--task", "classification", "--split", "train"]
        + ["--metric", "label_imbalance_degree", "--target", "0.2", "-o", str(tmp_path / "o2")]
    )
    assert rc == 0
    got = (tmp_path / "o2" / "train.jsonl").read_text(encoding="utf-8").splitlines()
    assert set(got) <= set(lines)


def test_adjust_ner_jsonl_keeps_original_lines(tmp_path):
    blocks = (NER_SAMPLE / "train.txt").read_text(encoding="utf-8").strip().split("\n\n")
    rows = []
    for b in blocks:
        pairs = [line.split(" ") for line in b.split("\n") if not line.startswith("-DOCSTART-")]
        if pairs:
            rows.append(
                json.dumps({"tokens": [p[0] for p in pairs], "tags": [p[1] for p in pairs]})
            )
    data = tmp_path / "d"
    data.mkdir()
    (data / "train.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "o"
    rc = main(
        ["adjust", str(data), "--split", "train", "--metric", "entity_null_rate"]
        + ["--target", "0.5", "--size", "8", "-o", str(out)]
    )
    assert rc == 0
    got = (out / "train.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(got) == 8 and set(got) <= set(rows)
    assert sum(all(t == "O" for t in json.loads(g)["tags"]) for g in got) == 4
