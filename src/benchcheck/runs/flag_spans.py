"""``benchcheck flag-spans``: entity spans where a model disagrees with the gold annotation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.errors import InputError, UsageError

if TYPE_CHECKING:
    import polars as pl

    from benchcheck.data.model import Split

__all__ = ["KINDS", "SpanFlagsRun", "run_flag_spans"]

#: The kinds of span disagreement, in the order they are counted.
KINDS = ("type", "boundary", "spurious", "missing")
_TABLES = (".jsonl", ".csv", ".tsv", ".parquet")


@dataclass(frozen=True)
class SpanFlagsRun:
    """Span flags of one NER file, in the review format (``review export`` reads it)."""

    gold: str
    n_gold_spans: int
    n_pred_spans: int
    flags: pl.DataFrame
    review: pl.DataFrame
    by_kind: Mapping[str, int] = field(default_factory=dict)
    output: str | None = None

    def to_json(self, *, top: int = 10, output: str | None = None) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck flag-spans --json``."""
        output = output if output is not None else self.output
        out: dict[str, Any] = {
            "gold": self.gold,
            "n_gold_spans": self.n_gold_spans,
            "n_pred_spans": self.n_pred_spans,
            "flags": int(self.flags.height),
            "by_kind": dict(self.by_kind),
            "top": self.review.head(top)
            .select("rank", "id", "label", "llm_label", "kind", "text")
            .to_dicts(),
        }
        if output is not None:
            out["output"] = output
        return out


def run_flag_spans(
    gold: str | Path,
    *,
    predictions: str | Path | None = None,
    spacy_model: str | None = None,
    label_map: str | None = None,
    scheme: str | None = None,
    output: str | Path | None = None,
) -> SpanFlagsRun:
    """Compare the gold spans with a model's: CoNLL predictions, a span table, or spaCy.

    Exactly one of ``predictions`` (CoNLL with the same tokens, or a table of
    ``sentence, start, end, type[, confidence]``) and ``spacy_model``. ``label_map``
    (``MODEL=TYPE,...``) renames the model's types. With ``output`` the span flags are
    written there in the review format (:func:`benchcheck.io.tables.write_rows`).
    """
    import polars as pl

    from benchcheck.io.conll import read_conll
    from benchcheck.io.tables import read_rows
    from benchcheck.labels.ner_flags import (
        compare_spans,
        parse_label_map,
        spacy_spans,
        span_review_frame,
        spans_from_split,
    )

    if (predictions is None) == (spacy_model is None):
        raise UsageError("give exactly one of {predictions} or {spacy}")
    scheme = scheme.upper() if scheme else None
    split = read_conll(gold, scheme=scheme)
    if split.tokens is None:
        raise InputError("not an NER file", path=gold)
    mapping = parse_label_map(label_map)
    if spacy_model is not None:
        pred = spacy_spans(split.tokens, spacy_model, label_map=mapping)
    elif Path(str(predictions)).suffix.lower() in _TABLES:
        pred = read_rows(str(predictions))
        missing = [c for c in ("sentence", "start", "end", "type") if c not in pred.columns]
        if missing:
            raise InputError(f"predicted spans lack column(s) {missing}", path=predictions)
    else:
        other = read_conll(str(predictions), scheme=scheme)
        _same_tokens(split, other, str(predictions))
        pred = spans_from_split(other)
        if mapping:
            pred = pred.with_columns(pl.col("type").replace(mapping))
    try:
        flags = compare_spans(spans_from_split(split), pred)
        review = span_review_frame(split.tokens, flags)
    except InputError as exc:  # a bad predicted span: name the file it came from
        if exc.path is not None:
            raise
        where = predictions if predictions is not None else gold
        raise InputError(exc.message, path=where, line=exc.line, got=exc.got) from None
    if output is not None:
        from benchcheck.io.tables import write_rows

        write_rows(review, output)
    return SpanFlagsRun(
        gold=str(gold),
        n_gold_spans=int(split.spans.height) if split.spans is not None else 0,
        n_pred_spans=int(pred.height),
        flags=flags,
        review=review,
        by_kind={k: int((flags["kind"] == k).sum()) for k in KINDS},
        output=None if output is None else str(output),
    )


def _same_tokens(gold: Split, other: Split, path: str) -> None:
    a, b = gold.tokens, other.tokens
    assert a is not None and b is not None
    if a.height != b.height or gold.n != other.n:
        raise InputError(
            f"predictions have {other.n} sentences / {b.height} tokens; the gold file "
            f"{gold.source} has {gold.n} / {a.height}",
            path=path,
        )
    diff = (a["token"] != b["token"]) | (a["sentence"] != b["sentence"])
    if diff.any():
        k = int(diff.arg_true()[0])
        s = int(b["sentence"][k])
        line = int(other.table["line"][s]) + int(b["position"][k])
        raise InputError(
            f"token differs from the gold file {gold.source}",
            path=path,
            line=line,
            got=b["token"][k],
        )
