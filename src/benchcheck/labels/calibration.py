r"""Calibrating judge probabilities, without gold and with gold (issue 12, section 3).

A judge's :math:`p = P(y \mid x)` comes from two label tokens' log-probabilities and is
often biased: the embedded 1.5B judge answers '0' too often, so a 0.5 threshold
over-flags. Four calibrations, each a map from raw to calibrated probabilities; raw
probabilities stay in the judgments file, calibrated ones are what flags use.

Without gold
    ``contextual`` — contextual calibration (Zhao et al. 2021, "Calibrate Before Use",
    Sec. 5): per judge × prompt, the mean probability vector :math:`\hat p_{cf}` the judge
    gives content-free inputs (``"N/A"``, ``""``, ``"[MASK]"`` in every text field) is the
    prompt's bias; each example's vector is divided by it and renormalised,

    .. math:: q_k = \frac{p_k / \hat p_{cf,k}}{\sum_j p_j / \hat p_{cf,j}}

    (the paper writes :math:`\mathrm{softmax}(W p)` with :math:`W = \mathrm{diag}(\hat
    p_{cf})^{-1}`; same argmax, but a softmax over probability ratios is not a probability
    of the label: ``rule="softmax"`` gives the written formula beside it). For two labels
    this subtracts the content-free log-odds from each example's log-odds.

    ``prior`` — a prior shift: one offset per label added to the log-probabilities,
    :math:`q_i = \mathrm{softmax}(\log p_i + \delta)`, with :math:`\delta` (first label
    fixed at 0) solved so that the mean calibrated probability of every label equals the
    data's observed label share :math:`\pi`: :math:`\frac1n\sum_i q_{ik} = \pi_k`. For two
    labels this is one root of a monotone function of the logit offset (Brent's method,
    :func:`scipy.optimize.brentq`); for more, the minimum of the convex function
    :math:`\sum_i \mathrm{logsumexp}(\log p_i + \delta) - n\,\pi\cdot\delta`, whose
    gradient is that condition (L-BFGS). Per member (judge × prompt) or on the ensemble.
    Contextual then prior: for two labels a per-member prior shift absorbs the contextual
    offset exactly (both are one logit offset per member), so the pair differs from
    ``prior`` only when the shift is solved on the ensemble.

    ``labels`` — Platt scaling of the ensemble fitted to the data's own labels, out of
    fold (:func:`fit_to_labels`): the offset of the prior shift plus a slope (a
    temperature) that spreads an under-confident judge's probabilities.

With reviewed gold
    ``platt`` — Platt scaling per judge × prompt: logistic regression of the gold label on
    the log-odds :math:`\log(p_1/p_0)` (scikit-learn, no penalty); with more labels,
    multinomial logistic regression on the log-probabilities (matrix scaling, Guo et al.
    2017). ``isotonic`` — isotonic regression of the gold label on :math:`p_1`
    (:class:`sklearn.isotonic.IsotonicRegression`); with more labels one-vs-rest and
    renormalised, as scikit-learn's ``CalibratedClassifierCV`` does.

:func:`expected_calibration_error` reports how far the probabilities are from
frequencies (top-label ECE, Guo et al. 2017, Eq. 3, ten equal-width bins).

>>> import numpy as np
>>> p = np.array([[0.8, 0.2], [0.6, 0.4], [0.3, 0.7]])
>>> q = contextual_calibrate(p, np.array([[0.7, 0.3]]))
>>> q.round(3).tolist()
[[0.632, 0.368], [0.391, 0.609], [0.155, 0.845]]
>>> shifted, offset = prior_shift(p, np.array([0.5, 0.5]))
>>> round(float(shifted[:, 1].mean()), 9)
0.5
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from benchcheck.errors import UsageError
from benchcheck.judges.run import CONTENT_FREE_INPUTS

__all__ = [
    "CALIBRATIONS",
    "CONTENT_FREE_INPUTS",
    "Calibration",
    "calibrate_ensemble",
    "calibrate_members",
    "contextual_calibrate",
    "expected_calibration_error",
    "fit_isotonic",
    "fit_platt",
    "fit_to_labels",
    "label_shares",
    "prior_shift",
    "reliability",
    "Reliability",
    "shift_defined",
]

#: Calibration methods, in the order the benchmark reports them.
CALIBRATIONS: tuple[str, ...] = (
    "none",
    "contextual",
    "prior",
    "contextual+prior",
    "platt",
    "isotonic",
    "labels",
)


_EPS = 1e-12


def _as_probs(probs: Any) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 2:
        raise UsageError(f"probabilities must be an n x K array with K >= 2, got shape {p.shape}")
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise UsageError("probabilities must lie in [0, 1]")
    return p


def _renorm(p: np.ndarray) -> np.ndarray:
    return p / p.sum(axis=1, keepdims=True)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def contextual_calibrate(probs: Any, content_free: Any, *, rule: str = "renormalise") -> np.ndarray:
    r"""Divide each row by the mean content-free probabilities and renormalise (Zhao et al.).

    ``content_free`` is m × K: the judge's probabilities for m content-free inputs under the
    same prompt; their mean is :math:`\hat p_{cf}`. ``rule="softmax"`` applies the paper's
    written :math:`\mathrm{softmax}(\mathrm{diag}(\hat p_{cf})^{-1} p)` instead.

    >>> contextual_calibrate([[0.5, 0.5]], [[0.8, 0.2], [0.6, 0.4]]).round(4).tolist()
    [[0.3, 0.7]]
    """
    p = _as_probs(probs)
    cf = _as_probs(content_free)
    if cf.shape[1] != p.shape[1]:
        raise UsageError(
            f"content-free probabilities have {cf.shape[1]} labels, the judgments {p.shape[1]}"
        )
    w = np.clip(cf.mean(axis=0), _EPS, None)
    if rule == "renormalise":
        return _renorm(np.clip(p / w, _EPS, None))
    if rule == "softmax":
        return _softmax(p / w)
    raise UsageError(f"the contextual rule must be 'renormalise' or 'softmax', got {rule!r}")


def prior_shift(probs: Any, target: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""Shift log-probabilities by one offset per label so the mean matches ``target``.

    Returns the shifted probabilities and the offsets :math:`\delta` (first label 0).
    Two labels: :func:`scipy.optimize.brentq` on
    :math:`g(d) = \frac1n\sum_i \sigma(\mathrm{logit}\,p_{i1} + d) - \pi_1`; more: L-BFGS
    on the convex dual (module docstring). A share of 0 or 1 has no finite offset and is
    refused.

    >>> q, d = prior_shift([[0.9, 0.1], [0.7, 0.3]], [0.5, 0.5])
    >>> q[:, 1].round(4).tolist(), round(float(d[1]), 4)
    ([0.3374, 0.6626], 1.5223)
    """
    p = np.clip(_as_probs(probs), _EPS, 1.0)
    pi = np.asarray(target, dtype=np.float64)
    k = p.shape[1]
    if pi.shape != (k,) or not math.isclose(float(pi.sum()), 1.0, abs_tol=1e-9):
        raise UsageError(f"the target must be {k} label shares summing to 1, got {pi.tolist()}")
    if (pi <= 0).any() or (pi >= 1).any():
        raise UsageError(
            f"a prior shift needs every label's share strictly between 0 and 1, got {pi.tolist()}"
        )
    z = np.log(p)
    if k == 2:
        from scipy.optimize import brentq
        from scipy.special import expit

        logit = z[:, 1] - z[:, 0]

        def gap(d: float) -> float:
            return float(expit(logit + d).mean() - pi[1])

        lo, hi = -1.0, 1.0
        while gap(lo) > 0:
            lo *= 2
        while gap(hi) < 0:
            hi *= 2
        d = brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500)
        delta = np.array([0.0, d])
    else:
        from scipy.optimize import minimize
        from scipy.special import logsumexp

        n = p.shape[0]

        def dual(free: np.ndarray) -> tuple[float, np.ndarray]:
            dd = np.concatenate([[0.0], free])
            s = z + dd
            val = float(logsumexp(s, axis=1).sum() - n * pi @ dd)
            grad = _softmax(s).sum(axis=0) - n * pi
            return val, grad[1:]

        res = minimize(
            dual,
            np.zeros(k - 1),
            jac=True,
            method="L-BFGS-B",
            options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 1000},
        )
        delta = np.concatenate([[0.0], res.x])
    return _softmax(z + delta), delta


@dataclass(frozen=True)
class PlattCalibrator:
    """Platt scaling fitted on gold: logistic regression on log-odds (log-probs if K > 2)."""

    labels: tuple[str, ...]
    coef: tuple[tuple[float, ...], ...]
    intercept: tuple[float, ...]

    def apply(self, probs: Any) -> np.ndarray:
        """Calibrated probabilities for an n × K array in :attr:`labels` order."""
        z = np.log(np.clip(_as_probs(probs), _EPS, 1.0))
        if len(self.labels) == 2:
            x = (z[:, 1] - z[:, 0])[:, None]
            s = x @ np.asarray(self.coef).T + np.asarray(self.intercept)
            p1 = 1.0 / (1.0 + np.exp(-s[:, 0]))
            return np.column_stack([1.0 - p1, p1])
        return _softmax(z @ np.asarray(self.coef).T + np.asarray(self.intercept))


@dataclass(frozen=True)
class IsotonicCalibrator:
    """Isotonic regression fitted on gold (one-vs-rest and renormalised if K > 2)."""

    labels: tuple[str, ...]
    models: tuple[Any, ...] = field(repr=False)

    def apply(self, probs: Any) -> np.ndarray:
        """Calibrated probabilities for an n × K array in :attr:`labels` order."""
        p = _as_probs(probs)
        if len(self.labels) == 2:
            p1 = np.clip(self.models[0].predict(p[:, 1]), 0.0, 1.0)
            return np.column_stack([1.0 - p1, p1])
        cols = np.column_stack([m.predict(p[:, j]) for j, m in enumerate(self.models)])
        cols = np.clip(cols, 0.0, 1.0)
        total = cols.sum(axis=1, keepdims=True)
        uniform = np.full_like(cols, 1.0 / cols.shape[1])
        return np.where(total > 0, cols / np.where(total > 0, total, 1.0), uniform)


def _gold_codes(gold: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    code = {lab: i for i, lab in enumerate(labels)}
    bad = sorted({g for g in gold if g not in code})
    if bad:
        raise UsageError(f"gold labels {bad} are not among the judged labels {list(labels)}")
    y = np.array([code[g] for g in gold], dtype=np.int64)
    if len(np.unique(y)) < 2:
        raise UsageError("calibration on gold needs at least two different gold labels")
    return y


def fit_platt(probs: Any, gold: Sequence[str], labels: Sequence[str]) -> PlattCalibrator:
    """Fit Platt scaling (unpenalised logistic regression) of ``gold`` on the judge's scores.

    >>> c = fit_platt([[0.9, 0.1], [0.8, 0.2], [0.4, 0.6], [0.6, 0.4]], ["0", "0", "1", "1"],
    ...               ["0", "1"])
    >>> bool(c.apply([[0.3, 0.7]])[0, 1] > 0.5)
    True
    """
    from sklearn.linear_model import LogisticRegression

    p = _as_probs(probs)
    y = _gold_codes(gold, labels)
    z = np.log(np.clip(p, _EPS, 1.0))
    x = (z[:, 1] - z[:, 0])[:, None] if p.shape[1] == 2 else z
    model = LogisticRegression(C=1e6, max_iter=10_000).fit(x, y)
    coef = model.coef_
    intercept = model.intercept_
    if p.shape[1] > 2 and coef.shape[0] != p.shape[1]:  # a gold class never seen
        raise UsageError("calibration on gold needs every label among the gold labels")
    return PlattCalibrator(
        tuple(labels),
        tuple(tuple(float(v) for v in row) for row in coef),
        tuple(float(v) for v in intercept),
    )


def fit_isotonic(probs: Any, gold: Sequence[str], labels: Sequence[str]) -> IsotonicCalibrator:
    """Fit isotonic regression of ``gold`` on the judge's probabilities (scikit-learn).

    >>> c = fit_isotonic([[0.9, 0.1], [0.8, 0.2], [0.4, 0.6], [0.6, 0.4]], ["0", "0", "1", "1"],
    ...                  ["0", "1"])
    >>> c.apply([[0.5, 0.5]]).round(2).tolist()
    [[0.0, 1.0]]
    """
    from sklearn.isotonic import IsotonicRegression

    p = _as_probs(probs)
    y = _gold_codes(gold, labels)
    if p.shape[1] == 2:
        models: tuple[Any, ...] = (
            IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(p[:, 1], y),
        )
    else:
        models = tuple(
            IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
                p[:, j], (y == j).astype(float)
            )
            for j in range(p.shape[1])
        )
    return IsotonicCalibrator(tuple(labels), models)


def expected_calibration_error(
    probs: Any, gold: Sequence[int] | np.ndarray, *, n_bins: int = 10
) -> float:
    r"""Top-label expected calibration error (Guo et al. 2017, Eq. 3).

    .. math:: \mathrm{ECE} = \sum_{m=1}^{M} \frac{|B_m|}{n}\,
              \bigl|\mathrm{acc}(B_m) - \mathrm{conf}(B_m)\bigr|

    where the confidence of a row is its largest probability, its prediction the argmax,
    and :math:`B_m` the rows whose confidence lies in :math:`((m-1)/M, m/M]` (the first bin
    also holds 0). ``gold`` holds label indices (columns of ``probs``).

    Two rows at confidence 0.8 (one right) and one at 0.6 (right): 2/3 · |0.5 − 0.8| +
    1/3 · |1 − 0.6| = 1/3.

    >>> round(expected_calibration_error([[0.2, 0.8], [0.2, 0.8], [0.6, 0.4]], [1, 0, 0]), 6)
    0.333333
    """
    p = _as_probs(probs)
    y = np.asarray(gold, dtype=np.int64)
    if y.shape != (p.shape[0],):
        raise UsageError(f"gold must have one label index per row, got shape {y.shape}")
    if n_bins < 1:
        raise UsageError(f"the number of bins must be >= 1, got {n_bins}")
    if p.shape[0] == 0:
        return math.nan
    conf = p.max(axis=1)
    correct = (p.argmax(axis=1) == y).astype(np.float64)
    idx = np.clip(np.ceil(conf * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    total = 0.0
    for m in range(n_bins):
        sel = idx == m
        if sel.any():
            total += sel.sum() / p.shape[0] * abs(correct[sel].mean() - conf[sel].mean())
    return float(total)


@dataclass(frozen=True)
class Reliability:
    """Reliability table of an event's predicted probability: bins, ECE, and its band.

    ``bins`` rows: (lower edge, upper edge, n, mean predicted probability, observed
    frequency); empty bins are left out. ``ece_band`` is the bootstrap percentile interval
    (over examples) at ``level`` when computed, else None.
    """

    n: int
    ece: float
    bins: tuple[tuple[float, float, int, float, float], ...]
    ece_band: tuple[float, float] | None = None
    level: float | None = None

    def to_json(self) -> dict[str, Any]:
        """Return n, ECE (with its band) and the bins as mappings."""
        return {
            "n": self.n,
            "ece": self.ece,
            "ece_band": None if self.ece_band is None else list(self.ece_band),
            "level": self.level,
            "bins": [
                {"low": lo, "high": hi, "n": k, "mean_score": m, "frequency": f}
                for lo, hi, k, m, f in self.bins
            ],
        }


def _event_ece(e: np.ndarray, o: np.ndarray, n_bins: int) -> float:
    idx = np.clip(np.ceil(e * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    gap = np.bincount(idx, weights=o - e, minlength=n_bins)
    return float(np.abs(gap).sum() / len(e))


def reliability(
    scores: Any,
    outcome: Any,
    *,
    n_bins: int = 10,
    bootstrap: int = 0,
    level: float = 0.9,
    seed: int = 0,
) -> Reliability:
    r"""Reliability of the probabilities ``scores`` of a binary event that happened or not.

    ECE for one event's probability (Naeini et al. 2015; Guo et al. 2017, Eq. 3, with the
    event's probability in place of the top label's):

    .. math:: \mathrm{ECE} = \sum_m \frac{|B_m|}{n} \bigl|\bar o(B_m) - \bar e(B_m)\bigr|

    with :math:`B_m` the examples whose score lies in :math:`((m-1)/M, m/M]` (the first bin
    holds 0). ``bootstrap`` > 0 adds a percentile band of the ECE over that many seeded
    resamples of the examples. NaN scores are left out.

    Scores 0.1, 0.1, 0.8, 0.8 with outcomes 0, 1, 1, 1: bins (0, 0.1] and (0.7, 0.8],
    ECE = ½·|0.5 − 0.1| + ½·|1 − 0.8| = 0.3.

    >>> r = reliability([0.1, 0.1, 0.8, 0.8], [0, 1, 1, 1])
    >>> round(r.ece, 6), [(b[2], b[4]) for b in r.bins]
    (0.3, [(2, 0.5), (2, 1.0)])
    """
    e = np.asarray(scores, dtype=np.float64)
    o = np.asarray(outcome, dtype=np.float64)
    if e.shape != o.shape or e.ndim != 1:
        raise UsageError(
            f"scores and outcomes must be two equal 1-d arrays, got {e.shape}, {o.shape}"
        )
    if n_bins < 1:
        raise UsageError(f"the number of bins must be >= 1, got {n_bins}")
    ok = ~np.isnan(e)
    e, o = np.clip(e[ok], 0.0, 1.0), o[ok]
    n = int(e.size)
    if n == 0:
        return Reliability(0, math.nan, ())
    idx = np.clip(np.ceil(e * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    rows = []
    for m in range(n_bins):
        sel = idx == m
        if sel.any():
            rows.append(
                (
                    m / n_bins,
                    (m + 1) / n_bins,
                    int(sel.sum()),
                    float(e[sel].mean()),
                    float(o[sel].mean()),
                )
            )
    ece = _event_ece(e, o, n_bins)
    band = None
    if bootstrap > 0:
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, n, size=(bootstrap, n))
        vals = np.array([_event_ece(e[d], o[d], n_bins) for d in draws])
        a = (1.0 - level) / 2.0
        band = (float(np.quantile(vals, a)), float(np.quantile(vals, 1.0 - a)))
    return Reliability(n, ece, tuple(rows), band, level if bootstrap > 0 else None)


def fit_to_labels(
    probs: Any, labels: Sequence[str], order: Sequence[str], *, folds: int = 5, seed: int = 0
) -> np.ndarray:
    r"""Platt scaling fitted, out of fold, to the data's own (possibly wrong) labels.

    No gold needed: a logistic regression of the original label on the log-odds
    :math:`\log(p_1/p_0)` (log-probabilities for more labels), unpenalised, fitted on
    k − 1 folds and applied to the k-th (stratified, seeded), so no example's calibrated
    probability saw its own label. Wrong labels attenuate the fitted slope, but with a
    minority of errors it still spreads an under-confident judge's probabilities (offset =
    the prior shift, slope = a temperature) while keeping each fold's order.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> p1 = 1 / (1 + np.exp(-(0.6 * (2 * y - 1) + rng.normal(0, 0.5, 200))))
    >>> q = fit_to_labels(np.column_stack([1 - p1, p1]), [str(v) for v in y], ["0", "1"])
    >>> bool(np.abs(q[:, 1] - 0.5).mean() > np.abs(p1 - 0.5).mean())
    True
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    p = np.clip(_as_probs(probs), _EPS, 1.0)
    y = _gold_codes(labels, order)
    z = np.log(p)
    x = (z[:, 1] - z[:, 0])[:, None] if p.shape[1] == 2 else z
    present = np.unique(y)
    k = min(folds, int(np.bincount(y)[present].min()))
    if k < 2:
        raise UsageError("calibration on the labels needs at least 2 examples of every label")
    cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    got = cross_val_predict(
        LogisticRegression(C=1e6, max_iter=10_000), x, y, cv=cv, method="predict_proba"
    )
    out = np.zeros_like(p)
    out[:, present] = got
    return out


def label_shares(labels: Sequence[str], order: Sequence[str]) -> np.ndarray:
    """Observed share of each label in ``order`` (the prior shift's target).

    >>> label_shares(["1", "0", "1", "1"], ["0", "1"]).tolist()
    [0.25, 0.75]
    """
    counts = np.array([sum(1 for x in labels if x == lab) for lab in order], dtype=np.float64)
    if counts.sum() == 0:
        raise UsageError("no labels to take the label shares from")
    return counts / counts.sum()


#: Recorded when a prior shift is skipped (see :func:`shift_defined`).
_SKIPPED = {"skipped": "a label has share 0 in the data: no finite prior shift; not shifted"}


def shift_defined(shares: Any) -> bool:
    """Whether a prior shift to ``shares`` exists: every label's share in (0, 1).

    A label the data never uses would get probability 0 everywhere, so no example could
    be flagged toward it; calibrations that use the shift skip it instead (and say so in
    their parameters).

    >>> shift_defined([0.3, 0.7]), shift_defined([0.0, 1.0])
    (True, False)
    """
    s = np.asarray(shares, dtype=np.float64)
    return bool(((s > 0) & (s < 1)).all())


@dataclass(frozen=True)
class Calibration:
    """What a calibration did: method, scope, and its parameters per judge × prompt.

    ``params`` maps ``"judge|prompt"`` (or ``"ensemble"``) to the fitted numbers:
    content-free mean probabilities, prior offsets, Platt coefficients.
    """

    method: str
    scope: str
    labels: tuple[str, ...]
    params: Mapping[str, Mapping[str, Any]]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "method": self.method,
            "scope": self.scope,
            "labels": list(self.labels),
            "params": {k: dict(v) for k, v in self.params.items()},
        }


def _check_method(method: str) -> None:
    if method not in CALIBRATIONS:
        raise UsageError(
            f"{{calibration}} must be one of {', '.join(CALIBRATIONS)}, got {method!r}"
        )


def calibrate_members(
    judgments: pl.DataFrame,
    *,
    method: str,
    labels: Sequence[str],
    content_free: pl.DataFrame | None = None,
    observed: Sequence[str] | None = None,
    gold: Mapping[str, str] | None = None,
) -> tuple[pl.DataFrame, Calibration]:
    """Calibrate every judge × prompt's ``p_<label>`` columns of a judgments frame.

    ``content_free`` (``judge``, ``prompt``, ``p_<label>``; one row per content-free input)
    is needed by ``contextual``; ``observed`` (the data's original labels) by ``prior``;
    ``gold`` (id → reviewed label) by ``platt`` and ``isotonic``. The result has the same
    rows and columns, the ``p_`` columns replaced; ``prior`` here is the per-member shift
    (:func:`calibrate_ensemble` shifts the ensemble).
    """
    _check_method(method)
    labels = tuple(labels)
    pcols = [f"p_{lab}" for lab in labels]
    missing = [c for c in ("id", "judge", "prompt", *pcols) if c not in judgments.columns]
    if missing:
        raise UsageError(f"the judgments lack column(s) {missing}")
    if method == "none":
        return judgments, Calibration(method, "member", labels, {})
    needs_cf = method in ("contextual", "contextual+prior")
    if needs_cf and (content_free is None or content_free.height == 0):
        raise UsageError(
            "contextual calibration needs the judge's probabilities for content-free inputs; "
            "judge them with the same judges and prompts (content_free)"
        )
    target = None
    if method in ("prior", "contextual+prior"):
        if observed is None:
            raise UsageError("a prior shift needs the data's labels")
        target = label_shares([str(x) for x in observed], labels)
        if not shift_defined(target):
            target = None
            if method == "prior":
                return judgments, Calibration(method, "member", labels, {"all": _SKIPPED})
    if method in ("platt", "isotonic") and not gold:
        raise UsageError(f"{method} calibration needs reviewed gold labels ({{gold}})")
    parts: list[pl.DataFrame] = []
    params: dict[str, dict[str, Any]] = {}
    frame = judgments.with_row_index("__row__")
    for (judge, prompt), part in frame.group_by(["judge", "prompt"], maintain_order=True):
        key = f"{judge}|{prompt}"
        p = part.select(pcols).to_numpy()
        ok = ~np.isnan(p).any(axis=1)
        q = p.copy()
        info: dict[str, Any] = {}
        if needs_cf:
            assert content_free is not None
            cf = content_free.filter(
                (pl.col("judge") == judge) & (pl.col("prompt") == prompt)
            ).select(pcols)
            if cf.height == 0:
                raise UsageError(
                    f"no content-free judgments for judge {judge!r}, prompt {prompt!r}"
                )
            cfp = cf.to_numpy()
            q[ok] = contextual_calibrate(p[ok], cfp)
            info["content_free_mean"] = [float(v) for v in cfp.mean(axis=0)]
        if target is not None:
            q[ok], delta = prior_shift(q[ok], target)
            info["offset"] = [float(v) for v in delta]
        if method in ("platt", "isotonic"):
            assert gold is not None
            ids = part["id"].cast(pl.String).to_list()
            have = np.array([i in gold for i in ids]) & ok
            fit = fit_platt if method == "platt" else fit_isotonic
            cal = fit(p[have], [gold[i] for i, h in zip(ids, have, strict=True) if h], labels)
            q[ok] = cal.apply(p[ok])
            info["n_gold"] = int(have.sum())
            if isinstance(cal, PlattCalibrator):
                info["coef"] = [list(r) for r in cal.coef]
                info["intercept"] = list(cal.intercept)
        params[key] = info
        parts.append(part.with_columns(pl.Series(c, q[:, j]) for j, c in enumerate(pcols)))
    out = pl.concat(parts).sort("__row__").drop("__row__")
    return out, Calibration(method, "member", labels, params)


def calibrate_ensemble(
    ens: pl.DataFrame, *, labels: Sequence[str], observed: Sequence[str]
) -> tuple[pl.DataFrame, Calibration]:
    """Prior-shift an ensemble frame (``p_<label>`` means) to the observed label shares.

    Recomputes ``llm_label`` and ``confidence`` from the shifted probabilities (ties to
    the first label, as :func:`benchcheck.labels.ensemble.ensemble`).
    """
    labels = tuple(labels)
    pcols = [f"p_{lab}" for lab in labels]
    p = ens.select(pcols).to_numpy()
    shares = label_shares([str(x) for x in observed], labels)
    if not shift_defined(shares):
        return ens, Calibration("prior", "ensemble", labels, {"ensemble": _SKIPPED})
    q, delta = prior_shift(p, shares)
    best = q.argmax(axis=1)
    out = ens.with_columns(
        *(pl.Series(c, q[:, j]) for j, c in enumerate(pcols)),
        pl.Series("llm_label", [labels[i] for i in best], dtype=pl.String),
        pl.Series("confidence", q[np.arange(len(best)), best], dtype=pl.Float64),
    )
    return out, Calibration("prior", "ensemble", labels, {"ensemble": {"offset": delta.tolist()}})
