"""Normalisation and the text of each instance, as the near-duplicate analyses compare them."""

from __future__ import annotations

import unicodedata

import polars as pl

from benchcheck.data.model import Split
from benchcheck.errors import UsageError


def normalise(texts: pl.Series) -> pl.Series:
    r"""NFKC, case-fold, collapse runs of whitespace to one space and strip.

    ASCII rows are lower-cased by polars; rows with other characters go through Python's
    ``str.casefold`` (which also folds ß → ss, ﬁ → fi after NFKC, …).

    >>> normalise(pl.Series(["  Hello\tWORLD ", "Straße ﬁle"])).to_list()
    ['hello world', 'strasse file']
    """
    texts = texts.cast(pl.String).fill_null("")
    ascii_only = texts.str.contains(r"^[\x00-\x7f]*$")
    out = texts.str.to_lowercase()
    if not ascii_only.all():
        idx = (~ascii_only).arg_true()
        folded = [
            unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", s).casefold())
            for s in texts.gather(idx).to_list()
        ]
        out = out.scatter(idx, pl.Series(folded, dtype=pl.String))
    return out.str.replace_all(r"\s+", " ").str.strip_chars(" ")


def input_texts(split: Split) -> pl.Series:
    """Return the input x of each instance as one string (NER: tokens joined by spaces).

    Pairs are joined as ``text_a ||| text_b`` so that the two sides stay apart; a
    multiple-choice question (an ``options`` column) as ``question ||| option ||| ...``,
    since one stem ("Which of the following is true?") carries many different questions.
    """
    t = split.table
    if "text" in t.columns and "options" in t.columns:
        return t.select(
            pl.concat_str(
                [pl.col("text"), pl.lit(" ||| "), pl.col("options").list.join(" ||| ")]
            ).alias("text")
        ).to_series()
    if "text" in t.columns:
        return t.get_column("text")
    if "text_a" in t.columns:
        return t.select(
            pl.concat_str([pl.col("text_a"), pl.lit(" ||| "), pl.col("text_b")]).alias("text")
        ).to_series()
    if split.tokens is None:
        raise UsageError(f"split {split.name!r} has neither texts nor tokens")
    joined = split.tokens.group_by("sentence", maintain_order=True).agg(
        pl.col("token").str.join(" ")
    )
    return joined.get_column("token").alias("text")


def instance_ids(split: Split) -> list[str]:
    """Return a readable id per instance: the ``id`` column, else ``line N`` of the source."""
    t = split.table
    if "id" in t.columns:
        return t.get_column("id").cast(pl.String).to_list()
    return [f"line {k}" for k in t.get_column("line").to_list()]
