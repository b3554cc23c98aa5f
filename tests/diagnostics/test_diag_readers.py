import json
from pathlib import Path

import pytest

from benchcheck.diagnostics import GLUE_TAXONOMY
from benchcheck.errors import InputError
from benchcheck.io.diagnostic import (
    NLI_LABELS,
    load_taxonomy,
    read_annotations,
    read_diagnostic,
    read_pairs,
    read_predictions,
)
from benchcheck.runs.diagnose import load_suite

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("name", ["glue_mini.tsv", "suite_mini.jsonl"])
def test_reader_matches_golden(name):
    # Golden files were written once from the reader and checked by hand against the fixture.
    suite = load_suite(DATA / name)
    golden = json.loads((DATA / (name.split(".")[0] + ".golden.json")).read_text())
    assert suite.table.to_dicts() == golden


def test_glue_tsv_pairs_directions_and_tags():
    suite = load_suite(DATA / "glue_mini.tsv")
    rows = {r["id"]: r for r in suite.table.to_dicts()}
    assert suite.n == 8 and suite.label_names == NLI_LABELS
    # Rows 0/1, 2/3 and 4/5 are swaps of each other; 6 and 7 have no partner.
    assert [rows[i]["direction"] for i in "01234567"] == [
        "forward",
        "backward",
        "forward",
        "backward",
        "forward",
        "backward",
        None,
        None,
    ]
    assert rows["3"]["pair_id"] == "2" and rows["3"]["source"] == "Every spaniel barked."
    assert rows["2"]["fine"] == ["Lexical Entailment", "Quantifiers", "Universal"]
    assert rows["2"]["coarse"] == ["Lexical Semantics", "Logic"]
    assert rows["4"]["fine"] == ["Core Arguments"]  # "Core args" alias
    assert rows["7"]["unknown"] == ["Telepathy"] and rows["7"]["coarse"] == ["Lexical Semantics"]
    assert rows["5"]["line"] == 7


def test_jsonl_expands_two_directions():
    suite = load_suite(DATA / "suite_mini.jsonl")
    assert suite.ids == [
        "p1:forward",
        "p1:backward",
        "p2:forward",
        "p2:backward",
        "p3:forward",
        "p3:backward",
        "p4:forward",
    ]
    back = suite.table.row(3, named=True)
    assert back["text_a"] == "Every cat slept." and back["label"] == "entailment"
    assert suite.table.row(4, named=True)["fine"] == ["Core Arguments", "World Knowledge"]
    assert suite.n_pairs == 4


@pytest.mark.parametrize(
    "content, line, words",
    [
        (
            '{"id": "a", "sentence1": "x", "sentence2": "y", "forward": "entailment"}\n{bad\n',
            2,
            "invalid JSON",
        ),
        ('{"id": "a", "sentence1": "x", "forward": "entailment"}\n', 1, "sentence2"),
        (
            '{"id": "a", "sentence1": "x", "sentence2": "y", "forward": "neutral", "tags": 3}\n',
            1,
            "tags",
        ),
    ],
)
def test_jsonl_errors_name_file_and_line(tmp_path, content, line, words):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(InputError) as err:
        read_diagnostic(path)
    assert err.value.line == line and str(path) in str(err.value) and words in str(err.value)


def test_tsv_errors(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("Logic\tPremise\tHypothesis\tLabel\nNegation\ta\tb\t\n")
    with pytest.raises(InputError, match="empty Label") as err:
        read_diagnostic(path)
    assert err.value.line == 2
    path.write_text("Logic\tPremise\tHyp\tLabel\n")
    with pytest.raises(InputError, match="Hypothesis"):
        read_diagnostic(path)
    path.write_text("Logic\tPremise\tHypothesis\tLabel\nx\ta\tb\tneutral\textra\n")
    with pytest.raises(InputError, match="columns") as err:
        read_diagnostic(path)
    assert err.value.line == 2


def _ids():
    return load_suite(DATA / "glue_mini.tsv").ids


def test_predictions_by_id_names_and_indices(tmp_path):
    ids = _ids()
    p = tmp_path / "p.tsv"
    p.write_text("index\tprediction\n" + "".join(f"{i}\t{i % 3}\n" for i in reversed(range(8))))
    read = read_predictions(p, ids=ids, label_names=NLI_LABELS)
    assert read.keyed_by == "id" and read.notes  # indices were used
    assert [read.labels[i] for i in ids] == [NLI_LABELS[i % 3] for i in range(8)]
    mapped = read_predictions(
        p,
        ids=ids,
        label_names=NLI_LABELS,
        label_map={"0": "contradiction", "1": "neutral", "2": "entailment"},
    )
    assert mapped.labels["0"] == "contradiction"


def test_predictions_by_row_order(tmp_path):
    ids = _ids()
    p = tmp_path / "p.csv"
    p.write_text("label\n" + "Entailment\n" * 8)
    read = read_predictions(p, ids=ids, label_names=NLI_LABELS)
    assert read.keyed_by == "row order" and set(read.labels.values()) == {"entailment"}
    p.write_text("label\n" + "entailment\n" * 7)
    with pytest.raises(InputError, match="expected 8 rows"):
        read_predictions(p, ids=ids, label_names=NLI_LABELS)


@pytest.mark.parametrize(
    "content, line, words",
    [
        (
            '{"id": "0", "prediction": "entailment"}\n{"id": "99", "prediction": "neutral"}\n',
            2,
            "not in the suite",
        ),
        ('{"id": "0", "prediction": "maybe"}\n', 1, "unknown label"),
        (
            '{"id": "0", "prediction": "neutral"}\n{"id": "0", "prediction": "neutral"}\n',
            2,
            "twice",
        ),
    ],
)
def test_prediction_errors_name_line(tmp_path, content, line, words):
    p = tmp_path / "p.jsonl"
    p.write_text(content)
    with pytest.raises(InputError) as err:
        read_predictions(p, ids=_ids(), label_names=NLI_LABELS)
    assert err.value.line == line and words in str(err.value) and str(p) in str(err.value)


def test_prediction_missing_ids(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_text('{"id": "0", "prediction": "neutral"}\n')
    with pytest.raises(InputError, match="7 suite example"):
        read_predictions(p, ids=_ids(), label_names=NLI_LABELS)


def test_annotations_long_and_wide(tmp_path):
    ids = _ids()
    long = tmp_path / "a.csv"
    long.write_text("id,annotator,label\n0,ann1,contradiction\n0,ann2,2\n1,ann1,neutral\n")
    out = read_annotations(long, ids=ids, label_names=NLI_LABELS)
    assert out == {"ann1": {"0": "contradiction", "1": "neutral"}, "ann2": {"0": "contradiction"}}
    wide = tmp_path / "a.tsv"
    wide.write_text("id\tx\ty\n0\tneutral\t\n1\tentailment\tentailment\n")
    out = read_annotations(wide, ids=ids, label_names=NLI_LABELS)
    assert out == {"x": {"0": "neutral", "1": "entailment"}, "y": {"1": "entailment"}}
    wide.write_text("id\tx\n0\tneutral\n5\tbogus\n")
    with pytest.raises(InputError, match="unknown label") as err:
        read_annotations(wide, ids=ids, label_names=NLI_LABELS)
    assert err.value.line == 3


def test_read_pairs_table_and_suite(tmp_path):
    snli = tmp_path / "snli.jsonl"
    snli.write_text(
        '{"sentence1": "a b", "sentence2": "c", "gold_label": "neutral"}\n'
        '{"sentence1": "d", "sentence2": "e", "gold_label": "-"}\n'
    )
    pairs = read_pairs(snli)
    assert pairs.hypotheses == ["c"] and pairs.labels == ["neutral"] and pairs.n_skipped == 1
    suite = read_pairs(DATA / "suite_mini.jsonl")
    assert suite.kind == "suite" and len(suite.labels) == 7


def test_custom_taxonomy_toml_and_json(tmp_path):
    toml = tmp_path / "tax.toml"
    toml.write_text(
        'name = "safety"\n[categories]\n"Robustness" = ["Typos", "Paraphrase"]\n'
        '"Bias" = ["Gender"]\n'
    )
    tax = load_taxonomy(toml)
    assert tax.name == "safety" and tax.coarse_of("typos") == "Robustness"
    js = tmp_path / "tax.json"
    js.write_text(json.dumps({"Robustness": ["Typos"], "Bias": ["Gender", "Age"]}))
    assert load_taxonomy(js).fine_names == ["Typos", "Gender", "Age"]
    js.write_text(json.dumps({"A": ["x"], "B": ["x"]}))
    with pytest.raises(InputError, match="twice"):
        load_taxonomy(js)
    toml.write_text("[categories\n")
    with pytest.raises(InputError, match="cannot parse"):
        load_taxonomy(toml)


def test_glue_taxonomy_shape():
    assert GLUE_TAXONOMY.coarse_names == [
        "Lexical Semantics",
        "Predicate-Argument Structure",
        "Logic",
        "Knowledge",
    ]
    assert len(GLUE_TAXONOMY.fine_names) == 7 + 12 + 12 + 2


def test_find_pair_splits_uses_the_loaders_split_words(tmp_path):
    from benchcheck.errors import UsageError
    from benchcheck.io.diagnostic import find_pair_splits

    for name in ("snli_train.jsonl", "snli_validation.jsonl", "notes.txt", "README.md"):
        (tmp_path / name).write_text("{}\n", encoding="utf-8")
    assert find_pair_splits(tmp_path) == (
        tmp_path / "snli_train.jsonl",
        tmp_path / "snli_validation.jsonl",
    )
    (tmp_path / "eng.testb.tsv").write_text("x\n", encoding="utf-8")  # test wins over dev
    assert find_pair_splits(tmp_path)[1] == tmp_path / "eng.testb.tsv"
    (tmp_path / "snli_test.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(UsageError, match="one train file and one test"):
        find_pair_splits(tmp_path)
