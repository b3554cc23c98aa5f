"""Classification and pair readers: every format, labels by name or index, hashes, errors."""

from __future__ import annotations

import json

import polars as pl
import pytest

from benchcheck.data.columns import Columns
from benchcheck.errors import InputError
from benchcheck.io.load import load
from benchcheck.io.tables import read_rows, read_text_split

ROWS = [
    {"id": "a", "premise": "The cat sat .", "hypothesis": "A cat sat .", "label": 0},
    {"id": "b", "premise": "The cat sat .", "hypothesis": "No cat .", "label": 2},
    {"id": "c", "premise": '"Quoted", yes', "hypothesis": "NA", "label": 1},
]


def _write(tmp_path, suffix: str, rows=ROWS):
    path = tmp_path / f"train{suffix}"
    frame = pl.DataFrame(rows)
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif suffix == ".csv":
        frame.write_csv(path)
    elif suffix == ".tsv":
        frame.write_csv(path, separator="\t")
    else:
        frame.write_parquet(path)
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".tsv", ".parquet"])
def test_pair_formats_read_the_same(tmp_path, suffix):
    path = _write(tmp_path, suffix)
    split = read_text_split(
        path, task="pair", label_names=["entailment", "neutral", "contradiction"]
    )
    t = split.table
    assert t["id"].to_list() == ["a", "b", "c"]
    assert t["text_b"].to_list() == ["A cat sat .", "No cat .", "NA"]  # NA stays a string
    assert t["label"].to_list() == ["entailment", "contradiction", "neutral"]
    assert t["n_tokens_a"].to_list() == [4, 4, 2]
    # Same premise → same side hash; different pairs → different pair hashes.
    assert t["a_hash"][0] == t["a_hash"][1]
    assert t["x_hash"].n_unique() == 3
    if suffix == ".jsonl":
        assert t["line"].to_list() == [1, 2, 3]
    if suffix == ".csv":
        assert t["line"].to_list() == [2, 3, 4]


def test_pair_order_matters_and_label_changes_xy(tmp_path):
    rows = [
        {"text_a": "x", "text_b": "y", "label": "p"},
        {"text_a": "y", "text_b": "x", "label": "p"},
        {"text_a": "x", "text_b": "y", "label": "q"},
    ]
    t = read_text_split(_write(tmp_path, ".jsonl", rows), task="pair").table
    assert t["x_hash"][0] != t["x_hash"][1]
    assert t["x_hash"][0] == t["x_hash"][2]
    assert t["xy_hash"][0] != t["xy_hash"][2]


def test_labels_as_names_or_indices_mix(tmp_path):
    rows = [{"text": "a", "label": "1"}, {"text": "b", "label": "neg"}]
    t = read_text_split(
        _write(tmp_path, ".jsonl", rows), task="classification", label_names=["neg", "pos"]
    ).table
    assert t["label"].to_list() == ["pos", "neg"]


def test_bad_label_index_names_line(tmp_path):
    rows = [{"text": "a", "label": 0}, {"text": "b", "label": 5}]
    with pytest.raises(InputError, match=r"train.jsonl:2: label is neither") as err:
        read_text_split(
            _write(tmp_path, ".jsonl", rows), task="classification", label_names=["n", "p"]
        )
    assert err.value.got == "5"


def test_missing_column_lists_columns(tmp_path):
    path = _write(tmp_path, ".jsonl", [{"sentence": "a", "label": 0}])
    with pytest.raises(InputError, match="no column 'text'"):
        read_text_split(path, task="classification")
    split = read_text_split(path, task="classification", columns=Columns(text="sentence"))
    assert split.table["text"].to_list() == ["a"]


def test_jsonl_blank_lines_keep_line_numbers(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"text": "a", "label": 0}\n\n{"text": "b", "label": 1}\n', encoding="utf-8")
    assert read_rows(path)["__line__"].to_list() == [1, 3]
    path.write_text('{"text": "a", "label": 0}\n{"text": "b", "label": 1}\n', encoding="utf-8")
    assert read_rows(path)["__line__"].to_list() == [1, 2]
    path.write_text('{"text": "a", "label": 0}\n{"text": "b", "label: 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"x.jsonl:2: invalid JSON"):
        read_rows(path)
    # U+2028/U+0085 are legal unescaped inside JSON strings: not line breaks (the blank line
    # sends the file through the general reader).
    rows = [{"text": "a\u2028b\u0085c", "label": 0}, {"text": "d", "label": 1}]
    body = "\n\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
    path.write_text(body + "\n", encoding="utf-8")
    got = read_rows(path)
    assert got["text"].to_list() == ["a\u2028b\u0085c", "d"]
    assert got["__line__"].to_list() == [1, 3]


def test_load_folder_and_saved_hf(tmp_path):
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "csvs"
    folder.mkdir()
    _write(folder, ".csv")
    (folder / "test.csv").write_text("premise,hypothesis,label\nq,r,1\n", encoding="utf-8")
    ds = load(folder, task="pair", label_names=["entailment", "neutral", "contradiction"])
    assert ds.task == "pair" and ds.split_names == ["train", "test"]
    assert ds["test"].table["label"].to_list() == ["neutral"]

    features = datasets.Features(
        {
            "text": datasets.Value("string"),
            "label": datasets.ClassLabel(names=["neg", "pos"]),
        }
    )
    dd = datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_dict(
                {"text": ["a", "b"], "label": [0, 1]}, features=features
            ),
            "validation": datasets.Dataset.from_dict(
                {"text": ["c"], "label": [1]}, features=features
            ),
        }
    )
    dd.save_to_disk(str(tmp_path / "hf"))
    ds = load(tmp_path / "hf", task="classification")
    assert set(ds.split_names) == {"train", "dev"}
    assert ds["train"].table["label"].to_list() == ["neg", "pos"]


def test_jsonl_fast_and_general_paths_agree(tmp_path):
    """The column-subset reader and the general one give the same strings."""
    body = ['{"text": "x", "label": %s, "id": 7}', '{"text": "y z", "label": %s, "id": 8}']
    for a, b in (("1", "2"), ("1.0", "2"), ('"p"', '"q"'), ("true", "false")):
        plain = "\n".join([body[0] % a, body[1] % b]) + "\n"
        (tmp_path / "fast.jsonl").write_text(plain, encoding="utf-8")
        (tmp_path / "slow.jsonl").write_text(plain.replace("\n", "\n\n", 1), encoding="utf-8")
        fast = read_text_split(tmp_path / "fast.jsonl", task="classification").table
        slow = read_text_split(tmp_path / "slow.jsonl", task="classification").table
        assert fast.select("id", "text", "label").equals(slow.select("id", "text", "label"))
        assert fast["xy_hash"].to_list() == slow["xy_hash"].to_list()


def test_saved_hf_pair_finds_the_default_pair_columns(tmp_path):
    datasets = pytest.importorskip("datasets")
    part = datasets.Dataset.from_dict(
        {
            "sentence1": ["s", "t"],
            "sentence2": ["u", "v"],
            "hypothesis": ["h", "h"],
            "label": [1, 0],
        }
    )
    part.save_to_disk(str(tmp_path / "hf"))
    t = load(tmp_path / "hf", task="pair")["train"].table
    assert t["text_a"].to_list() == ["s", "t"]
    assert t["text_b"].to_list() == ["u", "v"]
    assert t["label"].to_list() == ["1", "0"]
    datasets.Dataset.from_dict({"a": ["s"], "b": ["u"], "label": [1]}).save_to_disk(
        str(tmp_path / "hf2")
    )
    with pytest.raises(InputError, match="name the text column"):
        load(tmp_path / "hf2", task="pair")


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_crlf_and_bom_read_like_plain(tmp_path, suffix):
    """Files the fast paths decline (CR bytes, a byte-order mark) read as the plain file."""
    plain = _write(tmp_path, suffix)
    want = read_text_split(plain, task="pair").table
    data = plain.read_bytes()
    for body in (data.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + data):
        other = tmp_path / f"other{suffix}"
        other.write_bytes(body)
        assert read_text_split(other, task="pair").table.equals(want)
