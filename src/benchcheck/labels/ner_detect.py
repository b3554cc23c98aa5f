"""NER label errors found without a user model: out-of-fold CRF disagreements, scored.

:func:`tagger_flags` runs the out-of-fold tagger (:mod:`benchcheck.labels.ner_tagger`) on one
split, compares its Viterbi spans with the gold spans (:func:`~benchcheck.labels.ner_flags.
compare_spans`: kinds ``wrong_type``, ``wrong_boundary``, ``missing_annotation``,
``spurious_annotation``, named from the annotation's side) and scores every disagreement
from the held-out marginals ``p_t(y)``.

**Candidates.** Three members propose regions: the tagger's disagreements, the surfaces
annotated unlike their other occurrences in the split (:func:`~benchcheck.labels.
ner_consistency.consistency_votes`, the variation principle) and, where the file marks its
documents (``-DOCSTART-``, ``documents``), unlike their other occurrences in the same
document (:func:`~benchcheck.labels.ner_consistency.document_votes`: a news story repeats its
entities with one type) and unlike their other occurrences in documents of the same *topic*
(:func:`~benchcheck.labels.ner_consistency.topic_groups`: k-means of the documents' TF-IDF
vectors, one topic per 15 documents; from 23 documents). An inconsistent occurrence that
overlaps a disagreement lends it its score; one that overlaps none becomes a row of its own
(``source`` = ``consistency``, ``document`` or ``topic``; kind ``wrong_type`` for a gold
span the others give another type, ``spurious_annotation`` for one the others leave
unannotated, ``missing_annotation`` for an unannotated occurrence the others annotate; of
overlapping ones the highest score is kept).
Rows whose regions overlap are then one **disputed region** (:func:`~benchcheck.labels.
ner_flags.merge_regions`): its best-scored row, its region the union.

**Error score.** For a row whose region (the union of its gold and proposed span) covers
tokens ``R`` with gold labels ``g_t``,

    crf_score = 1 − min_{t ∈ R} p_t(g_t)

the complement of cleanlab's token label quality (``self_confidence``, Northcutt et al. 2021;
Wang & Mueller 2022, "Detecting Label Errors in Token Classification Data") at the region's
worst token. ``min_t p_t(g_t)`` bounds from above the probability that the tagger gives the
whole gold labelling of the region (a joint probability is at most each of its marginals), so
``crf_score`` is a lower bound on the tagger's probability that the gold labelling of the
region is wrong, in [0, 1]. With ``c`` the largest ``consistency_score`` of an inconsistent
occurrence overlapping the region, ``d`` the largest ``document_score`` and ``u`` the
largest ``topic_score`` (0 without one),

    error_score = 1 − (1 − crf_score) · (1 − c) · (1 − d) · (1 − u)

the noisy-or of the members: the label is wrong unless no member's evidence holds, the
members taken as independent. It is not a calibrated probability (on the real CoNLL-2003
errors flags from 0.995 are right about a third of the time, benchmarks/ner_detect_bench.py
``--real``). **Ranking** is by ``error_logit``, its log-odds computed in log space
(:func:`error_logit`): ``error_score`` rounds to 1.0 for strong evidence, the log-odds do not,
so two rows tie only when their members' values are equal. On benchmarks/ner_detect_bench.py
the noisy-or raised the mean
sentence AP over the four planted kinds from 0.58 to 0.68 (MSRA test), 0.49 to 0.59
(Japanese), 0.28 to 0.36 (WNUT-16), 0.64 to 0.75 (CoNLL sample) (two draws each; a weighted
mean and the plain mean were within 0.01 on average but uneven across corpora).
The document member (issue 36) raised the sentence AP on the real train/dev corrections of
CoNLL-2003 (module :mod:`benchmarks._ner_real`) from 0.152 to 0.175, the topic member
(issue 36) from 0.175 to 0.199 (docs/labels.md; benchmarks/ner_real_candidates.py).
Members kept beside it: ``crf_score``, ``consistency_score``, ``document_score``,
``topic_score``,
``dispute_share`` (CrossWeigh's score, Wang et al. 2019 §3.2: the share of the repeated
k-fold runs — the plain one and the entity-disjoint ones,
:mod:`~benchcheck.labels.ner_tagger` — whose Viterbi labelling disputes a gold label of the
region, ``max_t`` of the token's count over the runs; on the real CoNLL-2003 train/dev
corrections its sentence AP was 0.110 against ``crf_score``'s 0.165 (the plain and three
entity-disjoint runs), so it is shown, not combined),
``gold_log_prob`` (``log min_t p_t(g_t)``), ``tagger_confidence``
(``min_t p_t(ŷ_t)`` of the tagger's own labels over the region), ``token_issue`` (whether
cleanlab's ``find_label_issues`` flags a token of the region) and ``sentence_quality``
(cleanlab's ``get_label_quality_scores`` sentence score: the smallest token quality
``min_t p_t(g_t)``).

A flag is a disagreement with ``error_score >= min_error_score``; every sentence gets
``sentence_error_score``, the largest error score of its disagreements (0 without any).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import polars as pl

from benchcheck._progress import Progress
from benchcheck.errors import InputError, UsageError, require
from benchcheck.labels.ner_consistency import consistency_votes, document_votes, topic_groups
from benchcheck.labels.ner_flags import KINDS, compare_spans, merge_regions
from benchcheck.labels.ner_tagger import (
    OofTagging,
    TaggerOptions,
    bio_labels,
    bio_spans,
    oof_tagging,
)

__all__ = ["MIN_ERROR_SCORE", "TaggerFlags", "error_logit", "score_flags", "tagger_flags"]

#: Default flag threshold on ``error_score``: with the consistency member, flags from 0.995
#: had precision 0.53 at recall 0.64 on planted MSRA-test errors (0.99: 0.45 at 0.71; the
#: Japanese corpus 0.34 at 0.54), benchmarks/ner_detect_bench.py threshold sweep.
MIN_ERROR_SCORE = 0.995
#: Floor of a held-out probability before its logarithm (CRFsuite can round one to 0).
TINY = 1e-300


def error_logit(
    gold_log_prob: np.ndarray,
    consistency: np.ndarray,
    document: np.ndarray,
    topic: np.ndarray | None = None,
) -> np.ndarray:
    r"""Log-odds of the noisy-or ``error_score``, computed in log space (module docstring).

    With ``L = log q + log(1 − c) + log(1 − d) + log(1 − u)`` (``q`` the smallest held-out
    probability of a gold label in the region, ``c``/``d``/``u`` the consistency members;
    ``topic`` absent: ``u = 0``),
    ``error_score = 1 − e^L`` and

    .. math:: \operatorname{logit}(\text{error\_score}) = \log(-\operatorname{expm1}(L)) - L,

    finite and strictly increasing in the evidence where ``error_score`` itself rounds to
    1.0 (two regions tie only when ``q``, ``c`` and ``d`` are equal); clipped to ±700.

    >>> error_logit(np.log([0.5, 1e-20, 1e-30]), np.zeros(3), np.zeros(3)).round(2).tolist()
    [0.0, 46.05, 69.08]
    """
    total = np.asarray(gold_log_prob, dtype=np.float64).copy()
    for member in (consistency, document, *(() if topic is None else (topic,))):
        total += np.log1p(-np.minimum(np.asarray(member, dtype=np.float64), 1.0 - 1e-16))
    total = np.minimum(total, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(-np.expm1(total)) - total
    return np.clip(out, -700.0, 700.0)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """``1 / (1 + e^{-z})`` without overflow."""
    return np.exp(-np.logaddexp(0.0, -z))


@dataclass(frozen=True)
class TaggerFlags:
    """Span disagreements of the out-of-fold tagger with the gold, scored and ranked.

    ``flags``: one row per disagreement (``flagged`` where ``error_score`` reaches the
    threshold); ``sentences``: ``sentence``, ``sentence_error_score``, ``sentence_quality``
    (cleanlab) of every sentence; ``pred``: the tagger's spans; ``n_token_issues``: tokens
    cleanlab's ``find_label_issues`` flags; ``tagging``: the held-out marginals and labels
    themselves and ``gold_labels``, the gold IOB2 labels it was trained on (``--verify all``
    scores gold spans no flag holds with them).
    """

    flags: pl.DataFrame
    sentences: pl.DataFrame
    pred: pl.DataFrame
    n_token_issues: int
    tagging: OofTagging
    gold_labels: list[list[str]]
    options: TaggerOptions
    min_error_score: float


def _sentence_words(tokens: pl.DataFrame, n: int) -> list[list[str]]:
    """Tokens of each sentence ``0 … n-1`` in position order."""
    grouped = (
        tokens.select(
            pl.col("sentence").cast(pl.Int64), "position", pl.col("token").cast(pl.String)
        )
        .group_by("sentence")
        .agg(pl.col("token").sort_by("position"))
    )
    words: list[list[str]] = [[] for _ in range(n)]
    for s, w in grouped.iter_rows():
        words[s] = list(w)
    return words


def score_flags(
    flags: pl.DataFrame, gold_labels: list[list[str]], tagging: OofTagging
) -> pl.DataFrame:
    """Add ``error_score`` and ``tagger_confidence`` to span flags (module docstring formula).

    >>> from benchcheck.labels.ner_tagger import OofTagging
    >>> t = OofTagging(("O", "B-LOC"), (np.array([[0.3, 0.7], [0.9, 0.1]]),),
    ...                (("B-LOC", "O"),), np.zeros(1))
    >>> f = pl.DataFrame({"sentence": [0], "start": [0], "end": [1]})
    >>> score_flags(f, [["O", "O"]], t)["error_score"].to_list()
    [0.7]
    """
    col = {c: j for j, c in enumerate(tagging.classes)}
    keep, conf, share = [], [], []
    for s, a, b in flags.select("sentence", "start", "end").iter_rows():
        marg = tagging.marginals[s][a:b]
        gold = [col[g] for g in gold_labels[s][a:b]]
        pred = [col.get(p, 0) for p in tagging.predicted[s][a:b]]
        rows = np.arange(b - a)
        keep.append(float(marg[rows, gold].min()))
        conf.append(float(marg[rows, pred].min()))
        if tagging.disputes:
            share.append(float(tagging.disputes[s][a:b].max()) / tagging.runs)
    q = np.clip(np.asarray(keep, dtype=np.float64), 0.0, 1.0)
    return flags.with_columns(
        pl.Series("error_score", 1.0 - q, dtype=pl.Float64),
        pl.Series("gold_log_prob", np.log(np.maximum(q, TINY)), dtype=pl.Float64),
        pl.Series("tagger_confidence", np.clip(conf, 0.0, 1.0), dtype=pl.Float64),
        pl.Series(
            "dispute_share",
            share if tagging.disputes else [None] * flags.height,
            dtype=pl.Float64,
        ),
    )


def _overlap_max(flags: pl.DataFrame, votes: pl.DataFrame) -> np.ndarray:
    """Largest ``consistency_score`` of a vote overlapping each flag's region (0 if none).

    >>> f = pl.DataFrame({"sentence": [0, 0, 1], "start": [0, 3, 0], "end": [2, 4, 1]})
    >>> v = pl.DataFrame({"sentence": [0, 0], "start": [1, 1], "end": [2, 3],
    ...                   "consistency_score": [0.5, 0.8]})
    >>> _overlap_max(f, v).tolist()
    [0.8, 0.0, 0.0]
    """
    by_sentence: dict[int, list[tuple[int, int, float]]] = {}
    for s, a, b, c in votes.select("sentence", "start", "end", "consistency_score").iter_rows():
        by_sentence.setdefault(s, []).append((a, b, c))
    out = np.zeros(flags.height)
    for i, (s, a, b) in enumerate(flags.select("sentence", "start", "end").iter_rows()):
        for va, vb, c in by_sentence.get(s, ()):
            if va < b and a < vb and c > out[i]:
                out[i] = c
    return out


def _vote_rows(
    votes: pl.DataFrame, disagreements: pl.DataFrame, source: str = "consistency"
) -> pl.DataFrame:
    """Flag rows for inconsistent occurrences that overlap no disagreement (module docstring).

    Greedy by score: a vote overlapping a disagreement or a vote already kept is dropped.
    """
    taken: dict[int, list[tuple[int, int]]] = {}
    for s, a, b in disagreements.select("sentence", "start", "end").iter_rows():
        taken.setdefault(s, []).append((a, b))
    rows: dict[str, list[object]] = {c: [] for c in _ROW_COLUMNS}
    ranked = votes.sort(
        ["consistency_score", "sentence", "start", "end"],
        descending=[True, False, False, False],
        maintain_order=True,
    )
    for s, a, b, gold, proposed in ranked.select(
        "sentence", "start", "end", "gold_type", "proposed_type"
    ).iter_rows():
        if any(x < b and a < y for x, y in taken.get(s, ())):
            continue
        taken.setdefault(s, []).append((a, b))
        kind = (
            "missing_annotation"
            if gold is None
            else ("spurious_annotation" if proposed is None else "wrong_type")
        )
        values = (kind, s, a, b, None, None, gold, None, None, proposed, None, source)
        for c, v in zip(_ROW_COLUMNS, values, strict=True):
            rows[c].append(v)
        if gold is not None:
            rows["gold_start"][-1], rows["gold_end"][-1] = a, b
        if proposed is not None:
            rows["pred_start"][-1], rows["pred_end"][-1] = a, b
    return pl.DataFrame(rows, schema=_ROW_COLUMNS)


_ROW_COLUMNS: dict[str, type[pl.DataType]] = {
    "kind": pl.String,
    "sentence": pl.Int64,
    "start": pl.Int64,
    "end": pl.Int64,
    "gold_start": pl.Int64,
    "gold_end": pl.Int64,
    "gold_type": pl.String,
    "pred_start": pl.Int64,
    "pred_end": pl.Int64,
    "pred_type": pl.String,
    "confidence": pl.Float64,
    "source": pl.String,
}


def tagger_flags(
    tokens: pl.DataFrame,
    spans: pl.DataFrame,
    n_sentences: int,
    *,
    options: TaggerOptions | None = None,
    min_error_score: float = MIN_ERROR_SCORE,
    progress: Progress | None = None,
    documents: np.ndarray | None = None,
) -> TaggerFlags:
    """Flag span disagreements of an out-of-fold CRF with the gold (module docstring).

    ``tokens``: the split's token table; ``spans``: its span table (``sentence``, ``start``,
    ``end``, ``type``); ``documents``: the document of each sentence (``-DOCSTART-``
    sections, :func:`benchcheck.io.conll.sentence_documents`), which adds the document
    consistency member; ``progress`` counts the folds trained. Raises :class:`UsageError`
    for fewer than two entity types or fewer sentences with entities than folds,
    :class:`InputError` for a span off the sentence.
    """
    opts = options or TaggerOptions()
    cl_rank = require("cleanlab.token_classification.rank", "ner")
    cl_filter = require("cleanlab.token_classification.filter", "ner")
    if not 0.0 <= min_error_score <= 1.0:
        raise UsageError(f"{{min_error_score}} must be in [0, 1], got {min_error_score}")
    types = sorted(set(spans["type"].cast(pl.String).to_list()))
    if len(types) < 2:
        found = f"only {types[0]!r}" if types else "none"
        raise UsageError(
            "the tagger detector needs at least two entity types (a type error is a swap "
            f"between types); found {found}"
        )
    words = _sentence_words(tokens, n_sentences)
    empty = [i for i, w in enumerate(words) if not w]
    if empty:
        raise InputError(f"sentence {empty[0]} has no tokens")
    s_arr = spans["sentence"].cast(pl.Int64).to_numpy()
    a_arr = spans["start"].cast(pl.Int64).to_numpy()
    b_arr = spans["end"].cast(pl.Int64).to_numpy()
    t_list = spans["type"].cast(pl.String).to_list()
    labels = bio_labels([len(w) for w in words], s_arr, a_arr, b_arr, t_list)
    surfaces: list[set[str]] = [set() for _ in words]
    for s, a, b in zip(s_arr.tolist(), a_arr.tolist(), b_arr.tolist(), strict=True):
        surfaces[s].add(" ".join(words[s][a:b]).lower())
    tagging = oof_tagging(words, labels, [frozenset(x) for x in surfaces], opts, progress)

    rows: dict[str, list[object]] = {"sentence": [], "start": [], "end": [], "type": []}
    for s, pred in enumerate(tagging.predicted):
        for a, b, t in bio_spans(pred):
            rows["sentence"].append(s)
            rows["start"].append(a)
            rows["end"].append(b)
            rows["type"].append(t)
    pred_spans = pl.DataFrame(
        rows,
        schema={"sentence": pl.Int64, "start": pl.Int64, "end": pl.Int64, "type": pl.String},
    )
    gold = pl.DataFrame(
        {"sentence": s_arr, "start": a_arr, "end": b_arr, "type": t_list},
        schema={"sentence": pl.Int64, "start": pl.Int64, "end": pl.Int64, "type": pl.String},
    )
    spans_by_sentence: list[list[tuple[int, int, str]]] = [[] for _ in words]
    for s, a, b, t in zip(s_arr.tolist(), a_arr.tolist(), b_arr.tolist(), t_list, strict=True):
        spans_by_sentence[s].append((a, b, t))
    votes = consistency_votes(words, spans_by_sentence)
    disagreements = compare_spans(gold, pred_spans).drop("rank")
    pieces = [
        disagreements.with_columns(pl.lit("tagger").alias("source")),
        _vote_rows(votes, disagreements),
    ]
    doc_votes = topic_votes = None
    if documents is not None:
        if len(documents) != len(words):
            raise UsageError(f"documents: {len(documents)} entries for {len(words)} sentences")
        doc_ids = np.asarray(documents).tolist()
        doc_votes = document_votes(words, spans_by_sentence, doc_ids)
        taken = pl.concat(pieces, how="vertical_relaxed")
        pieces.append(_vote_rows(doc_votes, taken, source="document"))
        topics = topic_groups(words, doc_ids)
        if topics is not None:
            topic_votes = document_votes(words, spans_by_sentence, topics)
            taken = pl.concat(pieces, how="vertical_relaxed")
            pieces.append(_vote_rows(topic_votes, taken, source="topic"))
    flags = pl.concat(pieces, how="vertical_relaxed")
    flags = score_flags(flags, labels, tagging).rename({"error_score": "crf_score"})
    flags = flags.with_columns(
        pl.Series("consistency_score", _overlap_max(flags, votes), dtype=pl.Float64),
        pl.Series(
            "document_score",
            np.zeros(flags.height) if doc_votes is None else _overlap_max(flags, doc_votes),
            dtype=pl.Float64,
        ),
        pl.Series(
            "topic_score",
            np.zeros(flags.height) if topic_votes is None else _overlap_max(flags, topic_votes),
            dtype=pl.Float64,
        ),
    )
    logit = error_logit(
        flags["gold_log_prob"].to_numpy(),
        flags["consistency_score"].to_numpy(),
        flags["document_score"].to_numpy(),
        flags["topic_score"].to_numpy(),
    )
    flags = flags.with_columns(
        pl.Series("error_logit", logit, dtype=pl.Float64),
        pl.Series("error_score", _sigmoid(logit), dtype=pl.Float64),
        pl.col("tagger_confidence").alias("confidence"),
    )

    col = {c: j for j, c in enumerate(tagging.classes)}
    given = [np.array([col[g] for g in row], dtype=np.int64) for row in labels]
    probs = [m / m.sum(axis=1, keepdims=True) for m in tagging.marginals]
    with warnings.catch_warnings():  # "too few examples in class k": a note, not our user's
        warnings.simplefilter("ignore", UserWarning)
        sent_quality, _ = cl_rank.get_label_quality_scores(given, probs)
        issues = cl_filter.find_label_issues(given, probs, n_jobs=1)
    issue_tokens: dict[int, set[int]] = {}
    for s, t in issues:
        issue_tokens.setdefault(int(s), set()).add(int(t))
    flags = flags.with_columns(
        pl.Series(
            "token_issue",
            [
                any(t in issue_tokens.get(s, ()) for t in range(a, b))
                for s, a, b in flags.select("sentence", "start", "end").iter_rows()
            ],
            dtype=pl.Boolean,
        )
    )
    order = {k: i for i, k in enumerate(KINDS)}
    flags = (
        flags.with_columns(pl.col("kind").replace_strict(order).alias("_k"))
        .sort(
            ["error_logit", "_k", "sentence", "start"],
            descending=[True, False, False, False],
            maintain_order=True,
        )
        .drop("_k")
    )
    flags = merge_regions(flags)
    flags = flags.with_columns(
        pl.int_range(1, flags.height + 1).alias("rank"),
        (pl.col("error_score") >= min_error_score).alias("flagged"),
    )
    per_sentence = flags.group_by("sentence").agg(pl.col("error_score").max())
    sentence_score = np.zeros(n_sentences)
    for s, e in per_sentence.iter_rows():
        sentence_score[s] = e
    sentences = pl.DataFrame(
        {
            "sentence": np.arange(n_sentences, dtype=np.int64),
            "sentence_error_score": sentence_score,
            "sentence_quality": np.asarray(sent_quality, dtype=np.float64),
            "fold": tagging.fold,
        }
    )
    flags = flags.join(
        sentences.select("sentence", "sentence_error_score", "sentence_quality"),
        on="sentence",
        how="left",
        maintain_order="left",
    )
    return TaggerFlags(
        flags=flags,
        sentences=sentences,
        pred=pred_spans,
        n_token_issues=len(issues),
        tagging=tagging,
        gold_labels=labels,
        options=opts,
        min_error_score=min_error_score,
    )
