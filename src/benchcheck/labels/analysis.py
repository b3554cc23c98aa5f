"""Statistics over reviewed flags: error rate, per-bin agreement, ensemble curves, sources.

Methods.md section 2, steps 4–5:

* :func:`gold_error_rate`: errors = reviewed examples whose gold label differs from the
  original, sample = examples with a gold label (``llm_agrees`` + resolved reviews), then
  Clopper–Pearson with the finite population correction (:mod:`benchcheck.stats.intervals`).
* :func:`bin_agreement`: per confidence bin of the reviewed flags, the share where the
  experts sided with the LLM vs with the original label, with percentile bootstrap 95%
  intervals (seeded); bins under ``min_bin`` examples (the paper: 35) carry a warning.
* :func:`ensemble_curve`: ROC AUC of the ensemble probability against gold, and F1 of
  error detection (flag = LLM label ≠ original; truth = gold ≠ original), as the ensemble
  grows from one member to all, over repeated seeded random subsets.
* :func:`agreement_report`: weighted-F1 matrix between label sources (rows = truth),
  crowd majority and strict votes, Fleiss' kappa per group (also on the subset where the LLM
  disagrees with the original), per-annotator agreement with the truth.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from scipy.stats import spearmanr
from sklearn.metrics import f1_score, roc_auc_score

from benchcheck.data.ids import check_join, refuse_duplicates
from benchcheck.errors import InputError, UsageError
from benchcheck.labels.crowd import CrowdModel
from benchcheck.labels.ensemble import judgment_labels, label_sort_key
from benchcheck.labels.flags import DEFAULT_BINS, bin_label
from benchcheck.stats.agreement import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    krippendorff_alpha_ci,
    majority_vote,
    percent_agreement,
    strict_vote,
    weighted_f1_matrix,
)
from benchcheck.stats.intervals import (
    ErrorRateResult,
    PosteriorErrorRate,
    error_rate_interval,
    posterior_error_rate,
    proportion_bootstrap_ci,
)

__all__ = [
    "BinStat",
    "CurvePoint",
    "agreement_report",
    "bin_agreement",
    "ensemble_curve",
    "gold_error_rate",
]


def _need(frame: pl.DataFrame, cols: Sequence[str], what: str) -> None:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise InputError(f"{what} lacks column(s) {missing}; it has {frame.columns}")


def gold_error_rate(
    gold: pl.DataFrame, *, population: int | None = None, confidence: float = 0.95
) -> tuple[ErrorRateResult, dict[str, int]]:
    """Error rate of a gold file (from ``review import``) with its corrected interval.

    The paper's figure: sample = examples where the LLM agrees with the original label
    (taken as correct) plus the reviewed flags with a gold label, errors = reviewed flags
    whose gold label differs. With an audit sample (a ``stratum`` column), the audited
    undisputed examples do not enter it, so the figure is the same with or without an
    audit (the audit feeds :func:`benchcheck.labels.error_rate.stratified_gold_error_rate`).
    Returns the result and the counts left out of the sample (``unresolved``,
    ``not_reviewed``), which are reported, never guessed.
    """
    have, left = _error_sample(gold)
    errors = int((have["gold"].cast(pl.String) != have["label"].cast(pl.String)).sum())
    if population is not None and population < have.height:
        raise UsageError(
            f"{{population}} ({population}) is smaller than the sample ({have.height})"
        )
    return error_rate_interval(errors, have.height, population, confidence=confidence), left


def gold_sample_parts(gold: pl.DataFrame) -> dict[str, int]:
    """Return what :func:`gold_error_rate`'s sample is made of: reviewed, and counted correct.

    ``reviewed``: examples whose gold label comes from the review (the flags decided);
    ``llm_agrees``: examples where the LLM agrees with the original label, counted correct
    without review as the paper does (an audited one among them too: its review feeds the
    stratified estimate, not this figure). The two add up to the sample.

    >>> g = pl.DataFrame({"label": ["1", "0", "1"], "llm_label": ["1", "1", "0"],
    ...                   "gold": ["1", "1", None], "status": ["llm_agrees", "one_expert",
    ...                   "unresolved"]})
    >>> gold_sample_parts(g)
    {'reviewed': 1, 'llm_agrees': 1}
    """
    have, _ = _error_sample(gold)
    if "stratum" in have.columns and "llm_label" in have.columns:
        agreed = have.filter(
            (pl.col("stratum") == "undisputed")
            & (pl.col("llm_label").cast(pl.String) == pl.col("label").cast(pl.String))
        ).height
    elif "status" in have.columns:
        agreed = have.filter(pl.col("status") == "llm_agrees").height
    else:
        agreed = 0
    return {"reviewed": have.height - agreed, "llm_agrees": agreed}


def gold_posterior_error_rate(
    gold: pl.DataFrame, *, population: int | None = None, confidence: float = 0.95
) -> PosteriorErrorRate | None:
    """Return the error rate of :func:`gold_error_rate`'s sample, errors as probabilities.

    A gold file of ``review import --consensus dawid-skene|glad|mace`` has
    ``posterior_<label>`` columns: a reviewed example is an error with probability
    ``1 - posterior_<its original label>``. Examples without a posterior (the LLM agrees,
    a reconciled label) count as they do in the paper's figure, 0 or 1.
    :func:`benchcheck.stats.intervals.posterior_error_rate` gives the expected errors, their
    spread and the interval. ``None`` for a gold file without posteriors.
    """
    cols = [c for c in gold.columns if c.startswith("posterior_")]
    if not cols:
        return None
    have, _ = _error_sample(gold)
    hard = (have["gold"].cast(pl.String) != have["label"].cast(pl.String)).to_list()
    post = have.select(cols).to_dicts()
    reconciled = have["status"].to_list() if "status" in have.columns else [None] * have.height
    p_error = []
    for label, h, row, st in zip(
        have["label"].cast(pl.String), hard, post, reconciled, strict=True
    ):
        known = [v for v in row.values() if v is not None]
        if st == "reconciled" or not known:
            p_error.append(1.0 if h else 0.0)
        else:
            p_error.append(1.0 - float(row.get(f"posterior_{label}") or 0.0))
    if population is not None and population < have.height:
        raise UsageError(
            f"{{population}} ({population}) is smaller than the sample ({have.height})"
        )
    return posterior_error_rate(p_error, population, confidence=confidence)


def _error_sample(gold: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, int]]:
    """Return the paper's sample of a gold file (rows with ``gold`` set) and what is left out."""
    _need(gold, ["label", "gold"], "the gold file")
    if "stratum" in gold.columns and "llm_label" in gold.columns:
        label = pl.col("label").cast(pl.String)
        agrees = (pl.col("stratum") == "undisputed") & (
            pl.col("llm_label").cast(pl.String) == label
        )
        reviewed = (pl.col("stratum") == "disputed") & pl.col("gold").is_not_null()
        have = gold.filter(agrees | reviewed).with_columns(
            pl.when(agrees).then(label).otherwise(pl.col("gold").cast(pl.String)).alias("gold")
        )
        # every unresolved review outside the sample (a flag, or an audited example the
        # LLM disputes below the flag threshold), as review import counts them
        unresolved = (
            int(gold.filter(~(agrees | reviewed) & (pl.col("status") == "unresolved")).height)
            if "status" in gold.columns
            else 0
        )
        left = {
            "unresolved": unresolved,
            "not_reviewed": gold.height - have.height - unresolved,
        }
    else:
        have = gold.filter(pl.col("gold").is_not_null())
        left = {}
        if "status" in gold.columns:
            counts = Counter(gold["status"].to_list())
            left = {
                "unresolved": counts.get("unresolved", 0),
                "not_reviewed": counts.get("not_reviewed", 0),
            }
    if have.height == 0:
        raise UsageError("the gold file has no example with a gold label")
    return have, left


@dataclass(frozen=True)
class BinStat:
    """Expert agreement with the LLM vs the original label within one confidence bin."""

    bin: str
    n: int
    with_llm: float
    with_llm_ci: tuple[float, float]
    with_original: float
    with_original_ci: tuple[float, float]
    warning: str | None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "bin": self.bin,
            "n": self.n,
            "with_llm": self.with_llm,
            "with_llm_ci": list(self.with_llm_ci),
            "with_original": self.with_original,
            "with_original_ci": list(self.with_original_ci),
            "warning": self.warning,
        }


def bin_agreement(
    gold: pl.DataFrame,
    *,
    bins: Sequence[float] = DEFAULT_BINS,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    min_bin: int = 35,
) -> list[BinStat]:
    """Per confidence bin of the reviewed flags with a gold label: share of gold = LLM / original.

    Bins follow :func:`~benchcheck.labels.flags.bin_label` (``[a, b)``, last one closed).
    """
    if n_resamples < 100:
        raise UsageError(f"{{bootstrap}} needs at least 100 resamples, got {n_resamples}")
    _need(gold, ["label", "llm_label", "confidence", "gold"], "the gold file")
    rows = gold.filter(
        pl.col("gold").is_not_null()
        & (pl.col("llm_label").cast(pl.String) != pl.col("label").cast(pl.String))
    )
    if "review_id" in rows.columns:
        rows = rows.filter(pl.col("review_id").is_not_null())
    if "stratum" in rows.columns:  # reviewed flags only, not the audit sample
        rows = rows.filter(pl.col("stratum") == "disputed")
    names = [bin_label(a, bins) or "" for a in bins[:-1]]
    groups: dict[str, list[tuple[bool, bool]]] = {n: [] for n in names}
    for conf, g, llm, orig in rows.select("confidence", "gold", "llm_label", "label").iter_rows():
        b = bin_label(conf, bins)
        if b is not None:
            groups[b].append((str(g) == str(llm), str(g) == str(orig)))
    out = []
    for k, (name, items) in enumerate(groups.items()):
        n = len(items)
        warn = None
        if n < min_bin:
            warn = f"only {n} example(s) in this bin (< {min_bin}): the interval is wide"
        if n == 0:
            nan2 = (math.nan, math.nan)
            out.append(BinStat(name, 0, math.nan, nan2, math.nan, nan2, warn))
            continue
        llm = np.array([a for a, _ in items], dtype=float)
        orig = np.array([b for _, b in items], dtype=float)
        s = seed + k
        out.append(
            BinStat(
                name,
                n,
                float(llm.mean()),
                proportion_bootstrap_ci(
                    llm, n_resamples=n_resamples, confidence=confidence, seed=s
                ),
                float(orig.mean()),
                proportion_bootstrap_ci(
                    orig, n_resamples=n_resamples, confidence=confidence, seed=s
                ),
                warn,
            )
        )
    return out


@dataclass(frozen=True)
class CurvePoint:
    """Ensemble quality at one ensemble size, over its subsets."""

    size: int
    n_subsets: int
    roc_auc_mean: float
    roc_auc_ci: tuple[float, float]
    f1_mean: float
    f1_ci: tuple[float, float]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {
            "size": self.size,
            "n_subsets": self.n_subsets,
            "roc_auc_mean": self.roc_auc_mean,
            "roc_auc_ci": list(self.roc_auc_ci),
            "f1_mean": self.f1_mean,
            "f1_ci": list(self.f1_ci),
        }


def ensemble_curve(
    judgments: pl.DataFrame,
    gold: pl.DataFrame,
    *,
    unit: str = "member",
    repeats: int = 50,
    seed: int = 0,
    positive: str | None = None,
    judgments_source: str | None = None,
) -> tuple[list[CurvePoint], list[str]]:
    """ROC AUC against gold and error-detection F1 as the ensemble grows.

    ``unit`` is ``member`` (each judge × prompt) or ``judge`` (all prompts of a judge).
    For each size k, every subset when there are at most ``repeats`` of them, else
    ``repeats`` random subsets (``numpy.random.default_rng(seed)``). The spread is the
    2.5–97.5 percentile range over subsets. ROC AUC is binary (``positive`` label, default
    the larger of two) and NaN when gold has one class. Returns the points and the members.
    """
    if unit not in ("member", "judge"):
        raise UsageError(f"{{unit}} must be 'member' or 'judge', got {unit!r}")
    if repeats < 1:
        raise UsageError(f"{{repeats}} must be >= 1, got {repeats}")
    _need(gold, ["id", "label", "gold"], "the gold file")
    labels = list(judgment_labels(judgments))
    if positive is None:
        positive = labels[-1]
    if positive not in labels:
        raise UsageError(f"positive label {positive!r} not among {labels}")
    g = gold.filter(pl.col("gold").is_not_null()).select(
        pl.col("id").cast(pl.String),
        pl.col("label").cast(pl.String),
        pl.col("gold").cast(pl.String),
    )
    ids = g["id"].to_list()
    refuse_duplicates(ids)
    check_join(
        ids,
        judgments["id"].cast(pl.String).unique(maintain_order=True).to_list(),
        left_name="the gold file",
        right_name="the judgments",
        right_file=judgments_source,
        right_unmatched=1.0,  # the judgments may cover more examples than were reviewed
    )
    index = {i: k for k, i in enumerate(ids)}
    j = judgments.with_columns(pl.col("id").cast(pl.String)).filter(pl.col("id").is_in(ids))
    if j.height == 0:
        raise UsageError("no judged example has a gold label")
    key = (
        pl.col("judge").cast(pl.String)
        if unit == "judge"
        else pl.concat_str(
            [pl.col("judge").cast(pl.String), pl.col("prompt").cast(pl.String)], separator="/"
        )
    )
    j = j.with_columns(key.alias("_member"))
    members = sorted(set(j["_member"].to_list()))
    m_index = {m: k for k, m in enumerate(members)}
    # sums and counts per (member, id, label): a judge unit averages its prompts first
    probs = np.full((len(members), len(ids), len(labels)), np.nan)
    agg = j.group_by("_member", "id").agg([pl.col(f"p_{lab}").mean() for lab in labels])
    for row in agg.iter_rows():
        probs[m_index[row[0]], index[row[1]], :] = row[2:]
    orig = np.asarray(g["label"].to_list(), dtype=object)
    truth = np.asarray(g["gold"].to_list(), dtype=object)
    is_error = truth != orig
    y_pos = truth == positive
    lab_arr = np.asarray(labels, dtype=object)
    pos_k = labels.index(positive)
    rng = np.random.default_rng(seed)
    points = []
    for k in range(1, len(members) + 1):
        total = math.comb(len(members), k)
        if total <= repeats:
            subsets = [list(c) for c in itertools.combinations(range(len(members)), k)]
        else:
            subsets = [
                sorted(rng.choice(len(members), size=k, replace=False)) for _ in range(repeats)
            ]
        aucs, f1s = [], []
        for sub in subsets:
            with np.errstate(invalid="ignore"):
                p = np.nanmean(probs[sub], axis=0)
            ok = ~np.isnan(p).any(axis=1)
            llm = lab_arr[p[ok].argmax(axis=1)]
            flag = llm != orig[ok]
            yp = y_pos[ok]
            aucs.append(
                float(roc_auc_score(yp, p[ok, pos_k])) if 0 < yp.sum() < len(yp) else math.nan
            )
            f1s.append(float(f1_score(is_error[ok], flag, zero_division=0)))
        points.append(CurvePoint(k, len(subsets), *_summ(aucs), *_summ(f1s)))
    return points, members


def _summ(values: list[float]) -> tuple[float, tuple[float, float]]:
    arr = np.asarray([v for v in values if not math.isnan(v)])
    if arr.size == 0:
        return math.nan, (math.nan, math.nan)
    lo, hi = np.quantile(arr, [0.025, 0.975])
    return float(arr.mean()), (float(lo), float(hi))


# ----------------------------------------------------------------------------- sources


def agreement_report(
    sources: Mapping[str, Mapping[str, str]],
    *,
    crowd: pl.DataFrame | None = None,
    groups: Mapping[str, Sequence[str]] | None = None,
    judgments: pl.DataFrame | None = None,
    truth: str | None = "gold",
    disagreement: tuple[str, str] | None = ("llm", "original"),
    negative: str = "0",
    crowd_model: str | None = None,
    alpha_level: str = "nominal",
    seed: int = 0,
) -> AgreementReport:
    """Compare label sources: weighted-F1 matrix, Fleiss' kappa per group, crowd statistics.

    Every group also gets Krippendorff's alpha (``alpha_level``: nominal or ordinal) on the
    items at least two of its raters label, missing labels allowed, with a bootstrap
    interval (``seed``). ``crowd_model`` (:data:`benchcheck.labels.crowd.CROWD_MODELS`)
    fits that model to the crowd file alone (no truth): each annotator's estimated accuracy,
    every item's posterior per label, and the source ``crowd_model`` (its most probable
    labels) in the F1 matrix.

    ``sources`` maps a source name to ``{id: label}``. ``crowd`` is a long table
    (``id``, ``annotator``, ``label``) that adds the sources ``crowd_majority`` and
    ``crowd_strict`` (``negative`` if any annotator gave it) and the group ``crowd``.
    ``groups`` name sets of sources whose Fleiss' kappa to report; ``judgments`` adds one
    group per judge (its prompts' argmax labels) and the group ``judges`` (each judge's
    prompt-averaged label). Every group is also scored on the subset where the two sources
    in ``disagreement`` (the LLM and the original) differ, when both are given.
    """
    src: dict[str, dict[str, str]] = {n: dict(v) for n, v in sources.items()}
    _refuse_disjoint_sources(src)
    rater_groups: dict[str, dict[str, dict[str, str]]] = {}
    per_annotator: list[dict[str, Any]] = []
    spearman = None
    fitted = None
    if crowd_model is not None and crowd is None:
        raise UsageError("{crowd_model} needs a {crowd} file")
    if crowd is not None:
        _need(crowd, ["id", "annotator", "label"], "the crowd file")
        c = crowd.select(
            pl.col("id").cast(pl.String),
            pl.col("annotator").cast(pl.String),
            pl.col("label").cast(pl.String),
        )
        ratings: dict[str, list[str]] = defaultdict(list)
        by_ann: dict[str, dict[str, str]] = defaultdict(dict)
        for i, a, lab in c.iter_rows():
            ratings[i].append(lab)
            by_ann[a][i] = lab
        item_ids = list(ratings)
        maj = majority_vote([ratings[i] for i in item_ids])
        strict = strict_vote([ratings[i] for i in item_ids], negative=negative)
        src["crowd_majority"] = {
            i: str(v) for i, v in zip(item_ids, maj, strict=True) if v is not None
        }
        src["crowd_strict"] = {
            i: str(v) for i, v in zip(item_ids, strict, strict=True) if v is not None
        }
        rater_groups["crowd"] = {"_lists": ratings}  # type: ignore[dict-item]
        if crowd_model is not None:
            from benchcheck.labels.crowd import fit_crowd_model

            _refuse_double_answers(c)
            fitted = fit_crowd_model(list(c.iter_rows()), method=crowd_model, seed=seed)
            src["crowd_model"] = {i: v for i, v in fitted.gold().items() if v is not None}
        if truth is not None and truth in src:
            t = src[truth]
            for a, labs in sorted(by_ann.items()):
                shared = [i for i in labs if i in t]
                per_annotator.append(
                    {
                        "annotator": a,
                        "n_items": len(labs),
                        "n_with_truth": len(shared),
                        "agreement": percent_agreement(
                            [labs[i] for i in shared], [t[i] for i in shared]
                        )
                        if shared
                        else math.nan,
                        "cohen_kappa": cohen_kappa(
                            [labs[i] for i in shared], [t[i] for i in shared]
                        ),
                    }
                )
            pts = [
                (float(r["n_items"]), float(r["agreement"]))
                for r in per_annotator
                if not math.isnan(float(r["agreement"]))
            ]
            if len(pts) >= 3 and len({p[0] for p in pts}) > 1 and len({p[1] for p in pts}) > 1:
                spearman = float(spearmanr([p[0] for p in pts], [p[1] for p in pts]).statistic)
    for name, members in (groups or {}).items():
        unknown = [m for m in members if m not in src]
        if unknown:
            raise UsageError(
                f"group {name!r} names unknown source(s) {unknown}; have {sorted(src)}"
            )
        rater_groups[name] = {m: src[m] for m in members}
    if judgments is not None:
        labels = list(judgment_labels(judgments))
        pcols = [f"p_{lab}" for lab in labels]
        j = judgments.with_columns(pl.col("id").cast(pl.String))
        _refuse_mixed_label_sets(j, pcols)
        arg = j.with_columns(
            pl.Series("_lab", [labels[k] for k in j.select(pcols).to_numpy().argmax(axis=1)])
        )
        judges = sorted(set(arg["judge"].cast(pl.String).to_list()))
        for judge in judges:
            sub = arg.filter(pl.col("judge").cast(pl.String) == judge)
            group: dict[str, dict[str, str]] = {}
            for prompt in sorted(set(sub["prompt"].cast(pl.String).to_list())):
                s = sub.filter(pl.col("prompt").cast(pl.String) == prompt)
                group[prompt] = dict(zip(s["id"].to_list(), s["_lab"].to_list(), strict=True))
            rater_groups[f"prompts:{judge}"] = group  # type: ignore[assignment]
        if len(judges) > 1:
            per_judge = j.group_by(pl.col("judge").cast(pl.String), "id").agg(
                [pl.col(c).mean() for c in pcols]
            )
            lab = per_judge.select(pcols).to_numpy().argmax(axis=1)
            per_judge = per_judge.with_columns(pl.Series("_lab", [labels[k] for k in lab]))
            rater_groups["judges"] = {
                jn: dict(zip(s["id"].to_list(), s["_lab"].to_list(), strict=True))
                for jn in judges
                for s in [per_judge.filter(pl.col("judge") == jn)]
            }
    # weighted-F1 matrix on the union of ids, missing labels as None
    all_ids = sorted({i for s in src.values() for i in s}, key=label_sort_key)
    matrix = weighted_f1_matrix({n: [s.get(i) for i in all_ids] for n, s in src.items()})
    subset: set[str] | None = None
    if disagreement is not None and all(d in src for d in disagreement):
        a, b = (src[d] for d in disagreement)
        subset = {i for i in a if i in b and a[i] != b[i]}
    fleiss: dict[str, dict[str, object]] = {}
    for name, raters in rater_groups.items():
        fleiss[name] = {"all": _group_fleiss(raters, None, alpha_level, seed)}
        if subset is not None:
            fleiss[name]["disagreement"] = _group_fleiss(raters, subset, alpha_level, seed)
    return AgreementReport(
        sources=tuple(src),
        n_items=len(all_ids),
        weighted_f1=matrix.to_dict(),
        fleiss=fleiss,
        per_annotator=tuple(per_annotator),
        spearman=spearman,
        disagreement_subset=None if subset is None else len(subset),
        crowd_model=fitted,
    )


@dataclass(frozen=True)
class AgreementReport:
    """Label sources compared: weighted-F1 matrix (rows = truth), Fleiss' kappa per group.

    ``weighted_f1`` is :meth:`benchcheck.stats.agreement.F1Matrix.to_dict`; ``fleiss``
    maps a group to ``{"all": {kappa, n_items, ...}, "disagreement": {...}}``;
    ``per_annotator`` lists each crowd annotator against the truth source; ``spearman``
    correlates annotators' item counts with their agreement.
    """

    sources: tuple[str, ...]
    n_items: int
    weighted_f1: Mapping[str, Any]
    fleiss: Mapping[str, Mapping[str, Any]]
    per_annotator: tuple[Mapping[str, Any], ...]
    spearman: Any
    disagreement_subset: int | None
    crowd_model: CrowdModel | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck agreement --json``."""
        crowd = {} if self.crowd_model is None else {"crowd_model": self.crowd_model.to_json()}
        return {
            "sources": list(self.sources),
            "n_items": self.n_items,
            "weighted_f1": dict(self.weighted_f1),
            "fleiss": {k: dict(v) for k, v in self.fleiss.items()},
            "per_annotator": [dict(r) for r in self.per_annotator],
            "annotator_spearman_n_items_vs_agreement": self.spearman,
            "disagreement_subset": self.disagreement_subset,
            **crowd,
        }


def _group_fleiss(
    raters: Mapping[str, object], subset: set[str] | None, level: str = "nominal", seed: int = 0
) -> dict[str, object]:
    """Fleiss' kappa of a group on the items every rater labels (crowd: the modal count).

    Beside it Krippendorff's alpha on every item two raters label (missing labels allowed).
    """
    if "_lists" in raters:
        lists: dict[str, list[str]] = raters["_lists"]  # type: ignore[assignment]
        items = {i: v for i, v in lists.items() if subset is None or i in subset}
        alpha = _alpha([list[str | None](v) for v in items.values()], level, seed)
        if not items:
            return {"kappa": None, "n_items": 0, **alpha}
        modal = Counter(len(v) for v in items.values()).most_common(1)[0][0]
        rows = [v for v in items.values() if len(v) == modal]
        if modal < 2:
            return {"kappa": None, "n_items": 0, "raters": modal, **alpha}
        return {"kappa": fleiss_kappa(rows), "n_items": len(rows), "raters": modal, **alpha}
    maps: list[Mapping[str, str]] = list(raters.values())  # type: ignore[arg-type]
    union = sorted(
        {i for m in maps for i in m if subset is None or i in subset}, key=label_sort_key
    )
    alpha = _alpha([[m.get(i) for m in maps] for i in union], level, seed)
    if len(maps) < 2:
        return {"kappa": None, "n_items": 0, "raters": len(maps), **alpha}
    shared = set(maps[0]).intersection(*maps[1:])
    if subset is not None:
        shared &= subset
    ids = sorted(shared, key=label_sort_key)
    rows = [[m[i] for m in maps] for i in ids]
    return {
        "kappa": fleiss_kappa(rows),
        "n_items": len(rows),
        "raters": len(maps),
        **alpha,
    }


def _alpha(units: list[list[str | None]], level: str, seed: int) -> dict[str, object]:
    """``krippendorff_alpha`` and its ``krippendorff_alpha_ci`` (a list) of a group's items."""
    try:
        alpha = krippendorff_alpha(units, level=level)
        ci = krippendorff_alpha_ci(units, level=level, seed=seed)
    except ValueError as exc:  # ordinal alpha of labels that are not numbers
        raise UsageError(f"{{alpha_level}} {level}: {exc}") from None
    return {"krippendorff_alpha": alpha, "krippendorff_alpha_ci": None if ci is None else list(ci)}


def _refuse_double_answers(crowd: pl.DataFrame) -> None:
    """Refuse a second answer of one annotator to one item (a crowd model takes one)."""
    dup = crowd.filter(pl.struct("id", "annotator").is_duplicated())
    if dup.height:
        row = dup.row(0, named=True)
        raise InputError(
            f"annotator {row['annotator']!r} labels item {row['id']!r} more than once; a crowd "
            "model takes one answer per annotator and item"
        )


def _refuse_disjoint_sources(sources: Mapping[str, Mapping[str, str]]) -> None:
    """Raise :class:`InputError` when a source shares no id with the others.

    Sources are compared on the ids they share; one whose ids are written differently
    (``1`` beside ``"p01"``) would give an empty comparison, not an error.
    """
    if len(sources) < 2:
        return
    for name, labels in sources.items():
        others = {i for n, s in sources.items() if n != name for i in s}
        if labels and others and not others.intersection(labels):
            shown = ", ".join(repr(i) for i in list(labels)[:3])
            theirs = ", ".join(repr(i) for i in sorted(others)[:3])
            raise InputError(
                f"source {name!r} shares no id with the other sources: it has {shown}; they "
                f"have {theirs} (ids are compared as text)"
            )


def _refuse_mixed_label_sets(judgments: pl.DataFrame, pcols: list[str]) -> None:
    """Raise :class:`UsageError` if some rows lack probabilities that others have.

    Prompts with different label sets (``nli`` 0/1 beside ``nli3``) leave the other set's
    ``p_`` columns empty; an argmax over all columns would then pick an empty one.
    """
    probs = judgments.select(pcols).to_numpy().astype(np.float64)
    missing = np.isnan(probs).any(axis=1)
    if not missing.any():
        return
    prompts = judgments.get_column("prompt").cast(pl.String).to_numpy()
    sets = {
        prompt: [
            c[2:] for c, ok in zip(pcols, ~np.isnan(probs[prompts == prompt][0]), strict=True) if ok
        ]
        for prompt in sorted(set(prompts.tolist()))
    }
    raise UsageError(
        "the judgments mix label sets, which agreement cannot compare: "
        + "; ".join(f"{p}: {', '.join(labels)}" for p, labels in sets.items())
        + ". Judge with prompts that share labels (e.g. the prompts nli and document)."
    )
