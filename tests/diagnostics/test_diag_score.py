import json

import numpy as np
import pytest
from sklearn.metrics import matthews_corrcoef

from benchcheck.diagnostics import (
    NOT_COMPARABLE_NOTE,
    Taxonomy,
    diagnose_suite,
    sample_suite_path,
)
from benchcheck.errors import UsageError
from benchcheck.runs.diagnose import load_suite

LABELS = ["entailment", "neutral", "contradiction"]


@pytest.fixture(scope="module")
def suite():
    return load_suite(sample_suite_path())


def _random_preds(suite, seed):
    rng = np.random.default_rng(seed)
    return {i: LABELS[rng.integers(3)] for i in suite.ids}


def _noisy_gold(suite, seed, flip):
    rng = np.random.default_rng(seed)
    gold = dict(zip(suite.ids, suite.table["label"].to_list(), strict=True))
    return {i: (LABELS[rng.integers(3)] if rng.random() < flip else g) for i, g in gold.items()}


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_cells_match_sklearn_per_group(suite):
    preds = _noisy_gold(suite, 1, 0.5)
    result = diagnose_suite(suite, {"m": preds}, seed=3, n_resamples=200).to_json()
    rows = suite.table.to_dicts()
    m = result["models"]["m"]
    gold_all = [r["label"] for r in rows]
    assert m["overall"]["r_k"] == pytest.approx(
        matthews_corrcoef(gold_all, [preds[r["id"]] for r in rows])
    )
    assert m["overall"]["n"] == 90
    for group, column in (("coarse", "coarse"), ("fine", "fine")):
        for key, cell in m[group].items():
            sub = [r for r in rows if key in r[column]]
            assert cell["n"] == len(sub)
            if sub:
                ref = matthews_corrcoef([r["label"] for r in sub], [preds[r["id"]] for r in sub])
                assert cell["r_k"] == pytest.approx(ref, abs=1e-9)
                assert np.sum(cell["confusion"]) == len(sub)
                lo, hi = cell["ci"]
                assert lo <= hi
    assert set(m["coarse"]) == {
        "Lexical Semantics",
        "Predicate-Argument Structure",
        "Logic",
        "Knowledge",
    }
    assert result["note"] == NOT_COMPARABLE_NOTE and "never compare" in result["note"]


def test_perfect_model_and_seeded_determinism(suite):
    gold = dict(zip(suite.ids, suite.table["label"].to_list(), strict=True))
    a = diagnose_suite(
        suite, {"gold": gold, "rnd": _random_preds(suite, 0)}, seed=7, n_resamples=300
    ).to_json()
    b = diagnose_suite(
        suite, {"gold": gold, "rnd": _random_preds(suite, 0)}, seed=7, n_resamples=300
    ).to_json()
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["models"]["gold"]["overall"]["r_k"] == 1.0
    assert a["models"]["gold"]["overall"]["ci"] == [1.0, 1.0]
    rank = a["rankings"]["overall"]
    assert rank["order"] == ["gold", "rnd"]
    (test,) = rank["paired_tests"]
    assert test["a"] == "gold" and test["p_value"] < 0.01 and test["ci"][0] > 0
    assert set(a["rankings"]["coarse"]) == set(a["models"]["gold"]["coarse"])


def test_paired_test_identical_models(suite):
    p = _random_preds(suite, 5)
    res = diagnose_suite(suite, {"x": p, "y": dict(p)}, n_resamples=100).to_json()
    (test,) = res["rankings"]["overall"]["paired_tests"]
    assert test["diff"] == 0 and test["p_value"] == 1.0


def test_interval_covers_truth_reasonably(suite):
    # A bootstrap interval of a noisy model contains its point estimate.
    res = diagnose_suite(suite, {"m": _noisy_gold(suite, 2, 0.6)}, n_resamples=400).to_json()
    cell = res["models"]["m"]["overall"]
    assert cell["ci"][0] <= cell["r_k"] <= cell["ci"][1]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_interval_and_paired_test_match_a_plain_resampling_loop(suite):
    # The vectorised bootstrap (bincount of confusions) against a plain loop: the same
    # resampled indices (generator seeded by seed and group), scored by scikit-learn.
    import zlib

    a, b = _noisy_gold(suite, 4, 0.5), _noisy_gold(suite, 5, 0.7)
    res = diagnose_suite(suite, {"a": a, "b": b}, seed=11, n_resamples=150).to_json()
    gold = np.array(suite.table["label"].to_list())
    pa = np.array([a[i] for i in suite.ids])
    pb = np.array([b[i] for i in suite.ids])
    rng = np.random.default_rng([11, zlib.crc32(b"overall/overall")])
    idx = rng.integers(0, gold.size, size=(150, gold.size))
    ra = np.array([matthews_corrcoef(gold[i], pa[i]) for i in idx])
    rb = np.array([matthews_corrcoef(gold[i], pb[i]) for i in idx])
    cell = res["models"]["a"]["overall"]
    assert cell["ci"] == pytest.approx(list(np.quantile(ra, [0.025, 0.975])), abs=1e-9)
    (test,) = res["rankings"]["overall"]["paired_tests"]
    first, second = (ra, rb) if test["a"] == "a" else (rb, ra)
    d = first - second
    assert test["ci"] == pytest.approx(list(np.quantile(d, [0.025, 0.975])), abs=1e-9)
    p = min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))
    assert test["p_value"] == pytest.approx(p)


def test_directions_and_monotonicity(suite):
    gold = dict(zip(suite.ids, suite.table["label"].to_list(), strict=True))
    # A model that is right except that it says entailment on the specific→general
    # downward-monotone directions.
    shortcut = dict(gold)
    for i in ("ls-01:forward", "lo-09:backward", "lo-13:forward"):
        shortcut[i] = "entailment"
    res = diagnose_suite(suite, {"s": shortcut}, n_resamples=50).to_json()
    mono = res["models"]["s"]["monotonicity"]
    assert mono["applies"] and mono["n"] == 3
    assert sorted(mono["ids"]) == sorted(["ls-01:forward", "lo-09:backward", "lo-13:forward"])
    assert mono["entailment_rate"] == 1.0 and mono["base_false_entailment_rate"] == 0.0
    d = res["models"]["s"]["directions"]
    assert d["overall"]["forward"]["n"] == 45 and d["overall"]["backward"]["n"] == 45
    dm = d["fine"]["Downward Monotone"]
    # DM pairs: ls-01, lo-09, lo-13 → 3 forward, 3 backward; 2 forward and 1 backward wrong.
    assert dm["forward"] == {"accuracy": pytest.approx(1 / 3), "n": 3}
    assert dm["backward"] == {"accuracy": pytest.approx(2 / 3), "n": 3}


def test_custom_taxonomy_any_domain(tmp_path):
    path = tmp_path / "safety.jsonl"
    rows = [
        {
            "id": f"c{i}",
            "sentence1": f"prompt {i}",
            "sentence2": f"reply {i}",
            "forward": "safe" if i % 2 else "unsafe",
            "backward": None,
            "tags": ["Typos"] if i < 4 else ["Gender"],
        }
        for i in range(8)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tax = Taxonomy.from_mapping({"Robustness": ["Typos"], "Bias": ["Gender"]}, name="safety")
    suite = load_suite(path, taxonomy=tax)
    assert suite.label_names == ("safe", "unsafe")
    preds = {i: "safe" for i in suite.ids}
    res = diagnose_suite(suite, {"m": preds}, n_resamples=20).to_json()
    assert set(res["models"]["m"]["coarse"]) == {"Robustness", "Bias"}
    assert res["models"]["m"]["fine"]["Typos"]["n"] == 4
    assert res["models"]["m"]["fine"]["Typos"]["r_k"] == 0.0  # constant prediction
    assert res["models"]["m"]["monotonicity"]["applies"] is False


def test_bad_inputs(suite):
    with pytest.raises(UsageError):
        diagnose_suite(suite, {})
    with pytest.raises(UsageError, match="no prediction"):
        diagnose_suite(suite, {"m": {"ls-01:forward": "neutral"}})
    preds = {i: "maybe" for i in suite.ids}
    with pytest.raises(UsageError, match="outside"):
        diagnose_suite(suite, {"m": preds})


def test_paired_test_is_symmetric(suite):
    a, b = _noisy_gold(suite, 3, 0.5), _noisy_gold(suite, 4, 0.7)
    ab = diagnose_suite(suite, {"a": a, "b": b}, n_resamples=300).to_json()["rankings"]
    ba = diagnose_suite(suite, {"b": b, "a": a}, n_resamples=300).to_json()["rankings"]
    for group in ("coarse", "fine"):
        for key, entry in ab[group].items():
            (t1,) = entry["paired_tests"]
            (t2,) = ba[group][key]["paired_tests"]
            assert t1 == t2  # same order and same resamples whatever the input order
            assert 0.0 <= t1["p_value"] <= 1.0
