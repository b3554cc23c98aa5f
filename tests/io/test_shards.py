"""Parquet shards: convert, read back shard by shard, byte-identical statistics."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from _shard_corpus import _stats_text, _write_split_files, random_conll  # noqa: I001
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.errors import InputError, UsageError
from benchcheck.io import shards
from benchcheck.io.conll import read_conll
from benchcheck.io.convert import convert
from benchcheck.io.load import load
from benchcheck.sample_data import NER_SAMPLE


def test_sample_identical_json(tmp_path):
    out = tmp_path / "sample.parquet"
    folder = convert(NER_SAMPLE, out, chunk_bytes=120)  # many small shards
    assert all(len(s.shards) > 2 for s in folder.splits.values())
    assert shards.is_shard_folder(out)
    whole = load(NER_SAMPLE)  # keep_tokens=True, one read per file
    assert _stats_text(load(out)) == _stats_text(whole)
    assert _stats_text(load(out, keep_tokens=False)) == _stats_text(whole)
    # Rows written: exactly the reader's tokens, tags and lines, sentence ids global.
    token_rows = pl.concat([pl.read_parquet(p) for p in folder.splits["train"].shards])
    ref = read_conll(Path(NER_SAMPLE) / "train.txt")
    assert token_rows["token"].to_list() == ref.tokens["token"].to_list()
    assert token_rows["tag"].to_list() == ref.tokens["tag"].to_list()
    assert token_rows["sentence"].to_list() == ref.tokens["sentence"].cast(pl.Int64).to_list()
    first_lines = token_rows.group_by("sentence", maintain_order=True).first()["line"]
    assert first_lines.to_list() == ref.table["line"].to_list()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chunk=st.integers(16, 400))
def test_random_corpora_identical(tmp_path_factory, seed, chunk):
    rng = np.random.default_rng(seed)
    src = _write_split_files(tmp_path_factory.mktemp("conll"), rng)
    out = tmp_path_factory.mktemp("o") / "shards"
    convert(src, out, chunk_bytes=chunk)
    whole = load(src)
    from_shards = load(out, keep_tokens=True)
    assert _stats_text(from_shards) == _stats_text(whole)
    for name in whole.split_names:
        a, b = whole[name], from_shards[name]
        assert a.table.equals(b.table.cast(a.table.schema))
        assert a.spans.cast({"type": pl.String}).equals(b.spans.cast({"type": pl.String}))
        assert a.tokens.equals(b.tokens.cast(a.tokens.schema))
        assert (a.scheme, a.tag_repairs, dict(a.scheme_violations)) == (
            b.scheme,
            b.tag_repairs,
            dict(b.scheme_violations),
        )


def test_never_overwrites(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(UsageError, match="already holds keep.txt"):
        convert(NER_SAMPLE, out)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_an_empty_folder_is_written_into(tmp_path):
    """The one output rule (an empty folder is no output to lose), as adjust's."""
    out = tmp_path / "out"
    out.mkdir()
    assert convert(NER_SAMPLE, out).root == out
    assert (out / "_benchcheck_shards.json").is_file()


def test_bad_tag_names_original_line_and_leaves_nothing(tmp_path):
    src = tmp_path / "train.txt"
    src.write_text("EU B-ORG\nrejects O\n\nPeter PER\n", encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(InputError) as info:
        convert(src, out)
    assert info.value.line == 4 and info.value.got == "PER" and info.value.path == str(src)
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["train.txt"]


def test_strict_error_matches_conll(tmp_path):
    text = "a B-PER\nb I-PER\n\n" * 30 + "c O\nd I-LOC\n\n" + "e B-LOC\n\n" * 30
    src = tmp_path / "train.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    convert(src, out, chunk_bytes=64)
    with pytest.raises(InputError) as want:
        load(src, strict=True, scheme="IOB2")
    with pytest.raises(InputError) as got:
        load(out, strict=True, scheme="IOB2")
    # 30 three-line sentences, then "c O" on line 91 and the bad "d I-LOC" on 92.
    assert str(got.value) == str(want.value) and got.value.line == 92
    with pytest.raises(InputError) as got_detected:
        load(out, strict=True)  # scheme detected over all shards, then enforced
    with pytest.raises(InputError) as want_detected:
        load(src, strict=True)
    assert str(got_detected.value) == str(want_detected.value)


def test_missing_and_reordered_shards(tmp_path):
    out = tmp_path / "out"
    folder = convert(NER_SAMPLE, out, chunk_bytes=120)
    parts = folder.splits["train"].shards
    parts[1].rename(tmp_path / "moved.parquet")
    with pytest.raises(InputError, match="missing"):
        load(out)
    (tmp_path / "moved.parquet").rename(parts[1])
    parts[1].rename(tmp_path / "x.parquet")
    parts[2].rename(parts[1])
    (tmp_path / "x.parquet").rename(parts[2])
    with pytest.raises(InputError, match="out of order"):
        load(out)


def test_rejects_non_conll_and_empty(tmp_path):
    jl = tmp_path / "train.jsonl"
    jl.write_text('{"tokens": ["a"], "tags": ["O"]}\n', encoding="utf-8")
    with pytest.raises(UsageError, match="reads CoNLL"):
        convert(jl, tmp_path / "o1")
    empty = tmp_path / "test.txt"
    empty.write_text("\n\n-DOCSTART- O\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty split") as info:
        convert(empty, tmp_path / "o2")
    # the CoNLL reader's error: named at the last line (all blank or -DOCSTART- up to it)
    assert (info.value.path, info.value.line) == (str(empty), 4)
    with pytest.raises(InputError) as direct:
        read_conll(empty)
    assert info.value.message == direct.value.message
    assert not (tmp_path / "o2").exists()


def test_bad_manifest(tmp_path):
    (tmp_path / shards.MANIFEST).write_text('{"format": "other", "version": 9}', encoding="utf-8")
    with pytest.raises(InputError, match="unknown shard format"):
        load(tmp_path)


def test_empty_split_error_matches_conll(tmp_path):
    empty = tmp_path / "test.txt"
    empty.write_text("-DOCSTART- -X- O O\n\n\n", encoding="utf-8")
    with pytest.raises(InputError) as want:
        read_conll(empty)
    with pytest.raises(InputError) as got:
        convert(empty, tmp_path / "o", chunk_bytes=4)
    assert str(got.value) == str(want.value) and got.value.line == want.value.line


def test_convert_finds_the_splits_load_finds(tmp_path):
    # Aliases (validation -> dev, testb -> test), and files both skip: hidden, skipped suffix
    # or name, two split words, a split word inside a word.
    src = tmp_path / "src"
    src.mkdir()
    rng = np.random.default_rng(7)
    for name in ("wnut17_train.conll", "wnut17_validation.conll", "eng.testb"):
        (src / name).write_text(random_conll(rng, 5), encoding="utf-8")
    for name in (".hidden_train", "train.py", "test_notes.md", "LICENSE", "train_test", "contest"):
        (src / name).write_text("not a split\n", encoding="utf-8")
    folder = convert(src, tmp_path / "out.parquet")
    whole = load(src)
    assert {k: s.source for k, s in folder.splits.items()} == {s.name: s.source for s in whole}
    assert list(folder.splits) == ["train", "dev", "test"] and folder.name == whole.name == "src"
    assert _stats_text(load(tmp_path / "out.parquet")) == _stats_text(whole)


@pytest.mark.parametrize(
    ("names", "match"),
    [
        (("train.txt", "valid.txt", "dev.txt"), "two files look like the 'dev' split"),
        (("eng.testa", "eng.testb", "my.testb"), "two files look like the 'test' split"),
        (("README.md", ".train", "train.yaml"), "no split files found"),
    ],
)
def test_convert_discovery_errors_are_loads(tmp_path, names, match):
    src = tmp_path / "src"
    src.mkdir()
    for name in names:
        (src / name).write_text("EU B-ORG\n", encoding="utf-8")
    with pytest.raises(InputError, match=match) as got:
        convert(src, tmp_path / "out")
    with pytest.raises(InputError) as want:
        load(src)
    assert str(got.value) == str(want.value) and got.value.path == str(src)
    assert not (tmp_path / "out").exists()


def test_convert_refuses_folders_load_reads_whole(tmp_path):
    # load reads a shard folder or a saved HF dataset whole; convert used to search them for
    # split files and say "no split files found" (or convert a stray train.txt load ignores).
    out = tmp_path / "sample.parquet"
    convert(NER_SAMPLE, out)
    with pytest.raises(UsageError, match="shard folder written by benchcheck convert"):
        convert(out, tmp_path / "again")
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "dataset_dict.json").write_text('{"splits": ["train"]}', encoding="utf-8")
    (hf / "train.txt").write_text("EU B-ORG\n", encoding="utf-8")
    with pytest.raises(UsageError, match="saved HuggingFace dataset"):
        convert(hf, tmp_path / "again")
    assert not (tmp_path / "again").exists()
