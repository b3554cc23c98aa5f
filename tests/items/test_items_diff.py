"""Audit diff (tests on counts) and --fail-on gates."""

from __future__ import annotations

import copy

import pytest
from scipy.stats import binomtest, fisher_exact

from benchcheck.errors import UsageError
from benchcheck.items.diff import diff_results, evaluate_gates, flatten, parse_gates


def _results(leak: float, flagged: list[str], n: int = 200) -> dict:
    return {
        "schema_version": "1.0",
        "title": "t",
        "inputs": {"dataset": "d"},
        "analyses": [],
        "stats": {
            "dimensions": {
                "leakage_ratio": {"better": "lower"},
                "mean_length": {"better": "higher"},
            },
            "metrics": {"leakage_ratio": leak, "mean_length": 11.0},
            "splits": {
                "train": {"n_instances": 800, "duplicate_ratio": 0.05},
                "test": {"n_instances": 100, "leakage_ratio": leak, "duplicate_ratio": 0.02},
            },
        },
        "label_errors": {
            "summary": {"n": n, "flagged": len(flagged), "flag_rate": len(flagged) / n},
            "examples": [{"id": i} for i in flagged],
            "examples_total": len(flagged),
        },
    }


def test_flatten_skips_text_and_lists() -> None:
    flat = flatten(_results(0.1, ["1"]))
    assert flat["stats.metrics.leakage_ratio"] == 0.1
    assert "stats.splits.test.n_instances" in flat
    assert not any(k.startswith(("inputs", "title", "stats.dimensions")) for k in flat)


def test_fisher_on_leakage_and_mcnemar_on_flags() -> None:
    old = _results(0.10, [str(i) for i in range(30)])
    new = _results(0.02, [str(i) for i in range(20, 35)])
    d = diff_results(old, new)
    rows = {m.path: m for m in d.metrics}
    leak = rows["stats.metrics.leakage_ratio"]
    assert leak.test == "fisher_exact"
    assert leak.p_value == pytest.approx(fisher_exact([[10, 90], [2, 98]]).pvalue)
    assert leak.to_json()["worse"] is False  # lower is better, and it fell
    flag = rows["label_errors.summary.flag_rate"]
    assert flag.test == "mcnemar_exact"
    assert flag.p_value == pytest.approx(binomtest(20, 25, 0.5).pvalue)  # 20 fixed, 5 new
    assert d.flags is not None and d.flags["n_fixed"] == 20 and d.flags["n_new"] == 5
    assert rows["stats.metrics.mean_length"].test is None
    assert "aggregate" in (rows["stats.metrics.mean_length"].why or "")
    dup = rows["stats.splits.train.duplicate_ratio"]
    assert dup.test == "fisher_exact" and dup.change == 0


def test_truncated_flag_lists_use_fisher() -> None:
    old = _results(0.1, [str(i) for i in range(30)])
    old["label_errors"]["examples_total"] = 31
    new = _results(0.1, [str(i) for i in range(10)])
    rows = {m.path: m for m in diff_results(old, new).metrics}
    assert rows["label_errors.summary.flag_rate"].test == "fisher_exact"


def test_gates() -> None:
    old = _results(0.10, ["1", "2"])
    new = _results(0.02, ["2", "3", "4"])
    d = diff_results(old, new)
    gates = parse_gates("leakage_ratio>0.01, flag_rate>0.05, change(leakage_ratio)>0, new_flags>=2")
    res = evaluate_gates(gates, new, d)
    assert [(g.path, g.failed) for g in res] == [
        ("stats.metrics.leakage_ratio", True),  # 0.02 > 0.01
        ("label_errors.summary.flag_rate", False),  # 0.015
        ("stats.metrics.leakage_ratio", False),  # fell
        ("new_flags", True),
    ]


def test_gate_errors_and_fail_closed() -> None:
    new = _results(0.02, [])
    with pytest.raises(UsageError, match="cannot read"):
        parse_gates("leakage_ratio >> 1")
    with pytest.raises(UsageError, match="no value named"):
        evaluate_gates(parse_gates("nothing>1"), new)
    with pytest.raises(UsageError, match="needs two audits"):
        evaluate_gates(parse_gates("change(leakage_ratio)>0"), new)
    broken = copy.deepcopy(new)
    broken["stats"]["metrics"]["leakage_ratio"] = None
    (g,) = evaluate_gates(parse_gates("leakage_ratio>0.01"), broken)
    assert g.failed and "null" in g.reason
    with pytest.raises(UsageError, match="several values"):
        evaluate_gates(parse_gates("duplicate_ratio>0"), new)  # train and test, same depth


@pytest.mark.parametrize("gate", ["x>1e400", "x<-1e400", "change(x)>=1e309", "x==1e999"])
def test_a_gate_on_a_number_that_is_not_finite_is_refused(gate):
    """``float('1e400')`` is infinity: a gate that can never (or always) hold (issue 37)."""
    with pytest.raises(UsageError, match=r"is not finite .* expected a finite number"):
        parse_gates(gate)
    assert parse_gates("x>1e308")[0].threshold == 1e308
