"""NER span flags: where a model's entity spans disagree with the gold spans.

Both sides are span tables (``sentence``, ``start``, ``end`` exclusive, ``type``), as the
NER readers decode them. Each disagreement is one row of one kind, named from the
annotation's side (what is wrong with the gold if the model is right, :data:`GLOSSARY`):

* ``wrong_type``: same boundaries, different type;
* ``wrong_boundary``: the spans overlap with different boundaries (one row per overlapping
  pair; :func:`merge_regions` makes one row per disputed region);
* ``spurious_annotation``: a gold span no predicted span overlaps;
* ``missing_annotation``: a predicted span no gold span overlaps.

Flags are ranked by the prediction's ``confidence`` when the predictions carry one (nulls
last), then by kind in the order above, then by position. :func:`span_review_frame` turns
them into a flags frame that ``benchcheck review export`` takes unchanged (scored flags keep
their :data:`SCORED_COLUMNS` and ``flagged``): the marked
sentence as ``text`` (gold spans ``[[ … ]]TYPE``, proposed ones ``{{ … }}TYPE``), the gold
type as ``label`` and the model's as ``llm_label`` (``O`` = no entity). The expert labels
the marked region with its correct type, or ``O``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from benchcheck.data.model import Split
from benchcheck.data.scripts import join_tokens
from benchcheck.errors import InputError, UsageError, require

__all__ = [
    "CONTEXT_TOKENS",
    "GLOSSARY",
    "KINDS",
    "SCORED_COLUMNS",
    "compare_spans",
    "marked_tokens",
    "merge_regions",
    "overlapping_pairs",
    "spacy_spans",
    "span_review_frame",
    "spans_from_split",
]

KINDS = ("wrong_type", "wrong_boundary", "missing_annotation", "spurious_annotation")
#: One line that says what each kind means, shown wherever the kinds are.
GLOSSARY = (
    "wrong_type: the annotated span probably has another type; wrong_boundary: the "
    "annotated span probably starts or ends elsewhere; spurious_annotation: the annotated "
    "span is probably no entity; missing_annotation: an entity the annotation probably "
    "lacks ([[ ]] marks the gold spans, {{ }} the proposed ones)"
)
OUTSIDE = "O"


def spans_from_split(split: Split) -> pl.DataFrame:
    """Return the span table of an NER split, with ``type`` as a plain string."""
    if split.spans is None:
        raise UsageError(f"split {split.name!r} is not an NER split (no spans)")
    return split.spans.select(
        pl.col("sentence").cast(pl.Int64),
        pl.col("start").cast(pl.Int64),
        pl.col("end").cast(pl.Int64),
        pl.col("type").cast(pl.String),
    )


def _span_arrays(
    frame: pl.DataFrame, name: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, pl.Series, np.ndarray]:
    """Sentence, start, end (int64), type and the 1-based lines of a span table, validated.

    Every span lies in a sentence (``sentence >= 0``) and covers at least one token
    (``0 <= start < end``); positions are whole numbers. Errors name the line
    (``__line__``) when the table has one.
    """
    lines = (
        frame["__line__"].cast(pl.Int64).to_numpy()
        if "__line__" in frame.columns
        else np.arange(1, frame.height + 1)
    )
    has_lines = "__line__" in frame.columns
    cols = []
    for col in ("sentence", "start", "end"):
        series = frame[col]
        if isinstance(series.dtype, pl.List | pl.Struct | pl.Array) or series.dtype == pl.Boolean:
            bad = np.ones(frame.height, dtype=bool)
        else:
            as_float = series.cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False)
            values = as_float.to_numpy().astype(np.float64) if frame.height else np.zeros(0)
            bad = ~np.isfinite(values) | (values != np.round(values))
        if bad.any():
            k = int(np.argmax(bad))
            raise InputError(
                f"{name} spans: {col!r} must be a whole number (a token position)",
                line=int(lines[k]) if has_lines else None,
                got=str(series[k]),
            )
        cols.append(values.astype(np.int64))
    sent, start, end = cols
    bad = (sent < 0) | (start < 0) | (end <= start)
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(
            f"{name} spans: a span is sentence >= 0 and 0 <= start < end (end exclusive)",
            line=int(lines[k]) if has_lines else None,
            got=(int(sent[k]), int(start[k]), int(end[k])),
        )
    types = frame["type"]
    if isinstance(types.dtype, pl.List | pl.Struct | pl.Array):
        k = int(types.is_not_null().arg_true()[0]) if types.is_not_null().any() else 0
        raise InputError(
            f"{name} spans: 'type' must be one value, not a list or an object",
            line=int(lines[k]) if has_lines else None,
            got=str(types[k]),
        )
    types = types.cast(pl.String)
    if types.null_count():
        k = int(types.is_null().arg_true()[0])
        raise InputError(f"{name} spans: missing 'type'", line=int(lines[k]) if has_lines else None)
    return sent, start, end, types, lines


def _ranges(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expand ``[lo_i, hi_i)`` into (owner i, member j) pairs, in order of i then j."""
    counts = np.maximum(hi - lo, 0)
    total = int(counts.sum())
    owner = np.repeat(np.arange(lo.size, dtype=np.int64), counts)
    if total == 0:
        return owner, np.zeros(0, dtype=np.int64)
    starts = np.repeat(lo - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return owner, starts + np.arange(total, dtype=np.int64)


def overlapping_pairs(
    g_sent: np.ndarray,
    g_start: np.ndarray,
    g_end: np.ndarray,
    p_sent: np.ndarray,
    p_start: np.ndarray,
    p_end: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Every (gold, predicted) pair of overlapping spans, as two index arrays, sorted.

    Two spans of one sentence overlap when ``g_start < p_end`` and ``p_start < g_end``.
    Every overlapping pair is one of two disjoint cases, each a range search on span
    keys ``sentence * M + position`` (``M`` exceeds every position) sorted once:

    * the gold span starts inside the predicted one (``p_start <= g_start < p_end``): the
      gold spans whose start key is in ``[p_key_start, p_key_end)``;
    * the predicted span starts strictly inside the gold one (``g_start < p_start <
      g_end``): the predicted spans whose start key is in ``(g_key_start, g_key_end)``.

    Time and memory are O((G + P) log(G + P) + K) for K pairs, whatever the sentence
    lengths; joining on the sentence alone (every gold span with every predicted span of
    its sentence) is quadratic in one long sentence. Pairs come sorted by gold index, then
    predicted index.

    >>> gold = ([0, 0], [0, 5], [3, 8])  # sentence, start, end: [0, 3) and [5, 8)
    >>> pred = ([0, 0], [2, 6], [6, 7])  # [2, 6) and [6, 7)
    >>> g = overlapping_pairs(*(np.array(v) for v in (*gold, *pred)))
    >>> [a.tolist() for a in g]
    [[0, 1, 1], [0, 0, 1]]
    """
    top = max(int(g_end.max()) if g_end.size else 0, int(p_end.max()) if p_end.size else 0) + 1
    rows = max(int(g_sent.max()) if g_sent.size else 0, int(p_sent.max()) if p_sent.size else 0)
    if (rows + 1) * top >= 2**62:
        raise InputError(
            f"span positions too large to compare (sentence {rows}, position {top - 1})"
        )
    gks, gke = g_sent * top + g_start, g_sent * top + g_end
    pks, pke = p_sent * top + p_start, p_sent * top + p_end
    g_order = np.argsort(gks, kind="stable")
    p_order = np.argsort(pks, kind="stable")
    g_sorted, p_sorted = gks[g_order], pks[p_order]
    # case 1: gold starts in [p_start, p_end)
    lo = np.searchsorted(g_sorted, pks, side="left")
    hi = np.searchsorted(g_sorted, pke, side="left")
    p_a, gi = _ranges(lo, hi)
    g_a = g_order[gi]
    # case 2: predicted starts in (g_start, g_end)
    lo = np.searchsorted(p_sorted, gks, side="right")
    hi = np.searchsorted(p_sorted, gke, side="left")
    g_b, pj = _ranges(lo, hi)
    p_b = p_order[pj]
    g_all = np.concatenate([g_a, g_b])
    p_all = np.concatenate([p_a, p_b])
    order = np.lexsort((p_all, g_all))
    return g_all[order], p_all[order]


def compare_spans(gold: pl.DataFrame, pred: pl.DataFrame) -> pl.DataFrame:
    """Disagreements between gold and predicted spans, ranked (see the module docstring).

    Spans are validated (:class:`InputError` naming the line of a predicted span table:
    positions that are not whole numbers, ``start >= end``, a missing type) and joined on
    span keys in O((G + P) log + K) (:func:`overlapping_pairs`); ties in the ranking keep
    gold order, then predicted order.

    >>> g = pl.DataFrame({"sentence": [0, 0, 1], "start": [0, 3, 0], "end": [2, 4, 1],
    ...                   "type": ["PER", "LOC", "ORG"]})
    >>> p = pl.DataFrame({"sentence": [0, 0, 1], "start": [0, 3, 2], "end": [2, 5, 3],
    ...                   "type": ["PER", "ORG", "LOC"]})
    >>> compare_spans(g, p).select("kind", "sentence", "start", "end").rows()
    [('wrong_boundary', 0, 3, 5), ('missing_annotation', 1, 2, 3), ('spurious_annotation', 1, 0, 1)]
    """
    cols = ["sentence", "start", "end", "type"]
    for name, frame in (("gold", gold), ("predicted", pred)):
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise UsageError(f"{name} spans lack column(s) {missing}")
    gs, g0, g1, gt, _ = _span_arrays(gold, "gold")
    ps, p0, p1, pt, p_lines = _span_arrays(pred, "predicted")
    if "confidence" in pred.columns:
        conf_col = pred["confidence"]
        if isinstance(conf_col.dtype, pl.List | pl.Struct | pl.Array):
            conf_col = pl.Series("confidence", [None] * pred.height, dtype=pl.String)
        raw = conf_col.cast(pl.String).str.strip_chars()
        conf = raw.cast(pl.Float64, strict=False)
        bad = (conf.is_null() & raw.is_not_null() & (raw != "")) | conf.is_nan()
        if not bad.any():
            values = conf.to_numpy()
            bad = pl.Series((values < 0) | (values > 1)).fill_null(False)
        if bad.any():
            k = int(bad.arg_true()[0])
            raise InputError(
                "predicted spans: 'confidence' must be a number in [0, 1]",
                line=int(p_lines[k]) if "__line__" in pred.columns else None,
                got=str(pred["confidence"][k]),
            )
    else:
        conf = pl.Series("confidence", [None] * pred.height, dtype=pl.Float64)
    gi, pi = overlapping_pairs(gs, g0, g1, ps, p0, p1)
    g_type = gt.to_numpy() if gt.len() else np.zeros(0, dtype=object)
    p_type = pt.to_numpy() if pt.len() else np.zeros(0, dtype=object)
    conf = conf.cast(pl.Float64).alias("confidence")  # nulls stay null (no NaN)
    exact = (g0[gi] == p0[pi]) & (g1[gi] == p1[pi])
    typed = exact & (g_type[gi] != p_type[pi])
    pieces = []
    for kind, mask in (("wrong_type", typed), ("wrong_boundary", ~exact)):
        a, b = gi[mask], pi[mask]
        pieces.append(
            pl.DataFrame(
                {
                    "kind": [kind] * int(mask.sum()),
                    "sentence": gs[a],
                    "start": np.minimum(g0[a], p0[b]),
                    "end": np.maximum(g1[a], p1[b]),
                    "gold_start": g0[a],
                    "gold_end": g1[a],
                    "gold_type": pl.Series(g_type[a], dtype=pl.String),
                    "pred_start": p0[b],
                    "pred_end": p1[b],
                    "pred_type": pl.Series(p_type[b], dtype=pl.String),
                    "confidence": conf.gather(b),
                    "_g": a,
                    "_p": b,
                },
                schema_overrides={"kind": pl.String},
            )
        )
    lonely_p = np.setdiff1d(np.arange(ps.size), pi)
    lonely_g = np.setdiff1d(np.arange(gs.size), gi)
    missing_conf = pl.Series("confidence", [None] * lonely_g.size, dtype=pl.Float64)
    pieces.append(
        _unmatched("missing_annotation", ps, p0, p1, p_type, lonely_p, conf.gather(lonely_p))
    )
    pieces.append(_unmatched("spurious_annotation", gs, g0, g1, g_type, lonely_g, missing_conf))
    out = pl.concat(pieces, how="vertical_relaxed")
    order = {k: i for i, k in enumerate(KINDS)}
    out = out.with_columns(pl.col("kind").replace_strict(order).alias("_k")).sort(
        [pl.col("confidence").fill_null(-1.0), "_k", "sentence", "start", "_g", "_p"],
        descending=[True, False, False, False, False, False],
        nulls_last=True,
        maintain_order=True,
    )
    return out.drop("_k", "_g", "_p").with_columns(pl.int_range(1, out.height + 1).alias("rank"))


def _unmatched(
    kind: str,
    sentence: np.ndarray,
    first: np.ndarray,
    stop: np.ndarray,
    types: np.ndarray,
    idx: np.ndarray,
    confidence: pl.Series,
) -> pl.DataFrame:
    """Rows of the spans ``idx`` of one side that overlap nothing on the other side.

    ``missing_annotation`` rows are predicted spans (their gold columns are null),
    ``spurious_annotation`` rows gold spans (their predicted columns are null).
    """
    k = idx.size
    none_i = pl.Series([None] * k, dtype=pl.Int64)
    own = (first[idx], stop[idx], pl.Series(types[idx], dtype=pl.String))
    none = (none_i, none_i, pl.Series([None] * k, dtype=pl.String))
    predicted = kind == "missing_annotation"
    gold, pred = (none, own) if predicted else (own, none)
    return pl.DataFrame(
        {
            "kind": pl.Series([kind] * k, dtype=pl.String),
            "sentence": sentence[idx],
            "start": own[0],
            "end": own[1],
            "gold_start": gold[0],
            "gold_end": gold[1],
            "gold_type": gold[2],
            "pred_start": pred[0],
            "pred_end": pred[1],
            "pred_type": pred[2],
            "confidence": confidence,
            "_g": none_i if predicted else idx,
            "_p": idx if predicted else none_i,
        }
    )


#: Columns of scored flags (the out-of-fold tagger's) that the review frame keeps after its
#: own: the split, its file, the 1-based line of the sentence's first token and its document
#: (the count of ``-DOCSTART-`` lines before it, where the file has them), the error score
#: and its members, both spans, and the row's ``source``
#: (``tagger`` or ``verify``, :mod:`benchcheck.labels.ner_judge`).
SCORED_COLUMNS = (
    "split",
    "file",
    "line",
    "document",
    "source",
    "error_score",
    "error_logit",
    "sentence_error_score",
    "tagger_score",
    "llm_score",
    "tagger_confidence",
    "token_issue",
    "sentence_quality",
    "gold_start",
    "gold_end",
    "gold_type",
    "pred_start",
    "pred_end",
    "pred_type",
)

#: Tokens of context shown on each side of a flagged region (sentences of up to this
#: length around the region are shown whole).
CONTEXT_TOKENS = 128


def merge_regions(flags: pl.DataFrame) -> pl.DataFrame:
    """One row per disputed region: rows of a sentence whose regions overlap become one.

    Regions ``[start, end)`` of one sentence that overlap, directly or through a chain, form
    one disputed region; its row is the first of them in the frame's order (the best
    ranked), with ``start``/``end`` the union. Rows keep the frame's order.

    >>> f = pl.DataFrame({"sentence": [0, 0, 0, 1], "start": [0, 2, 5, 0],
    ...                   "end": [3, 4, 6, 3], "kind": ["a", "b", "c", "d"]})
    >>> merge_regions(f).rows()
    [(0, 0, 4, 'a'), (0, 5, 6, 'c'), (1, 0, 3, 'd')]
    """
    if flags.height == 0:
        return flags
    s = flags["sentence"].cast(pl.Int64).to_numpy()
    a = flags["start"].cast(pl.Int64).to_numpy()
    b = flags["end"].cast(pl.Int64).to_numpy()
    order = np.lexsort((a, s))
    comp = np.empty(s.size, dtype=np.int64)
    c, cur_s, cur_end = -1, None, 0
    for i in order.tolist():
        if s[i] != cur_s or a[i] >= cur_end:
            c += 1
            cur_s, cur_end = s[i], b[i]
        else:
            cur_end = max(cur_end, b[i])
        comp[i] = c
    lo = np.full(c + 1, np.iinfo(np.int64).max)
    hi = np.zeros(c + 1, dtype=np.int64)
    np.minimum.at(lo, comp, a)
    np.maximum.at(hi, comp, b)
    _, first = np.unique(comp, return_index=True)
    keep = np.sort(first)
    return flags[keep.tolist()].with_columns(
        pl.Series("start", lo[comp[keep]], dtype=pl.Int64),
        pl.Series("end", hi[comp[keep]], dtype=pl.Int64),
    )


def _spans_by_sentence(frame: pl.DataFrame | None) -> dict[int, list[tuple[int, int, str]]]:
    out: dict[int, list[tuple[int, int, str]]] = {}
    if frame is None:
        return out
    for s, a, b, t in frame.select(
        pl.col("sentence").cast(pl.Int64),
        pl.col("start").cast(pl.Int64),
        pl.col("end").cast(pl.Int64),
        pl.col("type").cast(pl.String),
    ).iter_rows():
        out.setdefault(s, []).append((a, b, t))
    return out


def _near(
    table: dict[int, list[tuple[int, int, str]]], s: int, a: int, b: int, n: int
) -> list[tuple[int, int, str | None]]:
    """Spans of sentence ``s`` overlapping ``[a, b)`` that lie in its ``n`` tokens."""
    return [(x, y, t) for x, y, t in table.get(s, ()) if x < b and a < y and y <= n]


def marked_tokens(
    words: Sequence[str],
    gold: Sequence[tuple[int, int, str | None]],
    proposed: Sequence[tuple[int, int, str | None]],
    left: int,
    right: int,
) -> list[str]:
    """Tokens ``left … right-1`` with gold spans as ``[[ … ]]TYPE``, proposed ``{{ … }}TYPE``.

    >>> marked_tokens(["in", "New", "York", "City"], [(1, 3, "LOC")], [(1, 4, "ORG")], 0, 4)
    ['in', '{{', '[[', 'New', 'York', ']]LOC', 'City', '}}ORG']
    >>> marked_tokens(["at", "Leeds"], [(1, 2, "LOC")], [(1, 2, "ORG")], 0, 2)
    ['at', '[[', '{{', 'Leeds', '}}ORG', ']]LOC']
    """
    opens: dict[int, list[str]] = {}
    closes: dict[int, list[str]] = {}
    spans = [("[[", "]]", x) for x in gold] + [("{{", "}}", x) for x in proposed]
    # wider spans open first and close last; at equal width gold opens first, closes last
    spans.sort(key=lambda m: (m[2][0], -(m[2][1] - m[2][0]), m[0] != "[["))
    for o, c, (a, b, t) in spans:
        opens.setdefault(a, []).append(o)
        closes.setdefault(b - 1, []).insert(0, c + (t or ""))
    out: list[str] = []
    for i in range(left, right):
        out += opens.get(i, [])
        out.append(words[i])
        out += closes.get(i, [])
    return out


def span_review_frame(
    tokens: pl.DataFrame,
    flags: pl.DataFrame,
    *,
    context: int = CONTEXT_TOKENS,
    gold: pl.DataFrame | None = None,
    proposed: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Build a flags frame for ``review export``: marked sentence, gold vs model type.

    ``tokens`` is the split's token table (``sentence``, ``position``, ``token``). In
    ``text`` the gold spans are marked ``[[ … ]]TYPE`` and the proposed ones ``{{ … }}TYPE``
    (:func:`marked_tokens`): every span of ``gold`` / ``proposed`` (span tables) that
    overlaps the row's region ``[start, end)`` where they are given, else the row's own
    ``gold_*`` / ``pred_*`` span; at most ``context`` tokens are shown on each side of the
    region and of those spans (a cut side shows ``…``): a sentence of any length costs each
    flag at most ``2 * context`` tokens plus its spans, and only sentences with a flag are
    looked at. ``id`` is ``"<sentence>:<gold start>-<gold end>|<model start>-<model end>"``
    (``-`` for no span).

    >>> toks = pl.DataFrame({"sentence": [0] * 5, "position": range(5),
    ...                      "token": ["a", "b", "c", "d", "e"]})
    >>> f = pl.DataFrame({"sentence": [0], "start": [2], "end": [3], "gold_start": [2],
    ...                   "gold_end": [3], "pred_start": [None], "pred_end": [None],
    ...                   "gold_type": ["PER"], "pred_type": [None], "confidence": [None],
    ...                   "kind": ["spurious_annotation"], "rank": [1]})
    >>> span_review_frame(toks, f, context=1)["text"].to_list()
    ['… b [[ c ]]PER d …']
    """
    if context < 0:
        raise UsageError(f"context must be >= 0 tokens, got {context}")
    wanted = flags["sentence"].cast(pl.Int64).unique()
    sub = (
        tokens.select(pl.col("sentence").cast(pl.Int64), "position", "token")
        .filter(pl.col("sentence").is_in(wanted.implode()))
        .sort("sentence", "position", maintain_order=True)
    )
    sent_col = sub["sentence"].to_numpy()
    words = sub["token"].to_list()
    all_gold = None if gold is None else _spans_by_sentence(gold)
    all_prop = None if proposed is None else _spans_by_sentence(proposed)
    cols = ("sentence", "start", "end", "gold_start", "gold_end", "pred_start", "pred_end")
    data = flags.select(*cols, "gold_type", "pred_type")
    s_arr = data["sentence"].cast(pl.Int64).to_numpy()
    first = np.searchsorted(sent_col, s_arr, side="left")
    last = np.searchsorted(sent_col, s_arr, side="right")
    texts, ids = [], []
    for k, (s, a, b, gs, ge, ps, pe, gt, pt) in enumerate(data.iter_rows()):
        lo, hi = int(first[k]), int(last[k])
        if lo == hi:
            raise UsageError(f"flag refers to sentence {s}, which the tokens lack")
        n = hi - lo
        if b > n:
            raise InputError(
                f"a span of sentence {s} ends at token {b}, after the sentence's {n} tokens"
            )

        g_marks = [] if all_gold is None else _near(all_gold, s, a, b, n)
        p_marks = [] if all_prop is None else _near(all_prop, s, a, b, n)
        if all_gold is None and gs is not None:
            g_marks = [(gs, ge, gt)]
        if all_prop is None and ps is not None:
            p_marks = [(ps, pe, pt)]
        span_lo = min([a, *(x for x, _, _ in g_marks + p_marks)])
        span_hi = max([b, *(y for _, y, _ in g_marks + p_marks)])
        left = max(0, span_lo - context)
        right = min(n, span_hi + context)
        parts = ["…"] if left > 0 else []
        parts += marked_tokens(words[lo:hi], g_marks, p_marks, left, right)
        if right < n:
            parts.append("…")
        # One joining rule for text as for surfaces: no space beside CJK (我在[[北京]]工作).
        texts.append(join_tokens(parts))
        gold_part = "-" if gs is None else f"{gs}-{ge}"
        pred_part = "-" if ps is None else f"{ps}-{pe}"
        ids.append(f"{s}:{gold_part}|{pred_part}")
    flagged = pl.col("flagged") if "flagged" in flags.columns else pl.lit(True)
    scored = "error_score" in flags.columns  # a model's flags keep today's columns
    extra = [c for c in SCORED_COLUMNS if c in flags.columns] if scored else []
    return flags.with_columns(
        pl.Series("id", ids, dtype=pl.String),
        pl.Series("text", texts, dtype=pl.String),
        pl.col("gold_type").fill_null(OUTSIDE).alias("label"),
        pl.col("pred_type").fill_null(OUTSIDE).alias("llm_label"),
        pl.lit(True).alias("disagree"),
        flagged.alias("flagged"),
    ).select(
        "id",
        "text",
        "label",
        "llm_label",
        "confidence",
        "kind",
        "rank",
        "disagree",
        "flagged",
        "sentence",
        "start",
        "end",
        *extra,
    )


def spacy_spans(
    tokens: pl.DataFrame,
    model: str,
    *,
    label_map: Mapping[str, str] | None = None,
    batch_size: int = 256,
) -> pl.DataFrame:
    """Entity spans predicted by a spaCy pipeline on the dataset's own tokens.

    Each sentence becomes a ``Doc`` over its tokens (no re-tokenisation), run through the
    pipeline. ``label_map`` maps spaCy labels to the dataset's types; labels it does not
    list are dropped (no map: labels kept as spaCy gives them). spaCy's NER gives no span
    scores, so ``confidence`` is null. Needs the ``spacy`` extra and the model package.
    """
    spacy = require("spacy", "spacy")
    tokens_mod = require("spacy.tokens", "spacy")
    try:
        nlp = spacy.load(model)
    except OSError as exc:
        raise InputError(f"cannot load the spaCy pipeline {model!r}: {exc}") from None
    sentences = (
        tokens.group_by(pl.col("sentence").cast(pl.Int64), maintain_order=True)
        .agg(pl.col("token").sort_by("position"))
        .sort("sentence")
    )
    docs = (tokens_mod.Doc(nlp.vocab, words=list(w)) for w in sentences["token"].to_list())
    out: dict[str, list[object]] = {"sentence": [], "start": [], "end": [], "type": []}
    for s, doc in zip(
        sentences["sentence"].to_list(), nlp.pipe(docs, batch_size=batch_size), strict=True
    ):
        for ent in doc.ents:
            label = ent.label_ if not label_map else label_map.get(ent.label_)
            if label is None:
                continue
            out["sentence"].append(s)
            out["start"].append(ent.start)
            out["end"].append(ent.end)
            out["type"].append(label)
    return pl.DataFrame(
        out, schema={"sentence": pl.Int64, "start": pl.Int64, "end": pl.Int64, "type": pl.String}
    )


def parse_label_map(items: Sequence[str] | str | None) -> dict[str, str]:
    """Parse ``PERSON=PER,GPE=LOC`` (or a list of ``A=B``) into a mapping.

    >>> parse_label_map("PERSON=PER,GPE=LOC")
    {'PERSON': 'PER', 'GPE': 'LOC'}
    """
    if not items:
        return {}
    parts = items.split(",") if isinstance(items, str) else list(items)
    out = {}
    for part in parts:
        a, sep, b = part.strip().partition("=")
        if not sep or not a or not b:
            raise UsageError(f"{{label_map}} expects MODEL_LABEL=TYPE pairs, got {part!r}")
        out[a] = b
    return out
