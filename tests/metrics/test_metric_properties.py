"""Generic properties of every registered NER metric (after scikit-learn's test_common)."""

import math
import random

import pytest
from _ner_stats_reference import write_conll
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchcheck.io.load import load
from benchcheck.metrics.registry import specs_for

SPECS = specs_for("ner")

# The range each metric's definition guarantees. Ratios lie in [0, 1]; Eq. 1 counts pairs
# (k copies give (k - 1) / 2), Eq. 5 as written goes below 0 when a split has more ambiguous
# surfaces than sentences, and the std of shares summing to 1 is at most 1/2.
BOUNDS = {
    "duplicate_ratio": (0.0, 1.0),
    "leakage_ratio": (0.0, 1.0),
    "text_leakage_ratio": (0.0, 1.0),
    "unseen_entity_ratio": (0.0, 1.0),
    "unseen_entity_ratio_typed": (0.0, 1.0),
    "ambiguous_entity_ratio": (0.0, 1.0),
    "ambiguous_entity_share": (0.0, 1.0),
    "entity_density": (0.0, 1.0),
    "entity_null_rate": (0.0, 1.0),
    "entity_imbalance_degree": (0.0, 0.5),
    "redundancy": (0.0, math.inf),
    "entity_ambiguity_degree": (-math.inf, 1.0),
    "model_differentiation": (0.0, math.inf),
}


def test_the_paper_metrics_are_registered_for_ner():
    names = {s.name for s in SPECS}
    assert set(BOUNDS) <= names
    for spec in SPECS:
        assert spec.dimension in ("reliability", "difficulty", "validity")
        assert spec.better in ("higher", "lower") and spec.title and spec.definition
        # The issue: every docstring names its equation and its edge-case rule.
        doc = spec.function.__doc__ or ""
        assert "Eq." in doc and "Edge rule" in doc, spec.name


TAGS = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "S-ORG"]
sentence_st = st.tuples(
    st.lists(st.sampled_from(["Ann", "Lee", "Paris", "of", "."]), min_size=1, max_size=5),
    st.randoms(use_true_random=False),
).map(lambda tr: (tuple(tr[0]), tuple(tr[1].choice(TAGS) for _ in tr[0])))
corpus_st = st.fixed_dictionaries(
    {
        "train": st.lists(sentence_st, min_size=1, max_size=10),
        "test": st.lists(sentence_st, min_size=1, max_size=10),
    },
    optional={"dev": st.lists(sentence_st, min_size=1, max_size=6)},
)


def _values(folder, corpus, *, keep_tokens=True):
    folder.mkdir(parents=True, exist_ok=True)
    files = {k: write_conll(folder / f"{k}.txt", v) for k, v in corpus.items()}
    ds = load(splits=files, keep_tokens=keep_tokens)
    out = {}
    for spec in SPECS:
        if spec.scope == "split":
            for split in ds:
                out[(spec.name, split.name)] = spec.function(split)
        elif spec.scope == "cross":
            out[(spec.name, "")] = spec.function(ds["test"], spec.references_in(ds, "test"))
    return out


def _same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if a[key] is None:
            assert b[key] is None, key
        else:
            assert b[key] == pytest.approx(a[key], rel=1e-12, abs=1e-12), key


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpus_st, seed=st.integers(0, 2**32 - 1))
def test_order_invariance_bounds_and_no_token_table_needed(tmp_path_factory, corpus, seed):
    base = tmp_path_factory.mktemp("prop")
    values = _values(base / "a", corpus)
    rng = random.Random(seed)
    shuffled = {k: rng.sample(v, len(v)) for k, v in corpus.items()}
    _same(values, _values(base / "b", shuffled))
    # The statistics read without a token table (bounded memory) give the same values.
    _same(values, _values(base / "c", corpus, keep_tokens=False))
    for (name, split), value in values.items():
        if value is None or name not in BOUNDS:
            continue
        low, high = BOUNDS[name]
        assert low - 1e-12 <= value <= high + 1e-12, (name, split, value)


@given(st.lists(st.floats(0, 100), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_score_metrics_are_order_invariant_and_nonnegative(scores, rnd):
    for spec in (s for s in SPECS if s.scope == "scores"):
        value = spec.function(scores)
        shuffled = rnd.sample(scores, len(scores))
        assert spec.function(shuffled) == pytest.approx(value, abs=1e-9)
        assert value >= 0
        assert spec.function([]) is None
