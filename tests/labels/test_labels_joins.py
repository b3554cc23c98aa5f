"""Files joined to the dataset by id are checked, through the commands (exit 2, nothing written).

Each case failed silently with exit 0 before: flag on judgments with ids 0..19 against
"p01".."p20" reported "judged 0, flagged 0"; remedy applied one example's judgment to another.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from _labels_synth import make_case, write_jsonl

from benchcheck.cli import main


@pytest.fixture()
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _data(n=20, ids=None):
    ids = ids or [f"p{i:02d}" for i in range(1, n + 1)]
    return pl.DataFrame(
        {
            "id": ids,
            "text_a": [f"g {i}" for i in range(n)],
            "text_b": [f"c {i}" for i in range(n)],
            "label": [i % 2 for i in range(n)],
        }
    )


def _judgments(ids):
    rows = [{"id": i, "judge": "m", "prompt": "nli", "p_0": 0.9, "p_1": 0.1} for i in ids]
    return pl.DataFrame(rows)


def _run(capsys, *argv):
    rc = main(list(argv))
    err = capsys.readouterr().err
    return rc, err


def test_flag_refuses_judgments_of_other_ids(here, capsys):
    write_jsonl(_data(), Path("data.jsonl"))
    write_jsonl(_judgments(list(range(20))), Path("j.jsonl"))
    rc, err = _run(capsys, "flag", "j.jsonl", "--data", "data.jsonl", "-o", "flags.jsonl")
    assert rc == 2 and not Path("flags.jsonl").exists()
    assert "data.jsonl: the judgments (j.jsonl) share no id with the data" in err
    assert "'p01', 'p02', 'p03'" in err and "'0', '1', '2'" in err


def test_flag_refuses_a_partial_join(here, capsys):
    write_jsonl(_data(), Path("data.jsonl"))
    ids = [f"p{i:02d}" for i in range(1, 19)] + ["q1", "q2"]  # 2 of 20 unknown: 10 %
    write_jsonl(_judgments(ids), Path("j.jsonl"))
    rc, err = _run(capsys, "flag", "j.jsonl", "--data", "data.jsonl", "--json", "out.json")
    assert rc == 2 and not Path("out.json").exists()
    assert "2 of 20 ids of the data are not in the judgments ('p19', 'p20'" in err
    assert "2 of 20 ids of the judgments are not in the data ('q1', 'q2'" in err


def test_remedy_refuses_duplicate_ids(here, capsys):
    data = _data(ids=[f"p{i:02d}" for i in range(1, 20)] + ["p01"])
    write_jsonl(data, Path("train.jsonl"))
    write_jsonl(_judgments([f"p{i:02d}" for i in range(1, 20)]), Path("j.jsonl"))
    rc, err = _run(capsys, "remedy", "train.jsonl", "--judgments", "j.jsonl", "-o", "out")
    assert rc == 2 and not Path("out").exists()
    assert "train.jsonl:20: duplicate id: each example may appear once (first on line 1)" in err


def test_remedy_refuses_duplicate_flags(here, capsys):
    data, j, _, _ = make_case(30, seed=1)
    write_jsonl(data, Path("train.jsonl"))
    j.write_parquet("j.parquet")
    assert main(["flag", "j.parquet", "--data", "train.jsonl", "-o", "flags.jsonl"]) == 0
    lines = Path("flags.jsonl").read_text().splitlines()
    Path("flags.jsonl").write_text("\n".join([*lines, lines[0]]) + "\n")
    rc, err = _run(capsys, "remedy", "train.jsonl", "--flags", "flags.jsonl", "-o", "out")
    assert rc == 2 and not Path("out").exists()
    assert "flags.jsonl:31: duplicate id" in err


def test_agreement_refuses_duplicates_and_disjoint_sources(here, capsys):
    write_jsonl(pl.DataFrame({"id": ["a", "b", "a"], "label": [1, 0, 0]}), Path("s1.jsonl"))
    write_jsonl(pl.DataFrame({"id": ["a", "b"], "label": [1, 1]}), Path("s2.jsonl"))
    rc, err = _run(capsys, "agreement", "--source", "x=s1.jsonl", "--source", "y=s2.jsonl")
    assert rc == 2 and "s1.jsonl:3: duplicate id" in err
    write_jsonl(pl.DataFrame({"id": [1, 2], "label": [1, 0]}), Path("s1.jsonl"))
    write_jsonl(pl.DataFrame({"id": ["p1", "p2"], "label": [1, 1]}), Path("s2.jsonl"))
    rc, err = _run(capsys, "agreement", "--source", "x=s1.jsonl", "--source", "y=s2.jsonl")
    assert rc == 2 and "source 'x' shares no id with the other sources" in err


def test_rerank_refuses_scores_outside_0_1_and_unknown_predictions(here, capsys):
    gold = pl.DataFrame({"id": ["a", "b", "c"], "label": [1, 0, 1], "gold": [1, 1, 1]})
    write_jsonl(gold, Path("gold.jsonl"))
    write_jsonl(pl.DataFrame({"id": ["a", "b", "c"], "score": [0.2, 1.7, 0.1]}), Path("m.jsonl"))
    rc, err = _run(capsys, "rerank", "--gold", "gold.jsonl", "--scores", "m=m.jsonl")
    assert rc == 2 and "m.jsonl:2: a score is P(positive), a number in [0, 1] (got 1.7)" in err
    write_jsonl(pl.DataFrame({"id": ["a", "b", "c"], "pred": ["1", "yes", "0"]}), Path("m.jsonl"))
    rc, err = _run(capsys, "rerank", "--gold", "gold.jsonl", "--scores", "m=m.jsonl")
    assert rc == 2 and "m.jsonl:2: model 'm': prediction is not one of the labels" in err
    write_jsonl(
        pl.DataFrame({"id": ["a", "a", "c"], "label": [1, 0, 1], "gold": [1, 1, 1]}),
        Path("gold.jsonl"),
    )
    rc, err = _run(capsys, "rerank", "--gold", "gold.jsonl", "--scores", "m=m.jsonl")
    assert rc == 2 and "gold.jsonl:2: duplicate id" in err


def test_ensemble_curve_refuses_gold_of_other_ids(here, capsys):
    data, j, _, _ = make_case(20, seed=2)
    j.write_parquet("j.parquet")
    gold = data.select(
        pl.Series("id", [str(i) for i in range(20)]), "label", pl.col("label").alias("gold")
    )
    write_jsonl(gold, Path("gold.jsonl"))
    rc, err = _run(capsys, "ensemble-curve", "j.parquet", "--gold", "gold.jsonl")
    assert rc == 2 and "gold.jsonl: the judgments (j.parquet) share no id with the gold" in err


def test_accuracy_refuses_a_duplicated_instance(here, capsys):
    rows = [
        {"id": "test:0", "split": "test", "annotations": {"a": True, "b": True}},
        {"id": "test:1", "split": "test", "annotations": {"a": False, "b": True}},
        {"id": "test:0", "split": "test", "annotations": {"a": True, "b": True}},
    ]
    Path("s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rc, err = _run(capsys, "accuracy", "s.jsonl", "--json", "acc.json")
    assert rc == 2 and not Path("acc.json").exists()
    assert "s.jsonl:3: duplicate id" in err and "first on line 1" in err


def test_stats_scores_must_be_finite(here, capsys):
    from benchcheck.sample_data import NER_SAMPLE

    for bad in ("1,nan", "inf,2"):
        rc, err = _run(capsys, "stats", str(NER_SAMPLE), "--scores", bad, "--json", "s.json")
        assert rc == 2 and "--scores expects finite numbers" in err
        assert not Path("s.json").exists()
