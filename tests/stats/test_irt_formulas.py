"""IRT formulas against numerical derivatives, quadrature and the z-test they invert."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from benchcheck.stats import irt


def test_information_is_fisher_information_of_the_bernoulli() -> None:
    a, b = np.array([0.7, 1.9]), np.array([-0.3, 0.8])
    for theta in (-1.0, 0.2, 1.5):
        h = 1e-5
        # Fisher information of one Bernoulli response: (dP/dtheta)^2 / (P (1 - P))
        p = irt.p_correct(theta, a, b)
        dp = (irt.p_correct(theta + h, a, b) - irt.p_correct(theta - h, a, b)) / (2 * h)
        np.testing.assert_allclose(
            irt.item_information(theta, a, b), dp**2 / (p * (1 - p)), rtol=1e-6
        )
    assert float(irt.test_information(0.2, a, b)) == pytest.approx(
        float(irt.item_information(0.2, a, b).sum())
    )


def test_information_between_is_the_integral() -> None:
    a, b = np.array([0.5, 1.3, 2.4]), np.array([0.0, -1.0, 0.6])
    got = irt.information_between(a, b, -0.4, 1.1)
    for i in range(3):

        def info(t: float, i: int = i) -> float:
            return float(irt.item_information(t, a[i : i + 1], b[i : i + 1])[0])

        want, _ = integrate.quad(info, -0.4, 1.1)
        assert got[i] == pytest.approx(want, rel=1e-8)


def test_items_needed_inverts_the_z_test() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.lognormal(0, 0.3, 200), rng.normal(0, 1, 200)
    ta, tb = 0.4, 0.1
    n = irt.items_needed(ta, tb, a, b, confidence=0.9)
    ia = float(irt.item_information(ta, a, b).mean())
    ib = float(irt.item_information(tb, a, b).mean())
    z = norm.ppf(0.95)

    def separated(k: float) -> bool:
        return ta - tb >= z * math.sqrt(1 / (k * ia) + 1 / (k * ib))

    assert separated(n) and not separated(n - 1)
    assert irt.items_needed(0.3, 0.3, a, b) == math.inf
