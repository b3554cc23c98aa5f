"""Corrected spans against the corpus: reading, checks, Eq. 2 accuracy with its interval."""

from __future__ import annotations

import polars as pl
import pytest
from statsmodels.stats.proportion import proportion_confint

from benchcheck.errors import InputError
from benchcheck.labels.span_corrections import (
    check_corrections,
    corrected_spans,
    reviewed_accuracy,
)

GOLD = {
    "test": {
        0: frozenset({(0, 2, "PER"), (3, 4, "ORG")}),
        1: frozenset({(0, 1, "LOC")}),
        2: frozenset({(1, 2, "PER")}),
    }
}


def _table(rows, stratum=True):
    cols = ["split", "sentence", "start", "end", "type", "stratum"]
    frame = pl.DataFrame(rows, schema=cols, orient="row")
    return frame if stratum else frame.drop("stratum")


def test_flagged_only_counts_every_reviewed_sentence():
    """Sentence 0 kept, 1 emptied, 2 retyped, 3 (no gold entity) kept empty: 2 of 4 right."""
    rows = [
        ("test", 0, 0, 2, "PER", None),
        ("test", 0, 3, 4, "ORG", None),
        ("test", 1, None, None, None, None),
        ("test", 2, 1, 2, "LOC", None),
        ("test", 3, None, None, None, None),
    ]
    c = corrected_spans(_table(rows), source="c.csv")
    (r,) = reviewed_accuracy(c, GOLD)
    assert (r.sample, r.n_reviewed, r.n_changed) == ("flagged", 4, 2)
    assert r.accuracy == pytest.approx(0.5, abs=1e-12)
    low, high = proportion_confint(2, 4, alpha=0.05, method="beta")  # Clopper-Pearson
    assert (r.ci_low, r.ci_high) == pytest.approx((low, high), abs=1e-9)


def test_audit_rows_estimate_when_the_table_marks_them():
    """With an audit stratum only audit sentences count: 1 changed of 2, flagged ones aside."""
    rows = [
        ("test", 0, 0, 2, "PER", "undisputed"),
        ("test", 0, 3, 4, "ORG", "undisputed"),
        ("test", 1, None, None, None, "undisputed"),
        ("test", 2, 1, 2, "LOC", "disputed"),
    ]
    (r,) = reviewed_accuracy(corrected_spans(_table(rows), source="c.csv"), GOLD)
    assert (r.sample, r.n_reviewed, r.n_changed) == ("audit", 2, 1)
    assert (r.n_reviewed_all, r.n_changed_all) == (3, 2)
    low, high = proportion_confint(1, 2, alpha=0.05, method="beta")
    assert (r.accuracy, r.ci_low, r.ci_high) == pytest.approx((0.5, low, high), abs=1e-9)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (("dev", 0, 0, 1, "PER", None), "split 'dev' is not in the corpus"),
        (("test", 3, 0, 1, "PER", None), "sentence 3 is out of range: test has 3 sentences"),
        (("test", 0, 2, 9, "PER", None), "span [2, 9) of test sentence 0 ends past"),
    ],
)
def test_corrections_that_do_not_fit_the_corpus(row, message):
    c = corrected_spans(_table([row]), source="c.csv")
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace(")", r"\)")) as e:
        check_corrections(c, {"test": [5, 5, 5]}, corpus="data/")
    assert e.value.path == "c.csv" and e.value.line == 2


def test_bad_rows_name_the_line():
    with pytest.raises(InputError, match="needs start, end and type"):
        corrected_spans(_table([("test", 0, 0, None, "PER", None)]), source="c.csv")
    with pytest.raises(InputError, match="empty or negative"):
        corrected_spans(_table([("test", 0, 2, 2, "PER", None)]), source="c.csv")
    with pytest.raises(InputError, match="no column"):
        corrected_spans(pl.DataFrame({"split": ["t"]}), source="c.csv")


@pytest.mark.parametrize("kind", ["NEW TYPE", "PER\t", " ORG", "LOC\n", "", "P\x1bER"])
def test_a_corrected_type_a_tag_column_cannot_hold_is_refused(kind):
    """White space in a type would split the CoNLL tag column ``remedy`` writes (issue 37)."""
    rows = [("test", 0, 0, 2, "PER", None), ("test", 1, 0, 1, kind, None)]
    with pytest.raises(InputError, match=r"^c.csv:3: the type is empty or holds white space"):
        corrected_spans(_table(rows), source="c.csv")
