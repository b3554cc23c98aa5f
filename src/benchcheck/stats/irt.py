"""Item response theory formulas of the 1PL/2PL model (arrays in, numbers out).

Arrays in, numbers out: this module imports nothing from benchcheck. The fit itself (item
parameters and abilities) is :func:`benchcheck.items.irt.fit_irt`; these are the formulas
every textbook gives (Baker & Kim, *Item Response Theory*, 2nd ed., 2004; Lord 1980):

* 2PL: ``P_i(theta) = 1 / (1 + exp(-a_i (theta - b_i)))``; the 1PL has one ``a`` for all;
* item information ``I_i(theta) = a_i^2 P_i(theta) (1 - P_i(theta))``; test information
  ``I(theta) = sum_i I_i(theta)``; the ability's standard error ``1 / sqrt(I(theta))``;
* information an item gives between two abilities, ``int_lo^hi I_i(theta) dtheta
  = a_i (P_i(hi) - P_i(lo))`` (since ``dP/dtheta = a P (1 - P)``): how much the item
  separates examinees in that range;
* items needed to separate two abilities ``theta_A > theta_B`` at confidence ``c``: with
  ``n`` items like the benchmark's, ``SE^2(theta) = 1 / (n * Ibar(theta))`` (``Ibar`` the
  mean item information), and the two estimates differ at level ``1 - c`` (two-sided
  z-test) when ``theta_A - theta_B >= z * sqrt(SE_A^2 + SE_B^2)``, so
  ``n = ceil(z^2 (1/Ibar(theta_A) + 1/Ibar(theta_B)) / (theta_A - theta_B)^2)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit
from scipy.stats import norm

__all__ = [
    "information_between",
    "item_information",
    "items_needed",
    "p_correct",
    "test_information",
]


def p_correct(theta: float | np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``P_i(theta) = sigma(a_i (theta - b_i))``; a 2-D array (items × thetas) for an array theta.

    >>> p_correct(0.0, np.array([1.0]), np.array([0.0])).tolist()
    [0.5]
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    t = np.asarray(theta, dtype=float)
    if t.ndim == 0:
        return np.asarray(expit(a * (t - b)))
    return np.asarray(expit(a[:, None] * (t[None, :] - b[:, None])))


def item_information(theta: float | np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Fisher information ``a_i^2 P (1 - P)`` of each item at ``theta``.

    >>> item_information(0.0, np.array([2.0]), np.array([0.0])).tolist()
    [1.0]
    """
    p = p_correct(theta, a, b)
    a = np.asarray(a, dtype=float)
    scale = a**2 if p.ndim == 1 else (a**2)[:, None]
    return np.asarray(scale * p * (1 - p))


def test_information(theta: float | np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Test information ``sum_i I_i(theta)`` (the standard error of theta is ``1/sqrt``).

    >>> float(test_information(0.0, np.array([2.0, 2.0]), np.array([0.0, 0.0])))
    2.0
    """
    return np.asarray(item_information(theta, a, b).sum(axis=0))


def information_between(a: np.ndarray, b: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``int_lo^hi I_i(theta) dtheta = a_i (P_i(hi) - P_i(lo))`` for each item (``lo <= hi``).

    >>> x = information_between(np.array([1.0]), np.array([0.0]), -50.0, 50.0)
    >>> round(float(x[0]), 6)  # a over the whole line
    1.0
    """
    if hi < lo:
        lo, hi = hi, lo
    a = np.asarray(a, dtype=float)
    return np.asarray(a * (p_correct(hi, a, b) - p_correct(lo, a, b)))


def items_needed(
    theta_a: float, theta_b: float, a: np.ndarray, b: np.ndarray, *, confidence: float = 0.95
) -> float:
    """Items like these (same mean information) needed to separate two abilities.

    ``ceil(z^2 (1/Ibar(theta_A) + 1/Ibar(theta_B)) / (theta_A - theta_B)^2)`` with
    ``z = Phi^{-1}(1 - (1 - confidence) / 2)`` (two-sided); ``inf`` for equal abilities or
    items that carry no information there.

    >>> a, b = np.ones(10), np.zeros(10)  # Ibar(±0.5) = 0.235
    >>> items_needed(0.5, -0.5, a, b, confidence=0.95)
    33.0
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if not (math.isfinite(theta_a) and math.isfinite(theta_b)):
        return math.nan
    delta = abs(theta_a - theta_b)
    ia = float(item_information(theta_a, a, b).mean())
    ib = float(item_information(theta_b, a, b).mean())
    if delta == 0 or ia <= 0 or ib <= 0:
        return math.inf
    z = float(norm.ppf(1 - (1 - confidence) / 2))
    return float(math.ceil(z**2 * (1 / ia + 1 / ib) / delta**2 - 1e-9))
