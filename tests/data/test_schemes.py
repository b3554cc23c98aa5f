"""Tag schemes: span decoding equals seqeval's, violation counts, scheme detection."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from seqeval.metrics.sequence_labeling import get_entities

from benchcheck.data import schemes

TYPES = ("PER", "LOC", "ORG")


def _arrays(sentences: list[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Prefix codes, type ids (-1 for O) and sentence-start marks, without the loader."""
    prefix, type_id, start = [], [], []
    for sentence in sentences:
        for k, tag in enumerate(sentence):
            prefix.append("OBIES".index(tag[0]))
            type_id.append(-1 if tag == "O" else sorted(TYPES).index(tag[2:]))
            start.append(k == 0)
    return np.array(prefix, np.int8), np.array(type_id, np.int32), np.array(start, bool)


def _ours(sentences: list[list[str]]) -> list[tuple[str, int, int]]:
    prefix, type_id, start = _arrays(sentences)
    s, e = schemes.decode_spans(prefix, type_id, start)
    types = sorted(TYPES)
    return [(types[type_id[a]], int(a), int(b) - 1) for a, b in zip(s, e, strict=True)]


def _seqeval(sentences: list[list[str]]) -> list[tuple[str, int, int]]:
    """seqeval per sentence, shifted to global token indices (end inclusive, as seqeval)."""
    out, offset = [], 0
    for sentence in sentences:
        out += [(t, a + offset, b + offset) for t, a, b in get_entities(list(sentence))]
        offset += len(sentence)
    return sorted(out, key=lambda x: x[1])


tag_st = st.one_of(
    st.just("O"),
    st.builds(lambda p, t: f"{p}-{t}", st.sampled_from("BIES"), st.sampled_from(TYPES)),
)
corpus_st = st.lists(st.lists(tag_st, min_size=1, max_size=12), min_size=1, max_size=6)


@settings(max_examples=400, deadline=None)
@given(corpus_st)
def test_decode_spans_equals_seqeval(sentences):
    assert _ours(sentences) == _seqeval(sentences)


def test_decode_spans_equals_seqeval_bulk():
    # Thousands of random sentences in one vectorised call (spans must not cross sentences).
    rng = np.random.default_rng(7)
    tags = ["O"] + [f"{p}-{t}" for p in "BIES" for t in TYPES]
    weights = np.array([6.0] + [1.0] * 12)
    sentences = [
        list(rng.choice(tags, size=int(rng.integers(1, 15)), p=weights / weights.sum()))
        for _ in range(20000)
    ]
    assert _ours(sentences) == _seqeval(sentences)


def test_decode_spans_empty_and_all_outside():
    empty = np.zeros(0, np.int8)
    s, e = schemes.decode_spans(empty, np.zeros(0, np.int32), np.zeros(0, bool))
    assert s.size == 0 and e.size == 0
    assert _ours([["O", "O"], ["O"]]) == []


def _violations(sentences: list[list[str]]) -> dict[str, int]:
    prefix, type_id, start = _arrays(sentences)
    return schemes.violation_counts(*schemes.transition_codes(prefix, type_id, start))


@pytest.mark.parametrize(
    ("sentences", "expected"),
    [
        # IOB2, valid. IOB1 forbids B after O (twice: O->B-PER at the start, O->B-LOC).
        # BIOES forbids I-PER->O and the sentence closing on B-LOC (a chunk left open).
        ([["B-PER", "I-PER", "O", "B-LOC"]], {"IOB2": 0, "IOB1": 2, "BIOES": 2}),
        # IOB1, valid. IOB2 forbids I after O (O->I-PER, O->I-LOC). BIOES forbids O->I-PER,
        # I-PER->O, O->I-LOC, I-LOC->B-LOC and closing on B-LOC.
        ([["I-PER", "I-PER", "O", "I-LOC", "B-LOC"]], {"IOB2": 2, "IOB1": 0, "BIOES": 5}),
        # BIOES, valid. IOB2 forbids O->S, S->O, B->E and E->(end). IOB1 also O->B-LOC.
        ([["S-PER", "O", "B-LOC", "E-LOC"]], {"IOB2": 4, "IOB1": 5, "BIOES": 0}),
        # A type switch inside a chunk.
        # IOB2: I-LOC after B-PER (other type). IOB1: only O->B-PER (an I of another type
        # legitimately starts a chunk there). BIOES: B-PER->I-LOC and closing on I-LOC.
        ([["B-PER", "I-LOC"]], {"IOB2": 1, "IOB1": 1, "BIOES": 2}),
        # Violations are counted per sentence; an all-O sentence is valid everywhere.
        ([["I-PER"], ["O", "O"], ["I-ORG"]], {"IOB2": 2, "IOB1": 0, "BIOES": 4}),
    ],
)
def test_violation_counts_by_hand(sentences, expected):
    assert _violations(sentences) == expected


def test_invalid_transitions_point_at_the_token():
    prefix, type_id, start = _arrays([["O", "B-PER"], ["O", "I-LOC", "I-LOC", "O"]])
    assert schemes.invalid_transitions(prefix, type_id, start, "IOB2").tolist() == [3]
    # BIOES: B-PER closes its sentence open (reported at token 1), O->I-LOC (3),
    # I-LOC->O (5).
    assert schemes.invalid_transitions(prefix, type_id, start, "BIOES").tolist() == [1, 3, 5]


@pytest.mark.parametrize(
    ("sentences", "expected"),
    [
        # CoNLL-2003 as distributed: IOB1 (B only between two adjacent chunks of a type).
        (
            [
                ["I-ORG", "O", "I-MISC", "O", "O", "O", "I-MISC", "O", "O"],
                ["I-PER", "I-PER"],
                ["I-LOC", "O"],
                ["I-PER", "I-PER", "B-PER", "O"],
            ],
            "IOB1",
        ),
        (
            [["B-ORG", "O", "B-MISC", "O"], ["B-PER", "I-PER"], ["B-LOC", "B-LOC", "O"]],
            "IOB2",
        ),
        ([["S-ORG", "O", "S-MISC", "O"], ["B-PER", "E-PER"], ["B-LOC", "I-LOC", "E-LOC"]], "BIOES"),
        # Nothing to tell the schemes apart: IOB2 wins the tie.
        ([["O", "O"]], "IOB2"),
        # A few repairs do not hide the scheme.
        ([["B-PER", "I-PER", "O", "I-LOC"], ["B-LOC", "O"], ["B-ORG", "I-ORG"]], "IOB2"),
    ],
)
def test_detect_scheme_on_typical_tags(sentences, expected):
    types = sorted({t[2:] for s in sentences for t in s if t != "O"})
    prefix = np.array(["OBIES".index(t[0]) for s in sentences for t in s], np.int8)
    type_id = np.array([-1 if t == "O" else types.index(t[2:]) for s in sentences for t in s])
    start = np.array([k == 0 for s in sentences for k in range(len(s))], bool)
    assert schemes.detect_scheme(prefix, type_id, start) == expected


def test_parse_tag_shapes():
    assert schemes.parse_tag("S-MISC") == (schemes.S, "MISC")
    assert schemes.parse_tag("E-X") == (schemes.E, "X")
    for bad in ("PER", "X-PER", "B-", "B_PER", "o", "", "BPER", "-PER"):
        assert schemes.parse_tag(bad) is None, bad


def test_tables_follow_seqeval_chunk_rules():
    # Spot checks on seqeval's end_of_chunk/start_of_chunk, read off its source.
    same, other = 1, 0
    assert schemes.STARTS[schemes.O, schemes.I, 0]  # I after O starts a chunk
    assert not schemes.STARTS[schemes.B, schemes.I, same]
    assert schemes.STARTS[schemes.B, schemes.I, other]
    assert schemes.STARTS[schemes.E, schemes.I, same]  # I after E starts a new chunk
    assert schemes.ENDS[schemes.S, schemes.E, same]
    assert not schemes.ENDS[schemes.I, schemes.E, same]
