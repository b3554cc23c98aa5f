import json

from benchcheck.diagnostics import (
    diagnose_suite,
    overlap_baseline,
    sample_predictions_path,
    sample_suite_path,
)
from benchcheck.io.diagnostic import read_predictions
from benchcheck.runs.diagnose import load_suite


def test_committed_predictions_are_the_baselines_output():
    suite = load_suite(sample_suite_path())
    rows = [json.loads(x) for x in sample_predictions_path().read_text().splitlines()]
    expected = {
        r["id"]: overlap_baseline(r["text_a"], r["text_b"])
        for r in suite.table.iter_rows(named=True)
    }
    assert {r["id"]: r["prediction"] for r in rows} == expected
    assert [r["id"] for r in rows] == suite.ids


def test_sample_suite_covers_every_category():
    suite = load_suite(sample_suite_path())
    assert suite.n_pairs == 45 and suite.n == 90
    used = {c for row in suite.table["coarse"].to_list() for c in row}
    assert used == set(suite.taxonomy.coarse_names)
    assert set(suite.fine_names()) == set(suite.taxonomy.fine_names)  # every fine tag used
    preds = read_predictions(
        sample_predictions_path(), ids=suite.ids, label_names=suite.label_names
    )
    res = diagnose_suite(suite, {"overlap": dict(preds.labels)}, n_resamples=50).to_json()
    # Knowledge pairs share few words and carry no negation, so the overlap heuristic says
    # neutral on every one of them: a constant prediction, R_K 0.
    assert res["models"]["overlap"]["coarse"]["Knowledge"]["r_k"] == 0.0
    assert (
        res["models"]["overlap"]["monotonicity"]["entailment_rate"]
        > res["models"]["overlap"]["monotonicity"]["base_false_entailment_rate"]
    )


def test_readme_numbers_hold():
    # src/benchcheck/sample_data/diagnostic/README.md quotes these (seed 0, 1000 resamples).
    suite = load_suite(sample_suite_path())
    preds = read_predictions(
        sample_predictions_path(), ids=suite.ids, label_names=suite.label_names
    )
    res = diagnose_suite(suite, {"overlap": dict(preds.labels)}, seed=0).to_json()
    cell = res["models"]["overlap"]["overall"]
    assert round(cell["r_k"], 2) == 0.23
    assert [round(x, 2) for x in cell["ci"]] == [0.05, 0.38]
    mono = res["models"]["overlap"]["monotonicity"]
    assert (mono["n"], round(mono["entailment_rate"] * mono["n"])) == (3, 2)
