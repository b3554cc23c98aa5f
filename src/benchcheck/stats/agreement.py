"""Agreement between label sources: Cohen's and Fleiss' kappa, weighted-F1 matrix, crowd votes.

Arrays in, numbers out: this module imports nothing from benchcheck. Labels may be any
hashable values (strings, ints); ``None`` marks a missing label where stated.

Definitions (methods.md section 2, step 5):

* Cohen's kappa ``(p_o - p_e) / (1 - p_e)`` (scikit-learn ``cohen_kappa_score``).
* Fleiss' kappa over items × raters (statsmodels ``fleiss_kappa`` on ``aggregate_raters``):
  ``(P_bar - P_e) / (1 - P_e)``; every item needs the same number of ratings.
* Undefined kappa, one rule for both (and for every caller in benchcheck): when there are
  no items, or every rating of every item is one and the same category, chance agreement
  is already perfect (``p_e = P_e = 1``, hence ``p_o = P_bar = 1``) and kappa is 0/0. It
  is returned as ``None`` (JSON ``null``; tables print ``—``), never 1.0 and never NaN:
  perfect agreement on a single category says nothing about agreement beyond chance, and
  ``None`` cannot slip unnoticed into a mean. scikit-learn and statsmodels return NaN here.
* Weighted-F1 matrix: ``M[i][j] = f1_score(source_i, source_j, average="weighted")``,
  source ``i`` (the row) taken as the truth, on the items both sources label.
* Crowd aggregation: majority vote (ties give ``tie``); strict vote: the ``negative`` label
  if any annotator gave it, else the majority vote.
* Krippendorff's alpha over items × raters with missing answers (Krippendorff 2011,
  "Computing Krippendorff's Alpha-Reliability"): ``1 - D_o / D_e`` from the coincidence
  matrix, nominal or ordinal; ``None`` under the same undefined rule (no pairable answers,
  or a single category: ``D_e = 0``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import cohen_kappa_score, f1_score

__all__ = [
    "ALPHA_LEVELS",
    "F1Matrix",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "krippendorff_alpha_ci",
    "majority_vote",
    "percent_agreement",
    "strict_vote",
    "weighted_f1_matrix",
]


def cohen_kappa(
    a: Sequence[Hashable], b: Sequence[Hashable], *, weights: str | None = None
) -> float | None:
    """Cohen's kappa between two raters, ``(p_o - p_e) / (1 - p_e)`` (scikit-learn).

    Positions where either label is missing (``None`` or NaN) are dropped. Symmetric in
    ``a`` and ``b``; 1.0 for identical raters who use at least two categories. ``None``
    when kappa is undefined (module rule): no items left, or both raters used one and the
    same single category (``p_e = 1``).

    >>> cohen_kappa([0, 1, 1, 0], [0, 1, 0, 0])
    0.5
    >>> cohen_kappa(["x", "x"], ["x", "x"]) is None
    True
    """
    x, y = _pair(a, b)
    if len(set(x) | set(y)) < 2:
        return None
    return float(cohen_kappa_score(x, y, weights=weights))


def percent_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Share of items on which two raters give the same label.

    >>> percent_agreement([0, 1, 1, 0], [0, 1, 0, 0])
    0.75
    """
    x, y = _pair(a, b)
    if len(x) == 0:
        return math.nan
    return float(np.mean([u == v for u, v in zip(x, y, strict=True)]))


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]], *, method: str = "fleiss") -> float | None:
    """Fleiss' kappa of an items × raters table of labels (statsmodels).

    Every item must carry the same number of ratings (no ``None``). ``None`` when kappa is
    undefined (module rule): no items, or every rating of every item is the same single
    category (``P_e = 1``; statsmodels returns NaN).

    >>> round(fleiss_kappa([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 1, 0]]), 4)
    0.3333
    >>> fleiss_kappa([["x", "x"], ["x", "x"]]) is None
    True
    """
    from statsmodels.stats import inter_rater

    rows = [list(r) for r in ratings]
    if not rows:
        return None
    width = len(rows[0])
    if width < 2:
        raise ValueError("Fleiss' kappa needs at least two ratings per item")
    for i, r in enumerate(rows):
        if len(r) != width or any(v is None for v in r):
            raise ValueError(f"item {i} has {len(r)} ratings or a missing one; expected {width}")
    cats = sorted({v for r in rows for v in r}, key=repr)
    if len(cats) == 1:
        return None
    code = {c: i for i, c in enumerate(cats)}
    coded = np.array([[code[v] for v in r] for r in rows])
    table, _ = inter_rater.aggregate_raters(coded, n_cat=len(cats))
    return float(inter_rater.fleiss_kappa(table, method=method))


def majority_vote(
    ratings: Sequence[Sequence[Hashable | None]], *, tie: Hashable | None = None
) -> list[Hashable | None]:
    """Most frequent label per item (``None`` ratings ignored); ``tie`` on a tie or no rating.

    >>> majority_vote([[1, 1, 0], [0, 1], []], tie="?")
    [1, '?', '?']
    """
    out: list[Hashable | None] = []
    for r in ratings:
        counts = Counter(v for v in r if v is not None).most_common()
        if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
            out.append(tie)
        else:
            out.append(counts[0][0])
    return out


def strict_vote(
    ratings: Sequence[Sequence[Hashable | None]],
    *,
    negative: Hashable,
    tie: Hashable | None = None,
) -> list[Hashable | None]:
    """``negative`` where any annotator gave it (e.g. "inconsistent"), else the majority vote.

    >>> strict_vote([[1, 1, 0], [1, 1], []], negative=0)
    [0, 1, None]
    """
    majority = majority_vote(ratings, tie=tie)
    return [negative if negative in r else m for r, m in zip(ratings, majority, strict=True)]


@dataclass(frozen=True)
class F1Matrix:
    """Pairwise weighted-F1 between label sources; ``values[i][j]`` takes source ``i`` as truth.

    ``counts[i][j]`` is the number of items both sources label.
    """

    names: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]
    counts: tuple[tuple[int, ...], ...]

    def to_dict(self) -> dict[str, object]:
        """Nested mapping ``{truth: {other: f1}}`` plus the counts."""
        names = self.names

        def nest(rows: tuple[tuple[object, ...], ...]) -> dict[str, dict[str, object]]:
            return {a: dict(zip(names, r, strict=True)) for a, r in zip(names, rows, strict=True)}

        return {"names": list(self.names), "f1": nest(self.values), "n": nest(self.counts)}


def weighted_f1_matrix(sources: Mapping[str, Sequence[Hashable | None]]) -> F1Matrix:
    """Weighted-F1 of every source against every other (rows = truth), on shared items.

    All sources are aligned by position; ``None`` marks an item a source does not label.

    >>> m = weighted_f1_matrix({"a": [0, 1, 1, 0], "b": [0, 1, 0, 0]})
    >>> m.values[0][0], round(m.values[0][1], 4), round(m.values[1][0], 4)
    (1.0, 0.7333, 0.7667)
    """
    names = tuple(sources)
    cols = [list(sources[n]) for n in names]
    lengths = {len(c) for c in cols}
    if len(lengths) > 1:
        shown = {n: len(c) for n, c in zip(names, cols, strict=True)}
        raise ValueError(f"sources differ in length: {shown}")
    values: list[tuple[float, ...]] = []
    counts: list[tuple[int, ...]] = []
    for truth in cols:
        row_v: list[float] = []
        row_n: list[int] = []
        for other in cols:
            t, p = _pair(truth, other)
            row_n.append(len(t))
            if not t:
                row_v.append(math.nan)
                continue
            labels = sorted(set(t) | set(p), key=repr)
            code = {c: i for i, c in enumerate(labels)}
            row_v.append(
                float(
                    f1_score(
                        [code[v] for v in t],
                        [code[v] for v in p],
                        average="weighted",
                        zero_division=0,
                    )
                )
            )
        values.append(tuple(row_v))
        counts.append(tuple(row_n))
    return F1Matrix(names, tuple(values), tuple(counts))


def _pair(a: Sequence[Hashable | None], b: Sequence[Hashable | None]) -> tuple[list, list]:
    """Align two label sequences and drop positions where either is missing."""
    if len(a) != len(b):
        raise ValueError(f"the two raters label different numbers of items ({len(a)} vs {len(b)})")
    keep = [(u, v) for u, v in zip(a, b, strict=True) if not _missing(u) and not _missing(v)]
    return [u for u, _ in keep], [v for _, v in keep]


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


#: Levels of measurement :func:`krippendorff_alpha` supports.
ALPHA_LEVELS = ("nominal", "ordinal")


def krippendorff_alpha(
    ratings: Sequence[Sequence[Hashable | None]],
    *,
    level: str = "nominal",
    order: Sequence[Hashable] | None = None,
) -> float | None:
    r"""Krippendorff's alpha of items × raters, missing answers allowed (``None`` or NaN).

    Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: the
    coincidence matrix :math:`o_{ck} = \sum_u \frac{1}{m_u - 1} \#\{(i, j), i \ne j:
    c_{ui} = c, c_{uj} = k\}` over the units with at least two answers (:math:`m_u` of
    them), :math:`n_c = \sum_k o_{ck}`, :math:`n = \sum_c n_c`, and

    .. math:: \alpha = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\,\delta^2_{ck}}
              {\sum_{c,k} n_c n_k\,\delta^2_{ck}}

    with :math:`\delta^2_{ck} = [c \ne k]` (nominal) or :math:`(\sum_{g=c}^{k} n_g -
    (n_c + n_k)/2)^2` (ordinal, categories ranked by ``order``, else by numeric value).
    Rows may differ in length (each row: one item's answers). ``None`` when alpha is
    undefined (module rule): no item with two answers, or one single category (``D_e = 0``).

    Written here rather than imported: the ``krippendorff`` package is GPL-3.0, benchcheck
    is MIT; the tests check this function against that package and the paper's example.

    >>> round(krippendorff_alpha([[1, 1, None], [2, 2, 2], [1, 2, 1], [3, 3]]), 4)
    0.7188
    >>> krippendorff_alpha([["x", "x"], ["x", None]]) is None
    True
    """
    counts, _ = _unit_counts(ratings, level=level, order=order)
    if counts.shape[0] == 0:
        return None
    value = _alpha_batch(counts, np.ones((1, counts.shape[0])), level)[0]
    return None if math.isnan(value) else float(value)


def krippendorff_alpha_ci(
    ratings: Sequence[Sequence[Hashable | None]],
    *,
    level: str = "nominal",
    order: Sequence[Hashable] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of :func:`krippendorff_alpha`, items resampled.

    Items with at least two answers are drawn with replacement (``numpy.random.default_rng
    (seed)``, ``n_resamples`` times); a resample where alpha is undefined (one category
    left) is dropped. Krippendorff's own bootstrap (Hayes & Krippendorff 2007) resamples
    pairs of values instead; resampling items keeps each item's answers together, as every
    other interval in benchcheck does. ``None`` when alpha itself is undefined.

    >>> lo, hi = krippendorff_alpha_ci([[1, 1], [2, 2], [1, 2], [2, 2], [1, 1]], seed=0)
    >>> bool(lo <= krippendorff_alpha([[1, 1], [2, 2], [1, 2], [2, 2], [1, 1]]) <= hi)
    True
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    counts, _ = _unit_counts(ratings, level=level, order=order)
    units = counts.shape[0]
    if units == 0 or math.isnan(_alpha_batch(counts, np.ones((1, units)), level)[0]):
        return None
    rng = np.random.default_rng(seed)
    values: list[np.ndarray] = []
    batch = max(1, min(n_resamples, 2_000_000 // max(units, 1)))
    done = 0
    while done < n_resamples:
        size = min(batch, n_resamples - done)
        draws = rng.integers(0, units, size=(size, units))
        weights = np.stack([np.bincount(d, minlength=units) for d in draws]).astype(float)
        values.append(_alpha_batch(counts, weights, level))
        done += size
    alphas = np.concatenate(values)
    alphas = alphas[~np.isnan(alphas)]
    if alphas.size == 0:
        return None
    tail = (1 - confidence) / 2
    low, high = np.quantile(alphas, [tail, 1 - tail])
    return float(low), float(high)


def _unit_counts(
    ratings: Sequence[Sequence[Hashable | None]],
    *,
    level: str,
    order: Sequence[Hashable] | None,
) -> tuple[np.ndarray, list[Hashable]]:
    """Items × categories answer counts of the pairable items (two answers or more)."""
    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {list(ALPHA_LEVELS)}, got {level!r}")
    rows = [[v for v in r if not _missing(v)] for r in ratings]
    rows = [r for r in rows if len(r) >= 2]
    seen = {v for r in rows for v in r}
    if order is not None:
        cats = list(order)
        unknown = seen - set(cats)
        if unknown:
            raise ValueError(f"answers {sorted(map(str, unknown))} are not in the order given")
    elif level == "ordinal":
        try:
            cats = sorted(seen, key=lambda v: float(v))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(
                "ordinal alpha needs numeric categories or their order, got "
                f"{sorted(map(str, seen))[:5]}"
            ) from None
    else:
        cats = sorted(seen, key=repr)
    code = {c: i for i, c in enumerate(cats)}
    counts = np.zeros((len(rows), len(cats)))
    for u, r in enumerate(rows):
        for v in r:
            counts[u, code[v]] += 1
    return counts, cats


def _alpha_batch(counts: np.ndarray, weights: np.ndarray, level: str) -> np.ndarray:
    """Alpha for each row of ``weights`` (how often each item counts); NaN where undefined."""
    m = counts.sum(axis=1)
    k = counts.shape[1]
    # per item: (n_u n_u^T - diag(n_u)) / (m_u - 1), flattened; o = weights @ that
    per = (counts[:, :, None] * counts[:, None, :]) - np.einsum("uc,ck->uck", counts, np.eye(k))
    per = (per / (m - 1)[:, None, None]).reshape(len(counts), k * k)
    o = (weights @ per).reshape(-1, k, k)
    n_c = o.sum(axis=2)
    n = n_c.sum(axis=1)
    if level == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(k), o.shape)
    else:
        cum = np.cumsum(n_c, axis=1)
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        before = np.where(lo > 0, cum[:, np.maximum(lo - 1, 0)], 0.0)
        between = cum[:, hi] - before
        delta = (between - (n_c[:, :, None] + n_c[:, None, :]) / 2) ** 2
    observed = (o * delta).sum(axis=(1, 2))
    expected = (n_c[:, :, None] * n_c[:, None, :] * delta).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (n - 1) * observed / expected
    return np.where(expected > 0, alpha, np.nan)
