"""Reading multiple-choice questions (issue 35): the shapes, the key's spellings, the bad inputs."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from benchcheck.data.mcq import McqColumns, key_index
from benchcheck.errors import InputError, UsageError
from benchcheck.io.load import load
from benchcheck.io.mcq import read_mcq_split
from benchcheck.io.source import DataSource


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_mmlu_headerless_csv(tmp_path: Path) -> None:
    f = tmp_path / "anatomy_test.csv"
    f.write_text('What is 2+2?,3,4,5,6,B\n"Capital, of France?",Paris,Rome,Oslo,Bern,A\n')
    split = read_mcq_split(f)
    t = split.table
    assert t["text"].to_list() == ["What is 2+2?", "Capital, of France?"]
    assert t["options"].to_list() == [["3", "4", "5", "6"], ["Paris", "Rome", "Oslo", "Bern"]]
    assert t["key"].to_list() == [1, 0]
    assert t["label"].to_list() == ["B", "A"]
    assert t["line"].to_list() == [1, 2]
    assert t["id"].to_list() == ["0", "1"]


def test_csv_with_header_option_columns_and_group(tmp_path: Path) -> None:
    f = tmp_path / "q.csv"
    f.write_text("id,subject,question,A,B,C,D,answer\nx1,geo,Largest ocean?,Atlantic,Pacific,,,1\n")
    t = read_mcq_split(f).table
    # trailing empty option cells drop options: this question has two
    assert t.row(0, named=True) | {"x_hash": 0, "xy_hash": 0} == {
        "id": "x1",
        "text": "Largest ocean?",
        "options": ["Atlantic", "Pacific"],
        "key": 1,
        "label": "B",
        "group": "geo",
        "line": 2,
        "n_tokens": 2,
        "x_hash": 0,
        "xy_hash": 0,
    }


def test_python_literal_options_in_a_csv_cell(tmp_path: Path) -> None:
    # MMLU-Redux's shape: choices as a Python list literal, answer as a digit
    f = tmp_path / "redux.csv"
    f.write_text("question,choices,answer\nQ?,\"['It''s a', 'b']\",0\n".replace("''", "\\'"))
    assert read_mcq_split(f).table["options"].to_list() == [["It's a", "b"]]


def test_jsonl_arc_labels_hellaswag_and_medqa_shapes(tmp_path: Path) -> None:
    arc = _jsonl(
        tmp_path / "arc.jsonl",
        [
            {
                "id": "q1",
                "question": "Which gas?",
                "choices": {"text": ["O2", "CO2", "He"], "label": ["1", "2", "3"]},
                "answerKey": "2",
            },
            {
                "id": "q2",
                "question": "Boils at?",
                "choices": [{"label": "A", "text": "90"}, {"label": "B", "text": "100"}],
                "answerKey": "B",
            },
        ],
    )
    t = read_mcq_split(arc).table
    assert t["key"].to_list() == [1, 1]
    assert t["options"].to_list() == [["O2", "CO2", "He"], ["90", "100"]]
    hs = _jsonl(
        tmp_path / "hs.jsonl",
        [{"ind": 4, "ctx": "A man on a roof. he", "endings": ["a", "b", "c", "d"], "label": "3"}],
    )
    assert read_mcq_split(hs).table.select("text", "key").row(0) == ("A man on a roof. he", 3)
    medqa = _jsonl(
        tmp_path / "medqa.jsonl",
        [{"question": "Dx?", "options": {"B": "flu", "A": "cold"}, "answer": "flu"}],
    )
    t = read_mcq_split(medqa, columns=McqColumns(key="answer")).table
    assert t["options"].to_list() == [["cold", "flu"]]
    assert t["key"].to_list() == [1]


def test_parquet_and_load_and_data_source(tmp_path: Path) -> None:
    f = tmp_path / "test.parquet"
    pl.DataFrame(
        {"question": ["q1", "q2"], "choices": [["a", "b"], ["c", "d", "e"]], "answer": [1, 2]}
    ).write_parquet(f)
    d = load(f, task="mcq")
    assert d.task == "mcq" and d.split_names == ["test"]
    assert d["test"].table["key"].to_list() == [1, 2]
    src = DataSource(str(f), task="mcq", mcq=McqColumns(options="choices"))
    assert src.load()["test"].table["label"].to_list() == ["B", "C"]


def test_saved_hf_dataset(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    features = datasets.Features(
        {
            "question": datasets.Value("string"),
            "subject": datasets.Value("string"),
            "choices": datasets.Sequence(datasets.Value("string")),
            "answer": datasets.ClassLabel(names=["A", "B", "C", "D"]),
        }
    )
    part = datasets.Dataset.from_dict(
        {"question": ["q"], "subject": ["law"], "choices": [["w", "x", "y", "z"]], "answer": [2]},
        features=features,
    )
    datasets.DatasetDict({"test": part}).save_to_disk(str(tmp_path / "hf"))
    t = load(tmp_path / "hf", task="mcq")["test"].table
    assert t.select("key", "group").row(0) == (2, "law")


def test_key_index_spellings() -> None:
    opts = ["Paris", "Rome"]
    assert [key_index(k, opts) for k in (0, 1.0, "1", "a", "B", "Rome ", 2, "C", 1.5, True)] == [
        0,
        1,
        1,
        0,
        1,
        1,
        None,
        None,
        None,
        None,
    ]


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("question,A,B,answer\nq,a,b,C\n", "the key names no option", 2),
        ("question,A,B,answer\nq,a,b,7\n", "the key names no option", 2),
        ("question,A,B,answer\nq,a,b,Lyon\n", "the key names no option", 2),
        ("question,A,B,C,answer\nq,a,,c,A\n", "option 'B' is empty before option 'C'", 2),
        ("question,A,B,answer\nq,a,,A\n", "at least two options", 2),
        ("question,A,B,answer\nok,a,b,A\nq,a,b\n", "expected 4 fields, got 3", 3),
        ("question,choices,answer\nq,\"['a', \",0\n", "cannot read the options cell", 2),
        ("id,question,A,B,answer\nx,q,a,b,A\n,q,a,b,A\n", "missing id", 3),
        (
            "id,question,A,B,answer\nx,q,a,b,A\ny,q,a,b,A\nx,r,a,b,B\n",
            r"unique \(first on line 2\)",
            4,
        ),
    ],
)
def test_bad_rows_name_the_line(tmp_path: Path, text: str, message: str, line: int) -> None:
    f = tmp_path / "bad.csv"
    f.write_text(text)
    with pytest.raises(InputError, match=message) as err:
        read_mcq_split(f)
    assert err.value.line == line
    assert str(f) in str(err.value)


def test_missing_columns_are_named(tmp_path: Path) -> None:
    f = _jsonl(tmp_path / "x.jsonl", [{"question": "q", "choices": ["a", "b"]}])
    with pytest.raises(InputError, match=r"no key column found; the file has \['question'"):
        read_mcq_split(f)
    with pytest.raises(InputError, match="no column 'subj'"):
        read_mcq_split(f, columns=McqColumns(key="choices", group="subj"))


def test_columns_refuse_both_option_shapes() -> None:
    with pytest.raises(UsageError):
        McqColumns(options="choices", option_columns=("A", "B"))


def test_stats_read_the_key_letters_as_labels(tmp_path: Path) -> None:
    from benchcheck.runs.stats import run_stats

    f = tmp_path / "x_test.csv"
    f.write_text("q1,a,b,c,A\nq2,a,b,c,A\nq3,a,b,c,B\nq4,d,e,f,C\n")
    split = run_stats(DataSource(str(f), task="mcq")).to_json()["splits"]["test"]
    assert split["labels"] == {"A": 0.5, "B": 0.25, "C": 0.25}
    # std (ddof 0) of (1/2, 1/4, 1/4): sqrt(((1/6)^2 + 2 (1/12)^2) / 3) = sqrt(1/72)
    assert split["label_imbalance_degree"] == pytest.approx((1 / 72) ** 0.5)
