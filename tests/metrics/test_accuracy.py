"""Accuracy (Eq. 2): sampling for annotators, reading and scoring their judgements."""

import json

import pytest
from _ner_stats_reference import write_conll
from sklearn.metrics import cohen_kappa_score

from benchcheck.errors import InputError
from benchcheck.io.accuracy import read_accuracy_sample
from benchcheck.io.load import load
from benchcheck.metrics.accuracy import draw_sample, score_annotations


def test_kappa_and_accuracy_by_hand():
    a = [1, 1, 0, 1, 0, 1, 1, 0, 1, 1]
    b = [1, 0, 0, 1, 0, 1, 1, 1, 1, 1]
    c = [1, 1, 0, 1, 1, 1, 1, 0, 1, 0]
    rows = [("test", {"a": x, "b": y, "c": z}) for x, y, z in zip(a, b, c, strict=True)]
    out = score_annotations(rows)["test"]
    # a vs b: agree on 8/10; a has 7 ones, b 7 ones -> p_e = .7*.7 + .3*.3 = .58;
    # kappa = (.8 - .58) / (1 - .58) = .22 / .42.
    assert out.kappa_pairs["a|b"] == pytest.approx(0.22 / 0.42)
    for pair, (x, y) in {"a|b": (a, b), "a|c": (a, c), "b|c": (b, c)}.items():
        assert out.kappa_pairs[pair] == pytest.approx(cohen_kappa_score(x, y))
    assert out.kappa_mean == pytest.approx(
        (cohen_kappa_score(a, b) + cohen_kappa_score(a, c) + cohen_kappa_score(b, c)) / 3
    )
    # Majority of three per item: 1 1 0 1 0 1 1 0 1 1 -> 7 / 10.
    assert out.accuracy == pytest.approx(0.7)
    assert out.n == 10 and out.annotators == ("a", "b", "c")


def test_krippendorff_alpha_beside_kappa_matches_the_package(tmp_path):
    import krippendorff
    import numpy as np

    from benchcheck.runs.accuracy import run_accuracy

    judged = [
        {"a": 1, "b": 1, "c": 1},
        {"a": 0, "b": 1},  # c missing: alpha keeps the item, kappa a|b only
        {"a": 0, "b": 0, "c": 0},
        {"a": 1, "c": 0},
        {"a": 1, "b": 1, "c": 1},
        {"b": 0, "c": 0},
    ]
    data = np.array([[r.get(w, np.nan) for r in judged] for w in "abc"], dtype=float)
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    out = score_annotations([("test", r) for r in judged])["test"]
    assert out.krippendorff_alpha == pytest.approx(want, abs=1e-12)
    lo, hi = out.krippendorff_alpha_ci
    assert lo <= out.krippendorff_alpha <= hi
    path = tmp_path / "annotated.jsonl"
    lines = [{"id": i, "split": "test", "annotations": r} for i, r in enumerate(judged)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    payload = run_accuracy(path).to_json()
    assert payload["splits"]["test"]["krippendorff_alpha"] == pytest.approx(want, abs=1e-12)
    assert payload["splits"]["test"]["krippendorff_alpha_ci"] == [lo, hi]
    assert payload["metrics"]["krippendorff_alpha"] == pytest.approx(want, abs=1e-12)


def test_majority_rule_ties_and_partial_judgements():
    rows = [
        ("dev", {"a": 1, "b": 0}),  # tie: not correct
        ("dev", {"a": 1}),  # a lone judge decides
        ("dev", {"a": 0, "b": 1, "c": 1}),  # 2 of 3
        ("dev", {"b": 0, "c": 0}),
        ("train", {"a": 1, "b": 1}),
    ]
    out = score_annotations(rows)
    assert out["dev"].accuracy == pytest.approx(2 / 4)
    assert out["train"].accuracy == 1.0
    # a|b judged together twice with (1,0), (0,1): kappa defined (= -1 by sklearn).
    assert out["dev"].kappa_pairs["a|b"] == pytest.approx(cohen_kappa_score([1, 0], [0, 1]))
    # a|c share one item only: no kappa. b|c: (1,1), (0,0) -> 1.
    assert out["dev"].kappa_pairs["a|c"] is None
    assert out["dev"].kappa_pairs["b|c"] == pytest.approx(1.0)
    # train: both always say 1 -> no variation, no kappa, no mean.
    assert out["train"].kappa_pairs == {"a|b": None} and out["train"].kappa_mean is None


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("acc")
    train = [((f"w{i}", "Paris"), ("O", "B-LOC")) for i in range(30)]
    test = [((f"t{i}", "Ann", "Lee"), ("O", "B-PER", "I-PER")) for i in range(5)]
    return load(
        splits={
            "train": write_conll(folder / "train.txt", train),
            "test": write_conll(folder / "test.txt", test),
        }
    )


def test_draw_sample_is_seeded_and_complete(dataset):
    a = draw_sample(dataset, per_split=10, seed=13)
    assert a == draw_sample(dataset, per_split=10, seed=13)
    assert a != draw_sample(dataset, per_split=10, seed=14)
    assert [r["split"] for r in a].count("train") == 10
    assert [r["split"] for r in a].count("test") == 5  # capped at the split's size
    ids = [r["id"] for r in a]
    assert len(set(ids)) == len(ids)
    for row in a:
        k = row["sentence"]
        assert row["id"] == f"{row['split']}:{k}" and row["annotations"] == {}
        if row["split"] == "train":
            assert row["tokens"] == [f"w{k}", "Paris"] and row["line"] == 3 * k + 1
            assert row["entities"] == [[1, 2, "LOC", "Paris"]]
        else:
            assert row["tokens"] == [f"t{k}", "Ann", "Lee"]
            assert row["entities"] == [[1, 3, "PER", "Ann Lee"]]
    with pytest.raises(ValueError):
        draw_sample(dataset, per_split=0, seed=1)


def test_read_accuracy_sample(tmp_path):
    path = tmp_path / "ann.jsonl"
    rows = [
        {"split": "test", "annotations": {"a": True, "b": "correct", "c": None}},
        {"split": "test", "annotations": {}},
        {"split": "dev", "annotations": {"a": 0, "b": "No"}},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert read_accuracy_sample(path) == [("test", {"a": 1, "b": 1}), ("dev", {"a": 0, "b": 0})]
    path.write_text(
        json.dumps(rows[0]) + "\n" + '{"split": "test", "annotations": {"a": "maybe"}}\n'
    )
    with pytest.raises(InputError, match="true/false") as info:
        read_accuracy_sample(path)
    assert info.value.line == 2 and info.value.got == "maybe"
    path.write_text('{"split": "test"}\n')
    with pytest.raises(InputError, match='"annotations"') as info:
        read_accuracy_sample(path)
    assert info.value.line == 1
    path.write_text(json.dumps(rows[1]) + "\n")
    with pytest.raises(InputError, match="no annotated rows"):
        read_accuracy_sample(path)
    path.write_text('{"split": \n')
    with pytest.raises(InputError, match="invalid JSON"):
        read_accuracy_sample(path)


def test_sample_round_trip_with_unicode_line_separators(tmp_path):
    # The sample file is written with ensure_ascii=False: a token holding U+2028 must not
    # break the annotated file when it is read back.
    rows = [
        {"split": "test", "tokens": ["a\u2028b", "c\x85"], "annotations": {"a": True, "b": True}},
        {"split": "test", "tokens": ["d"], "annotations": {"a": False, "b": True}},
    ]
    path = tmp_path / "ann.jsonl"
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    assert read_accuracy_sample(path) == [("test", {"a": 1, "b": 1}), ("test", {"a": 0, "b": 1})]


def test_annotations_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "ann.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"split": "dev", "annotations": {"a": "yes"}}\n')
    assert read_accuracy_sample(path) == [("dev", {"a": 1})]
