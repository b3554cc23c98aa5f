"""Saved HuggingFace datasets (ClassLabel ner_tags, or string tags) through load()."""

import pytest

from benchcheck.errors import InputError
from benchcheck.io.hf import is_saved_hf, read_hf_ner
from benchcheck.io.load import load

datasets = pytest.importorskip("datasets")

NAMES = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def _save(tmp_path, parts, features):
    folder = tmp_path / "hf"
    dd = datasets.DatasetDict(
        {name: datasets.Dataset.from_dict(rows, features=features) for name, rows in parts.items()}
    )
    dd.save_to_disk(str(folder))
    return folder


def _class_label_features():
    return datasets.Features(
        {
            "tokens": datasets.Sequence(datasets.Value("string")),
            "ner_tags": datasets.Sequence(datasets.ClassLabel(names=NAMES)),
        }
    )


def test_class_label_dataset_dict(tmp_path):
    parts = {
        "train": {
            "tokens": [["Angela", "Merkel", "spoke"], ["Paris", "is", "big"], []],
            "ner_tags": [[1, 2, 0], [3, 0, 0], []],
        },
        "validation": {"tokens": [["Ann", "left"]], "ner_tags": [[1, 0]]},
        "test": {"tokens": [["Angela", "Merkel", "spoke"], ["Rome"]], "ner_tags": [[1, 2, 0], [3]]},
    }
    folder = _save(tmp_path, parts, _class_label_features())
    assert is_saved_hf(folder)
    ds = load(folder)
    assert ds.task == "ner" and sorted(ds.split_names) == ["dev", "test", "train"]
    train = ds["train"]
    assert train.n == 2  # the empty sentence is dropped
    assert train.table["line"].to_list() == [1, 2]  # row numbers in the HF split
    assert train.tokens["tag"].to_list() == ["B-PER", "I-PER", "O", "B-LOC", "O", "O"]
    spans = train.spans.sort("sentence", "start")
    assert spans.select("sentence", "start", "end").rows() == [(0, 0, 2), (1, 0, 1)]
    assert spans["surface"].to_list() == ["Angela Merkel", "Paris"]
    assert [str(t) for t in spans["type"]] == ["PER", "LOC"]
    assert ds["test"].source.endswith("[test]") and ds["dev"].n == 1
    # The same sentence in train and test has the same instance hash.
    assert ds["test"].table["xy_hash"][0] == train.table["xy_hash"][0]


def test_string_tags_and_single_dataset(tmp_path):
    ds = datasets.Dataset.from_dict(
        {"tokens": [["IBM", "hired", "Ann"]], "tags": [["S-ORG", "O", "S-PER"]]}
    )
    folder = tmp_path / "single"
    ds.save_to_disk(str(folder))
    read = read_hf_ner(folder)
    assert read.split_names == ["train"]
    assert read["train"].scheme == "BIOES"
    assert read["train"].spans["surface"].to_list() == ["IBM", "Ann"]


def test_bad_hf_folders(tmp_path):
    folder = _save(
        tmp_path,
        {"train": {"words": [["a"]], "labels": [[0]]}},
        datasets.Features(
            {
                "words": datasets.Sequence(datasets.Value("string")),
                "labels": datasets.Sequence(datasets.Value("int64")),
            }
        ),
    )
    with pytest.raises(InputError, match="no 'tokens' column") as info:
        load(folder)
    assert "[train]" in info.value.path
    plain = tmp_path / "plain"
    datasets.Dataset.from_dict({"tokens": [["a"]], "ner_tags": [[0]]}).save_to_disk(str(plain))
    with pytest.raises(InputError, match="ClassLabel"):
        load(plain)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "dataset_dict.json").write_text("{not json")
    with pytest.raises(InputError, match="cannot load"):
        load(broken)
    empty = tmp_path / "empty"
    datasets.Dataset.from_dict({"tokens": [[]], "tags": [[]]}).save_to_disk(str(empty))
    with pytest.raises(InputError, match="empty split"):
        load(empty)


def test_unknown_tag_in_hf_names_the_row(tmp_path):
    features = datasets.Features(
        {
            "tokens": datasets.Sequence(datasets.Value("string")),
            "tags": datasets.Sequence(datasets.Value("string")),
        }
    )
    folder = _save(
        tmp_path, {"test": {"tokens": [["a"], ["b", "c"]], "tags": [["O"], ["O", "PER"]]}}, features
    )
    with pytest.raises(InputError, match="unknown tag shape") as info:
        load(folder)
    assert info.value.line == 2 and info.value.got == "PER"


def test_rows_are_numbered_in_the_saved_split(tmp_path):
    # An empty sentence in the middle must not shift the row numbers of the later ones.
    folder = _save(
        tmp_path,
        {"test": {"tokens": [["a"], [], ["Ann", "left"]], "ner_tags": [[0], [], [1, 2]]}},
        _class_label_features(),
    )
    split = load(folder)["test"]
    assert split.table["line"].to_list() == [1, 3]


@pytest.mark.parametrize(
    ("rows", "line", "message"),
    [
        ({"tokens": [["a"], ["b", "c"]], "ner_tags": [[0], [0]]}, 2, "same length"),
        ({"tokens": [["a"], ["b", None]], "ner_tags": [[0], [0, 0]]}, 2, "non-empty strings"),
        ({"tokens": [["a", ""], ["b"]], "ner_tags": [[0, 0], [0]]}, 1, "non-empty strings"),
        # ClassLabel stores -1 for a missing label: not a tag.
        ({"tokens": [["a"], ["b", "c"]], "ner_tags": [[0], [1, -1]]}, 2, "out of range"),
    ],
)
def test_bad_rows_name_their_row(tmp_path, rows, line, message):
    folder = _save(tmp_path, {"train": rows}, _class_label_features())
    with pytest.raises(InputError, match=message) as info:
        load(folder)
    assert info.value.line == line and info.value.path.endswith("[train]")


def test_missing_string_tag_names_its_row(tmp_path):
    features = datasets.Features(
        {
            "tokens": datasets.Sequence(datasets.Value("string")),
            "tags": datasets.Sequence(datasets.Value("string")),
        }
    )
    folder = _save(tmp_path, {"dev": {"tokens": [["a", "b"]], "tags": [["O", None]]}}, features)
    with pytest.raises(InputError, match="non-empty strings") as info:
        load(folder)
    assert info.value.line == 1


def test_hf_and_conll_hash_alike(tmp_path):
    # Leakage between a saved HF split and a CoNLL file needs identical instance hashes.
    from benchcheck.io.conll import read_conll

    sentences = [(["Angela", "Merkel", "spoke"], [1, 2, 0]), (["Paris"], [3])]
    folder = _save(
        tmp_path,
        {"test": {"tokens": [t for t, _ in sentences], "ner_tags": [g for _, g in sentences]}},
        _class_label_features(),
    )
    conll = tmp_path / "test.conll"
    conll.write_text(
        "\n\n".join(
            "\n".join(f"{t} {NAMES[g]}" for t, g in zip(*s, strict=True)) for s in sentences
        )
        + "\n"
    )
    hf_split, conll_split = load(folder)["test"], read_conll(conll)
    keys = ["x_hash", "xy_hash", "n_entities"]
    assert hf_split.table.select(keys).equals(conll_split.table.select(keys))
    assert hf_split.spans.select("surface_hash", "surface").equals(
        conll_split.spans.select("surface_hash", "surface")
    )
