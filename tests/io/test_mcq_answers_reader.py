"""Reading models' answers to multiple-choice questions (issue 35): three shapes, bad inputs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from benchcheck.errors import InputError
from benchcheck.io.mcq_answers import read_mcq_answers

IDS = ["q0", "q1", "q2"]
OPTIONS = [["Paris", "Rome", "Oslo"], ["yes", "no"], ["1", "2", "3", "4"]]
KEYS = np.array([0, 1, 3])


def test_long_table_answers_as_letter_index_and_text(tmp_path: Path) -> None:
    f = tmp_path / "long.csv"
    f.write_text(
        "id,model,answer\nq0,m1,A\nq0,m2,Rome\nq1,m1,1\nq1,m2,\nq2,m1,d\nq2,m2,C\n",
        encoding="utf-8",
    )
    out = read_mcq_answers([f], IDS, OPTIONS, KEYS)
    assert out.models == ("m1", "m2")
    assert out.probs.shape == (3, 2, 4)
    assert out.probs[0, 0].tolist() == [1, 0, 0, 0]
    assert out.probs[0, 1].tolist() == [0, 1, 0, 0]
    assert out.probs[1, 0].tolist() == [0, 1, 0, 0]
    assert out.probs[1, 1].tolist() == [0, 0, 0, 0]  # an empty cell: no answer
    assert out.probs[2, 0].argmax() == 3 and out.probs[2, 1].argmax() == 2
    assert out.missing == 1 and out.formats == ("long",) and not out.soft


def test_wide_table_and_two_files(tmp_path: Path) -> None:
    wide = tmp_path / "wide.jsonl"
    wide.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [{"id": "q0", "gpt": "B"}, {"id": "q1", "gpt": "A"}, {"id": "q2", "gpt": 0}]
        )
    )
    long = tmp_path / "long.csv"
    long.write_text("id,model,answer\nq0,llama,C\nq1,llama,B\nq2,llama,B\n")
    out = read_mcq_answers([wide, long], IDS, OPTIONS, KEYS)
    assert out.models == ("gpt", "llama")
    assert out.formats == ("wide", "long")
    assert out.probs[:, 0].argmax(1).tolist() == [1, 0, 0]
    assert out.probs[:, 1].argmax(1).tolist() == [2, 1, 1]


def _sample(doc_id: int, lls: list[float], target: int) -> str:
    return json.dumps(
        {
            "doc_id": doc_id,
            "target": target,
            "resps": [[[str(x), False]] for x in lls],
            "filtered_resps": [[str(x), False] for x in lls],
        }
    )


def test_lm_eval_samples_give_the_softmax_of_the_log_likelihoods(tmp_path: Path) -> None:
    folder = tmp_path / "my-model"
    folder.mkdir()
    f = folder / "samples_mmlu_2024.jsonl"
    f.write_text(
        "\n".join(
            [
                _sample(0, [-1.0, -2.0, -3.0], 0),
                _sample(1, [-0.5, -0.5], 1),
                _sample(2, [-4.0, -1.0, -2.0, -1.0], 3),
            ]
        )
        + "\n"
    )
    out = read_mcq_answers([f], ["0", "1", "2"], OPTIONS, KEYS)
    assert out.models == ("my-model",) and out.soft and out.formats == ("lm_eval",)
    z = math.exp(-1) + math.exp(-2) + math.exp(-3)
    assert out.probs[0, 0, :3] == pytest.approx(
        [math.exp(-1) / z, math.exp(-2) / z, math.exp(-3) / z]
    )
    assert out.probs[1, 0, :2] == pytest.approx([0.5, 0.5])


def test_lm_eval_of_another_dataset_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "samples_x.jsonl"
    f.write_text("\n".join(_sample(i, [-1.0, -2.0], 0) for i in range(2)) + "\n")
    with pytest.raises(InputError, match="2 log-likelihoods for a question of 3 options"):
        read_mcq_answers([f], ["0", "1", "2"], OPTIONS, KEYS)
    g = tmp_path / "samples_y.jsonl"
    g.write_text(
        "\n".join([_sample(0, [-1, -2, -3], 2), _sample(1, [-1, -2], 0), _sample(2, [-1] * 4, 0)])
        + "\n"
    )
    with pytest.raises(InputError, match="targets differ from the data's keys for 3 of 3"):
        read_mcq_answers([g], ["0", "1", "2"], OPTIONS, KEYS)


def test_unparseable_log_likelihoods_name_the_line(tmp_path: Path) -> None:
    f = tmp_path / "samples_z.jsonl"
    f.write_text(
        _sample(0, [-1, -2, -3], 0)
        + "\n"
        + json.dumps({"doc_id": 1, "filtered_resps": [["oops", False], ["-1", False]]})
        + "\n"
    )
    with pytest.raises(InputError, match="cannot read the per-option log-likelihoods") as err:
        read_mcq_answers([f], ["0", "1", "2"], OPTIONS, KEYS)
    assert err.value.line == 2


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("id,model,answer\nq0,m,A\nq1,m,C\nq2,m,A\n", "answers outside the 2 options", 3),
        ("id,model,answer\nq0,m,A\nq0,m,B\nq1,m,A\nq2,m,A\n", "answered twice", 3),
    ],
)
def test_bad_answers_name_the_line(tmp_path: Path, text: str, message: str, line: int) -> None:
    f = tmp_path / "a.csv"
    f.write_text(text)
    with pytest.raises(InputError, match=message) as err:
        read_mcq_answers([f], IDS, OPTIONS, KEYS)
    assert err.value.line == line


def test_ids_not_in_the_data_are_refused_above_five_percent(tmp_path: Path) -> None:
    f = tmp_path / "a.csv"
    f.write_text("id,model,answer\nq0,m,A\nq1,m,A\nq2,m,A\nzz,m,A\n")
    with pytest.raises(InputError, match="1 of 4 ids of the answers are not in the data"):
        read_mcq_answers([f], IDS, OPTIONS, KEYS)


def test_ids_not_in_the_data_under_five_percent_are_counted(tmp_path: Path) -> None:
    ids = [f"q{i}" for i in range(40)]
    f = tmp_path / "a.csv"
    f.write_text("id,m\n" + "".join(f"{q},A\n" for q in [*ids, "zz"]))
    with pytest.warns(UserWarning, match="1 of 41 ids of the answers"):
        out = read_mcq_answers([f], ids, [["a", "b"]] * 40, np.zeros(40, dtype=int))
    assert out.unmatched_ids == (1,) and out.to_json()["unmatched_ids"] == [1]


def test_a_model_in_two_files_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "a.csv"
    f.write_text("id,m\nq0,A\nq1,A\nq2,A\n")
    with pytest.raises(InputError, match="model 'm' is given twice"):
        read_mcq_answers([f, f], IDS, OPTIONS, KEYS)


def test_lm_eval_sample_without_responses_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "samples_w.jsonl"
    f.write_text(
        _sample(0, [-1, -2, -3], 0) + "\n" + json.dumps({"doc_id": 1, "resps": None}) + "\n"
    )
    with pytest.raises(InputError, match="cannot read the per-option") as err:
        read_mcq_answers([f], ["0", "1", "2"], OPTIONS, KEYS)
    assert err.value.line == 2
