"""Partial-input artifact audit (after Gururangan et al. 2018, "Annotation Artifacts in NLI").

A classifier that sees only one side of each pair (by default the hypothesis) is trained on
a training split and scored on an evaluation split. If it beats the majority-class and
chance baselines by a wide margin, labels can be predicted without the premise: the data
carry annotation artifacts. The paper's fastText hypothesis-only model reached 67% on SNLI
and 53% on MNLI, while a well-built diagnostic suite should leave it near chance (the GLUE
paper reports 32.7% and 36.4% on its diagnostic set). What counts as "too high" depends on
the dataset, so the audit reports numbers, intervals and a plain reading, never pass/fail.

Model: a fastText-style linear classifier, scikit-learn ``LogisticRegression`` on TF-IDF
word uni/bigrams plus character 2–4-grams (``char_wb``); deterministic for a given seed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchcheck.diagnostics.score import Cell, rk_cell
from benchcheck.errors import UsageError

__all__ = ["ArtifactAudit", "Cue", "partial_input_audit"]

_TOKEN = r"(?u)n't|\b\w+\b"


@dataclass(frozen=True)
class Cue:
    """A word n-gram that pushes the partial-input model towards one label."""

    feature: str
    weight: float
    train_count: int
    label_share: float  # P(label | the n-gram occurs) in the training split

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"feature": self.feature, "weight": self.weight, "train_count": self.train_count,
                "label_share": self.label_share}


@dataclass(frozen=True)
class ArtifactAudit:
    """Result of :func:`partial_input_audit`."""

    input: str
    n_train: int
    n_eval: int
    labels: tuple[str, ...]
    accuracy: float
    accuracy_ci: tuple[float, float]
    r_k: Cell
    majority_label: str
    majority_accuracy: float
    chance_accuracy: float
    p_value: float
    cues: Mapping[str, Sequence[Cue]]
    reading: str
    seed: int
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON form, ``kind: artifacts``."""
        return {
            "kind": "artifacts",
            "input": self.input,
            "n_train": self.n_train,
            "n_eval": self.n_eval,
            "labels": list(self.labels),
            "accuracy": self.accuracy,
            "accuracy_ci": list(self.accuracy_ci),
            "r_k": self.r_k.to_json(),
            "baselines": {
                "majority_label": self.majority_label,
                "majority_accuracy": self.majority_accuracy,
                "chance_accuracy": self.chance_accuracy,
            },
            "p_value_vs_best_baseline": self.p_value,
            "cues": {k: [c.to_json() for c in v] for k, v in self.cues.items()},
            "reading": self.reading,
            "seed": self.seed,
            "meta": dict(self.meta),
        }


def _pipeline(seed: int):  # type: ignore[no-untyped-def]
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion, Pipeline

    features = FeatureUnion([
        ("word", TfidfVectorizer(ngram_range=(1, 2), token_pattern=_TOKEN, sublinear_tf=True,
                                 min_df=1)),
        ("char", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True,
                                 min_df=2)),
    ])
    model = LogisticRegression(C=1.0, max_iter=2000, random_state=seed)
    return Pipeline([("features", features), ("model", model)])


def partial_input_audit(
    train_texts: Sequence[str],
    train_labels: Sequence[str],
    eval_texts: Sequence[str],
    eval_labels: Sequence[str],
    *,
    seed: int = 0,
    top_k: int = 10,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    input_name: str = "hypothesis",
    max_train: int | None = None,
    meta: Mapping[str, Any] | None = None,
) -> ArtifactAudit:
    """Train on one side of the pairs, score on the evaluation split, explain the cues.

    Accuracy comes with an exact (Clopper–Pearson) interval and a one-sided binomial test
    against the better of two baselines: the majority class of the training split
    (accuracy = that label's share in the evaluation split) and chance (1/K over the labels
    of both splits). R_K comes with a seeded bootstrap interval. Cues: per label, the
    ``top_k`` word n-grams with the largest coefficients, with their training count and
    the share of that label among training texts containing them. ``max_train`` trains on
    a seeded random subset of that size (the fit takes about a minute per 50k texts on one
    core).
    """
    from scipy.stats import binomtest

    if len(train_texts) != len(train_labels) or len(eval_texts) != len(eval_labels):
        raise UsageError("texts and labels must have the same length")
    meta = dict(meta or {})
    if max_train is not None and len(train_texts) > max_train:
        if max_train < 2:
            raise UsageError(f"max_train must be at least 2, got {max_train}")
        keep = np.sort(np.random.default_rng(seed).choice(len(train_texts), max_train,
                                                          replace=False))
        meta["n_train_available"] = len(train_texts)
        train_texts = [train_texts[i] for i in keep]
        train_labels = [train_labels[i] for i in keep]
    classes = sorted(set(train_labels))
    if len(classes) < 2:
        raise UsageError(f"the training split needs at least two labels, found {classes}")
    if not eval_texts:
        raise UsageError("the evaluation split is empty")
    if not set(train_labels) & set(eval_labels):
        raise UsageError(
            f"training labels {sorted(set(train_labels))[:5]} and evaluation labels "
            f"{sorted(set(eval_labels))[:5]} share nothing; map them "
            "({label_map} 0=entailment,...)"
        )
    labels = tuple(sorted(set(train_labels) | set(eval_labels)))
    from threadpoolctl import threadpool_limits

    pipe = _pipeline(seed)
    # One BLAS thread: lbfgs on sparse features gains nothing from more, and on a shared
    # machine oversubscribed BLAS threads made the fit 50x slower.
    with threadpool_limits(1):
        pipe.fit(list(train_texts), list(train_labels))
        pred = [str(p) for p in pipe.predict(list(eval_texts))]
    gold = list(eval_labels)
    n = len(gold)
    correct = int(sum(a == b for a, b in zip(gold, pred, strict=True)))
    accuracy = correct / n
    test = binomtest(correct, n)
    ci = test.proportion_ci(confidence_level=confidence, method="exact")
    counts = Counter(train_labels)
    majority = max(classes, key=lambda lab: counts[lab])  # ties: first in sorted order
    majority_acc = sum(g == majority for g in gold) / n
    chance = 1.0 / len(labels)
    best = max(majority_acc, chance)
    p_value = float(binomtest(correct, n, p=min(best, 1.0), alternative="greater").pvalue)
    cell = rk_cell(gold, pred, labels, seed=seed, key="artifacts", n_resamples=n_resamples,
                   confidence=confidence)
    cues = _cues(pipe, list(train_texts), list(train_labels), top_k)
    reading = _reading(input_name, accuracy, (ci.low, ci.high), best, majority_acc, chance,
                       p_value, cues, confidence)
    return ArtifactAudit(
        input=input_name,
        n_train=len(train_texts),
        n_eval=n,
        labels=labels,
        accuracy=accuracy,
        accuracy_ci=(float(ci.low), float(ci.high)),
        r_k=cell,
        majority_label=majority,
        majority_accuracy=majority_acc,
        chance_accuracy=chance,
        p_value=p_value,
        cues=cues,
        reading=reading,
        seed=seed,
        meta=meta,
    )


def _cues(pipe: Any, texts: list[str], labels: list[str], top_k: int) -> dict[str, list[Cue]]:
    model = pipe.named_steps["model"]
    union = pipe.named_steps["features"]
    word = dict(union.transformer_list)["word"]
    n_word = len(word.vocabulary_)
    names = word.get_feature_names_out()
    coef = model.coef_[:, :n_word]  # word features come first in the union
    classes = [str(c) for c in model.classes_]
    if coef.shape[0] == 1:  # binary: one row, positive towards classes[1]
        coef = np.vstack([-coef[0], coef[0]])
    present = (word.transform(texts) > 0).tocsc()
    y = np.array(labels)
    out: dict[str, list[Cue]] = {}
    for row, lab in enumerate(classes):
        order = np.argsort(-coef[row], kind="stable")[:top_k]
        cues = []
        for j in order:
            if coef[row, j] <= 0:
                break
            rows = present[:, j].nonzero()[0]
            share = float(np.mean(y[rows] == lab)) if rows.size else 0.0
            cues.append(Cue(str(names[j]), float(coef[row, j]), int(rows.size), share))
        out[lab] = cues
    return out


def _reading(
    side: str,
    accuracy: float,
    ci: tuple[float, float],
    best: float,
    majority: float,
    chance: float,
    p_value: float,
    cues: Mapping[str, Sequence[Cue]],
    confidence: float,
) -> str:
    level = f"{confidence:.0%}"
    head = (f"A {side}-only classifier scores {accuracy:.1%} accuracy ({level} interval "
            f"{ci[0]:.1%}–{ci[1]:.1%}); the majority class gives {majority:.1%} and chance "
            f"{chance:.1%}.")
    if ci[0] > best:
        ranked = sorted(((c.weight, c.feature, lab) for lab, cs in cues.items() for c in cs),
                        reverse=True)
        top = [f"'{feature}' → {lab}" for _, feature, lab in ranked[:3]]
        return (f"{head} The {side} alone predicts the label above both baselines "
                f"(one-sided p = {p_value:.2g}): part of the task can be solved without the "
                f"other sentence. Strongest cues: {', '.join(top) or 'none'}. Whether "
                "this margin is a problem depends on the dataset; compare it with the same "
                "audit on datasets you trust.")
    return (f"{head} The interval reaches the better baseline, so at this sample size there "
            f"is no evidence that the {side} alone gives the label away (one-sided "
            f"p = {p_value:.2g}).")
