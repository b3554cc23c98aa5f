r"""Judge-verified NER spans: a language model asked whether a span's gold annotation holds.

For each candidate span (a disagreement of the out-of-fold tagger with the gold,
:mod:`benchcheck.labels.ner_detect`) the judge answers a yes/no question from the
log-probabilities of its answer tokens, exactly as ``benchcheck judge`` does for pairs
(:func:`benchcheck.judges.run.judge_frame`: same judges, same SQLite cache, grounding-major
batches). The sentence is the grounding (``text_a``) and the claim about the span the tail
(``text_b``), so the framings of every span of one sentence share the prefix
system message + sentence and a prefix-sharing engine evaluates the sentence once per judge.

**Claims.** A flag with a gold span (kinds ``wrong_type``, ``wrong_boundary``,
``spurious_annotation``) asks whether
the gold annotation is right: ``«SURFACE» is a named entity of type T (description)``,
SURFACE the gold span's tokens and T its gold type; the gold is wrong with ``P(no)``. A flag
without a gold span (``missing_annotation``: the tagger proposes an entity the gold lacks) asks
whether the gold's silence is wrong: ``«SURFACE» is a named entity of one of the types
T1 (…), T2 (…), …``; the gold is wrong with ``P(yes)``.

**Score.** With framings ``f = 1 … F`` (:data:`FRAMINGS`: a question and a statement to
call true or false) and ``P_f(yes)`` the judge's softmax over the two answer tokens,

.. math:: \text{llm\_score} = \frac{1}{F} \sum_f P_f(\text{gold wrong})

averaged over framings (and over judges when several are given), in [0, 1].

**Combination** (``--detector both``): ``mean`` — the mean of the tagger's
``error_score`` and ``llm_score``; ``rank`` — the mean of their normalised ranks
(:func:`combine_scores`).

**Every gold span** (``--verify all``, :func:`verify_claims`, :func:`verify_flags`). A gold
span ``g`` (tokens SURFACE, type ``T``) that no candidate flag holds as its gold span is put
to the judge with two claims, batched with the candidates' (all claims of one sentence
share its prefix): the gold claim of a gold-span flag, ``«SURFACE» is a named entity of
type T``, and the any-type claim of a ``missing_annotation`` flag restricted to the other types,
``«SURFACE» is a named entity of one of the types U1, U2, …`` (``U ≠ T``). With
``q = (1/F) Σ_f P_f(no)`` of the first and ``r = (1/F) Σ_f P_f(yes)`` of the second,

.. math:: \text{llm\_score} = q, \qquad
          \text{kind} = \begin{cases} \texttt{wrong\_type} & r > 1/2 \\
                                       \texttt{spurious\_annotation} & r \le 1/2 \end{cases}

``q`` is the gold claim's P(gold wrong), as for any flag with a gold span. The kind says
what the gold would be if wrong: another type when the judge calls one likelier than none
(``wrong_type``; the proposed span is ``g`` with the other type the tagger finds likeliest over
``g``, ``argmax_{U ≠ T} (1/|g|) Σ_{t ∈ g} p_t(B-U) + p_t(I-U)``, as the any-type claim
names none), else no entity (``spurious_annotation``, as :func:`~benchcheck.labels.
ner_flags.compare_spans` names a gold span the model does not find; no proposed span).
The row's tagger score is :mod:`~benchcheck.labels.ner_detect`'s
``error_score`` on ``g``'s own region, ``1 − min_{t ∈ g} p_t(gold_t)``, so ``--detector
both`` combines it as any other row's. Rows carry ``source = verify`` (the candidates
``tagger``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from benchcheck.errors import UsageError
from benchcheck.judges.prompts import PromptTemplate

if TYPE_CHECKING:
    from benchcheck.judges.base import Judge
    from benchcheck.judges.cache import JudgeCache
    from benchcheck.judges.run import Progress
    from benchcheck.labels.ner_tagger import OofTagging

__all__ = [
    "COMBINATIONS",
    "FRAMINGS",
    "SOURCES",
    "TYPE_NAMES",
    "VERIFY",
    "SpanJudgement",
    "combine_scores",
    "judge_span_flags",
    "judge_spans",
    "likeliest_other_type",
    "span_claims",
    "span_claim",
    "JUDGE_TOP",
    "LLM_MIN_ERROR_SCORE",
    "rescore_flags",
    "unverified_gold",
    "verify_claims",
    "verify_flags",
    "verify_kind",
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

#: ``--verify``: the tagger's candidate spans only, or every gold span as well.
VERIFY = ("candidates", "all")

#: ``source`` of a flag row: a disagreement of the tagger, or a gold span verified by the judge.
SOURCES = ("tagger", "verify")

#: Prefix of the judge example ids of the verified gold spans' claims.
_VERIFY_ID = "verify:"


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


def unverified_gold(flags: pl.DataFrame, gold: pl.DataFrame) -> pl.DataFrame:
    """Return the gold spans that no flag holds as its gold span, in (sentence, start) order.

    ``gold`` is a span table (``sentence``, ``start``, ``end``, ``type``); a flag holds the
    span of its ``gold_start``/``gold_end`` (kinds ``wrong_type``, ``wrong_boundary``,
    ``spurious_annotation``).

    >>> f = pl.DataFrame({"sentence": [0], "gold_start": [0], "gold_end": [1]})
    >>> g = pl.DataFrame({"sentence": [1, 0, 0], "start": [0, 0, 2], "end": [2, 1, 3],
    ...                   "type": ["ORG", "PER", "LOC"]})
    >>> unverified_gold(f, g).rows()
    [(0, 2, 3, 'LOC'), (1, 0, 2, 'ORG')]
    """
    key = ["sentence", "start", "end"]
    held = (
        flags.filter(pl.col("gold_start").is_not_null())
        .select(
            pl.col("sentence").cast(pl.Int64),
            pl.col("gold_start").cast(pl.Int64).alias("start"),
            pl.col("gold_end").cast(pl.Int64).alias("end"),
        )
        .unique()
    )
    spans = gold.select(*(pl.col(c).cast(pl.Int64) for c in key), pl.col("type").cast(pl.String))
    return spans.join(held, on=key, how="anti").sort(key, maintain_order=True)


def verify_claims(
    spans: pl.DataFrame, words: Sequence[Sequence[str]], types: Sequence[str]
) -> pl.DataFrame:
    """Return two judge examples per gold span: its gold claim and the other types' claim.

    ``id`` is ``verify:<i>:gold`` and ``verify:<i>:other`` for row ``i`` of ``spans``;
    ``wrong`` the answer that says the gold is wrong (``0``: not of its type) and that
    another type holds (``1``). Columns as :func:`span_claims`'.

    >>> s = pl.DataFrame({"sentence": [0], "start": [2], "end": [3], "type": ["PER"]})
    >>> c = verify_claims(s, [["Anna", "visited", "Rome", "."]], ["LOC", "PER"])
    >>> c.select("id", "wrong").rows()
    [('verify:0:gold', '0'), ('verify:0:other', '1')]
    >>> c["text_b"][1]
    '«Rome» is a named entity of one of the types LOC (location)'
    """
    from benchcheck.data.scripts import join_tokens

    ids, text_a, text_b, wrong = [], [], [], []
    cols = ("sentence", "start", "end", "type")
    for i, (s, a, b, t) in enumerate(spans.select(cols).iter_rows()):
        sentence = join_tokens(list(words[s]))
        surface = join_tokens(list(words[s][a:b]))
        others = [u for u in types if u != t]
        for part, claim in (
            ("gold", span_claim(surface, t, types)),
            ("other", span_claim(surface, None, others)),
        ):
            ids.append(f"{_VERIFY_ID}{i}:{part}")
            text_a.append(sentence)
            text_b.append(claim[0])
            wrong.append(claim[1])
    return pl.DataFrame(
        {"id": ids, "text_a": text_a, "text_b": text_b, "wrong": wrong},
        schema={"id": pl.String, "text_a": pl.String, "text_b": pl.String, "wrong": pl.String},
    )


@dataclass(frozen=True)
class SpanJudgement:
    """The judges' answers of one run.

    ``llm_score``: P(gold wrong) of each candidate flag; ``gold_wrong`` (``q``) and
    ``other_type`` (``r``): the answers about each verified gold span (module docstring);
    ``rows``: :func:`~benchcheck.judges.run.judge_frame`'s rows with ``p_wrong`` (the
    probability of the claim's ``wrong`` answer) and ``verify`` (a verified span's claim).
    """

    llm_score: np.ndarray
    gold_wrong: np.ndarray
    other_type: np.ndarray
    rows: pl.DataFrame


def judge_spans(
    flags: pl.DataFrame,
    words: Sequence[Sequence[str]],
    types: Sequence[str],
    judges: Sequence[Judge],
    *,
    verify: pl.DataFrame | None = None,
    cache: JudgeCache | None = None,
    progress: Progress | None = None,
) -> SpanJudgement:
    """Ask the judges about every flag and every span of ``verify``, in one batched run.

    The claims of the flags (:func:`span_claims`) and of the gold spans ``verify``
    (:func:`verify_claims`; ``None`` or empty: none) go to one
    :func:`~benchcheck.judges.run.judge_frame` call, which queues them grounding-major: the
    claims of one sentence reach the judge together. Every answer is averaged over judges
    and framings.
    """
    from benchcheck.judges.run import judge_frame

    n_verify = 0 if verify is None else verify.height
    claims = span_claims(flags, words, types)
    if n_verify:
        assert verify is not None
        claims = pl.concat([claims, verify_claims(verify, words, types)])
    if claims.height == 0:
        return SpanJudgement(np.zeros(0), np.zeros(0), np.zeros(0), pl.DataFrame())
    rows = judge_frame(
        claims.select("id", "text_a", "text_b"), judges, FRAMINGS, cache=cache, progress=progress
    )
    per = rows.join(claims.select("id", "wrong"), on="id", how="left").with_columns(
        pl.when(pl.col("wrong") == "1")
        .then(pl.col("p_1"))
        .otherwise(pl.col("p_0"))
        .alias("p_wrong"),
        pl.col("id").str.starts_with(_VERIFY_ID).alias("verify"),
    )
    mean = per.group_by("id").agg(pl.col("p_wrong").mean())
    by_id = dict(zip(mean["id"].to_list(), mean["p_wrong"].to_list(), strict=True))

    def scores(ids: Sequence[str]) -> np.ndarray:
        return np.clip(np.array([by_id[i] for i in ids], dtype=np.float64), 0.0, 1.0)

    return SpanJudgement(
        llm_score=scores(claims["id"].head(flags.height).to_list()),
        gold_wrong=scores([f"{_VERIFY_ID}{i}:gold" for i in range(n_verify)]),
        other_type=scores([f"{_VERIFY_ID}{i}:other" for i in range(n_verify)]),
        rows=per,
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
    found = judge_spans(flags, words, types, judges, cache=cache, progress=progress)
    return found.llm_score, found.rows


def verify_kind(other_type: float) -> str:
    """Kind of a verified gold span: ``wrong_type`` when another type is likelier than none.

    >>> verify_kind(0.7), verify_kind(0.5)
    ('wrong_type', 'spurious_annotation')
    """
    return "wrong_type" if other_type > 0.5 else "spurious_annotation"


def likeliest_other_type(
    marginals: np.ndarray, classes: Sequence[str], gold_type: str, types: Sequence[str]
) -> str:
    """Return the type ``U ≠ gold_type`` of largest mean ``p_t(B-U) + p_t(I-U)`` in a region.

    ``marginals`` are the region's rows of the tagger's marginals (columns ``classes``);
    ties go to the first such type of ``types``.

    >>> classes = ("O", "B-LOC", "B-ORG", "B-PER", "I-ORG")
    >>> m = np.array([[0.2, 0.1, 0.3, 0.4, 0.0], [0.3, 0.1, 0.0, 0.1, 0.5]])
    >>> likeliest_other_type(m, classes, "PER", ["LOC", "ORG", "PER"])
    'ORG'
    """
    col = {c: j for j, c in enumerate(classes)}
    best, best_mass = None, -1.0
    for u in types:
        if u == gold_type:
            continue
        mass = sum(float(marginals[:, col[x]].mean()) for x in (f"B-{u}", f"I-{u}") if x in col)
        if mass > best_mass:
            best, best_mass = u, mass
    if best is None:
        raise UsageError(f"no entity type other than {gold_type!r} to propose")
    return best


def verify_flags(
    spans: pl.DataFrame,
    judged: SpanJudgement,
    tagging: OofTagging,
    gold_labels: Sequence[Sequence[str]],
    types: Sequence[str],
) -> pl.DataFrame:
    """Return a flag row per verified gold span (module docstring), the tagger's columns.

    ``spans``: :func:`unverified_gold`'s rows, judged in ``judged`` (``gold_wrong`` and
    ``other_type`` row by row); ``tagging``/``gold_labels``: the out-of-fold tagger's
    marginals and the gold BIO labels of every sentence. ``error_score`` (= ``crf_score``:
    no inconsistent occurrence overlaps a span that no candidate holds) and
    ``tagger_confidence`` (= ``confidence``) are the tagger's on the gold span
    (:func:`~benchcheck.labels.ner_detect.score_flags`), ``llm_score`` is ``q``;
    ``token_issue`` is null (cleanlab's token issues are kept for the tagger's candidates
    only); ``source`` is ``verify``.
    """
    from benchcheck.labels.ner_detect import score_flags

    region = spans.select("sentence", "start", "end")
    scored = score_flags(region, [list(x) for x in gold_labels], tagging)
    kind: list[str] = []
    p_start: list[int | None] = []
    p_end: list[int | None] = []
    p_type: list[str | None] = []
    rows = spans.select("sentence", "start", "end", "type").iter_rows()
    for (s, a, b, t), r in zip(rows, judged.other_type.tolist(), strict=True):
        k = verify_kind(r)
        kind.append(k)
        if k == "wrong_type":
            p_start.append(a)
            p_end.append(b)
            p_type.append(
                likeliest_other_type(tagging.marginals[s][a:b], tagging.classes, t, types)
            )
        else:
            p_start.append(None)
            p_end.append(None)
            p_type.append(None)
    return scored.select(
        pl.Series("kind", kind, dtype=pl.String),
        pl.col("sentence").cast(pl.Int64),
        pl.col("start").cast(pl.Int64),
        pl.col("end").cast(pl.Int64),
        pl.col("start").cast(pl.Int64).alias("gold_start"),
        pl.col("end").cast(pl.Int64).alias("gold_end"),
        spans["type"].cast(pl.String).alias("gold_type"),
        pl.Series("pred_start", p_start, dtype=pl.Int64),
        pl.Series("pred_end", p_end, dtype=pl.Int64),
        pl.Series("pred_type", p_type, dtype=pl.String),
        pl.col("tagger_confidence").alias("confidence"),
        "error_score",
        pl.col("error_score").alias("crf_score"),
        pl.lit(0.0, dtype=pl.Float64).alias("consistency_score"),
        "tagger_confidence",
        pl.lit(None, dtype=pl.Boolean).alias("token_issue"),
        pl.Series("llm_score", judged.gold_wrong, dtype=pl.Float64),
        pl.lit("verify").alias("source"),
    )


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


#: Default ``--judge-top``: the tagger's highest rows put to the judge (0: every row). The
#: embedded judge takes ~4.5-4.8 s a row (two framings) on 2 cores, so 200 rows bound a corpus'
#: run at ~16 min; on the real CoNLL-2003 errors the judge re-ordering the top rows raised
#: P@50 from 0.50 to 0.62 (docs/labels.md).
JUDGE_TOP = 200

#: Default flag threshold of ``--detector llm|both``: the judge's (or the combined) score
#: above one half — the gold more likely wrong than right.
LLM_MIN_ERROR_SCORE = 0.5


def rescore_flags(
    flags: pl.DataFrame,
    score: np.ndarray,
    *,
    min_error_score: float,
    judged: np.ndarray | None = None,
) -> pl.DataFrame:
    """Replace ``error_score`` by ``score`` (the tagger's kept as ``tagger_score``), re-rank.

    Rows come in the new ``rank`` order (score descending; ties: sentence, start), ``flagged`` is
    ``error_score >= min_error_score`` and ``sentence_error_score`` the largest new score of
    the sentence's flags.

    ``judged`` (``--judge-top``: a mask, ``None`` = every row): the judged rows rank first; the
    others keep the tagger's score (``score`` there should be it), rank after them in its
    order and are never ``flagged`` (no judge confirmed them); a sentence's
    ``sentence_error_score`` is the largest score of its judged rows when it has any.

    >>> f = pl.DataFrame({"sentence": [0, 0, 1], "start": [0, 2, 0], "error_score": [0.9, 0.1, 0.5],
    ...                   "sentence_error_score": [0.9, 0.9, 0.5]})
    >>> g = rescore_flags(f, np.array([0.2, 0.7, 0.4]), min_error_score=0.5)
    >>> g.select("start", "rank", "flagged", "sentence_error_score").rows()
    [(2, 1, True, 0.7), (0, 2, False, 0.4), (0, 3, False, 0.7)]
    >>> h = rescore_flags(f, np.array([0.3, 0.1, 0.5]), min_error_score=0.2,
    ...                   judged=np.array([True, False, False]))
    >>> h.select("start", "rank", "flagged", "sentence_error_score").rows()
    [(0, 1, True, 0.3), (0, 2, False, 0.5), (2, 3, False, 0.3)]
    """
    mask = np.ones(flags.height, dtype=bool) if judged is None else np.asarray(judged, dtype=bool)
    out = flags.with_columns(
        pl.col("error_score").alias("tagger_score"),
        pl.Series("error_score", np.clip(score, 0.0, 1.0), dtype=pl.Float64),
    )
    out = out.with_columns(pl.Series("_judged", mask, dtype=pl.Boolean)).sort(
        ["_judged", "error_score", "sentence", "start"],
        descending=[True, True, False, False],
        maintain_order=True,
    )
    score_of_judged = pl.when(pl.col("_judged")).then(pl.col("error_score"))
    return out.with_columns(
        pl.int_range(1, out.height + 1, dtype=pl.Int64).alias("rank"),
        ((pl.col("error_score") >= min_error_score) & pl.col("_judged")).alias("flagged"),
        score_of_judged.max()
        .over("sentence")
        .fill_null(pl.col("error_score").max().over("sentence"))
        .alias("sentence_error_score"),
    ).drop("_judged")
