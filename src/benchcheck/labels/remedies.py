"""Consequences of label errors: cleaned training splits and models re-ranked on gold labels.

Methods.md section 2, steps 6–7.

*Remedies*: filter (drop) or flip (set to the LLM label) the flagged training examples whose
confidence is at least the threshold; as the ablation, do the same to as many examples drawn
at random (seeded) from the whole split. A random flip sets a binary label to the other
label, and a multi-class label to one of the other labels drawn at random. The input file is
never modified; the splits are written to a new folder.

*Re-ranking*: each model's ROC AUC, F1 and accuracy on the original and on the gold labels,
its rank under each (1 = best; ties share the better rank), the rank change
(``rank_original - rank_gold``: positive = moved up on gold) and, for every pair of models, a
paired bootstrap of the metric difference on gold labels.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from sklearn.metrics import roc_auc_score

from benchcheck._progress import Progress, step
from benchcheck.data.ids import check_join, refuse_duplicates
from benchcheck.data.scores import ModelScores
from benchcheck.errors import InputError, UsageError
from benchcheck.stats.intervals import paired_bootstrap

__all__ = [
    "METRICS",
    "ModelScores",
    "RemedyResult",
    "RerankResult",
    "apply_remedy",
    "rank_of",
    "rerank",
]

MODES = ("filter", "flip")


@dataclass(frozen=True)
class RemedyResult:
    """What :func:`apply_remedy` changed and wrote."""

    mode: str
    threshold: float
    seed: int
    n: int
    n_selected: int
    selected_ids: tuple[str, ...]
    ablation_ids: tuple[str, ...]
    files: dict[str, str]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "mode": self.mode,
            "threshold": self.threshold,
            "seed": self.seed,
            "n": self.n,
            "n_selected": self.n_selected,
            "selected_ids": list(self.selected_ids),
            "ablation_ids": list(self.ablation_ids),
            "files": dict(self.files),
        }

    def to_json(self) -> dict[str, object]:
        """Return the canonical JSON of ``benchcheck remedy --json``."""
        return self.to_dict()


def apply_remedy(
    rows: pl.DataFrame,
    flags: pl.DataFrame,
    *,
    label_col: str = "label",
    id_col: str | None = None,
    mode: str = "filter",
    min_confidence: float = 0.9,
    seed: int = 0,
    labels: Sequence[str] | None = None,
    source: str | Path | None = None,
    flags_source: str | Path | None = None,
) -> dict[str, pl.DataFrame]:
    """Build the ``cleaned`` and ``ablation_random`` splits of ``rows`` (columns as read).

    ``flags`` is a flags frame (:func:`~benchcheck.labels.detectors.detect`, ``benchcheck
    flag -o``: ``id``, ``llm_label``, ``confidence``, ``disagree``); the disagreements whose
    confidence is at least ``min_confidence`` are filtered or flipped. ``rows`` keeps its
    own columns and types.
    Rows are matched on ``id_col`` (or the 0-based row number, as the reader numbers them).
    Ids must be unique on both sides and join (:func:`benchcheck.data.ids.check_join`);
    ``source``/``flags_source`` name the two files in errors. Returns
    ``{"cleaned": ..., "ablation_random": ...}`` plus the selected ids in ``"_selected"`` /
    ``"_ablation"`` single-column frames.
    """
    if mode not in MODES:
        raise UsageError(f"{{mode}} must be one of {MODES}, got {mode!r}")
    if not 0 <= min_confidence <= 1:
        raise UsageError(f"{{min_confidence}} must be in [0, 1], got {min_confidence}")
    if label_col not in rows.columns:
        raise InputError(f"no label column {label_col!r}; the data has {rows.columns}")
    lines = rows["__line__"].to_list() if "__line__" in rows.columns else None
    rows = rows.drop([c for c in ("__line__",) if c in rows.columns])
    if id_col is not None:
        if id_col not in rows.columns:
            raise InputError(f"no id column {id_col!r}; the data has {rows.columns}", path=source)
        ids = rows[id_col].cast(pl.String).to_list()
    elif "id" in rows.columns:
        ids = rows["id"].cast(pl.String).to_list()
    else:
        ids = [str(i) for i in range(rows.height)]
    refuse_duplicates(ids, path=source, lines=lines)
    flag_ids = flags["id"].cast(pl.String).to_list()
    flag_lines = flags["__line__"].to_list() if "__line__" in flags.columns else None
    refuse_duplicates(flag_ids, path=flags_source, lines=flag_lines)
    check_join(ids, flag_ids, left_name="the data", right_name="the flags", path=flags_source)
    sel = flags.filter(pl.col("disagree") & (pl.col("confidence") >= min_confidence))
    llm_of = dict(zip(sel["id"].to_list(), sel["llm_label"].to_list(), strict=True))
    selected = np.array([i in llm_of for i in ids])
    k = int(selected.sum())
    rng = np.random.default_rng(seed)
    ablation = np.zeros(len(ids), dtype=bool)
    ablation[rng.choice(len(ids), size=k, replace=False)] = True
    dtype = rows[label_col].dtype
    as_str = rows[label_col].cast(pl.String).to_list()
    label_set = list(labels) if labels else sorted({v for v in as_str if v is not None})
    if mode == "filter":
        cleaned = rows.filter(pl.Series(~selected))
        ablated = rows.filter(pl.Series(~ablation))
    else:
        new = [llm_of[i] if s else v for i, s, v in zip(ids, selected, as_str, strict=True)]
        cleaned = rows.with_columns(_cast_back(new, label_col, dtype))
        flipped = []
        for v, a in zip(as_str, ablation, strict=True):
            if a:
                others = [lab for lab in label_set if lab != v]
                if not others:
                    raise UsageError("cannot flip: the split has a single label")
                v = others[0] if len(others) == 1 else others[int(rng.integers(len(others)))]
            flipped.append(v)
        ablated = rows.with_columns(_cast_back(flipped, label_col, dtype))
    return {
        "cleaned": cleaned,
        "ablation_random": ablated,
        "_selected": pl.DataFrame({"id": [i for i, s in zip(ids, selected, strict=True) if s]}),
        "_ablation": pl.DataFrame({"id": [i for i, a in zip(ids, ablation, strict=True) if a]}),
    }


def _cast_back(values: list[str | None], name: str, dtype: pl.DataType) -> pl.Series:
    s = pl.Series(name, values, dtype=pl.String)
    try:
        return s.cast(dtype)
    except pl.exceptions.PolarsError:
        return s


def remedy_file_names(source: str | Path) -> tuple[str, str]:
    """Name the files :func:`write_remedy` writes for ``source``: cleaned, ablation.

    >>> remedy_file_names("train.csv")
    ('cleaned.csv', 'ablation_random.csv')
    """
    suffix = Path(source).suffix.lower() or ".jsonl"
    return f"cleaned{suffix}", f"ablation_random{suffix}"


# ----------------------------------------------------------------------------- re-ranking


def _roc_auc(t: np.ndarray, s: np.ndarray, pos: str) -> float:
    y = t == pos
    if y.all() or (~y).all():
        return math.nan
    return float(roc_auc_score(y, s))


def _f1(t: np.ndarray, p: np.ndarray, pos: str) -> float:
    """F1 of ``pos``: ``2 TP / (|true pos| + |predicted pos|)``, 0 when both are empty.

    The same division as scikit-learn's ``f1_score(zero_division=0)`` (the same float),
    without its input checks: the paired bootstrap calls it 2,000 times per pair, and at
    30,000 items the checks took 27 ms a call.
    """
    yt, yp = t == pos, p == pos
    denom = int(np.count_nonzero(yt)) + int(np.count_nonzero(yp))
    return 2.0 * int(np.count_nonzero(yt & yp)) / denom if denom else 0.0


def _acc(t: np.ndarray, p: np.ndarray, pos: str) -> float:
    """Accuracy ``mean(t == p)`` (as scikit-learn's ``accuracy_score``, without its checks)."""
    return float(np.mean(t == p))


#: Metric name → (function(truth, output, positive label), needs the score column).
METRICS = {"roc_auc": (_roc_auc, True), "f1": (_f1, False), "accuracy": (_acc, False)}


@dataclass(frozen=True)
class RerankResult:
    """Per-model metrics on original and gold labels, ranks, and pairwise paired bootstraps."""

    n: int
    positive: str
    models: dict[str, dict[str, dict[str, float]]]
    ranks: dict[str, dict[str, dict[str, int]]]
    pairwise: list[dict[str, object]]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "n": self.n,
            "positive": self.positive,
            "models": self.models,
            "ranks": self.ranks,
            "pairwise": self.pairwise,
        }

    def to_json(self) -> dict[str, object]:
        """Return the canonical JSON of ``benchcheck rerank --json``."""
        return self.to_dict()


def rank_of(values: Mapping[str, float]) -> dict[str, int]:
    """Rank models by score: 1 = best (highest); ties share the better rank; NaN ranks last.

    The one ranking rule of :func:`rerank` and of the noise-aware ranking
    (:func:`benchcheck.items.noise.rank_under_noise`).

    >>> rank_of({"a": 0.9, "b": 0.7, "c": 0.9, "d": float("nan")})
    {'a': 1, 'b': 3, 'c': 1, 'd': 4}
    """
    clean = {k: (-math.inf if math.isnan(v) else v) for k, v in values.items()}
    return {k: 1 + sum(1 for w in clean.values() if w > v) for k, v in clean.items()}


def rerank(
    ids: Sequence[str],
    original: Sequence[str],
    gold: Sequence[str],
    models: Sequence[ModelScores],
    *,
    positive: str = "1",
    threshold: float = 0.5,
    n_resamples: int = 1000,
    seed: int = 0,
    source: str | Path | None = None,
    progress: Progress | None = None,
) -> RerankResult:
    """Score each model on original and gold labels, rank, and bootstrap pairwise differences.

    Predictions are the ``pred`` column, else ``score > threshold`` mapped to the positive
    label and, for binary data, the other label. ROC AUC needs ``score``. Refused with
    :class:`InputError`: duplicate ids (in the gold ids, whose file is ``source``, or a
    model's), a model without an output for some gold id, a score outside [0, 1] (or NaN),
    a prediction that is not one of the original or gold labels. ``progress`` is told each
    pair's bootstrap and counts its resamples.
    """
    ids = list(ids)
    refuse_duplicates(ids, path=source)
    labels = sorted(set(original) | set(gold))
    negative = [lab for lab in labels if lab != positive]
    t_orig, t_gold = np.asarray(original), np.asarray(gold)
    outputs: dict[str, dict[str, np.ndarray]] = {}
    for m in models:
        refuse_duplicates(m.ids, path=m.source, lines=m.lines)
        check_join(
            ids,
            m.ids,
            left_name="the gold file",
            left_file=source,
            right_name=f"the outputs of model {m.name!r}",
            path=m.source,
            left_unmatched=0.0,
            right_unmatched=1.0,
        )
        index = {i: k for k, i in enumerate(m.ids)}
        pos = [index[i] for i in ids]
        out: dict[str, np.ndarray] = {}
        if m.score is not None:
            scores = np.asarray(m.score, dtype=float)
            bad = ~np.isfinite(scores) | (scores < 0) | (scores > 1)
            if bad.any():
                k = int(np.argmax(bad))
                raise InputError(
                    f"model {m.name!r}: a score is P(positive), a number in [0, 1]",
                    path=m.source,
                    line=None if m.lines is None else m.lines[k],
                    got=float(scores[k]),
                )
            out["score"] = scores[pos]
        if m.pred is not None:
            known = set(labels)
            for k in pos:
                if m.pred[k] not in known:
                    raise InputError(
                        f"model {m.name!r}: prediction is not one of the labels {labels}",
                        path=m.source,
                        line=None if m.lines is None else m.lines[k],
                        got=m.pred[k],
                    )
            out["pred"] = np.asarray(m.pred, dtype=object)[pos].astype(str)
        elif m.score is not None:
            if len(negative) != 1:
                raise UsageError(f"model {m.name!r}: give a 'pred' column for non-binary labels")
            out["pred"] = np.where(out["score"] > threshold, positive, negative[0])
        outputs[m.name] = out
    table: dict[str, dict[str, dict[str, float]]] = {}
    for name, out in outputs.items():
        table[name] = {}
        for metric, (fn, needs_score) in METRICS.items():
            if needs_score and "score" not in out:
                continue
            x = out["score"] if needs_score else out["pred"]
            table[name][metric] = {
                "original": fn(t_orig, x, positive),
                "gold": fn(t_gold, x, positive),
            }
    ranks: dict[str, dict[str, dict[str, int]]] = {n: {} for n in outputs}
    pairwise: list[dict[str, object]] = []
    for metric, (fn, needs_score) in METRICS.items():
        have = [n for n in outputs if metric in table[n]]
        if not have:
            continue
        r_o = rank_of({n: table[n][metric]["original"] for n in have})
        r_g = rank_of({n: table[n][metric]["gold"] for n in have})
        for n in have:
            ranks[n][metric] = {"original": r_o[n], "gold": r_g[n], "change": r_o[n] - r_g[n]}
        for a, b in itertools.combinations(have, 2):
            key = "score" if needs_score else "pred"
            step(progress, f"paired bootstrap of {metric}: {a} vs {b}")
            res = paired_bootstrap(
                t_gold,
                outputs[a][key],
                outputs[b][key],
                functools.partial(fn, pos=positive),
                n_resamples=n_resamples,
                seed=seed,
                progress=progress,
            )
            pairwise.append(
                {
                    "metric": metric,
                    "a": a,
                    "b": b,
                    "difference": res.difference,
                    "ci": list(res.ci),
                    "p_value": res.p_value,
                    "skipped": res.skipped,
                }
            )
    return RerankResult(len(ids), positive, table, ranks, pairwise)
