"""Expected wrong sentences of a NER corpus (issue 36): calibration fit, count, interval."""

import itertools

import numpy as np
import pytest

from benchcheck.labels.ner_expected import (
    SentenceCalibration,
    expected_errors,
    fit_calibration,
    sentence_logits,
)

ZERO = ((0.0, 0.0), (0.0, 0.0))


def test_fit_is_statsmodels_logit_and_its_covariance():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(1)
    z = rng.normal(2.0, 3.0, 400)
    y = (rng.random(400) < 1 / (1 + np.exp(-(-1.5 + 0.4 * np.minimum(z, 6.0))))).astype(int)
    z_all = np.concatenate([z, [np.nan] * 50])
    y_all = np.concatenate([y, [1] * 7 + [0] * 43])
    cal = fit_calibration(z_all, y_all, z_max=6.0, source="test")
    ref = sm.Logit(y, sm.add_constant(np.minimum(z, 6.0))).fit(disp=0)
    assert (cal.intercept, cal.slope) == pytest.approx(tuple(ref.params), rel=1e-7)
    assert np.asarray(cal.cov) == pytest.approx(np.asarray(ref.cov_params()), rel=1e-6)
    assert (cal.empty_wrong, cal.empty_sentences) == (7, 50)


def test_one_calibration_gives_the_poisson_binomial_by_enumeration():
    # a = 0, b = 1: sentences of logit 0, 2, -1 and one without a region (rate (1+1)/(2+2))
    cal = SentenceCalibration(0.0, 1.0, ZERO, 10.0, 1, 2, "hand")
    z = np.array([0.0, 2.0, -1.0, np.nan])
    p = np.array([0.5, 1 / (1 + np.exp(-2.0)), 1 / (1 + np.exp(1.0)), 0.5])
    r = expected_errors(z, cal, draws=1, level=0.8)
    assert r.expected == pytest.approx(p.sum(), abs=1e-12)
    pmf = np.zeros(5)
    for bits in itertools.product((0, 1), repeat=4):
        pmf[sum(bits)] += np.prod([q if b else 1 - q for q, b in zip(p, bits, strict=True)])
    cdf = np.cumsum(pmf)
    low = int(np.searchsorted(cdf, 0.1 - 1e-12))
    high = int(np.searchsorted(cdf, 0.9 - 1e-12))
    assert (r.low, r.high, r.method) == (low, high, "exact")
    assert r.unit == "sentences" and r.sentences == 4


def test_the_interval_covers_a_simulated_count_about_as_often_as_it_says():
    """Fit on 3,000 simulated sentences, count on 2,000 others: 95% intervals cover ~95%."""
    covered = []
    for seed in range(30):
        rng = np.random.default_rng(seed)
        z = np.where(rng.random(5000) < 0.3, rng.normal(3.0, 4.0, 5000), np.nan)
        p = np.where(np.isnan(z), 0.01, 1 / (1 + np.exp(-(-2.5 + 0.3 * np.nan_to_num(z)))))
        y = rng.random(5000) < p
        cal = fit_calibration(z[:3000], y[:3000], z_max=50.0, source="sim")
        r = expected_errors(z[3000:], cal, draws=100, seed=seed)
        covered.append(r.low <= y[3000:].sum() <= r.high)
    assert 0.85 <= np.mean(covered) <= 1.0


def test_sentence_logits_and_bad_draws():
    import polars as pl

    f = pl.DataFrame({"sentence": [3, 1, 3], "error_logit": [0.5, -1.0, 2.0]})
    assert np.array_equal(sentence_logits(f, 4), [np.nan, -1.0, np.nan, 2.0], equal_nan=True)
    cal = SentenceCalibration(0.0, 1.0, ZERO, 10.0, 0, 0, "hand")
    with pytest.raises(Exception, match="draws must be >= 1"):
        expected_errors(np.zeros(3), cal, draws=0)
