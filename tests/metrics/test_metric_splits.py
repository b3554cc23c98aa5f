"""metrics.splits: split overlap and entity types per split, by hand and by the reference."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from _golden import json_difference
from _ner_stats_reference import CROSS_METRICS, write_conll

from benchcheck.io.load import load
from benchcheck.metrics.compute import compute_stats
from benchcheck.metrics.splits import entity_types, split_overlap
from benchcheck.metrics.validity import entity_imbalance_degree
from benchcheck.sample_data import NER_SAMPLE

GOLDEN = Path(__file__).parents[1] / "report" / "golden" / "ner_results.json"
CROSS = ["unseen_entity_ratio", "unseen_entity_ratio_typed", "leakage_ratio", "text_leakage_ratio"]


def S(text: str, tags: str):  # noqa: N802 - a sentence literal
    return tuple(text.split()), tuple(tags.split())


AMP = S("Angela Merkel visited Paris .", "B-PER I-PER O B-LOC O")
SPLITS = {
    "train": [
        AMP,
        S("Paris Hilton arrived .", "B-PER I-PER O O"),
        S("Acme hired Bob", "B-ORG O B-PER"),
    ],
    "dev": [AMP, S("Berlin is big .", "B-LOC O O O"), S("Euro talks", "B-MISC O")],
    "test": [S("Nothing here", "O O")],
}


def _dataset(tmp_path: Path, names=("train", "dev", "test")):  # type: ignore[no-untyped-def]
    files = {n: str(write_conll(tmp_path / f"{n}.txt", SPLITS[n])) for n in names}
    return load(splits=files)


def test_entity_types_by_hand(tmp_path: Path) -> None:
    out = entity_types(_dataset(tmp_path))
    # Mentions: train PER 3 (Angela Merkel, Paris Hilton, Bob), LOC 1, ORG 1;
    # dev PER 1, LOC 2 (Paris, Berlin), MISC 1; test none.
    assert out["splits"]["train"]["counts"] == {"LOC": 1, "ORG": 1, "PER": 3}
    assert out["splits"]["dev"]["counts"] == {"LOC": 2, "MISC": 1, "PER": 1}
    assert out["splits"]["train"]["n"] == 5 and out["splits"]["dev"]["n"] == 4
    assert out["splits"]["dev"]["shares"] == {"LOC": 0.5, "MISC": 0.25, "PER": 0.25}
    assert list(out["splits"]["train"]["counts"]) == ["LOC", "ORG", "PER"]  # by name
    # the edge rule: no mention, nothing counted
    assert out["splits"]["test"] == {"counts": {}, "shares": {}, "n": 0}
    # totals PER 4, LOC 3, MISC 1, ORG 1: most frequent first, ties by name
    assert out["types"] == ["PER", "LOC", "MISC", "ORG"]


def test_entity_type_shares_give_the_imbalance_degree(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path)
    out = entity_types(dataset)
    for name in ("train", "dev"):
        shares = list(out["splits"][name]["shares"].values())
        mean = sum(shares) / len(shares)
        std = math.sqrt(sum((s - mean) ** 2 for s in shares) / len(shares))
        assert std == pytest.approx(entity_imbalance_degree(dataset[name]))


def test_split_overlap_by_hand_and_by_the_reference(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path)
    rows = split_overlap(dataset)["rows"]
    assert [(r["split"], r["against"]) for r in rows] == [
        ("dev", ["train"]),
        ("test", ["train", "dev"]),
    ]
    dev, test = rows
    assert list(dev)[2:] == CROSS
    # dev against train: AMP leaked (1 of 3); surfaces Angela Merkel, Paris seen, Berlin and
    # Euro not (2 of 4), the same typed.
    assert dev["leakage_ratio"] == pytest.approx(1 / 3)
    assert dev["text_leakage_ratio"] == pytest.approx(1 / 3)
    assert dev["unseen_entity_ratio"] == pytest.approx(2 / 4)
    assert dev["unseen_entity_ratio_typed"] == pytest.approx(2 / 4)
    view = {"train": SPLITS["train"], "test": SPLITS["dev"]}
    for name, reference in CROSS_METRICS.items():
        assert dev[name] == pytest.approx(reference(view)), name
        assert test[name] == pytest.approx(reference(SPLITS)), name
    # test has no entity: unseen ratios undefined
    assert test["leakage_ratio"] == 0.0 and test["unseen_entity_ratio"] is None


def test_split_overlap_reuses_given_test_metrics(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path)
    metrics = compute_stats(dataset).to_json()["metrics"]
    assert split_overlap(dataset, test_metrics=metrics) == split_overlap(dataset)
    given = split_overlap(dataset, test_metrics={"leakage_ratio": 0.5})["rows"][1]
    assert given["leakage_ratio"] == 0.5 and given["unseen_entity_ratio"] is None


@pytest.mark.parametrize(
    ("names", "expect"),
    [
        (("train", "test"), [("test", ["train"])]),
        (("dev", "test"), [("test", ["dev"])]),
        (("train", "dev"), [("dev", ["train"])]),
        (("test",), []),
    ],
)
def test_split_overlap_leaves_out_splits_without_a_reference(tmp_path, names, expect) -> None:
    rows = split_overlap(_dataset(tmp_path, names))["rows"]
    assert [(r["split"], r["against"]) for r in rows] == expect


def test_ner_sample_blocks_match_the_golden_report() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    dataset = load(NER_SAMPLE)
    assert json_difference(split_overlap(dataset), golden["split_overlap"]) is None
    assert json_difference(entity_types(dataset), golden["entity_types"]) is None
