"""Score models on a diagnostic suite: R_K overall, per coarse category and per fine tag.

Each number comes with its count of examples, its confusion matrix (rows gold, columns
predicted, in the suite's label order) and a seeded percentile-bootstrap interval over
examples. Several models are ranked within each category with a paired bootstrap test
(the same resampled examples for every model). Numbers compare models within one category
or tag, never categories with each other (methods.md section 3).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchcheck.diagnostics.suite import DiagnosticSuite
from benchcheck.errors import UsageError
from benchcheck.stats.correlation import rk_from_confusion, rk_from_confusions
from benchcheck.stats.intervals import percentile_test

__all__ = [
    "NOT_COMPARABLE_NOTE",
    "Cell",
    "DiagnosisResult",
    "ModelDiagnosis",
    "PairedTest",
    "diagnose_suite",
    "rk_cell",
]

NOT_COMPARABLE_NOTE = (
    "R_K compares models within one category or tag. Categories differ in size, label mix "
    "and difficulty, and examples carry several tags, so never compare a number in one "
    "category with a number in another."
)


@dataclass(frozen=True)
class Cell:
    """R_K of one model on one group of examples."""

    r_k: float | None
    n: int
    ci: tuple[float | None, float | None]
    confusion: tuple[tuple[int, ...], ...]
    accuracy: float | None

    def to_json(self) -> dict[str, Any]:
        """``{"r_k", "n", "ci": [low, high], "confusion", "accuracy"}``."""
        return {
            "r_k": self.r_k,
            "n": self.n,
            "ci": list(self.ci),
            "confusion": [list(r) for r in self.confusion],
            "accuracy": self.accuracy,
        }


@dataclass(frozen=True)
class PairedTest:
    """Paired bootstrap comparison of two models on one group: diff = R_K(a) − R_K(b)."""

    a: str
    b: str
    diff: float
    ci: tuple[float, float]
    p_value: float

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "a": self.a,
            "b": self.b,
            "diff": self.diff,
            "ci": list(self.ci),
            "p_value": self.p_value,
        }


@dataclass(frozen=True)
class ModelDiagnosis:
    """One model's scores: overall, per coarse category, per fine tag, plus direction checks."""

    name: str
    overall: Cell
    coarse: Mapping[str, Cell]
    fine: Mapping[str, Cell]
    directions: Mapping[str, Any]
    monotonicity: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """Return the ``models.<name>`` object of the JSON contract."""
        return {
            "overall": self.overall.to_json(),
            "coarse": {k: v.to_json() for k, v in self.coarse.items()},
            "fine": {k: v.to_json() for k, v in self.fine.items()},
            "directions": dict(self.directions),
            "monotonicity": dict(self.monotonicity),
        }


@dataclass(frozen=True)
class DiagnosisResult:
    """Scores of one or more models on a suite; ``to_json()`` is the canonical output."""

    suite: Mapping[str, Any]
    labels: tuple[str, ...]
    models: Mapping[str, ModelDiagnosis]
    rankings: Mapping[str, Mapping[str, Any]]
    seed: int
    n_resamples: int
    confidence: float
    note: str = NOT_COMPARABLE_NOTE
    prediction_notes: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def __repr__(self) -> str:
        """One line: the models and the suite's size (``to_json()`` has the scores)."""
        return f"<DiagnosisResult: models {', '.join(self.models)}; .models, .to_json()>"

    def to_json(self) -> dict[str, Any]:
        """``{"kind": "diagnose", "models": {name: {overall, coarse, fine, ...}}, ...}``."""
        return {
            "kind": "diagnose",
            "suite": dict(self.suite),
            "labels": list(self.labels),
            "note": self.note,
            "seed": self.seed,
            "n_resamples": self.n_resamples,
            "confidence": self.confidence,
            "models": {k: v.to_json() for k, v in self.models.items()},
            "rankings": {g: dict(v) for g, v in self.rankings.items()},
            "prediction_notes": {k: list(v) for k, v in self.prediction_notes.items()},
        }


def _rng(seed: int, key: str) -> np.random.Generator:
    """One generator per group, so every model sees the same resampled examples."""
    return np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])


def _boot_confusions(codes: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    """Confusion matrices of bootstrap resamples: codes = gold·K + pred; idx (B, n)."""
    b = idx.shape[0]
    flat = codes[idx] + (k * k) * np.arange(b)[:, None]
    return np.bincount(flat.ravel(), minlength=b * k * k).reshape(b, k, k)


def _quantiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    alpha = 1.0 - confidence
    lo, hi = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def _accuracy(gold: np.ndarray, pred: np.ndarray) -> float | None:
    return float(np.mean(gold == pred)) if gold.size else None


def rk_cell(
    gold: Sequence[str],
    pred: Sequence[str],
    labels: Sequence[str],
    *,
    seed: int = 0,
    key: str = "overall",
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> Cell:
    """R_K of one label sequence against gold, with its seeded percentile-bootstrap interval.

    >>> cell = rk_cell(["a", "b", "a", "b"], ["a", "b", "a", "a"], ["a", "b"], n_resamples=50)
    >>> round(cell.r_k, 4), cell.n, cell.confusion
    (0.5774, 4, ((2, 0), (1, 1)))
    """
    index = {lab: i for i, lab in enumerate(labels)}
    g = np.array([index[x] for x in gold], dtype=np.int64)
    q = np.array([index[x] for x in pred], dtype=np.int64)
    idx = _rng(seed, key).integers(0, g.size, size=(n_resamples, g.size)) if g.size else None
    return _cell(g, q, len(labels), idx, confidence)[0]


def _cell(
    g: np.ndarray, q: np.ndarray, k: int, idx: np.ndarray | None, confidence: float
) -> tuple[Cell, np.ndarray | None]:
    """Cell of gold codes ``g`` vs predicted ``q`` and its bootstrap R_K values (resamples idx)."""
    conf = np.zeros((k, k), dtype=np.int64)
    np.add.at(conf, (g, q), 1)
    confusion = tuple(map(tuple, conf.tolist()))
    if idx is None:
        return Cell(None, 0, (None, None), confusion, None), None
    boot = rk_from_confusions(_boot_confusions(g * k + q, idx, k))
    cell = Cell(
        rk_from_confusion(conf),
        int(g.size),
        _quantiles(boot, confidence),
        confusion,
        _accuracy(g, q),
    )
    return cell, boot


def diagnose_suite(
    suite: DiagnosticSuite,
    predictions: Mapping[str, Mapping[str, str]],
    *,
    seed: int = 0,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    prediction_notes: Mapping[str, Sequence[str]] | None = None,
) -> DiagnosisResult:
    """Score each model's predictions (``{model: {example id: label}}``) on ``suite``.

    R_K is computed from each group's confusion matrix (:func:`rk_from_confusion`; equal to
    scikit-learn's ``matthews_corrcoef``). Intervals: percentile bootstrap over the group's
    examples, ``n_resamples`` resamples from a generator seeded by ``seed`` and the group
    name. Paired test: the same resamples for both models; two-sided
    p = min(1, 2·min(P*(d ≤ 0), P*(d ≥ 0))) for the resampled differences d.
    """
    if not predictions:
        raise UsageError("give at least one model's predictions")
    if not 0 < confidence < 1:
        raise UsageError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise UsageError(f"n_resamples must be at least 1, got {n_resamples}")
    labels = list(suite.label_names)
    k = len(labels)
    index = {lab: i for i, lab in enumerate(labels)}
    ids = suite.ids
    gold = np.array([index[g] for g in suite.table["label"].to_list()], dtype=np.int64)
    preds: dict[str, np.ndarray] = {}
    for name, mapping in predictions.items():
        missing = [i for i in ids if i not in mapping]
        if missing:
            raise UsageError(
                f"model {name!r} has no prediction for {len(missing)} example(s), "
                f"e.g. {missing[:3]}"
            )
        bad = sorted({str(mapping[i]) for i in ids} - set(labels))
        if bad:
            raise UsageError(f"model {name!r} predicts labels outside {labels}: {bad}")
        preds[name] = np.array([index[mapping[i]] for i in ids], dtype=np.int64)

    groups: list[tuple[str, str, np.ndarray]] = [("overall", "overall", np.arange(len(ids)))]
    coarse_lists = suite.table["coarse"].to_list()
    fine_lists = suite.table["fine"].to_list()
    for c in suite.coarse_names():
        groups.append(
            (
                "coarse",
                c,
                np.array([i for i, r in enumerate(coarse_lists) if c in r], dtype=np.int64),
            )
        )
    for t in suite.fine_names():
        groups.append(
            ("fine", t, np.array([i for i, r in enumerate(fine_lists) if t in r], dtype=np.int64))
        )

    cells: dict[str, dict[str, dict[str, Cell]]] = {
        m: {"overall": {}, "coarse": {}, "fine": {}} for m in preds
    }
    rankings: dict[str, dict[str, Any]] = {"overall": {}, "coarse": {}, "fine": {}}
    for group, key, rows in groups:
        n = int(rows.size)
        boot: dict[str, np.ndarray] = {}
        idx = _rng(seed, f"{group}/{key}").integers(0, n, size=(n_resamples, n)) if n else None
        for model, p in preds.items():
            cell, values = _cell(gold[rows], p[rows], k, idx, confidence)
            if values is not None:
                boot[model] = values
            cells[model][group][key] = cell
        if len(preds) > 1:
            rankings[group][key] = _rank(group, key, cells, boot, confidence)

    direction = np.array([d or "" for d in suite.table["direction"].to_list()])
    fine_rows = {key: rows for group, key, rows in groups if group == "fine"}
    models = {
        m: ModelDiagnosis(
            name=m,
            overall=cells[m]["overall"]["overall"],
            coarse=cells[m]["coarse"],
            fine=cells[m]["fine"],
            directions=_directions(direction, fine_rows, gold, preds[m]),
            monotonicity=_monotonicity(suite, gold, preds[m], labels),
        )
        for m in preds
    }
    if len(preds) > 1:
        rankings["overall"] = rankings["overall"]["overall"]
    else:
        rankings = {}
    return DiagnosisResult(
        suite=suite.summary(),
        labels=tuple(labels),
        models=models,
        rankings=rankings,
        seed=seed,
        n_resamples=n_resamples,
        confidence=confidence,
        prediction_notes=dict(prediction_notes or {}),
    )


def _rank(
    group: str,
    key: str,
    cells: Mapping[str, Mapping[str, Mapping[str, Cell]]],
    boot: Mapping[str, np.ndarray],
    confidence: float,
) -> dict[str, Any]:
    scores = {m: cells[m][group][key].r_k for m in cells}
    order = sorted(scores, key=lambda m: (-(scores[m] or 0.0), m))
    tests = []
    if boot:
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                ci, p = percentile_test(boot[a] - boot[b], confidence)
                diff = float((scores[a] or 0.0) - (scores[b] or 0.0))
                tests.append(PairedTest(a, b, diff, ci, p).to_json())
    return {"order": order, "r_k": scores, "paired_tests": tests}


def _directions(
    direction: np.ndarray,
    fine_rows: Mapping[str, np.ndarray],
    gold: np.ndarray,
    pred: np.ndarray,
) -> dict[str, Any]:
    """Forward vs backward accuracy, overall and per fine tag (directions known only)."""

    def one(mask: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for d in ("forward", "backward"):
            m = mask & (direction == d)
            out[d] = {"accuracy": _accuracy(gold[m], pred[m]), "n": int(m.sum())}
        f, b = out["forward"]["accuracy"], out["backward"]["accuracy"]
        out["gap"] = None if f is None or b is None else f - b
        return out

    def rows_mask(rows: np.ndarray) -> np.ndarray:
        mask = np.zeros(len(direction), dtype=bool)
        mask[rows] = True
        return mask

    everything = np.ones(len(direction), dtype=bool)
    per_tag = {t: one(rows_mask(rows)) for t, rows in fine_rows.items()}
    return {"overall": one(everything), "fine": per_tag}


def _monotonicity(
    suite: DiagnosticSuite, gold: np.ndarray, pred: np.ndarray, labels: Sequence[str]
) -> dict[str, Any]:
    """Check the downward-monotone shortcut.

    In a downward-monotone context the entailment runs general → specific ("No animals
    bark" ⊨ "No dogs bark"), so within a Downward Monotone pair whose one direction is
    entailment, the other direction is the specific → general one. A model that applies
    the upward-monotone shortcut (specific ⊨ general) predicts entailment there. We report
    that rate beside the model's rate of predicting entailment on every other
    non-entailment example (its base false-entailment rate).
    """
    tag = suite.taxonomy.canonical("Downward Monotone")
    if tag is None or "entailment" not in labels:
        return {"applies": False, "reason": "needs the NLI labels and a 'Downward Monotone' tag"}
    ent = list(labels).index("entailment")
    tab = suite.table
    pair = tab["pair_id"].to_list()
    fine_lists = tab["fine"].to_list()
    gold_by_pair: dict[str, list[int]] = {}
    for i, p in enumerate(pair):
        gold_by_pair.setdefault(p, []).append(i)
    items = []
    for i, p in enumerate(pair):
        if tag not in fine_lists[i] or gold[i] == ent:
            continue
        others = [j for j in gold_by_pair[p] if j != i]
        if others and all(gold[j] == ent for j in others):
            items.append(i)
    item_set = set(items)
    rest = [i for i in range(len(gold)) if gold[i] != ent and i not in item_set]
    rate = float(np.mean(pred[items] == ent)) if items else None
    base = float(np.mean(pred[rest] == ent)) if rest else None
    return {
        "applies": bool(items),
        "tag": tag,
        "n": len(items),
        "entailment_rate": rate,
        "base_false_entailment_rate": base,
        "n_base": len(rest),
        "ids": [suite.ids[i] for i in items],
        "reading": _mono_reading(rate, base, len(items)),
    }


def _mono_reading(rate: float | None, base: float | None, n: int) -> str:
    if rate is None:
        return "no Downward Monotone pair is entailed in exactly one direction"
    head = f"predicts entailment on {rate:.0%} of {n} specific→general downward-monotone items"
    if base is None:
        return head
    head += f" vs {base:.0%} on other non-entailment examples"
    if rate > base:
        return head + ": higher, as the upward-monotone shortcut would make it"
    return head + ": no sign of the upward-monotone shortcut"
