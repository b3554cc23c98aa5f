"""How well models' answers find the real, expert-corrected answer-key errors of MMLU (issue 35).

Data (``_mcq_data.py``, built into the git-ignored ``benchmarks/_data/mmlu_redux``):
MMLU-Redux (Gema et al. 2024, "Are We Done With MMLU?"), the **30 v1 subjects only** (3,000
questions; the 27 subjects added in 2.0 are held out and never read), with the answers of
the 14 HELM models of ``outputs/multi_expert_helm``.

Targets (what the experts say, per question):

* ``wrong_key``: error type ``wrong_groundtruth`` (83 questions);
* ``any_error``: every error type but ``ok`` (276). ``expert`` rows (27, the annotator was
  unsure and asked for an expert) count as errors here, as in the paper's error rate, and
  as negatives for ``wrong_key``; ``any_error_decided`` drops them from the evaluation.
* the correction: the experts' answer on a ``wrong_groundtruth`` row, where it names an
  option other than the key (78 of 83; 4 rows give none, 1 gives the key itself — a row
  that contradicts itself, left out of the agreement's denominator).

Scores, each ranking the questions (higher = more likely wrong):

* ``disagreement``: the share of models whose answer is not the key, :math:`1 - \\frac1J
  \\sum_j [a_{ij} = k_i]`; flag where the models' most common answer is not the key
  (plurality); proposed answer = the most common non-key answer.
* ``weighted_margin``: accuracy-weighted vote margin, :math:`\\max_{o \\ne k_i} V_{io} -
  V_{ik_i}` with :math:`V_{io} = \\sum_j w_j [a_{ij} = o]` and :math:`w_j` model j's
  agreement with the keys over all questions; flag at > 0.
* ``answers``: the library's detector (:func:`benchcheck.labels.mcq_answers.answer_flags`,
  what ``benchcheck flag --task mcq --answers`` runs): one-coin Dawid–Skene with the key as
  an annotator of per-subject accuracy, tempered by the models' design effect; flag at
  ``error_score >= 0.5``. Its ablations: ``answers_untempered`` (:math:`\\tau = 1`),
  ``answers_pooled_key`` (one key accuracy for all subjects).
* ``crowdkit_dawid_skene`` / ``crowdkit_glad``: crowd-kit's Dawid–Skene (full confusion
  matrices) and GLAD (item difficulty × annotator ability), the key one more annotator;
  score 1 − P(key), flag at ≥ 0.5.

Per score: ROC AUC and average precision (sklearn), precision at k (k = the number of
positives), F1 at the flag rule, the proposed answer's agreement with the experts'
correction, and seconds (the machine is shared: 2 cores, loaded); for scores in [0, 1]
the calibration against wrong keys (expected vs actual count, Brier, ECE, reliability
bins); for ``answers`` its kinds against the experts' error types. ``ranking``: the models
re-scored on the experts' corrected keys and on the detector's (:func:`ranking`).

Run: ``python benchmarks/mcq_detect_bench.py --repo GITDIR`` the first time (a git
directory of github.com/aryopg/mmlu-redux at ``_mcq_data.COMMIT``), then without
``--repo``; writes ``benchmarks/results/mcq_detect_quality.json`` (numbers only).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from scipy.stats import kendalltau
from sklearn.metrics import average_precision_score, f1_score, roc_auc_score

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _mcq_data as md  # noqa: E402

from benchcheck.labels.mcq_answers import answer_flags  # noqa: E402
from benchcheck.labels.mcq_rerank import rerank_models  # noqa: E402

OUT = HERE / "results" / "mcq_detect_quality.json"


@dataclass(frozen=True)
class Bench:
    """The questions, the models' answer matrix (-1 = no option) and the experts' verdicts."""

    answers: np.ndarray  # (n, J) int, -1 where the model named no option
    key: np.ndarray  # (n,) int
    subject: np.ndarray  # (n,) str
    error: np.ndarray  # (n,) str, one of md.KINDS
    expert_answer: np.ndarray  # (n,) float, nan where none


@dataclass(frozen=True)
class Scored:
    """One detector's output: a score per question, its flags and its proposed answers."""

    score: np.ndarray
    flagged: np.ndarray
    proposed: np.ndarray
    seconds: float
    kind: tuple[str, ...] | None = None


def matrix(items: pl.DataFrame, answers: pl.DataFrame) -> Bench:
    """The (questions × models) answer matrix in the items' order."""
    wide = items.select("id").join(
        answers.pivot(on="model", index="id", values="answer"), on="id", how="left"
    )
    index = {c: i for i, c in enumerate(md.LETTERS)}
    grid = np.array(
        [[index.get(a, -1) if a else -1 for a in wide[m].to_list()] for m in md.MODELS]
    ).T
    return Bench(
        answers=grid,
        key=items["key"].to_numpy(),
        subject=items["subject"].to_numpy(),
        error=items["error"].to_numpy(),
        expert_answer=items["expert_answer"].cast(pl.Float64).fill_null(np.nan).to_numpy(),
    )


def votes(bench: Bench, weights: np.ndarray) -> np.ndarray:
    """(n, 4) weighted votes :math:`V_{io} = \\sum_j w_j [a_{ij} = o]`."""
    return np.stack([((bench.answers == o) * weights).sum(1) for o in range(4)], axis=1)


def best_other(v: np.ndarray, key: np.ndarray) -> np.ndarray:
    """The option with the most votes among those that are not the key."""
    masked = v.astype(float).copy()
    masked[np.arange(len(key)), key] = -np.inf
    return masked.argmax(1)


def disagreement(bench: Bench) -> Scored:
    start = time.perf_counter()
    score = 1.0 - (bench.answers == bench.key[:, None]).mean(1)
    v = votes(bench, np.ones(bench.answers.shape[1]))
    proposed = best_other(v, bench.key)
    rows = np.arange(len(bench.key))
    flagged = v[rows, proposed] > v[rows, bench.key]
    return Scored(score, flagged, proposed, time.perf_counter() - start)


def weighted_margin(bench: Bench) -> Scored:
    start = time.perf_counter()
    w = (bench.answers == bench.key[:, None]).mean(0)
    v = votes(bench, w)
    other = best_other(v, bench.key)
    rows = np.arange(len(bench.key))
    score = v[rows, other] - v[rows, bench.key]
    return Scored(score, score > 0, other, time.perf_counter() - start)


def one_hot(bench: Bench) -> np.ndarray:
    """(n, J, 4) one-hot answers (all zeros where a model named no option)."""
    return (bench.answers[:, :, None] == np.arange(4)[None, None, :]).astype(float)


def _answers(bench: Bench, **kw: object) -> Scored:
    start = time.perf_counter()
    n = len(bench.key)
    out = answer_flags(
        [str(i) for i in range(n)],
        bench.key,
        np.full(n, 4),
        one_hot(bench),
        md.MODELS,
        groups=None if kw.pop("pooled", False) else list(bench.subject),
        **kw,  # type: ignore[arg-type]
    )
    seconds = time.perf_counter() - start
    return Scored(out.error_score, out.flagged, out.proposed, seconds, out.kind)


def _crowdkit(bench: Bench, method: str) -> Scored:
    """crowd-kit's Dawid–Skene (full confusion matrices) or GLAD, the key one more worker."""
    from crowdkit.aggregation import GLAD, DawidSkene

    start = time.perf_counter()
    n, n_models = bench.answers.shape
    task, worker, label = [], [], []
    for j in range(n_models):
        ok = bench.answers[:, j] >= 0
        task += list(np.flatnonzero(ok))
        worker += [f"m{j}"] * int(ok.sum())
        label += list(bench.answers[ok, j])
    task += list(range(n))
    worker += ["key"] * n
    label += list(bench.key)
    frame = pl.DataFrame({"task": task, "worker": worker, "label": label}).to_pandas()
    model = DawidSkene(n_iter=100) if method == "ds" else GLAD(n_iter=100, silent=True)
    probas = model.fit_predict_proba(frame).sort_index()
    post = np.zeros((n, 4))
    for col in probas.columns:
        post[:, int(col)] = probas[col].to_numpy()
    rows = np.arange(n)
    score = 1.0 - post[rows, bench.key]
    proposed = best_other(post, bench.key)
    return Scored(score, score >= 0.5, proposed, time.perf_counter() - start)


DETECTORS: dict[str, Callable[[Bench], Scored]] = {
    "disagreement": disagreement,
    "weighted_margin": weighted_margin,
    "answers": _answers,
    "answers_untempered": lambda b: _answers(b, temper=1.0),
    "answers_pooled_key": lambda b: _answers(b, pooled=True),
    "crowdkit_dawid_skene": lambda b: _crowdkit(b, "ds"),
    "crowdkit_glad": lambda b: _crowdkit(b, "glad"),
}


def precision_at_k(truth: np.ndarray, score: np.ndarray, k: int) -> float:
    """Share of positives among the k highest scores (ties broken by position, stable)."""
    top = np.argsort(-score, kind="stable")[:k]
    return float(truth[top].mean())


def calibration(truth: np.ndarray, prob: np.ndarray, bins: int = 10) -> dict[str, object]:
    """Is the score a probability that the key is wrong? Sum vs count, Brier, ECE, bins.

    ECE (Naeini et al. 2015): :math:`\\sum_b \\frac{n_b}{n} |\\bar y_b - \\bar p_b|` over
    ``bins`` equal-width bins of the score.
    """
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(prob, edges[1:-1]), 0, bins - 1)
    table, ece = [], 0.0
    for b in range(bins):
        m = which == b
        if m.any():
            ece += m.mean() * abs(truth[m].mean() - prob[m].mean())
            table.append(
                {
                    "bin": f"{edges[b]:.1f}-{edges[b + 1]:.1f}",
                    "n": int(m.sum()),
                    "mean_score": round(float(prob[m].mean()), 4),
                    "share_wrong": round(float(truth[m].mean()), 4),
                }
            )
    return {
        "expected_positives": round(float(prob.sum()), 2),
        "positives": int(truth.sum()),
        "brier": round(float(np.mean((prob - truth) ** 2)), 5),
        "ece": round(float(ece), 4),
        "bins": table,
    }


def evaluate(bench: Bench, scored: Scored) -> dict[str, object]:
    """AUC, AP, P@k and F1 for each target; the proposed answer's agreement with the experts."""
    wrong = bench.error == "wrong_groundtruth"
    targets = {
        "wrong_key": (wrong, np.ones_like(wrong)),
        "any_error": (bench.error != "ok", np.ones_like(wrong)),
        "any_error_decided": (bench.error != "ok", bench.error != "expert"),
    }
    out: dict[str, object] = {"seconds": round(scored.seconds, 4)}
    for name, (truth, keep) in targets.items():
        t, s, f = truth[keep], scored.score[keep], scored.flagged[keep]
        out[name] = {
            "positives": int(t.sum()),
            "roc_auc": round(float(roc_auc_score(t, s)), 4),
            "average_precision": round(float(average_precision_score(t, s)), 4),
            "precision_at_k": round(precision_at_k(t, s, int(t.sum())), 4),
            "flagged": int(f.sum()),
            "f1": round(float(f1_score(t, f)), 4),
        }
    if scored.score.min() >= 0 and scored.score.max() <= 1:
        out["calibration"] = calibration(wrong, scored.score)
    if scored.kind is not None:
        kinds: dict[str, dict[str, int]] = {}
        for k, e in zip(scored.kind, bench.error, strict=True):
            kinds.setdefault(k, {}).setdefault(str(e), 0)
            kinds[k][str(e)] += 1
        out["kinds_by_expert_error"] = {
            k: dict(sorted(v.items())) for k, v in sorted(kinds.items())
        }
    corrected = wrong & ~np.isnan(bench.expert_answer) & (bench.expert_answer != bench.key)
    agree = scored.proposed[corrected] == bench.expert_answer[corrected]
    out["proposed_answer"] = {
        "wrong_keys_with_correction": int(corrected.sum()),
        "agreement": round(float(agree.mean()), 4),
    }
    return out


def ranking(bench: Bench) -> dict[str, object]:
    """The 14 models re-scored on the experts' corrected keys and on the detector's.

    Experts: a ``wrong_groundtruth`` row takes the experts' answer (removed when they give
    none, or the key itself); ``no_correct_answer``, ``multiple_correct_answers`` and the
    two clarity errors are removed; ``expert`` (undecided) rows keep their key. Detector:
    ``wrong_key`` takes the proposed answer, ``ambiguous``/``no_correct`` are removed.
    """
    n = len(bench.key)
    out = answer_flags(
        [str(i) for i in range(n)], bench.key, np.full(n, 4), one_hot(bench), md.MODELS,
        groups=list(bench.subject),
    )  # fmt: skip
    fix = (bench.error == "wrong_groundtruth") & ~np.isnan(bench.expert_answer)
    fix &= bench.expert_answer != bench.key
    drop = ~np.isin(bench.error, ["ok", "expert"]) & ~fix
    experts = np.where(fix, np.nan_to_num(bench.expert_answer).astype(int), bench.key)
    experts = np.where(drop, -1, experts)
    kinds = np.array(out.kind)
    detector = np.where(kinds == "wrong_key", out.proposed, bench.key)
    detector = np.where(np.isin(kinds, ["ambiguous", "no_correct"]), -1, detector)
    by_experts = rerank_models(one_hot(bench), bench.key, experts, md.MODELS)
    by_detector = rerank_models(one_hot(bench), bench.key, detector, md.MODELS)
    tau = kendalltau(by_experts.accuracy_corrected, by_detector.accuracy_corrected).statistic
    return {
        "experts": by_experts.to_json(),
        "detector": by_detector.to_json(),
        "kendall_tau_experts_vs_detector_corrected": round(float(tau), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", type=Path, help="git directory of aryopg/mmlu-redux")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    items, answers = md.load(args.repo)
    bench = matrix(items, answers)
    report: dict[str, object] = {
        "data": {
            "source": f"github.com/aryopg/mmlu-redux@{md.COMMIT}",
            "subjects": len(md.V1_SUBJECTS),
            "questions": len(bench.key),
            "models": len(md.MODELS),
            "errors": {k: int((bench.error == k).sum()) for k in md.KINDS},
        },
        "machine": "2 shared cores, loaded by other jobs",
        "detectors": {},
    }
    for name, detector in DETECTORS.items():
        report["detectors"][name] = evaluate(bench, detector(bench))  # type: ignore[index]
    report["ranking"] = ranking(bench)
    # the timing target is the full MMLU-Redux size: 5,700 questions × 14 models
    # (the v1 questions repeated to that size: only the seconds are read)
    take = np.arange(5700) % len(bench.key)
    big = Bench(
        bench.answers[take],
        bench.key[take],
        bench.subject[take],
        bench.error[take],
        bench.expert_answer[take],
    )
    seconds_5700 = _answers(big).seconds
    ours = report["detectors"]["answers"]  # type: ignore[index]
    report["targets"] = {
        "wrong_key_average_precision": {
            "target": 0.45,
            "got": ours["wrong_key"]["average_precision"],
        },
        "any_error_average_precision": {
            "target": 0.35,
            "got": ours["any_error"]["average_precision"],
        },
        "proposed_answer_agreement": {"target": 0.75, "got": ours["proposed_answer"]["agreement"]},
        "seconds_5700x14": {"target": 10.0, "got": round(seconds_5700, 3)},
    }
    text = json.dumps(report, indent=2)
    args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
