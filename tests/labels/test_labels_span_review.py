"""The pure half of the span review: token offsets, UTF-16 regions, the audit count.

The files (export, Label Studio's exports) are tested in ``tests/io/test_review_spans.py``.
"""

from __future__ import annotations

from benchcheck.data.scripts import join_tokens
from benchcheck.labels.span_review import (
    Region,
    SpanAnswers,
    SpanTask,
    combine_span_review,
    joined_offsets,
)


def test_joined_offsets_follow_join_tokens():
    for tokens in (["New", "York", "."], ["我", "在", "北京"], ["iPhone", "手机", "is", "ok"]):
        text, starts, ends = joined_offsets(tokens)
        assert text == join_tokens(tokens)
        assert [text[a:b] for a, b in zip(starts, ends, strict=True)] == tokens


def test_utf16_offsets_of_a_character_beyond_the_bmp():
    """Label Studio counts UTF-16 units: after 😀 (two units) an offset is one more."""
    text, starts, ends = joined_offsets(["😀", "Ann", "smiles"])
    assert text == "😀 Ann smiles"
    task = SpanTask("r0001", "h", "disputed", "t", 0, text, tuple(starts), tuple(ends), (), ())
    # "Ann" is characters 2-5, UTF-16 units 3-6; without its text the units are converted
    answers = SpanAnswers("a", "x", {"r0001": (Region(3, 6, "PER"),)}, {"r0001": "h"})
    gold, _ = combine_span_review([task], [answers], types=["PER"])
    assert gold.select("start", "end", "type").rows() == [(1, 2, "PER")]


def test_audit_sentences_count_their_changed_gold():
    """Two audit sentences (no flag): one's gold was right, one lacked an entity."""
    text, starts, ends = joined_offsets(["Ann", "met", "Bob"])
    right = SpanTask("r0001", "h1", "undisputed", "t", 0, text, tuple(starts), tuple(ends),
                     ((0, 1, "PER"),), ())  # fmt: skip
    short = SpanTask("r0002", "h2", "undisputed", "t", 1, text, tuple(starts), tuple(ends),
                     ((0, 1, "PER"),), ())  # fmt: skip
    both = (Region(0, 3, "PER"), Region(8, 11, "PER"))
    answers = [
        SpanAnswers(n, "x", {"r0001": both[:1], "r0002": both}, {"r0001": "h1", "r0002": "h2"})
        for n in ("a", "b")
    ]
    _, summary = combine_span_review([right, short], answers, types=["PER"])
    assert (summary.audited, summary.audit_errors) == (2, 1)
    assert summary.changes == {"kept": 2, "added": 1, "removed": 0}


def test_gold_table_keeps_an_emptied_sentence_and_the_stratum():
    """A sentence settled with no entity has one row without a span; rows carry the stratum."""
    text, starts, ends = joined_offsets(["Ann", "met", "Bob"])
    flagged = SpanTask("r0001", "h1", "disputed", "t", 0, text, tuple(starts), tuple(ends),
                       ((0, 1, "PER"),), ())  # fmt: skip
    audit = SpanTask("r0002", "h2", "undisputed", "t", 3, text, tuple(starts), tuple(ends),
                     ((0, 1, "PER"),), ())  # fmt: skip
    answers = SpanAnswers(
        "a", "x", {"r0001": (), "r0002": (Region(0, 3, "PER"),)}, {"r0001": "h1", "r0002": "h2"}
    )
    gold, _ = combine_span_review([flagged, audit], [answers], types=["PER"])
    assert gold.select("sentence", "start", "end", "type", "original", "stratum").rows() == [
        (0, None, None, None, None, "disputed"),
        (3, 0, 1, "PER", True, "undisputed"),
    ]
