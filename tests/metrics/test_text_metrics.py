"""Classification / pair metrics recomputed independently (plain Python over the raw rows)."""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.data.model import Dataset
from benchcheck.io.tables import build_text_split
from benchcheck.metrics import reliability, text
from benchcheck.metrics.compute import compute_stats


def _split(name, rows, task):
    frame = pl.DataFrame(rows, schema={k: pl.String for k in rows[0]}) if rows else None
    frame = frame.with_columns(pl.int_range(0, frame.height).cast(pl.String).alias("id"))
    return build_text_split(frame, task=task, name=name, source=name)


def _dataset(splits: dict[str, list[dict]], task: str) -> Dataset:
    return Dataset(
        task=task, splits={k: _split(k, v, task) for k, v in splits.items() if v}, name="d"
    )


def _x(row):
    return row["text"] if "text" in row else (row["text_a"], row["text_b"])


# --- independent definitions ------------------------------------------------------------


def ref_imbalance(rows):
    c = Counter(r["label"] for r in rows)
    return statistics.pstdev([v / len(rows) for v in c.values()])


def ref_conflict(rows):
    labels = defaultdict(set)
    for r in rows:
        labels[_x(r)].add(r["label"])
    return sum(len(v) > 1 for v in labels.values()) / len(labels)


def ref_redundancy(rows):
    c = Counter((_x(r), r["label"]) for r in rows)
    return sum(k * (k - 1) // 2 for k in c.values()) / len(rows)


def ref_leak(test, refs, key):
    seen = {key(r) for r in refs}
    return sum(key(r) in seen for r in test) / len(test)


FIXTURE = {
    "train": [
        {"text_a": "p1", "text_b": "h1", "label": "e"},
        {"text_a": "p1", "text_b": "h2", "label": "n"},
        {"text_a": "p1", "text_b": "h2", "label": "n"},
        {"text_a": "p2", "text_b": "h3", "label": "c"},
        {"text_a": "p3", "text_b": "h3 h4", "label": "e"},
    ],
    "test": [
        {"text_a": "p1", "text_b": "h1", "label": "e"},  # leaked pair
        {"text_a": "p1", "text_b": "h9", "label": "n"},  # leaked premise only
        {"text_a": "p9", "text_b": "h3", "label": "c"},  # leaked hypothesis only
        {"text_a": "p2", "text_b": "h3", "label": "e"},  # leaked text, other label
        {"text_a": "p8", "text_b": "h8", "label": "e"},
    ],
}


def test_pair_fixture_by_hand():
    ds = _dataset(FIXTURE, "pair")
    train = ds["train"]
    # Labels e, n, n, c, e → shares .4 .4 .2: pstdev = sqrt(((.4-1/3)^2*2+(.2-1/3)^2)/3)
    assert abs(text.label_imbalance_degree(train) - 0.0942809) < 1e-6
    assert text.label_conflict_ratio(train) == 0.0
    assert reliability.redundancy(train) == 1 / 5
    assert text.text_a_duplicate_ratio(train) == 2 / 5
    test, refs = ds["test"], [train]
    assert reliability.leakage_ratio(test, refs) == 1 / 5
    assert reliability.text_leakage_ratio(test, refs) == 2 / 5
    assert text.text_a_leakage_ratio(test, refs) == 3 / 5  # p1, p1, p2
    assert text.text_b_leakage_ratio(test, refs) == 3 / 5  # h1, h3, h3
    assert text.partial_leakage_ratio(test, refs) == 2 / 5  # rows 2 and 3
    # Across splits: distinct pairs (p1,h1) (p1,h2) (p2,h3) (p3,h3 h4) (p1,h9) (p9,h3) (p8,h8);
    # only (p2, h3) has two labels.
    assert text.label_conflict_ratio_across(list(ds)) == 1 / 7
    assert text.mean_length_b(train) == 6 / 5
    stats = compute_stats(ds).to_json()
    assert stats["splits"]["train"]["length"]["text_b"]["max"] == 2
    assert stats["splits"]["test"]["labels"] == {"c": 0.2, "e": 0.6, "n": 0.2}
    assert stats["metrics"]["partial_leakage_ratio"] == 2 / 5


texts = st.sampled_from(["a", "a b", "b", "c d e", "A", "a  b", "ß", "x"])
labels = st.sampled_from(["0", "1", "2"])
rows_cls = st.lists(
    st.fixed_dictionaries({"text": texts, "label": labels}), min_size=1, max_size=30
)
rows_pair = st.lists(
    st.fixed_dictionaries({"text_a": texts, "text_b": texts, "label": labels}),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(train=rows_cls, test=rows_cls)
def test_classification_random(train, test):
    ds = _dataset({"train": train, "test": test}, "classification")
    for name, rows in (("train", train), ("test", test)):
        s = ds[name]
        assert abs(text.label_imbalance_degree(s) - ref_imbalance(rows)) < 1e-12
        assert abs(text.label_conflict_ratio(s) - ref_conflict(rows)) < 1e-12
        assert abs(reliability.redundancy(s) - ref_redundancy(rows)) < 1e-12
        assert text.mean_length(s) == statistics.fmean(len(r["text"].split()) for r in rows)
    assert text.label_conflict_ratio_across(list(ds)) == ref_conflict(train + test)
    target, refs = ds["test"], [ds["train"]]
    want = ref_leak(test, train, lambda r: (_x(r), r["label"]))
    assert reliability.leakage_ratio(target, refs) == want
    assert reliability.text_leakage_ratio(target, refs) == ref_leak(test, train, _x)


@settings(max_examples=60, deadline=None)
@given(train=rows_pair, dev=rows_pair, test=rows_pair)
def test_pair_random(train, dev, test):
    ds = _dataset({"train": train, "dev": dev, "test": test}, "pair")
    refs = train + dev
    target, ref_splits = ds["test"], [ds["train"], ds["dev"]]
    assert text.text_a_leakage_ratio(target, ref_splits) == ref_leak(
        test, refs, lambda r: r["text_a"]
    )
    assert text.text_b_leakage_ratio(target, ref_splits) == ref_leak(
        test, refs, lambda r: r["text_b"]
    )
    seen_pairs = {_x(r) for r in refs}
    seen_a, seen_b = {r["text_a"] for r in refs}, {r["text_b"] for r in refs}
    partial = sum(
        _x(r) not in seen_pairs and (r["text_a"] in seen_a or r["text_b"] in seen_b) for r in test
    ) / len(test)
    assert text.partial_leakage_ratio(target, ref_splits) == partial
    assert text.label_conflict_ratio(ds["dev"]) == ref_conflict(dev)
    # The per-side metrics of each split, against plain Python over the rows.
    for name, rows in (("train", train), ("dev", dev), ("test", test)):
        s, n = ds[name], len(rows)
        for side, dup, mean in (
            ("text_a", text.text_a_duplicate_ratio, text.mean_length_a),
            ("text_b", text.text_b_duplicate_ratio, text.mean_length_b),
        ):
            assert dup(s) == (n - len({r[side] for r in rows})) / n
            assert mean(s) == statistics.fmean(len(r[side].split()) for r in rows)
        assert reliability.duplicate_ratio(s) == (n - len({(_x(r), r["label"]) for r in rows})) / n


@settings(max_examples=30, deadline=None)
@given(rows=rows_cls, seed=st.integers(0, 1000))
def test_order_invariant(rows, seed):
    import random

    shuffled = rows[:]
    random.Random(seed).shuffle(shuffled)
    a, b = _split("s", rows, "classification"), _split("s", shuffled, "classification")
    for f in (text.label_imbalance_degree, text.label_conflict_ratio, reliability.redundancy):
        assert abs(f(a) - f(b)) < 1e-12


def test_stats_cli_on_classification_folder(tmp_path, capsys):
    from benchcheck.cli import main

    (tmp_path / "train.jsonl").write_text(
        "".join(json.dumps({"sentence": s, "y": y}) + "\n" for s, y in [("a", 0), ("a", 1)]),
        encoding="utf-8",
    )
    (tmp_path / "test.jsonl").write_text(json.dumps({"sentence": "a", "y": 0}) + "\n")
    rc = main(
        [
            "stats",
            str(tmp_path),
            "--task",
            "classification",
            "--text",
            "sentence",
            "--label",
            "y",
            "--label-names",
            "neg,pos",
            "--json",
            "-",
        ]
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["task"] == "classification"
    assert out["metrics"]["leakage_ratio"] == 1.0
    assert out["splits"]["train"]["label_conflict_ratio"] == 1.0
    assert out["splits"]["train"]["labels"] == {"neg": 0.5, "pos": 0.5}
