"""Probability files are validated at the boundary: judgments and predicted probabilities."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from benchcheck.errors import InputError
from benchcheck.io.judgments import check_probabilities, read_judgments, read_pred_probs


def _jsonl(path, rows):
    # json.dumps writes NaN and Infinity as Python's json module reads them back
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _rows(**bad):
    rows = [
        {"id": "a", "judge": "m", "prompt": "nli", "p_0": 0.25, "p_1": 0.75},
        {"id": "b", "judge": "m", "prompt": "nli", "p_0": 0.5, "p_1": 0.5},
        {"id": "c", "judge": "m", "prompt": "nli", "p_0": 0.1, "p_1": 0.9},
    ]
    rows[1].update(bad)
    return rows


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"p_0": math.nan}, "p_0 is NaN"),
        ({"p_0": math.inf}, r"p_0 must be a probability in \[0, 1\] \(got inf\)"),
        ({"p_1": -math.inf}, r"p_1 must be a probability in \[0, 1\] \(got -inf\)"),
        ({"p_0": 1.5, "p_1": -0.5}, r"p_0 must be a probability in \[0, 1\] \(got 1.5\)"),
        (
            {"p_0": 0.5, "p_1": 0.6},
            r"must sum to 1 \(within 1e-06\) over the labels p_0, p_1 \(got 1.1\)",
        ),
        ({"p_0": 0.5, "p_1": None}, r"must sum to 1 .* over the labels p_0 \(got 0.5\)"),
        ({"p_0": "high"}, r"p_0 must be a number \(a probability\) \(got 'high'\)"),
        ({"p_0": [0.5]}, "field 'p_0' holds a list here but a number on line 1"),
        ({"id": [1, 2]}, "field 'id' holds a list here but a string on line 1"),
        ({"judge": None}, "missing value in column 'judge'"),
    ],
)
def test_bad_probabilities_name_file_and_line(tmp_path, bad, message):
    path = _jsonl(tmp_path / "j.jsonl", _rows(**bad))
    with pytest.raises(InputError, match=message) as info:
        read_judgments(path)
    assert info.value.path == str(path) and info.value.line == 2


def test_csv_nan_and_rounding(tmp_path):
    path = tmp_path / "j.csv"
    path.write_text("id,judge,prompt,p_0,p_1\na,m,nli,0.3,0.7\nb,m,nli,nan,nan\n")
    with pytest.raises(InputError, match="p_0 is NaN") as info:
        read_judgments(path)
    assert info.value.line == 3  # the header is line 1
    # 1e-7 off is within the tolerance, 1e-5 is not
    path.write_text("id,judge,prompt,p_0,p_1\na,m,nli,0.3,0.7000001\nb,m,nli,0.3,0.70001\n")
    with pytest.raises(InputError, match="sum to 1") as info:
        read_judgments(path)
    assert info.value.line == 3


def test_failed_judge_rows_and_mixed_label_sets_are_accepted(tmp_path):
    rows = _rows(p_0=None, p_1=None)  # a failed judgment: every probability missing
    rows.append(
        {
            "id": "a",
            "judge": "m",
            "prompt": "nli3",
            "p_entailment": 0.2,
            "p_neutral": 0.3,
            "p_contradiction": 0.5,
        }
    )
    frame = read_judgments(_jsonl(tmp_path / "j.jsonl", rows))
    assert frame["p_0"].to_list()[:3] == [0.25, None, 0.1]
    assert frame.filter(pl.col("prompt") == "nli3")["p_neutral"].to_list() == [0.3]


def test_duplicate_row_names_both_lines(tmp_path):
    rows = _rows()
    rows.append(dict(rows[0]))
    with pytest.raises(
        InputError, match=r"duplicate \(id, judge, prompt\) row \(first on line 1\)"
    ) as info:
        read_judgments(_jsonl(tmp_path / "j.jsonl", rows))
    assert info.value.line == 4


def test_lists_in_every_row(tmp_path):
    rows = _rows()
    for r in rows:
        r["p_0"] = [r["p_0"]]
    with pytest.raises(InputError, match=r"p_0 must be a number \(a probability\)") as info:
        read_judgments(_jsonl(tmp_path / "j.jsonl", rows))
    assert info.value.line == 1
    rows = _rows()
    for r in rows:
        r["id"] = [r["id"]]
    with pytest.raises(InputError, match="'id' must be a single value") as info:
        read_judgments(_jsonl(tmp_path / "j.jsonl", rows))
    assert info.value.line == 1


def test_parquet_nan_is_refused(tmp_path):
    frame = pl.DataFrame(
        {
            "id": ["a", "b"],
            "judge": ["m", "m"],
            "prompt": ["p", "p"],
            "p_0": [0.5, float("nan")],
            "p_1": [0.5, 0.5],
        }
    )
    frame.write_parquet(tmp_path / "j.parquet")
    with pytest.raises(InputError, match="p_0 is NaN") as info:
        read_judgments(tmp_path / "j.parquet")
    assert info.value.line == 2  # the row


def test_pred_probs_npy(tmp_path):
    ids, labels = ["a", "b", "c"], ["0", "1"]
    good = np.array([[0.2, 0.8], [0.5, 0.5], [1.0, 0.0]])
    np.save(tmp_path / "p.npy", good)
    assert np.array_equal(read_pred_probs(tmp_path / "p.npy", ids, labels), good)
    for bad, message in [
        (np.array([[0.2, 0.8], [np.nan, 0.5], [1.0, 0.0]]), "p_0 is NaN"),
        (np.array([[0.2, 0.8], [0.5, 0.5], [np.inf, 0.0]]), r"\(got inf\)"),
        (np.array([[0.2, 0.7], [0.5, 0.5], [1.0, 0.0]]), "sum to 1"),
        (np.array([[0.2, 0.8], [0.5, 0.5]]), r"expected an array of shape \(3, 2\)"),
        (np.array([[0.2, 0.3, 0.5]] * 3), r"shape \(3, 2\)"),
        (np.array([["a", "b"]] * 3), "expected an array of numbers"),
    ]:
        np.save(tmp_path / "p.npy", bad)
        with pytest.raises(InputError, match=message):
            read_pred_probs(tmp_path / "p.npy", ids, labels)
    (tmp_path / "x.npy").write_bytes(b"not numpy")
    with pytest.raises(InputError, match="cannot read a NumPy array"):
        read_pred_probs(tmp_path / "x.npy", ids, labels)


def test_pred_probs_table(tmp_path):
    ids, labels = ["a", "b"], ["0", "1"]
    path = tmp_path / "p.jsonl"
    _jsonl(path, [{"id": "b", "p_0": 0.1, "p_1": 0.9}, {"id": "a", "p_0": 0.6, "p_1": 0.4}])
    assert read_pred_probs(path, ids, labels).tolist() == [[0.6, 0.4], [0.1, 0.9]]
    _jsonl(
        path,
        [
            {"id": "b", "p_0": 0.1, "p_1": 0.9, "p_2": 0.0},
            {"id": "a", "p_0": 0.6, "p_1": 0.4, "p_2": 0.0},
        ],
    )
    with pytest.raises(
        InputError, match=r"column\(s\) \['p_2'\] for labels the judgments do not score"
    ):
        read_pred_probs(path, ids, labels)
    _jsonl(path, [{"id": "b", "p_0": 0.1, "p_1": 0.9}, {"id": "b", "p_0": 0.6, "p_1": 0.4}])
    with pytest.raises(InputError, match="duplicate id") as info:
        read_pred_probs(path, ids, labels)
    assert info.value.line == 2
    _jsonl(path, [{"id": 0, "p_0": 0.1, "p_1": 0.9}, {"id": 1, "p_0": 0.6, "p_1": 0.4}])
    with pytest.raises(InputError, match="share no id with the data"):
        read_pred_probs(path, ids, labels)
    _jsonl(path, [{"id": "a", "p_0": 0.1, "p_1": 0.9}])
    with pytest.raises(InputError, match=r"1 of 2 ids of the data .*each needs a partner"):
        read_pred_probs(path, ids, labels)
    _jsonl(path, [{"id": "a", "p_0": 0.1, "p_1": 0.9}, {"id": "b", "p_0": None, "p_1": 1.0}])
    with pytest.raises(InputError, match="missing value in column 'p_0'"):
        read_pred_probs(path, ids, labels)


def test_check_probabilities_returns_the_values():
    f = pl.DataFrame({"p_a": [0.5, None], "p_b": [0.5, None]})
    arr = check_probabilities(f, ["p_a", "p_b"], path="x")
    assert arr[0].tolist() == [0.5, 0.5] and np.isnan(arr[1]).all()
