"""``flag-spans`` on a corpus folder (issue 36): every split in one run, each flag located."""

import json
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("sklearn_crfsuite")
pytest.importorskip("cleanlab")

from _ner_corpus import corpus  # noqa: E402

from benchcheck.cli import main  # noqa: E402
from benchcheck.errors import InputError  # noqa: E402
from benchcheck.runs.flag_spans import read_corpus_folder, run_flag_spans  # noqa: E402


def _folder(root: Path, test_tag: str = "B-PER") -> Path:
    """train (16 sentences), eng.testa (8: dev) and eng.testb (8: test, two documents).

    Sentence 2 of the test file (its first document) tags its city ``test_tag``.
    """
    root.mkdir()
    (root / "train.conll").write_text(corpus(16))
    (root / "eng.testa").write_text(corpus(8))
    blocks = corpus(8, wrong={2: test_tag}).split("\n\n")
    doc = "-DOCSTART- O\n\n"
    first, second = "\n\n".join(blocks[:4]), "\n\n".join(blocks[4:])
    (root / "eng.testb").write_text(doc + first + "\n\n" + doc + second)
    (root / "README").write_text("not a split\n")
    return root


def test_folder_reads_every_split_in_order(tmp_path):
    parts = read_corpus_folder(_folder(tmp_path / "c"))
    assert parts.names == ("train", "dev", "test")
    assert [Path(f).name for f in parts.files] == ["train.conll", "eng.testa", "eng.testb"]
    assert parts.offsets == (0, 16, 24) and parts.split.n == 32
    assert parts.part_of([0, 15, 16, 24, 31]).tolist() == [0, 0, 1, 2, 2]


def test_each_flag_names_its_split_file_line_and_document(tmp_path, monkeypatch):
    _folder(tmp_path / "c")
    monkeypatch.chdir(tmp_path)
    args = ["flag-spans", "c", "--folds", "2", "--min-error-score", "0.9"]
    assert main([*args, "-o", "f.jsonl", "--json", "r.json"]) == 0
    res = json.loads(Path("r.json").read_text())
    assert res["tagger"]["sentences"] == 32  # one tagger over the three splits
    exp = res["tagger"]["expected_errors"]
    assert (exp["sentences"], exp["unit"], exp["level"]) == (32, "sentences", 0.95)
    per = exp["by_split"]
    assert {k: v["sentences"] for k, v in per.items()} == {"train": 16, "dev": 8, "test": 8}
    # the same calibration draws for each: the mixture's mean adds up over the splits
    assert sum(v["expected"] for v in per.values()) == pytest.approx(exp["expected"], rel=1e-12)
    assert exp["low"] <= exp["expected"] <= exp["high"]
    rows = pl.read_ndjson("f.jsonl")
    assert rows.height == 1 and len(res["top"]) == 1
    row = rows.row(0, named=True)
    # sentence 2 of eng.testb: -DOCSTART- on line 1, then 5 lines a sentence from line 3
    assert (row["split"], row["file"]) == ("test", str(Path("c") / "eng.testb"))
    assert (row["sentence"], row["line"], row["document"]) == (2, 13, 1)
    assert row["id"] == "test/2:2-3|2-3"  # unique over the splits
    assert (row["kind"], row["gold_type"], row["pred_type"]) == ("wrong_type", "PER", "LOC")
    assert row["text"] == "Carl visited [[ {{ Oslo }}LOC ]]PER ."
    top = res["top"][0]
    assert {k: top[k] for k in ("split", "file", "line", "document", "id")} == {
        k: row[k] for k in ("split", "file", "line", "document", "id")
    }


@pytest.mark.parametrize(
    ("make", "message"),
    [
        # IOB1 test file (every entity I-) beside IOB2 train/dev (B- after O)
        (lambda p: _folder(p, "I-PER"), None),
        (lambda p: p.mkdir() or (p / "notes.txt").write_text("x\n"), "no NER split file"),
    ],
)
def test_bad_folder_one_line_exit_2(tmp_path, monkeypatch, capsys, make, message):
    folder = tmp_path / "c"
    make(folder)
    if message is None:  # the mixed corpus: all of its test file in IOB1
        text = (folder / "eng.testb").read_text().replace("B-", "I-")
        (folder / "eng.testb").write_text(text)
        message = (
            "mixed tagging schemes across splits: train (train.conll) IOB2, dev (eng.testa) "
            "IOB2, test (eng.testb) IOB1; expected one scheme in every split"
        )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["flag-spans", "c", "-o", "f.jsonl"]) == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not Path("f.jsonl").exists()


def test_a_folder_with_predictions_is_refused(tmp_path):
    folder = _folder(tmp_path / "c")
    with pytest.raises(InputError, match="is a corpus folder, read by the tagger path only") as e:
        run_flag_spans(folder, predictions=folder / "eng.testb")
    assert e.value.path == str(folder)  # the message names the folder


def test_two_files_of_one_split_are_named(tmp_path):
    folder = _folder(tmp_path / "c")
    (folder / "test.conll").write_text(corpus(6))
    with pytest.raises(InputError, match="two files look like the 'test' split"):
        read_corpus_folder(folder)
