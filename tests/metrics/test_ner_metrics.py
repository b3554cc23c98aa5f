"""Every NER statistic against values worked out by hand and an independent implementation."""

import math

import pytest
from _ner_stats_reference import CROSS_METRICS, SPLIT_METRICS, stats, write_conll
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchcheck.errors import InputError
from benchcheck.io.load import load
from benchcheck.metrics import difficulty, reliability, validity
from benchcheck.metrics.compute import compute_stats


def S(text: str, tags: str):  # noqa: N802 - a sentence literal
    return tuple(text.split()), tuple(tags.split())


AMP = S("Angela Merkel visited Paris .", "B-PER I-PER O B-LOC O")
PH = S("Paris Hilton arrived .", "B-PER I-PER O O")
HAND = {
    "train": [
        AMP,
        PH,
        AMP,
        S("It rained .", "O O O"),
        AMP,
        S("Washington met Washington", "B-PER O B-LOC"),
    ],
    "dev": [PH, S("Berlin is big .", "B-LOC O O O")],
    "test": [
        AMP,
        AMP,
        PH,
        S("Angela Merkel visited Paris .", "O O O B-LOC O"),  # leaked text, other tags
        S("Berlin welcomed Washington", "B-LOC O B-ORG"),
        S("Nothing here", "O O"),
    ],
}

# Worked by hand (n_train = 6, n_dev = 2, n_test = 6).
HAND_SPLITS = {
    "train": {
        # AMP three times: 3 pairs / 6; distinct instances 4 -> (6 - 4) / 6.
        "redundancy": 3 / 6,
        "duplicate_ratio": 2 / 6,
        # Surfaces: Angela Merkel, Paris, Paris Hilton, Washington (PER and LOC): e* = 1.
        "entity_ambiguity_degree": 1 - 1 / 6,
        "ambiguous_entity_ratio": 1 / 4,
        # Distinct surfaces / tokens: 2/5, 1/4, 2/5, 0/3, 2/5, 1/3 ("Washington" counted once).
        "entity_density": (2 / 5 + 1 / 4 + 2 / 5 + 0 + 2 / 5 + 1 / 3) / 6,
        # Mentions: PER 5, LOC 4 -> shares 5/9, 4/9 -> population std = (1/9) / 2.
        "entity_imbalance_degree": 1 / 18,
        "entity_null_rate": 1 / 6,
    },
    "dev": {
        "redundancy": 0.0,
        "duplicate_ratio": 0.0,
        "entity_ambiguity_degree": 1.0,
        "ambiguous_entity_ratio": 0.0,
        "entity_density": (1 / 4 + 1 / 4) / 2,
        "entity_imbalance_degree": 0.0,  # PER 1, LOC 1
        "entity_null_rate": 0.0,
    },
    "test": {
        "redundancy": 1 / 6,  # AMP twice
        "duplicate_ratio": 1 / 6,
        "entity_ambiguity_degree": 1.0,  # Washington is only ORG in test
        "ambiguous_entity_ratio": 0.0,
        # 2/5, 2/5, 1/4, 1/5, 2/3, 0 -> 23/12 / 6.
        "entity_density": 23 / 72,
        # Mentions PER 3, LOC 4, ORG 1 -> shares 3/8, 4/8, 1/8, mean 1/3;
        # deviations 1/24, 4/24, -5/24 -> variance (1 + 16 + 25) / 576 / 3 = 14/576.
        "entity_imbalance_degree": math.sqrt(14) / 24,
        "entity_null_rate": 1 / 6,
    },
}
HAND_CROSS = {
    # Test instances found in train or dev, with multiplicity: AMP, AMP, PH.
    "leakage_ratio": 3 / 6,
    # ... plus the AMP text with other tags.
    "text_leakage_ratio": 4 / 6,
    # Test surfaces {Angela Merkel, Paris, Paris Hilton, Berlin, Washington}; only Berlin is
    # not in train (it is in dev, which Eq. 4 ignores).
    "unseen_entity_ratio": 1 / 5,
    # Typed: (Berlin, LOC) and (Washington, ORG) are unseen (train has Washington PER/LOC).
    "unseen_entity_ratio_typed": 2 / 5,
}


def _load(tmp_path, splits):
    tmp_path.mkdir(parents=True, exist_ok=True)
    files = {name: write_conll(tmp_path / f"{name}.txt", sents) for name, sents in splits.items()}
    return load(splits=files)


@pytest.fixture(scope="module")
def hand(tmp_path_factory):
    return _load(tmp_path_factory.mktemp("hand"), HAND)


def test_reference_matches_hand_values():
    # The independent implementation agrees with the hand computation ...
    per_split, dataset = stats(HAND)
    for name, expected in HAND_SPLITS.items():
        for key, value in expected.items():
            assert per_split[name][key] == pytest.approx(value), (name, key)
    for key, value in HAND_CROSS.items():
        assert dataset[key] == pytest.approx(value), key


def test_metric_functions_on_hand_fixture(hand):
    # ... and so does benchcheck, metric by metric.
    functions = {
        "redundancy": reliability.redundancy,
        "duplicate_ratio": reliability.duplicate_ratio,
        "entity_ambiguity_degree": difficulty.entity_ambiguity_degree,
        "ambiguous_entity_ratio": difficulty.ambiguous_entity_ratio,
        "entity_density": difficulty.entity_density,
        "entity_imbalance_degree": validity.entity_imbalance_degree,
        "entity_null_rate": validity.entity_null_rate,
    }
    for name, expected in HAND_SPLITS.items():
        for key, value in expected.items():
            assert functions[key](hand[name]) == pytest.approx(value, abs=1e-12), (name, key)
    test, train_dev, train = hand["test"], [hand["train"], hand["dev"]], [hand["train"]]
    assert reliability.leakage_ratio(test, train_dev) == pytest.approx(HAND_CROSS["leakage_ratio"])
    assert reliability.text_leakage_ratio(test, train_dev) == pytest.approx(
        HAND_CROSS["text_leakage_ratio"]
    )
    assert difficulty.unseen_entity_ratio(test, train) == pytest.approx(1 / 5)
    assert difficulty.unseen_entity_ratio_typed(test, train) == pytest.approx(2 / 5)


def test_compute_stats_json_contract(hand):
    out = compute_stats(hand, scores={"a": 93.1, "b": 92.8, "c": 92.4, "d": 91.9, "e": 91.0})
    js = out.to_json()
    assert js["task"] == "ner" and set(js["splits"]) == {"train", "dev", "test"}
    for name, expected in HAND_SPLITS.items():
        row = js["splits"][name]
        assert row["n_instances"] == len(HAND[name])
        for key, value in expected.items():
            assert row[key] == pytest.approx(value), (name, key)
    for key in HAND_SPLITS["train"]:
        mean = sum(HAND_SPLITS[s][key] for s in HAND_SPLITS) / 3
        assert js["metrics"][key] == pytest.approx(mean), key
    for key, value in HAND_CROSS.items():
        assert js["metrics"][key] == pytest.approx(value), key
    # Eq. 7: population std of 93.1, 92.8, 92.4, 91.9, 91.0 (mean 92.24):
    # squared deviations .7396 + .3136 + .0256 + .1156 + 1.5376 = 2.732; / 5 = .5464.
    assert js["metrics"]["model_differentiation"] == pytest.approx(math.sqrt(0.5464))
    dims = js["dimensions"]
    assert dims["redundancy"] == {
        **dims["redundancy"],
        "dimension": "reliability",
        "better": "lower",
    }
    assert dims["unseen_entity_ratio"]["dimension"] == "difficulty"
    assert dims["entity_null_rate"]["dimension"] == "validity"
    assert dims["model_differentiation"]["better"] == "higher"
    assert set(HAND_SPLITS["train"]) | set(HAND_CROSS) | {"model_differentiation"} <= set(dims)


def test_model_differentiation():
    assert difficulty.model_differentiation([]) is None
    assert difficulty.model_differentiation([90.0]) == 0.0
    assert difficulty.model_differentiation([80, 90]) == pytest.approx(5.0)


def test_edge_rules(tmp_path):
    # n = 0 cannot be loaded: the reader refuses an empty split.
    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty split"):
        load(splits={"train": tmp_path / "empty.txt"})
    # One split only: every cross-split metric is None, with a note saying why.
    one = _load(tmp_path / "one", {"train": HAND["train"]})
    js = compute_stats(one).to_json()
    for key in HAND_CROSS:
        assert js["metrics"][key] is None
    assert "model_differentiation" not in js["metrics"]
    assert any(n.startswith("leakage_ratio") for n in js["notes"])
    # No test entities: unseen ratios None, imbalance and ambiguity ratio None in test.
    ds = _load(tmp_path / "noent", {"train": HAND["train"], "test": [S("Nothing here", "O O")]})
    js = compute_stats(ds).to_json()
    assert js["metrics"]["unseen_entity_ratio"] is None
    assert js["metrics"]["unseen_entity_ratio_typed"] is None
    assert js["metrics"]["leakage_ratio"] == 0.0
    test = js["splits"]["test"]
    assert test["entity_imbalance_degree"] is None and test["ambiguous_entity_ratio"] is None
    assert test["entity_null_rate"] == 1.0 and test["entity_density"] == 0.0
    # The dataset-level mean skips a split's None.
    assert js["metrics"]["entity_imbalance_degree"] == pytest.approx(1 / 18)
    # Dev alone is a valid reference for leakage; unseen needs train.
    ds = _load(tmp_path / "dev", {"dev": HAND["dev"], "test": HAND["test"]})
    assert reliability.leakage_ratio(ds["test"], [ds["dev"]]) == pytest.approx(1 / 6)  # PH
    assert compute_stats(ds).metrics["leakage_ratio"] == pytest.approx(1 / 6)
    assert compute_stats(ds).metrics["unseen_entity_ratio"] is None


# Random corpora: a small vocabulary so that duplicates, leakage and ambiguity all happen.
TAGS = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "E-LOC", "S-ORG"]
sentence_st = st.tuples(
    st.lists(st.sampled_from(["Paris", "Ann", "Lee", "de", "the", "."]), min_size=1, max_size=5),
    st.randoms(use_true_random=False),
).map(lambda tr: (tuple(tr[0]), tuple(tr[1].choice(TAGS) for _ in tr[0])))
split_st = st.lists(sentence_st, min_size=1, max_size=12)
corpus_st = st.fixed_dictionaries(
    {"train": split_st},
    optional={"dev": split_st, "test": split_st},
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpus_st, dup=st.integers(0, 3))
def test_random_corpora_match_reference(tmp_path_factory, corpus, dup):
    # Copy some train sentences into test (leakage) and into train again (redundancy).
    if "test" in corpus:
        corpus["test"] = corpus["test"] + corpus["train"][:dup]
    corpus["train"] = corpus["train"] + corpus["train"][:dup]
    dataset = _load(tmp_path_factory.mktemp("rand"), corpus)
    js = compute_stats(dataset).to_json()
    per_split, expected = stats(corpus)
    for name, row in per_split.items():
        for key, value in row.items():
            _close(js["splits"][name][key], value, f"{name}.{key}")
    for key in [*SPLIT_METRICS, *CROSS_METRICS]:
        _close(js["metrics"][key], expected[key], key)


def _close(got, want, what):
    if want is None:
        assert got is None, what
    else:
        assert got == pytest.approx(want, abs=1e-12), what
