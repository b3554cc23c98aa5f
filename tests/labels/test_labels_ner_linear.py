"""flag-spans is linear: the span-key join equals the old per-sentence cross join exactly.

The reference is the implementation as it stood (``_ner_flags_reference``: every gold span
joined with every predicted span of its sentence, the whole sentence text carried per
flag), run on random cases: disjoint gold spans, predicted spans disjoint (a CoNLL file) or
overlapping each other (a span table), confidences with ties and nulls.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from _ner_flags_reference import compare_spans as old_compare
from _ner_flags_reference import span_review_frame as old_review

from benchcheck.errors import InputError
from benchcheck.labels.ner_flags import compare_spans, overlapping_pairs, span_review_frame

TYPES = ["PER", "LOC", "ORG"]


def _disjoint(rng, sentence, n):
    spans, pos = [], 0
    while pos < n:
        pos += int(rng.integers(0, 4))
        if pos >= n:
            break
        end = min(n, pos + int(rng.integers(1, 4)))
        spans.append((sentence, pos, end, TYPES[int(rng.integers(3))]))
        pos = end
    return spans


def _case(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 25, size=int(rng.integers(1, 8)))
    gold, pred = [], []
    overlapping = bool(rng.integers(2))
    for s, n in enumerate(lengths.tolist()):
        gold += _disjoint(rng, s, n)
        if overlapping:
            for _ in range(int(rng.integers(0, 6))):
                a = int(rng.integers(0, n))
                pred.append((s, a, int(rng.integers(a + 1, n + 1)), TYPES[int(rng.integers(3))]))
        else:
            pred += _disjoint(rng, s, n)
    tokens = pl.DataFrame(
        {
            "sentence": [s for s, n in enumerate(lengths.tolist()) for _ in range(n)],
            "position": [i for n in lengths.tolist() for i in range(n)],
            "token": [f"w{s}_{i}" for s, n in enumerate(lengths.tolist()) for i in range(n)],
        }
    )
    schema = {"sentence": pl.Int64, "start": pl.Int64, "end": pl.Int64, "type": pl.String}
    g = pl.DataFrame(gold, schema=schema, orient="row")
    p = pl.DataFrame(pred, schema=schema, orient="row")
    if rng.integers(2):
        choices = [None, 0.1, 0.5, 0.5, 0.9]
        p = p.with_columns(
            pl.Series(
                "confidence",
                [choices[int(rng.integers(5))] for _ in range(p.height)],
                dtype=pl.Float64,
            )
        )
    return tokens, g, p


KEY = ("confidence", "kind", "sentence", "start")


def _rows(frame):
    """Rows without the rank, in a canonical order (the old join left ties unordered)."""
    rows = [tuple(r) for r in frame.drop("rank").rows()]
    return sorted(rows, key=lambda r: tuple((v is None, str(v)) for v in r))


@pytest.mark.parametrize("seed", range(120))
def test_same_flags_as_the_cross_join(seed):
    tokens, g, p = _case(seed)
    new, old = compare_spans(g, p), old_compare(g, p)
    assert new.columns == old.columns and new.schema == old.schema
    # the same flags, ranked by the same keys: only the order among full ties may differ,
    # and the new order is fixed (gold row, then predicted row)
    assert _rows(new) == _rows(old)
    assert new.select(KEY).rows() == old.select(KEY).rows()
    assert new["rank"].to_list() == list(range(1, new.height + 1))
    assert _rows(span_review_frame(tokens, new)) == _rows(old_review(tokens, old))
    assert compare_spans(g, p).equals(new)  # deterministic


def test_overlapping_pairs_by_hand():
    # sentence 0: gold [0, 3) [5, 8); pred [2, 6) overlaps both, [6, 7) the second,
    # [8, 9) touches the second's end (no overlap); sentence 1: gold [0, 2), pred [1, 2)
    gi, pi = overlapping_pairs(
        np.array([0, 0, 1]),
        np.array([0, 5, 0]),
        np.array([3, 8, 2]),
        np.array([0, 0, 0, 1]),
        np.array([2, 6, 8, 1]),
        np.array([6, 7, 9, 2]),
    )
    assert list(zip(gi.tolist(), pi.tolist(), strict=True)) == [(0, 0), (1, 0), (1, 1), (2, 3)]


def test_long_sentences_are_cut_around_the_region():
    n = 1000
    tokens = pl.DataFrame(
        {"sentence": [0] * n, "position": range(n), "token": [f"t{i}" for i in range(n)]}
    )
    g = pl.DataFrame({"sentence": [0], "start": [500], "end": [502], "type": ["PER"]})
    p = pl.DataFrame({"sentence": [0], "start": [500], "end": [502], "type": ["LOC"]})
    text = span_review_frame(tokens, compare_spans(g, p))["text"][0]
    words = text.split(" ")
    assert words[0] == "…" and words[-1] == "…"
    assert words[1] == "t372" and words[words.index("[[") + 1 : words.index("[[") + 3] == [
        "{{",
        "t500",
    ]
    # the gold span and the proposed one are both marked (issue 36): [[ {{ t500 t501 }}LOC ]]PER
    assert words[words.index("t501") + 1 : words.index("t501") + 3] == ["}}LOC", "]]PER"]
    assert len(words) == 1 + 128 + 2 + 2 + 2 + 128 + 1
    full = span_review_frame(tokens, compare_spans(g, p), context=n)["text"][0]
    assert full == old_review(tokens, old_compare(g, p))["text"][0]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"start": 3, "end": 3}, "0 <= start < end"),
        ({"start": -1, "end": 2}, "0 <= start < end"),
        ({"start": "x"}, "'start' must be a whole number"),
        ({"end": 2.5}, "'end' must be a whole number"),
        ({"type": None}, "missing 'type'"),
        ({"confidence": 1.5}, r"'confidence' must be a number in \[0, 1\]"),
    ],
)
def test_bad_span_tables_name_the_line(row, message):
    base = {
        "sentence": [0, 0],
        "start": [0, 2],
        "end": [1, 3],
        "type": ["PER", "LOC"],
        "confidence": [0.5, 0.5],
        "__line__": [1, 2],
    }
    for k, v in row.items():
        base[k] = [base[k][0], v]
    p = pl.DataFrame(base, strict=False)
    g = pl.DataFrame({"sentence": [0], "start": [0], "end": [1], "type": ["PER"]})
    with pytest.raises(InputError, match=message) as info:
        compare_spans(g, p)
    assert info.value.line == 2


def test_a_span_past_the_sentence_end():
    tokens = pl.DataFrame({"sentence": [0, 0], "position": [0, 1], "token": ["a", "b"]})
    g = pl.DataFrame({"sentence": [0], "start": [0], "end": [1], "type": ["PER"]})
    p = pl.DataFrame({"sentence": [0], "start": [1], "end": [5], "type": ["PER"]})
    with pytest.raises(InputError, match="ends at token 5, after the sentence's 2 tokens"):
        span_review_frame(tokens, compare_spans(g, p))


def test_one_long_sentence_is_linear():
    """50,000 gold and 50,000 predicted spans in one sentence of 200,000 tokens: the old
    per-sentence join built 2.5e9 pairs (out of memory); the span-key join finds the
    50,000 pairs that overlap. Every other predicted span has another type, every fourth
    is one token longer: counts by hand."""
    k = np.arange(50_000)
    g = pl.DataFrame({"sentence": 0, "start": 4 * k, "end": 4 * k + 2, "type": "PER"})
    p = pl.DataFrame(
        {
            "sentence": 0,
            "start": 4 * k,
            "end": 4 * k + 2 + (k % 4 == 0),
            "type": np.where(k % 2 == 0, "LOC", "PER"),
        }
    )
    flags = compare_spans(g, p)
    by_kind = dict(flags.group_by("kind").len().rows())
    assert by_kind == {"wrong_type": 12_500, "wrong_boundary": 12_500}  # k % 4 == 2 / k % 4 == 0
    tokens = pl.DataFrame(
        {"sentence": 0, "position": np.arange(200_000), "token": [f"t{i}" for i in range(200_000)]}
    )
    review = span_review_frame(tokens, flags.head(100))
    assert review["text"].str.len_chars().max() < 2000  # context-windowed, not 200k tokens
