"""The score table: Llama 2's Z_n against its Table 51, the bootstrap interval, the ranks."""

import math

import numpy as np
import pytest

from benchcheck.metrics.contamination import contamination_scores
from benchcheck.metrics.contamination.scores import z_score

# Llama 2, Table 51, HellaSwag (L = 40), 70B: subset, n, X-bar, mu_n, printed Z_n (N = 10042).
TABLE_51 = [
    ("clean", 7391, 80.0, 82.5, -5.73),
    ("not_clean", 2651, 89.5, 82.4, 9.56),
    ("not_dirty", 9194, 81.6, 82.5, -2.27),
    ("dirty", 848, 92.2, 82.5, 7.42),
]


@pytest.mark.parametrize(("subset", "n", "xbar", "mu", "printed"), TABLE_51)
def test_z_reproduces_table_51(subset, n, xbar, mu, printed):
    """Binary accuracy: sigma**2 = p(1 - p). Inputs are printed to 0.1 points: Z to ~0.12."""
    p = mu / 100
    z, z_fpc = z_score(xbar / 100, p, math.sqrt(p * (1 - p)), n, 10042)
    assert z == pytest.approx(printed, abs=0.12)
    # the finite population correction moves Z further than the rounding can explain
    assert abs(z_fpc - printed) > 0.25


def test_subset_table_by_hand():
    overlap = np.array([0.0, 0.0, 0.1, 0.5, 0.9, 1.0])
    scores = {
        "a": np.array([1, 1, 0, 1, 1, 1.0]),
        "b": np.array([0, 1, 1, 0, 1, 1.0]),
        "c": np.array([1, 0, 1, 1, 0, 0.0]),
    }
    t = contamination_scores(scores, overlap, clean_below=0.2, dirty_from=0.8, resamples=200)
    a, b, c = t.models
    sub = {s.subset: s for s in a.subsets}
    assert (sub["clean"].n, sub["not_clean"].n, sub["not_dirty"].n, sub["dirty"].n) == (3, 3, 4, 2)
    assert sub["clean"].score == pytest.approx(2 / 3) and sub["dirty"].score == 1.0
    assert sub["not_clean"].mean_overlap == pytest.approx(0.8)
    mu, sigma = 5 / 6, float(np.std([1, 1, 0, 1, 1, 1]))
    assert sub["dirty"].z == pytest.approx((1.0 - mu) / (sigma / math.sqrt(2)))
    assert sub["dirty"].z_fpc == pytest.approx(sub["dirty"].z / math.sqrt((6 - 2) / 5))
    assert a.clean_minus_dirty == pytest.approx(2 / 3 - 1)
    assert a.clean_vs_all == pytest.approx((2 / 3 - mu) / mu)
    # ranks: all a 5/6, b 4/6, c 3/6; clean a 2/3, b 2/3, c 2/3 (ties share rank 1)
    assert (a.rank_all, b.rank_all, c.rank_all) == (1, 2, 3)
    assert (a.rank_clean, b.rank_clean, c.rank_clean) == (1, 1, 1)
    assert (a.rank_dirty, b.rank_dirty, c.rank_dirty) == (1, 1, 3)
    assert t.ranking_changes
    assert c.subsets[3].score == 0.0 and c.clean_minus_dirty == pytest.approx(2 / 3)
    assert c.interval[0] <= 2 / 3 <= c.interval[1] and c.interval[1] == pytest.approx(1.0)


def test_interval_is_seeded_and_contains_the_difference():
    rng = np.random.default_rng(0)
    overlap = rng.random(400)
    x = (rng.random(400) < 0.6 + 0.3 * overlap).astype(float)
    one = contamination_scores({"m": x}, overlap, clean_below=0.2, dirty_from=0.8, seed=5)
    two = contamination_scores({"m": x}, overlap, clean_below=0.2, dirty_from=0.8, seed=5)
    m = one.models[0]
    assert m.interval == two.models[0].interval
    lo, hi = m.interval
    assert lo <= m.clean_minus_dirty <= hi
    # about the normal approximation's width: 2 * 1.96 * sqrt(p1 q1 / n1 + p2 q2 / n2)
    clean, dirty = x[overlap < 0.2], x[overlap >= 0.8]
    se = math.sqrt(clean.var() / clean.size + dirty.var() / dirty.size)
    assert (hi - lo) == pytest.approx(2 * 1.96 * se, rel=0.2)


def test_edge_rules():
    t = contamination_scores(
        {"m": np.array([1.0, 1.0, 1.0])},
        np.array([0.0, 0.0, 0.0]),
        clean_below=0.2,
        dirty_from=0.8,
    )
    m = t.models[0]
    by = {s.subset: s for s in m.subsets}
    assert by["dirty"].n == 0 and by["dirty"].score is None and by["dirty"].z is None
    assert by["clean"].z is None  # sigma = 0
    assert m.interval is None and m.clean_minus_dirty is None and m.rank_dirty is None
    assert not t.ranking_changes
