"""Ensemble means, flags, bins, ranking, confident learning."""

import json

import numpy as np
import polars as pl
import pytest
from _labels_synth import make_case
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.errors import InputError, UsageError
from benchcheck.io.judgments import read_judgments
from benchcheck.labels.detectors import detect
from benchcheck.labels.ensemble import ensemble, judgment_labels
from benchcheck.labels.flags import (
    bin_label,
    check_judged_ids,
    check_judged_labels,
    confident_learning_flags,
    detector_overlap,
    parse_bins,
    summarize_flags,
)


def _write(rows, path):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_ensemble_mean_by_hand():
    data, j, truth, _ = make_case(30, seed=2)
    ens = ensemble(j)
    p1 = j.group_by("id").agg(pl.col("p_1").mean()).sort("id")
    got = ens.sort("id")
    np.testing.assert_allclose(got["p_1"].to_numpy(), p1["p_1"].to_numpy())
    assert (got["n_members"] == 4).all()
    assert got["llm_label"].to_list() == ["1" if v > 0.5 else "0" for v in p1["p_1"]]
    np.testing.assert_allclose(
        got["confidence"].to_numpy(), np.maximum(p1["p_1"].to_numpy(), 1 - p1["p_1"].to_numpy())
    )
    sub = ensemble(j, judges=["m1"], prompts=["nli"]).sort("id")
    ref = j.filter((pl.col("judge") == "m1") & (pl.col("prompt") == "nli")).sort("id")
    np.testing.assert_allclose(sub["p_1"].to_numpy(), ref["p_1"].to_numpy())
    assert (sub["n_members"] == 1).all()
    with pytest.raises(UsageError, match="unknown judge"):
        ensemble(j, judges=["nope"])


def test_ensemble_tie_goes_to_first_label_and_missing_skipped():
    j = pl.DataFrame(
        {
            "id": ["a", "a", "b"],
            "judge": ["x", "y", "x"],
            "prompt": ["p"] * 3,
            "p_0": [0.5, None, 0.3],
            "p_1": [0.5, None, 0.7],
        }
    )
    ens = ensemble(j)
    assert ens.rows() == [("a", 0.5, 0.5, 1, "0", 0.5), ("b", 0.3, 0.7, 1, "1", 0.7)]


def test_read_judgments_parquet_and_errors(tmp_path):
    _, j, _, _ = make_case(5)
    j.write_parquet(tmp_path / "j.parquet")
    back = read_judgments(tmp_path / "j.parquet")
    assert judgment_labels(back) == ("0", "1") and back.height == j.height
    rows = [
        {"id": 1, "judge": "m", "prompt": "a", "p_0": 0.2, "p_1": 0.8},
        {"id": 2, "judge": "m", "prompt": "a", "p_0": 1.2, "p_1": -0.2},
    ]
    with pytest.raises(InputError) as exc:
        read_judgments(_write(rows, tmp_path / "bad.jsonl"))
    assert exc.value.line == 2 and "bad.jsonl:2" in str(exc.value)
    rows[1] = dict(rows[0])
    with pytest.raises(InputError, match="duplicate"):
        read_judgments(_write(rows, tmp_path / "dup.jsonl"))
    with pytest.raises(InputError, match="lacks column"):
        read_judgments(_write([{"id": 1, "p_0": 1, "p_1": 0}], tmp_path / "cols.jsonl"))
    with pytest.raises(InputError, match="p_<label>"):
        one = [{"id": 1, "judge": "m", "prompt": "a", "p_1": 0.2}]
        read_judgments(_write(one, tmp_path / "one.jsonl"))


def test_bins():
    assert parse_bins("0.5, 0.9,1") == (0.5, 0.9, 1.0)
    for bad in ("0.9,0.5", "1", "a,b", "0.5,1.5"):
        with pytest.raises(UsageError):
            parse_bins(bad)
    edges = (0.5, 0.9, 0.95, 1.0)
    assert bin_label(0.5, edges) == "[0.5, 0.9)"
    assert bin_label(0.9, edges) == "[0.9, 0.95)"
    assert bin_label(0.95, edges) == "[0.95, 1]"
    assert bin_label(1.0, edges) == "[0.95, 1]"
    assert bin_label(0.49, edges) is None and bin_label(None, edges) is None


def _judged(probs: dict[str, tuple[float, float]]) -> pl.DataFrame:
    """One judge × one prompt giving these (P(0), P(1)) per id."""
    ids = list(probs)
    return pl.DataFrame(
        {
            "id": ids,
            "judge": ["j"] * len(ids),
            "prompt": ["p"] * len(ids),
            "p_0": [probs[i][0] for i in ids],
            "p_1": [probs[i][1] for i in ids],
        }
    )


def test_the_flag_rule_by_hand():
    """detect (the one rule): disagree and error score = 1 - P(original) >= threshold."""
    data = pl.DataFrame({"id": list("abcde"), "label": ["1", "0", "1", "0", "1"]})
    probs = {
        "a": (0.96, 0.04),  # disagrees, error score 0.96
        "b": (0.3, 0.7),  # disagrees, 0.7
        "c": (0.35, 0.65),  # agrees
        "d": (0.2, 0.8),  # disagrees, 0.8
        "e": (0.1, 0.9),  # agrees
    }
    # the rule on the detector's own score (posterior "none"): by hand
    f = detect(
        data,
        _judged(probs),
        calibration="none",
        threshold=0.68,
        posterior="none",
        flag_rule="threshold",
    ).frame
    assert f["error_score"].to_list() == pytest.approx([0.96, 0.7, 0.35, 0.8, 0.1])
    assert f["disagree"].to_list() == [True, True, False, True, False]
    assert f["flagged"].to_list() == [True, True, False, True, False]
    assert f["rank"].to_list() == [1, 3, None, 2, None]
    assert f["bin"].to_list() == ["[0.95, 1]", "[0.7, 0.8)", None, "[0.8, 0.9)", None]
    s = summarize_flags(f, threshold=0.68)
    assert (s.n, s.judged, s.disagreements, s.flagged) == (5, 5, 3, 3)
    assert s.flagged_by_bin["[0.95, 1]"] == 1 and sum(s.flagged_by_bin.values()) == 3
    # one example of five has no judgment: 20 %, above the default 5 % an error
    with pytest.raises(InputError, match=r"1 of 5 ids of the data are not in the judgments \('e'"):
        check_judged_ids(data, list("abcd"), source="d.jsonl")
    bad = data.with_columns(pl.Series("label", ["1", "0", "2", "0", "1"]))
    with pytest.raises(InputError) as exc:
        check_judged_labels(
            bad.with_columns(pl.Series("line", [1, 2, 3, 4, 5])), ["0", "1"], source="d.jsonl"
        )
    assert "d.jsonl:3" in str(exc.value)


def test_flags_find_injected_flips():
    data, j, truth, flipped = make_case(300, flip_rate=0.15, seed=4)
    d = data.with_columns(pl.col("label").cast(pl.String))
    f = detect(d, j, calibration="none", threshold=0.5, flag_rule="threshold").frame
    flagged = f["flagged"].to_numpy()
    precision = flipped[flagged].mean()
    assert precision > 0.8 and flipped.mean() < 0.2


def test_confident_learning_matches_cleanlab_and_overlap():
    cleanlab_filter = pytest.importorskip("cleanlab.filter")
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    probs = np.clip(np.stack([1 - y, y], axis=1) * 0.8 + rng.random((n, 2)) * 0.2, 0, None)
    probs = probs / probs.sum(axis=1, keepdims=True)
    noisy = y.copy()
    noisy[:20] = 1 - noisy[:20]
    labels = [str(v) for v in noisy]
    got = confident_learning_flags(labels, probs, ["0", "1"])
    # n_jobs=1: the default forks a pool from this threaded process; a forked worker can
    # deadlock on a lock another thread held (seen once: the suite hung here 10 min)
    ref = cleanlab_filter.find_label_issues(labels=noisy, pred_probs=probs, n_jobs=1)
    assert (got == ref).all() and got[:20].mean() >= 0.75
    ov = detector_overlap(["1", "2", "3"], ["3", "4"])
    assert (ov.both, ov.only_a, ov.only_b) == (1, 2, 1) and ov.jaccard == pytest.approx(0.25)
    with pytest.raises(UsageError, match="shape"):
        confident_learning_flags(labels, probs[:5], ["0", "1"])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.5, 1.0))
def test_property_flags_and_order_invariance(seed, threshold):
    data, j, _, _ = make_case(25, seed=seed % 50)
    d = data.with_columns(pl.col("label").cast(pl.String))
    shuffled = j.sample(fraction=1.0, shuffle=True, seed=seed)
    e1, e2 = ensemble(j), ensemble(shuffled)
    assert (
        e1.sort("id").select("id", "llm_label").rows()
        == e2.sort("id").select("id", "llm_label").rows()
    )
    np.testing.assert_allclose(e1.sort("id")["p_1"].to_numpy(), e2.sort("id")["p_1"].to_numpy())
    f = detect(d, j, calibration="none", threshold=threshold, flag_rule="threshold").frame
    flagged = f.filter(pl.col("flagged"))
    assert (flagged["disagree"]).all() and (flagged["error_score"] >= threshold).all()
    assert sorted(flagged["rank"].to_list()) == list(range(1, flagged.height + 1))
    scores = flagged.sort("rank")["error_score"].to_list()
    assert scores == sorted(scores, reverse=True)
    assert f.filter(~pl.col("flagged"))["rank"].null_count() == f.height - flagged.height
