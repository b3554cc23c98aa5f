"""``benchcheck rank``: the leaderboard with intervals under label uncertainty.

:func:`run_rank` reads the dataset (ids and original labels), each model's predictions,
the flags (``benchcheck flag -o``), gold labels (``benchcheck review import -o``), the
per-bin precision (measured from the gold file's reviewed flags, or a prior / a
``bins --json`` file) and a residual error rate, then calls
:func:`benchcheck.items.noise.rank_under_noise`. With gold labels it also runs
:func:`benchcheck.labels.remedies.rerank` (original vs gold, with paired bootstraps), the
certain special case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchcheck._progress import Progress, step
from benchcheck.errors import InputError, UsageError
from benchcheck.items.noise import NoiseRanking

__all__ = ["RankOptions", "RankRun", "missing_uncertainty", "run_rank"]


@dataclass(frozen=True)
class RankOptions:
    """Options of the noise-aware ranking (see :func:`rank_under_noise`)."""

    metric: str = "accuracy"
    positive: str | None = None
    n_resamples: int = 2000
    confidence: float = 0.95
    seed: int = 0
    resample_items: bool = False
    swap_threshold: float = 0.05
    precision: str | None = None
    error_rate: str | None = None


@dataclass(frozen=True)
class RankRun:
    """The noise-aware leaderboard and, with gold labels, the gold re-ranking."""

    ranking: NoiseRanking
    rerank: dict[str, Any] | None
    sources: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``rank --json``: ``models`` (name, score, interval, rank), ``flip_probability``."""
        out = self.ranking.to_json()
        out["gold_rerank"] = self.rerank
        out["sources"] = dict(self.sources)
        return out


def missing_uncertainty(
    *, flagged: bool, precision: bool, gold: bool, gold_labels: bool, residual: bool
) -> str | None:
    """Say why the labels' uncertainty cannot be drawn (``None``: it can).

    Flags need a per-bin precision (measured from ``gold``, or given); without flags, some
    gold labels or a residual error rate must make a label uncertain.

    >>> missing_uncertainty(flagged=False, precision=False, gold=False, gold_labels=False,
    ...                     residual=True) is None
    True
    """
    if flagged and not precision and not gold:
        return (
            "flags need a per-bin precision: give the reviewed {gold} labels, or a {precision} "
            "(a number, or a `benchcheck bins --json` file)"
        )
    if not flagged and not residual and not gold_labels:
        return "nothing makes a label uncertain: give {flags}, {gold} and/or {error_rate}"
    return None


def run_rank(
    data: str,
    predictions: Mapping[str, str],
    *,
    label: str = "label",
    id_col: str | None = None,
    flags: str | None = None,
    gold: str | None = None,
    options: RankOptions | None = None,
    flagged_ids: Mapping[str, tuple[str, str | None]] | None = None,
    progress: Progress | None = None,
) -> RankRun:
    """Read the inputs and rank the models under label uncertainty.

    ``flagged_ids`` (``id → (llm_label, bin)``) replaces a ``flags`` file (the audit passes
    the flags it has just made). ``progress`` is told the steps (reading each input, the
    gold re-ranking) and counts the drawn labelings.
    """
    import polars as pl

    from benchcheck.data.ids import check_join
    from benchcheck.io.items import read_flags, read_precision, read_predictions, read_residual
    from benchcheck.io.label_files import read_gold, read_labelled
    from benchcheck.items.noise import BinPrecision, NoiseModel, rank_under_noise

    options = options or RankOptions()
    if len(predictions) < 2:
        raise UsageError("give at least two models' {predictions} (NAME=FILE)")
    step(progress, f"reading {data}")
    frame, ids, labels = read_labelled(data, label=label, id_col=id_col)
    label_set = sorted({v for v in labels if v is not None})
    preds = {}
    for n, path in predictions.items():
        step(progress, f"reading {path}")
        preds[n] = read_predictions(n, path, positive=options.positive, labels=label_set)
    for n, p in preds.items():
        missing = [i for i in ids if i not in p]
        if missing:
            raise InputError(
                f"model {n!r} has no prediction for {len(missing)} of {len(ids)} items "
                f"(first: {missing[0]!r}); rank every model on every item",
                path=predictions[n],
            )
    flagged = dict(flagged_ids or {})
    if flags is not None:
        step(progress, f"reading {flags}")
        flagged = read_flags(flags)
    gold_labels: dict[str, str] = {}
    precision: dict[str, BinPrecision] = {}
    rerank_json = None
    if gold is not None:
        from benchcheck.labels.analysis import bin_agreement
        from benchcheck.labels.remedies import ModelScores, rerank

        step(progress, f"reading {gold}")
        g = read_gold(
            gold, need=("id", "label", "gold"), filled=("id",)
        )  # single-value labels, unique ids
        check_join(
            ids,
            g["id"].to_list(),
            left_name="the data",
            right_name="the gold labels",
            left_file=data,
            right_file=gold,
            path=gold,
            left_unmatched=1.0,  # gold labels for a reviewed sample of the items
            right_unmatched=0.0,
        )
        have = g.filter(pl.col("gold").is_not_null())
        gold_labels = dict(zip(have["id"].to_list(), have["gold"].to_list(), strict=True))
        if {"llm_label", "confidence"} <= set(g.columns) and options.precision is None:
            for s in bin_agreement(g, n_resamples=100, seed=options.seed, min_bin=0):
                k_llm = round((s.with_llm if s.n else 0.0) * s.n)
                k_orig = round((s.with_original if s.n else 0.0) * s.n)
                precision[s.bin] = BinPrecision(k_llm, k_orig, max(0, s.n - k_llm - k_orig))
        in_gold = [i for i in ids if i in gold_labels]
        if in_gold:
            pos = options.positive or (label_set[-1] if label_set else "1")
            index = {i: k for k, i in enumerate(ids)}
            models = [
                ModelScores(
                    n,
                    tuple(in_gold),
                    None,
                    tuple(preds[n][i] for i in in_gold),
                    source=str(predictions[n]),
                )
                for n in preds
            ]
            step(progress, "scores on original and gold labels (paired bootstrap)")
            rr = rerank(
                in_gold,
                [labels[index[i]] for i in in_gold],
                [gold_labels[i] for i in in_gold],
                models,
                positive=pos,
                n_resamples=max(100, min(options.n_resamples, 1000)),
                seed=options.seed,
            )
            rerank_json = rr.to_dict()
    if options.precision is not None:
        precision = read_precision(options.precision)
    residual = read_residual(options.error_rate) if options.error_rate is not None else None
    problem = missing_uncertainty(
        flagged=bool(flagged),
        precision=bool(precision),
        gold=gold is not None,
        gold_labels=bool(gold_labels),
        residual=residual is not None,
    )
    if problem is not None:
        raise UsageError(problem)
    noise = NoiseModel(flagged=flagged, precision=precision, gold=gold_labels, residual=residual)
    step(progress, "drawing plausible labelings")
    ranking = rank_under_noise(
        ids,
        labels,
        {n: [p[i] for i in ids] for n, p in preds.items()},
        noise,
        metric=options.metric,
        positive=options.positive,
        n_resamples=options.n_resamples,
        confidence=options.confidence,
        seed=options.seed,
        resample_items=options.resample_items,
        swap_threshold=options.swap_threshold,
        progress=progress,
    )
    sources = {"data": data, **{f"predictions {n}": p for n, p in predictions.items()}}
    if flags:
        sources["flags"] = flags
    if gold:
        sources["gold"] = gold
    return RankRun(ranking, rerank_json, sources)
