"""Model outputs for rerank: scores in [0, 1], predictions that are labels, unique ids."""

from __future__ import annotations

import json

import pytest

from benchcheck.errors import InputError
from benchcheck.io.scores import read_model_scores
from benchcheck.labels.remedies import rerank


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"score": 1.5}, r"a score is P\(positive\), a number in \[0, 1\] \(got 1.5\)"),
        ({"score": -0.1}, r"\(got -0.1\)"),
        ({"score": float("nan")}, r"\(got nan\)"),
        ({"score": "high"}, r"a score must be a number in \[0, 1\] \(got 'high'\)"),
        ({"score": None}, "missing score"),
        ({"id": "a"}, "duplicate id"),
    ],
)
def test_bad_scores_name_the_line(tmp_path, bad, message):
    rows = [{"id": "a", "score": 0.2}, {"id": "b", "score": 0.9}, {"id": "c", "score": 0.4}]
    rows[1].update(bad)
    with pytest.raises(InputError, match=message) as info:
        read_model_scores("m", _write(tmp_path / "s.jsonl", rows))
    assert info.value.line == 2


def test_prediction_that_is_not_a_label(tmp_path):
    rows = [{"id": "a", "pred": "1"}, {"id": "b", "pred": "positive"}, {"id": "c", "pred": 0}]
    model = read_model_scores("m", _write(tmp_path / "s.jsonl", rows))
    with pytest.raises(
        InputError, match=r"prediction is not one of the labels \['0', '1'\]"
    ) as info:
        rerank(["a", "b", "c"], ["1", "0", "0"], ["1", "1", "0"], [model], n_resamples=10)
    assert (info.value.line, info.value.got) == (2, "positive")


def test_rerank_ids(tmp_path):
    model = read_model_scores(
        "m", _write(tmp_path / "s.jsonl", [{"id": i, "score": 0.5} for i in range(3)])
    )
    with pytest.raises(InputError, match="share no id with the gold file"):
        rerank(["p1", "p2", "p3"], ["1", "0", "0"], ["1", "1", "0"], [model], n_resamples=10)
    with pytest.raises(InputError, match="duplicate id"):
        rerank(["0", "0", "1"], ["1", "0", "0"], ["1", "1", "0"], [model], n_resamples=10)
    # more model outputs than gold labels: fine (the gold file covers a sample)
    res = rerank(["0", "1"], ["1", "0"], ["1", "0"], [model], n_resamples=10)
    assert res.n == 2
