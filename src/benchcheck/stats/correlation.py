"""Gorodkin's R_K: the K-class correlation coefficient (the multi-class Matthews correlation).

Reference: Gorodkin, "Comparing two K-category assignments by a K-category correlation
coefficient", Computational Biology and Chemistry 28 (2004); used as the score of the GLUE
diagnostic dataset (Wang et al. 2018). Arrays in, numbers out: this module imports nothing
from benchcheck.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["rk", "rk_from_confusion", "rk_from_confusions"]


def rk_from_confusion(confusion: np.ndarray | Sequence[Sequence[float]]) -> float:
    r"""R_K from a K×K confusion matrix ``C`` (rows gold, columns predicted).

    With :math:`s` the total, :math:`c` the trace, :math:`t_k` the row sums and
    :math:`p_k` the column sums:

    .. math::

        R_K = \frac{c\,s - \sum_k p_k t_k}
                   {\sqrt{(s^2 - \sum_k p_k^2)\,(s^2 - \sum_k t_k^2)}}

    Edge rule: 0 when the denominator is 0 (one class in the gold labels or in the
    predictions, or an empty matrix). Perfect prediction gives 1, chance 0; for K = 2 this is
    the Matthews correlation coefficient.

    >>> rk_from_confusion([[5, 0], [0, 3]])
    1.0
    >>> rk_from_confusion([[4, 0], [2, 0]])  # constant prediction
    0.0
    >>> round(rk_from_confusion([[3, 1], [1, 3]]), 6)
    0.5
    """
    c = np.asarray(confusion, dtype=float)
    if c.ndim != 2 or c.shape[0] != c.shape[1]:
        raise ValueError(f"confusion must be a square K×K matrix, got shape {c.shape}")
    return float(rk_from_confusions(c[None, :, :])[0])


def rk_from_confusions(confusions: np.ndarray) -> np.ndarray:
    """R_K of a stack of confusion matrices, shape ``(..., K, K)`` → ``(...)``; vectorised.

    Same formula and edge rule as :func:`rk_from_confusion` (used for bootstrap resamples).

    >>> rk_from_confusions(np.array([[[2, 0], [0, 2]], [[2, 0], [2, 0]]])).tolist()
    [1.0, 0.0]
    """
    c = np.asarray(confusions, dtype=float)
    s = c.sum(axis=(-2, -1))
    trace = np.trace(c, axis1=-2, axis2=-1)
    t = c.sum(axis=-1)  # row sums: gold counts
    p = c.sum(axis=-2)  # column sums: predicted counts
    num = trace * s - (p * t).sum(axis=-1)
    den = (s**2 - (p**2).sum(axis=-1)) * (s**2 - (t**2).sum(axis=-1))
    out = np.zeros_like(num)
    ok = den > 0
    out[ok] = num[ok] / np.sqrt(den[ok])
    return out


def rk(y_true: Sequence[object], y_pred: Sequence[object]) -> float:
    """R_K of two label sequences, computed with :func:`sklearn.metrics.matthews_corrcoef`.

    scikit-learn's multi-class ``matthews_corrcoef`` is Gorodkin's R_K; it returns 0 when
    the denominator is 0, the same rule as :func:`rk_from_confusion`. Empty input gives 0.

    >>> rk(["e", "n", "c", "e"], ["e", "n", "c", "e"])
    1.0
    >>> rk(["e", "n", "c"], ["e", "e", "e"])
    0.0
    """
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} values, y_pred {len(y_pred)}")
    if len(y_true) == 0:
        return 0.0
    import warnings

    from sklearn.metrics import matthews_corrcoef

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)  # single-label input: R_K is 0
        return float(matthews_corrcoef(list(map(str, y_true)), list(map(str, y_pred))))
