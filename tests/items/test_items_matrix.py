"""Score matrices from predictions, the review frame of suspects."""

from __future__ import annotations

import pytest

from benchcheck.errors import InputError, UsageError
from benchcheck.items import analyse_items, item_matrix, matrix_from_predictions, review_frame


def test_intersection_counts_what_each_model_lost() -> None:
    preds = {"A": {"a": "1", "b": "0", "c": "1"}, "B": {"a": "1", "b": "1", "z": "0"}}
    # only the models that lack items are listed; the others are counted
    with pytest.raises(UsageError, match=r"\(B: 2 of 3; the other 1 model\(s\): all 3 items"):
        matrix_from_predictions(["a", "b", "c"], ["1", "1", "1"], preds)
    m = matrix_from_predictions(["a", "b", "c"], ["1", "1", "1"], preds, intersect=True)
    assert m.item_ids == ("a", "b")
    assert m.scores.tolist() == [[1.0, 1.0], [0.0, 1.0]]
    assert m.dropped == {"A": 1, "B": 1}  # A's "c"; B's "z" (not in the data)


def test_matrix_refusals() -> None:
    with pytest.raises(InputError, match="at least two models"):
        item_matrix(["a"], ["A"], [[1]])
    with pytest.raises(InputError, match="given twice"):
        item_matrix(["a", "a"], ["A", "B"], [[1, 0], [0, 1]])
    with pytest.raises(InputError, match="missing score"):
        item_matrix(["a"], ["A", "B"], [[1, float("nan")]])


def test_review_frame_lists_suspects_worst_first() -> None:
    ids = ["q1", "q2", "q3", "q4"]
    labels = ["1", "1", "1", "1"]
    answers = {  # q4: the weak models "right"; q3: nobody right
        "A": ["1", "1", "0", "0"],
        "B": ["1", "1", "0", "0"],
        "C": ["1", "0", "0", "1"],
        "D": ["0", "0", "0", "1"],
    }
    preds = {n: dict(zip(ids, v, strict=True)) for n, v in answers.items()}
    m = matrix_from_predictions(ids, labels, preds)
    a = analyse_items(m, n_resamples=50)
    cols = review_frame(a, m, {"text": ["t1", "t2", "t3", "t4"]})
    flagged = {i: r for i, f, r in zip(cols["id"], cols["flagged"], cols["rank"], strict=True) if f}
    assert flagged["q3"] == 1 and set(flagged) == {"q2", "q3", "q4"}
    disc = {s.id: s.discrimination for s in a.items}
    assert sorted(["q2", "q4"], key=lambda i: disc[i]) == sorted(["q2", "q4"], key=flagged.get)
    k = cols["id"].index("q3")
    assert cols["llm_label"][k] == "0" and cols["confidence"][k] == 1.0
    assert cols["reason"][k] == "every model wrong"
    only_scores = item_matrix(ids, list(answers), m.scores)
    with pytest.raises(UsageError, match="to_review"):
        review_frame(a, only_scores, {})


def test_item_total_curve_of_a_suspect_by_hand() -> None:
    # 5 models; q4 is right for the two weakest only
    x = [[1, 1, 1, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 1, 0], [0, 0, 0, 1, 1]]
    m = item_matrix(["q1", "q2", "q3", "q4"], list("ABCDE"), x)
    q4 = next(s for s in analyse_items(m, n_resamples=20).items if s.id == "q4")
    rest = [3, 3, 2, 1, 0]  # totals on q1..q3
    order = sorted(range(5), key=lambda j: (rest[j], j))  # E, D, C, A, B
    want = tuple((float(rest[j]), float(x[3][j])) for j in order)  # five groups of one
    assert q4.curve == want
    assert q4.to_json()["curve"][0] == {"rest_score": 0.0, "p": 1.0}
