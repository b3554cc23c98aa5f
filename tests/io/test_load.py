"""Folder discovery and the load() entry point."""

from pathlib import Path

import pytest

from benchcheck.errors import InputError, UsageError
from benchcheck.io.load import discover_splits, load, split_files, split_name_of

SENTENCE = "EU B-ORG\nrejects O\n\nPeter B-PER\n"


def _folder(tmp_path: Path, *names: str) -> Path:
    for name in names:
        (tmp_path / name).write_text(SENTENCE, encoding="utf-8")
    return tmp_path


def test_conll2003_names(tmp_path):
    folder = _folder(tmp_path, "eng.train", "eng.testa", "eng.testb", "README.md", "LICENSE")
    found = discover_splits(folder)
    assert list(found) == ["train", "dev", "test"]
    assert {k: v.name for k, v in found.items()} == {
        "train": "eng.train",
        "dev": "eng.testa",
        "test": "eng.testb",
    }
    ds = load(folder)
    assert ds.split_names == ["train", "dev", "test"] and ds.name == tmp_path.name
    assert all(s.n == 2 for s in ds)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["train.txt", "valid.txt", "test.txt"], ["train", "dev", "test"]),
        (["test.conll", "dev.conll", "train.conll"], ["train", "dev", "test"]),
        (["wnut17_train.conll", "wnut17_validation.conll"], ["train", "dev"]),
        (["data.test.jsonl", "notes.txt", ".hidden_train"], ["test"]),
    ],
)
def test_discovery_variants(tmp_path, names, expected):
    for name in names:
        text = '{"tokens": ["a"], "tags": ["O"]}\n' if name.endswith(".jsonl") else SENTENCE
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert list(discover_splits(tmp_path)) == expected
    assert load(tmp_path).split_names == expected


def test_clash_names_both_files(tmp_path):
    _folder(tmp_path, "train.txt", "valid.txt", "dev.txt")
    with pytest.raises(InputError) as info:
        discover_splits(tmp_path)
    message = str(info.value)
    assert "'dev'" in message and "dev.txt" in message and "valid.txt" in message
    assert info.value.path == str(tmp_path) and "by name (splits)" in message  # from Python
    from benchcheck.cli._options import flag_for

    assert "by name (--split)" in info.value.render(flag_for)  # on the command line


def test_none_found(tmp_path):
    _folder(tmp_path, "README.md", "notes.txt")
    with pytest.raises(InputError, match="no split files found") as info:
        load(tmp_path)
    assert info.value.path == str(tmp_path)


def test_explicit_splits_single_file_and_usage_errors(tmp_path):
    a = _folder(tmp_path, "a.txt") / "a.txt"
    ds = load(splits={"train": a, "test": a})
    assert ds.split_names == ["train", "test"]
    assert load(a).split_names == ["a"]
    assert load(_folder(tmp_path, "my_test.conll") / "my_test.conll").split_names == ["test"]
    with pytest.raises(UsageError):
        load()
    with pytest.raises(UsageError):
        load(a, splits={"train": a})
    with pytest.raises(UsageError, match="task"):
        load(a, task="parse")
    with pytest.raises(InputError, match="no such file"):
        load(tmp_path / "missing")
    with pytest.raises(InputError, match="file not found"):
        load(splits={"train": tmp_path / "missing.txt"})
    # The text tasks resolve their source the same way.
    with pytest.raises(UsageError, match="not both"):
        load(a, splits={"train": a}, task="classification")
    with pytest.raises(InputError, match="no such file"):
        load(tmp_path / "missing", task="pair")


def test_split_name_of():
    assert split_name_of(Path("conll2003_train.txt")) == "train"
    assert split_name_of(Path("eng.testb")) == "test"
    assert split_name_of(Path("training.conll")) == "train"
    # Two different split words: ambiguous, so no split.
    assert split_name_of(Path("train_test.txt")) is None
    assert split_name_of(Path("contest.txt")) is None  # "test" inside a word does not count


def test_one_rule_names_the_split_of_a_file(tmp_path):
    # issue 33: flag-spans read eng.testb as split 'eng' (the stem) while the folder reader
    # and `stats FILE` call it 'test'; every reader of one file now names it the same way.
    from benchcheck.io.conll import read_conll
    from benchcheck.io.ner_jsonl import read_ner_jsonl

    conll = _folder(tmp_path, "eng.testb", "notes.conll")
    assert read_conll(conll / "eng.testb").name == "test"
    assert read_conll(conll / "notes.conll").name == "notes"
    assert list(load(conll / "eng.testb").splits) == ["test"]
    assert list(load(conll).splits) == ["test"]
    jsonl = tmp_path / "wnut17_train.jsonl"
    jsonl.write_text('{"tokens": ["EU"], "tags": ["B-ORG"]}\n', encoding="utf-8")
    assert read_ner_jsonl(jsonl).name == "train"


@pytest.mark.parametrize("task", ["ner", "pair"])
def test_splits_read_concurrently_raise_the_first_splits_error(tmp_path, task):
    # Splits are read on threads; the error raised is still the first failing split's.
    suffix = ".txt" if task == "ner" else ".jsonl"
    good = "a O\n\n" if task == "ner" else '{"text_a": "x", "text_b": "y", "label": "0"}\n'
    (tmp_path / f"train{suffix}").write_text(good * 1000, encoding="utf-8")
    (tmp_path / f"dev{suffix}").write_bytes(b"\xff\xfe bad\n")
    (tmp_path / f"test{suffix}").write_bytes(b"also \xff bad\n")
    with pytest.raises(InputError) as err:
        load(tmp_path, task=task)
    assert err.value.path == str(tmp_path / f"dev{suffix}")
    ds = load(splits={"train": tmp_path / f"train{suffix}"}, task=task)
    assert ds["train"].n == 1000


def test_split_files_are_the_files_load_reads(tmp_path):
    # Aliases, a hidden file, skipped suffixes and names, a word inside a word: all as load.
    folder = _folder(
        tmp_path,
        "wnut17_train.conll",
        "eng.testa",
        "my.testb",
        ".hidden_train",
        "train.json",
        "dev_notes.md",
        "LICENSE",
        "contest.txt",
    )
    files = split_files(folder)
    assert {k: v.name for k, v in files.items()} == {
        "train": "wnut17_train.conll",
        "dev": "eng.testa",
        "test": "my.testb",
    }
    ds = load(folder)
    assert {s.name: s.source for s in ds} == {k: str(v) for k, v in files.items()}
    one = folder / "eng.testa"
    assert split_files(one) == {"dev": one}
    assert split_files(folder / "contest.txt") == {"contest": folder / "contest.txt"}
    assert split_files(splits={"b": "x.txt", "a": one}) == {"b": Path("x.txt"), "a": one}


@pytest.mark.parametrize(
    ("source", "names", "error", "match"),
    [
        (None, (), UsageError, "not both"),  # neither a source nor splits
        ("", (), UsageError, "not both"),  # both (splits given below)
        ("missing", (), InputError, "no such file"),
        ("", ("train.txt", "valid.txt", "dev.txt"), InputError, "'dev' split: dev.txt and valid"),
        ("", ("README.md", "notes.txt"), InputError, "no split files found"),
    ],
)
def test_split_files_errors_are_loads(tmp_path, source, names, error, match):
    _folder(tmp_path, *names)
    path = None if source is None else tmp_path / source
    splits = {"train": tmp_path / "a.txt"} if source == "" and not names else None
    with pytest.raises(error, match=match) as got:
        split_files(path, splits=splits)
    with pytest.raises(error) as want:
        load(path, splits=splits)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize(
    ("marker", "kind"),
    [
        ("dataset_dict.json", "saved HuggingFace dataset"),
        ("dataset_info.json", "saved HuggingFace dataset"),
        ("_benchcheck_shards.json", "shard folder written by benchcheck convert"),
    ],
)
def test_split_files_names_a_folder_load_reads_whole(tmp_path, marker, kind):
    # load reads these folders as a whole; discovery would wrongly say "no split files found",
    # or pick up a stray CoNLL file that load never reads.
    _folder(tmp_path, "train.txt")
    (tmp_path / marker).write_text("{}", encoding="utf-8")
    with pytest.raises(UsageError, match=kind) as got:
        split_files(tmp_path)
    assert str(tmp_path) in str(got.value) and "not a folder of split files" in str(got.value)
