r"""Judge-verified NER spans: a language model asked whether a span's gold annotation holds.

For each candidate span (a disagreement of the out-of-fold tagger with the gold,
:mod:`benchcheck.labels.ner_detect`) the judge answers a yes/no question from the
log-probabilities of its answer tokens, exactly as ``benchcheck judge`` does for pairs
(:func:`benchcheck.judges.run.judge_frame`: same judges, same SQLite cache, grounding-major
batches). The sentence is the grounding (``text_a``) and the claim about the span the tail
(``text_b``), so the framings of every span of one sentence share the prefix
system message + sentence and a prefix-sharing engine evaluates the sentence once per judge.

**Claims.** A flag with a gold span (kinds ``type``, ``boundary``, ``missing``) asks whether
the gold annotation is right: ``«SURFACE» is a named entity of type T (description)``,
SURFACE the gold span's tokens and T its gold type; the gold is wrong with ``P(no)``. A flag
without a gold span (``spurious``: the tagger proposes an entity the gold lacks) asks
whether the gold's silence is wrong: ``«SURFACE» is a named entity of one of the types
T1 (…), T2 (…), …``; the gold is wrong with ``P(yes)``.

**Score.** With framings ``f = 1 … F`` (:data:`FRAMINGS`: a question and a statement to
call true or false) and ``P_f(yes)`` the judge's softmax over the two answer tokens,

.. math:: \text{llm\_score} = \frac{1}{F} \sum_f P_f(\text{gold wrong})

averaged over framings (and over judges when several are given), in [0, 1].

**Combination** (``--detector both``): ``mean`` — the mean of the tagger's
``error_score`` and ``llm_score``; ``rank`` — the mean of their normalised ranks
(:func:`combine_scores`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from benchcheck.errors import UsageError
from benchcheck.judges.prompts import PromptTemplate

if TYPE_CHECKING:
    from benchcheck.judges.base import Judge
    from benchcheck.judges.cache import JudgeCache
    from benchcheck.judges.run import Progress

__all__ = [
    "COMBINATIONS",
    "FRAMINGS",
    "TYPE_NAMES",
    "combine_scores",
    "judge_span_flags",
    "span_claims",
    "span_claim",
    "LLM_MIN_ERROR_SCORE",
    "rescore_flags",
]

#: Plain-language descriptions of common NER types (CoNLL, OntoNotes, WNUT, MSRA); a type
#: not listed is shown by its own name.
TYPE_NAMES: dict[str, str] = {
    "PER": "person",
    "PERSON": "person",
    "LOC": "location",
    "LOCATION": "location",
    "ORG": "organization",
    "ORGANIZATION": "organization",
    "MISC": "miscellaneous name: nationality, event, work, product or other name",
    "GPE": "country, city or state",
    "NORP": "nationality, religious or political group",
    "FAC": "facility",
    "EVENT": "event",
    "PRODUCT": "product",
    "WORK_OF_ART": "work of art",
    "LAW": "law",
    "LANGUAGE": "language",
    "DATE": "date",
    "TIME": "time",
    "MONEY": "money",
    "PERCENT": "percentage",
    "QUANTITY": "quantity",
    "ORDINAL": "ordinal",
    "CARDINAL": "cardinal number",
    "NS": "location",
    "NR": "person",
    "NT": "organization",
    "CORPORATION": "corporation",
    "GROUP": "group",
    "CREATIVE-WORK": "creative work",
}

_SYSTEM = "You are a careful annotator of named entities. Answer with a single digit."

#: The two framings: a question and a statement to judge true or false. Both start with
#: the sentence (the grounding), so a sentence's prompts share their prefix.
FRAMINGS: tuple[PromptTemplate, ...] = (
    PromptTemplate(
        name="span-question",
        system=_SYSTEM,
        user=(
            "Sentence: {text_a}\n\nQuestion: in the sentence above, is it correct that "
            "{text_b}? Answer 1 for yes, 0 for no.\nAnswer (0 or 1):"
        ),
    ),
    PromptTemplate(
        name="span-statement",
        system=_SYSTEM,
        user=(
            "Sentence: {text_a}\n\nStatement: in the sentence above, {text_b}.\n"
            "Is the statement true? Answer 1 for true, 0 for false.\nAnswer (0 or 1):"
        ),
    ),
)

#: ``--combination`` rules of ``--detector both``.
COMBINATIONS = ("mean", "rank")


def _type_text(t: str) -> str:
    """``T (description)``, or ``T`` alone for a type without a description.

    >>> _type_text("PER"), _type_text("X")
    ('PER (person)', 'X')
    """
    name = TYPE_NAMES.get(t.upper())
    return f"{t} ({name})" if name else t


def span_claim(surface: str, gold_type: str | None, types: Sequence[str]) -> tuple[str, str]:
    """Return the claim about one span and the answer that says the gold is wrong.

    >>> span_claim("Paris", "LOC", ["LOC", "PER"])
    ('«Paris» is a named entity of type LOC (location)', '0')
    >>> span_claim("Paris", None, ["LOC", "PER"])
    ('«Paris» is a named entity of one of the types LOC (location), PER (person)', '1')
    """
    if gold_type is not None:
        return f"«{surface}» is a named entity of type {_type_text(gold_type)}", "0"
    listed = ", ".join(_type_text(t) for t in types)
    return f"«{surface}» is a named entity of one of the types {listed}", "1"


def span_claims(
    flags: pl.DataFrame, words: Sequence[Sequence[str]], types: Sequence[str]
) -> pl.DataFrame:
    """Return one judge example per flag: ``id``, ``text_a``, ``text_b`` (claim), ``wrong``.

    A flag with a gold span (``gold_start``/``gold_end``/``gold_type`` not null) is asked about
    its gold span, one without about its proposed span (``pred_start``/``pred_end``).
    """
    from benchcheck.data.scripts import join_tokens

    ids, text_a, text_b, wrong = [], [], [], []
    cols = ("sentence", "gold_start", "gold_end", "gold_type", "pred_start", "pred_end")
    for i, (s, ga, gb, gt, pa, pb) in enumerate(flags.select(cols).iter_rows()):
        a, b = (ga, gb) if gt is not None else (pa, pb)
        claim, bad = span_claim(join_tokens(list(words[s][a:b])), gt, types)
        ids.append(str(i))
        text_a.append(join_tokens(list(words[s])))
        text_b.append(claim)
        wrong.append(bad)
    return pl.DataFrame(
        {"id": ids, "text_a": text_a, "text_b": text_b, "wrong": wrong},
        schema={"id": pl.String, "text_a": pl.String, "text_b": pl.String, "wrong": pl.String},
    )


def judge_span_flags(
    flags: pl.DataFrame,
    words: Sequence[Sequence[str]],
    types: Sequence[str],
    judges: Sequence[Judge],
    *,
    cache: JudgeCache | None = None,
    progress: Progress | None = None,
) -> tuple[np.ndarray, pl.DataFrame]:
    """Return ``llm_score`` of every flag (module docstring) and the judgments behind it.

    The judgments are :func:`~benchcheck.judges.run.judge_frame`'s rows (one per flag ×
    judge × framing, ``cached`` telling which were served from the cache).
    """
    from benchcheck.judges.run import judge_frame

    if flags.height == 0:
        return np.zeros(0), pl.DataFrame()
    claims = span_claims(flags, words, types)
    rows = judge_frame(
        claims.select("id", "text_a", "text_b"), judges, FRAMINGS, cache=cache, progress=progress
    )
    per = rows.join(claims.select("id", "wrong"), on="id", how="left").with_columns(
        pl.when(pl.col("wrong") == "1")
        .then(pl.col("p_1"))
        .otherwise(pl.col("p_0"))
        .alias("p_wrong")
    )
    mean = per.group_by("id").agg(pl.col("p_wrong").mean())
    by_id = dict(zip(mean["id"].to_list(), mean["p_wrong"].to_list(), strict=True))
    score = np.array([by_id[i] for i in claims["id"].to_list()], dtype=np.float64)
    return np.clip(score, 0.0, 1.0), per


def combine_scores(tagger: np.ndarray, llm: np.ndarray, rule: str = "mean") -> np.ndarray:
    """Combine the tagger's and the judge's scores of the same flags.

    ``mean``: ``(tagger + llm) / 2``. ``rank``: the mean of the two normalised ranks
    ``(rank − 1) / (n − 1)`` (average ranks for ties, scipy's ``rankdata``; 1 for a single
    flag), a score in [0, 1] that ignores each member's scale.

    >>> combine_scores(np.array([0.9, 0.2]), np.array([0.1, 0.6])).tolist()
    [0.5, 0.4]
    >>> combine_scores(np.array([0.9, 0.2, 0.5]), np.array([0.1, 0.6, 0.7]), "rank").tolist()
    [0.5, 0.25, 0.75]
    """
    from scipy.stats import rankdata

    if rule not in COMBINATIONS:
        raise UsageError(f"{{combination}}: expected mean or rank, got {rule!r}")
    t = np.asarray(tagger, dtype=np.float64)
    j = np.asarray(llm, dtype=np.float64)
    if rule == "mean":
        return np.asarray((t + j) / 2.0)
    n = t.size
    if n <= 1:
        return np.ones(n)
    rt = (rankdata(t) - 1.0) / (n - 1.0)
    rj = (rankdata(j) - 1.0) / (n - 1.0)
    return np.asarray((rt + rj) / 2.0)


#: Default flag threshold of ``--detector llm|both``: the judge's (or the combined) score
#: above one half — the gold more likely wrong than right.
LLM_MIN_ERROR_SCORE = 0.5


def rescore_flags(
    flags: pl.DataFrame, score: np.ndarray, *, min_error_score: float
) -> pl.DataFrame:
    """Replace ``error_score`` by ``score`` (the tagger's kept as ``tagger_score``), re-rank.

    Rows come in the new ``rank`` order (score descending; ties: sentence, start), ``flagged`` is
    ``error_score >= min_error_score`` and ``sentence_error_score`` the largest new score of
    the sentence's flags.

    >>> f = pl.DataFrame({"sentence": [0, 0, 1], "start": [0, 2, 0], "error_score": [0.9, 0.1, 0.5],
    ...                   "sentence_error_score": [0.9, 0.9, 0.5]})
    >>> g = rescore_flags(f, np.array([0.2, 0.7, 0.4]), min_error_score=0.5)
    >>> g.select("start", "rank", "flagged", "sentence_error_score").rows()
    [(2, 1, True, 0.7), (0, 2, False, 0.4), (0, 3, False, 0.7)]
    """
    out = flags.with_columns(
        pl.col("error_score").alias("tagger_score"),
        pl.Series("error_score", np.clip(score, 0.0, 1.0), dtype=pl.Float64),
    )
    out = out.sort(
        ["error_score", "sentence", "start"], descending=[True, False, False], maintain_order=True
    )
    return out.with_columns(
        pl.int_range(1, out.height + 1, dtype=pl.Int64).alias("rank"),
        (pl.col("error_score") >= min_error_score).alias("flagged"),
        pl.col("error_score").max().over("sentence").alias("sentence_error_score"),
    )
