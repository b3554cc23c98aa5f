"""CLI: convert, stats over shards, help examples of the scale commands."""

import json

import pytest

from benchcheck.cli import main
from benchcheck.sample_data import NER_SAMPLE


def test_convert_then_stats_identical(tmp_path, capsys):
    out = tmp_path / "ner.parquet"
    c_json = str(tmp_path / "c.json")
    assert main(["convert", str(NER_SAMPLE), "-o", str(out), "--json", c_json]) == 0
    summary = json.loads((tmp_path / "c.json").read_text())
    assert summary["splits"]["train"] == {
        "source": str(NER_SAMPLE / "train.txt"),
        "n_shards": 1,
        "n_sentences": 22,
        "n_tokens": 194,
    }
    assert main(["stats", str(out), "--json", str(tmp_path / "a.json")]) == 0
    assert main(["stats", str(NER_SAMPLE), "--json", str(tmp_path / "b.json")]) == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    capsys.readouterr()
    # The one output rule (issue 37, item 10): an existing folder needs --force ...
    assert main(["convert", str(NER_SAMPLE), "-o", str(out)]) == 2
    assert "already holds _benchcheck_shards.json, dev, test, train; pass --force" in (
        capsys.readouterr().err
    )
    # ... and with it the folder the command owns is replaced whole: nothing earlier stays.
    (out / "train" / "part-00099.parquet").write_bytes(b"an earlier run's shard")
    (out / "notes.txt").write_text("earlier")
    assert main(["convert", str(NER_SAMPLE), "-o", str(out), "--force"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "_benchcheck_shards.json",
        "dev",
        "test",
        "train",
    ]
    assert [p.name for p in (out / "train").iterdir()] == ["part-00000.parquet"]
    assert main(["stats", str(out), "--json", str(tmp_path / "c2.json")]) == 0
    assert (tmp_path / "c2.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_convert_force_never_replaces_an_input(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    (data / "train.txt").write_text("EU B-ORG\n")
    assert main(["convert", str(data), "-o", str(tmp_path), "--force"]) == 2
    assert "it holds an input of this command" in capsys.readouterr().err
    assert (data / "train.txt").read_text() == "EU B-ORG\n"


@pytest.mark.parametrize("command", ["convert", "leakage"])
def test_help_has_example(command, capsys):
    assert main([command, "--help"]) == 0
    assert "Example: benchcheck " + command in capsys.readouterr().out


def test_judge_unknown_engine(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "1", "text": "a"}\n', encoding="utf-8")
    assert main(["judge", str(data), "--engine", "spark", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "--engine: expected embedded or ray" in err
    assert "loading judge" not in err  # refused before any model is loaded


@pytest.mark.parametrize(
    ("names", "match"),
    [
        (("eng.train", "valid.txt", "eng.testa"), "two files look like the 'dev' split"),
        (("README.md", ".test", "notes.txt"), "no split files found"),
    ],
)
def test_convert_and_stats_same_discovery_error(tmp_path, capsys, names, match):
    src = tmp_path / "src"
    src.mkdir()
    for name in names:
        (src / name).write_text("EU B-ORG\n", encoding="utf-8")
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 2
    convert_err = capsys.readouterr().err
    assert main(["stats", str(src)]) == 2
    assert capsys.readouterr().err == convert_err and match in convert_err
    assert not (tmp_path / "out").exists()


def test_convert_refuses_a_shard_folder(tmp_path, capsys):
    out = tmp_path / "ner.parquet"
    assert main(["convert", str(NER_SAMPLE), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["convert", str(out), "-o", str(tmp_path / "again")]) == 2
    err = capsys.readouterr().err
    assert "shard folder written by benchcheck convert" in err and "no split files" not in err
