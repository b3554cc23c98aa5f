"""The span flags as they stood before issue 14 (quadratic): the reference of the linear code.

Kept for `tests/labels/test_labels_ner_linear.py` and `benchmarks/flag_spans_bench.py`
only: its comparison and review text, not the parts that did not change.

NER span flags: where a model's entity spans disagree with the gold spans.

Both sides are span tables (``sentence``, ``start``, ``end`` exclusive, ``type``), as the
NER readers decode them. Each disagreement is one row of one kind:

* ``type``: same boundaries, different type;
* ``boundary``: the spans overlap with different boundaries (one row per overlapping pair);
* ``missing``: a gold span no predicted span overlaps;
* ``spurious``: a predicted span no gold span overlaps.

Flags are ranked by the prediction's ``confidence`` when the predictions carry one (nulls
last), then by kind in the order above, then by position. :func:`span_review_frame` turns
them into a flags frame that ``benchcheck review export`` takes unchanged: the marked
sentence as ``text``, the gold type as ``label`` and the model's as ``llm_label`` (``O`` = no
entity). The expert labels the marked region with its correct type, or ``O``.
"""

from __future__ import annotations

import polars as pl

from benchcheck.data.model import Split
from benchcheck.errors import UsageError

__all__ = ["KINDS", "compare_spans", "span_review_frame", "spans_from_split"]

KINDS = ("wrong_type", "wrong_boundary", "missing_annotation", "spurious_annotation")
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


def compare_spans(gold: pl.DataFrame, pred: pl.DataFrame) -> pl.DataFrame:
    """Disagreements between gold and predicted spans, ranked (see the module docstring).

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
    g = gold.select([pl.col(c).cast(pl.Int64) for c in cols[:3]] + [pl.col("type").cast(pl.String)])
    g = g.with_row_index("_g")
    conf = pred["confidence"].cast(pl.Float64) if "confidence" in pred.columns else None
    p = pred.select([pl.col(c).cast(pl.Int64) for c in cols[:3]] + [pl.col("type").cast(pl.String)])
    p = p.with_columns(
        conf if conf is not None else pl.lit(None, dtype=pl.Float64).alias("confidence")
    ).with_row_index("_p")
    pairs = g.join(p, on="sentence", suffix="_pred").filter(
        (pl.col("start") < pl.col("end_pred")) & (pl.col("start_pred") < pl.col("end"))
    )
    exact = (pl.col("start") == pl.col("start_pred")) & (pl.col("end") == pl.col("end_pred"))
    rows = []
    typed = pairs.filter(exact & (pl.col("type") != pl.col("type_pred")))
    bound = pairs.filter(~exact)
    for kind, frame in (("wrong_type", typed), ("wrong_boundary", bound)):
        rows.append(
            frame.select(
                pl.lit(kind).alias("kind"),
                "sentence",
                pl.min_horizontal("start", "start_pred").alias("start"),
                pl.max_horizontal("end", "end_pred").alias("end"),
                pl.col("start").alias("gold_start"),
                pl.col("end").alias("gold_end"),
                pl.col("type").alias("gold_type"),
                pl.col("start_pred").alias("pred_start"),
                pl.col("end_pred").alias("pred_end"),
                pl.col("type_pred").alias("pred_type"),
                "confidence",
            )
        )
    matched_g = set(pairs["_g"].to_list())
    matched_p = set(pairs["_p"].to_list())
    null_i = pl.lit(None, dtype=pl.Int64)
    null_s = pl.lit(None, dtype=pl.String)
    rows.append(
        p.filter(~pl.col("_p").is_in(list(matched_p))).select(
            pl.lit("missing_annotation").alias("kind"),
            "sentence",
            "start",
            "end",
            null_i.alias("gold_start"),
            null_i.alias("gold_end"),
            null_s.alias("gold_type"),
            pl.col("start").alias("pred_start"),
            pl.col("end").alias("pred_end"),
            pl.col("type").alias("pred_type"),
            "confidence",
        )
    )
    rows.append(
        g.filter(~pl.col("_g").is_in(list(matched_g))).select(
            pl.lit("spurious_annotation").alias("kind"),
            "sentence",
            "start",
            "end",
            pl.col("start").alias("gold_start"),
            pl.col("end").alias("gold_end"),
            pl.col("type").alias("gold_type"),
            null_i.alias("pred_start"),
            null_i.alias("pred_end"),
            null_s.alias("pred_type"),
            pl.lit(None, dtype=pl.Float64).alias("confidence"),
        )
    )
    out = pl.concat(rows, how="vertical_relaxed")
    order = {k: i for i, k in enumerate(KINDS)}
    out = out.with_columns(pl.col("kind").replace_strict(order).alias("_k")).sort(
        [pl.col("confidence").fill_null(-1.0), "_k", "sentence", "start"],
        descending=[True, False, False, False],
    )
    return out.drop("_k").with_columns(pl.int_range(1, out.height + 1).alias("rank"))


def span_review_frame(tokens: pl.DataFrame, flags: pl.DataFrame) -> pl.DataFrame:
    """Build a flags frame for ``review export``: marked sentence, gold vs model type.

    ``tokens`` is the split's token table (``sentence``, ``position``, ``token``). The
    row's gold span is marked ``[[ ... ]]TYPE`` and its proposed one ``{{ ... }}TYPE`` in
    ``text``; ``id`` is
    ``"<sentence>:<gold start>-<gold end>|<model start>-<model end>"`` (``-`` for no span).
    """
    sents: dict[int, list[str]] = {}
    for s, toks in (
        tokens.group_by(pl.col("sentence").cast(pl.Int64), maintain_order=True)
        .agg(pl.col("token").sort_by("position"))
        .iter_rows()
    ):
        sents[int(s)] = list(toks)
    texts, ids = [], []
    cols = ("sentence", "start", "end", "gold_start", "gold_end", "pred_start", "pred_end")
    types = flags.select("gold_type", "pred_type").rows()
    for (s, _a, _b, gs, ge, ps, pe), (gt, pt) in zip(
        flags.select(cols).iter_rows(), types, strict=True
    ):
        words = sents.get(int(s))
        if words is None:
            raise UsageError(f"flag refers to sentence {s}, which the tokens lack")
        # issue 36: the row's gold span [[ … ]]TYPE and proposed span {{ … }}TYPE; the wider
        # opens first (gold first at equal width) and closes last
        marks = [
            (x, y, o, c + (t or ""))
            for x, y, o, c, t in ((gs, ge, "[[", "]]", gt), (ps, pe, "{{", "}}", pt))
            if x is not None
        ]
        marks.sort(key=lambda m: (m[0], -(m[1] - m[0]), m[2] != "[["))
        out: list[str] = []
        for i, w in enumerate(words):
            out += [o for x, _, o, _ in marks if x == i]
            out.append(w)
            out += [c for _, y, _, c in reversed(marks) if y - 1 == i]
        texts.append(" ".join(out))
        gold_part = "-" if gs is None else f"{gs}-{ge}"
        pred_part = "-" if ps is None else f"{ps}-{pe}"
        ids.append(f"{s}:{gold_part}|{pred_part}")
    return flags.with_columns(
        pl.Series("id", ids, dtype=pl.String),
        pl.Series("text", texts, dtype=pl.String),
        pl.col("gold_type").fill_null(OUTSIDE).alias("label"),
        pl.col("pred_type").fill_null(OUTSIDE).alias("llm_label"),
        pl.lit(True).alias("disagree"),
        pl.lit(True).alias("flagged"),
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
    )
