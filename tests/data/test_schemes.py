"""Tag schemes: span decoding equals seqeval's, violation counts, scheme detection."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from seqeval import scheme as seqeval_scheme
from seqeval.metrics.sequence_labeling import get_entities

from benchcheck.data import schemes

TYPES = ("PER", "LOC", "ORG")


def _arrays(sentences: list[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Prefix codes, type ids (-1 for O) and sentence-start marks, without the loader."""
    prefix, type_id, start = [], [], []
    for sentence in sentences:
        for k, tag in enumerate(sentence):
            prefix.append(schemes.PREFIXES.index(tag[0]))
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


all_letters_tag_st = st.one_of(
    st.just("O"),
    st.builds(lambda p, t: f"{p}-{t}", st.sampled_from("BIESMLU"), st.sampled_from(TYPES)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(all_letters_tag_st, min_size=1, max_size=10), min_size=1, max_size=6))
def test_tag_transition_codes_equal_transition_codes(sentences):
    # Tags as codes into their distinct list give the transitions of the prefix/type columns.
    prefix, type_id, start = _arrays(sentences)
    flat = [tag for sentence in sentences for tag in sentence]
    distinct = sorted(set(flat))
    codes = np.array([distinct.index(t) for t in flat], dtype=np.int16)
    tag_prefix, tag_type, _ = _arrays([distinct])
    got = schemes.tag_transition_codes(codes, tag_prefix, tag_type, start)
    want = schemes.transition_codes(prefix, type_id, start)
    assert [a.tolist() for a in got] == [a.tolist() for a in want]


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
    # The three first schemes count exactly as before the others existed.
    counts = _violations(sentences)
    assert {k: counts[k] for k in expected} == expected


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
    prefix = np.array([schemes.PREFIXES.index(t[0]) for s in sentences for t in s], np.int8)
    type_id = np.array([-1 if t == "O" else types.index(t[2:]) for s in sentences for t in s])
    start = np.array([k == 0 for s in sentences for k in range(len(s))], bool)
    assert schemes.detect_scheme(prefix, type_id, start) == expected


def test_parse_tag_shapes():
    assert schemes.parse_tag("S-MISC") == (schemes.S, "MISC")
    assert schemes.parse_tag("E-X") == (schemes.E, "X")
    assert schemes.parse_tag("M-ORG") == (schemes.M, "ORG")
    assert schemes.parse_tag("U-PER.NAM") == (schemes.U, "PER.NAM")
    assert schemes.parse_tag("L-X") == (schemes.L, "X")
    for bad in ("PER", "X-PER", "B-", "B_PER", "o", "", "BPER", "-PER", "m-ORG"):
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


# --------------------------------------------------------------------------- the new schemes
SEQEVAL_SCHEMES = {
    "IOB1": seqeval_scheme.IOB1,
    "IOB2": seqeval_scheme.IOB2,
    "IOE1": seqeval_scheme.IOE1,
    "IOE2": seqeval_scheme.IOE2,
    "BIOES": seqeval_scheme.IOBES,
    "BILOU": seqeval_scheme.BILOU,
}


def _tags_of(alphabet: str) -> list[str]:
    return ["O"] + [f"{p}-{t}" for p in alphabet if p != "O" for t in TYPES]


def _valid(sentence: list[str], scheme: str) -> bool:
    prefix, type_id, start = _arrays([sentence])
    return schemes.invalid_transitions(prefix, type_id, start, scheme).size == 0


def _strict(sentence: list[str], scheme: str) -> list[tuple[str, int, int]]:
    """seqeval's strict reading (end inclusive, as get_entities gives it)."""
    found = seqeval_scheme.Entities([sentence], SEQEVAL_SCHEMES[scheme]).entities[0]
    return sorted((e.tag, e.start, e.end - 1) for e in found)


def _seqeval_unit_e(sentence: list[str]) -> bool:
    """A one-token IOE1 chunk tagged E (not right after an I or E of its type).

    seqeval's IOE1 has no start pattern for it (its source says "IOE1 hasn't yet been able
    to handle some cases"); the lenient reader decodes it, and so do we.
    """
    for k, tag in enumerate(sentence):
        if tag[0] == "E" and (
            k == 0 or sentence[k - 1][0] not in "IE" or sentence[k - 1][2:] != tag[2:]
        ):
            return True
    return False


@pytest.mark.parametrize("scheme", sorted(SEQEVAL_SCHEMES))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_tables_agree_with_seqeval_strict(scheme, data):
    # Random sequences over the scheme's letters: where our table says the sequence is valid,
    # seqeval's strict reader finds exactly our spans; where seqeval's strict spans cover every
    # tagged token and equal its lenient reading, our table says valid.
    tags = _tags_of(schemes.ALPHABETS[scheme])
    sentence = data.draw(st.lists(st.sampled_from(tags), min_size=1, max_size=8))
    ours = sorted(_ours([sentence]))
    strict = _strict(sentence, scheme)
    if scheme == "IOE1" and _seqeval_unit_e(sentence):
        return
    covered = {k for _, a, b in strict for k in range(a, b + 1)}
    tagged = {k for k, t in enumerate(sentence) if t != "O"}
    if _valid(sentence, scheme):
        assert ours == strict
    spelled = [t.replace("L-", "E-", 1).replace("U-", "S-", 1) for t in sentence]
    if covered == tagged and strict == sorted(get_entities(spelled)):
        assert _valid(sentence, scheme), sentence


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(_tags_of("OBILU")), min_size=1, max_size=10),
        min_size=1,
        max_size=4,
    )
)
def test_bilou_decodes_as_bioes_with_l_and_u(sentences):
    # Lenient reading of BILOU: seqeval's get_entities on the BIOES spelling (L = E, U = S).
    spelled = [[t.replace("L-", "E-", 1).replace("U-", "S-", 1) for t in s] for s in sentences]
    assert _ours(sentences) == _seqeval(spelled)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(_tags_of("OBMES")), min_size=1, max_size=10),
        min_size=1,
        max_size=4,
    )
)
def test_bmes_decodes_as_bioes_with_m_for_i(sentences):
    spelled = [[t.replace("M-", "I-", 1) for t in s] for s in sentences]
    assert _ours(sentences) == _seqeval(spelled)
    # ...and a valid BMES sentence is valid BIOES once spelled so, with seqeval's strict spans.
    for original, bioes in zip(sentences, spelled, strict=True):
        assert _valid(original, "BMES") == _valid(bioes, "BIOES")
        if _valid(original, "BMES"):
            assert sorted(_ours([original])) == _strict(bioes, "BIOES")


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # MSRA as shipped: B-M-E and S. BMES valid; BIOES forbids B->M, M->E (M is no BIOES
        # letter); BILOU also E->O, O->S and S closing (E, S are not its letters).
        (["B-ORG", "M-ORG", "E-ORG", "O", "S-LOC"], {"BMES": 0, "BIOES": 2, "BILOU": 5}),
        # BILOU valid. BIOES: L and U are not its letters (B->L, L->O, O->U, U->end).
        (["B-PER", "L-PER", "O", "U-LOC"], {"BILOU": 0, "BIOES": 4, "BMES": 4}),
        # IOE2 valid (every chunk ends with E). IOE1 forbids E->O and E closing (no same-type
        # chunk after). BIOES forbids O->I and O->E.
        (["I-PER", "E-PER", "O", "E-LOC"], {"IOE2": 0, "IOE1": 2, "BIOES": 2}),
        # IOE1 valid: E only before a chunk of its type. IOE2 forbids I->O and I closing.
        (["I-PER", "E-PER", "I-PER", "O", "I-LOC"], {"IOE1": 0, "IOE2": 2}),
    ],
)
def test_new_scheme_violations_by_hand(sentence, expected):
    counts = _violations([sentence])
    assert {k: counts[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("sentences", "expected"),
    [
        ([["B-ORG", "M-ORG", "E-ORG", "O"], ["S-PER", "O", "B-LOC", "E-LOC"]], "BMES"),
        ([["B-ORG", "I-ORG", "L-ORG", "O"], ["U-PER", "O"]], "BILOU"),
        ([["I-ORG", "E-ORG", "O"], ["E-PER", "O", "I-LOC", "I-LOC", "E-LOC"]], "IOE2"),
        ([["I-ORG", "E-ORG", "I-ORG", "O"], ["I-PER", "O"]], "IOE1"),
        # No M and no I: BIOES and BMES both fit; BIOES comes first in the tie order.
        ([["B-ORG", "E-ORG", "O", "S-PER"]], "BIOES"),
    ],
)
def test_detect_new_schemes(sentences, expected):
    prefix, type_id, start = _arrays(sentences)
    assert schemes.detect_scheme(prefix, type_id, start) == expected


def test_fitting_schemes_and_names():
    assert schemes.fitting_schemes("OBIES") == ["BIOES"]
    assert schemes.fitting_schemes("OBI") == ["IOB2", "IOB1", "BIOES", "BILOU"]
    assert schemes.fitting_schemes("OMI") == []  # BMES's M beside IOB's I: mixed schemes
    assert schemes.fitting_schemes("LE") == []
    assert schemes.scheme_name("iobes") == "BIOES" and schemes.scheme_name("IOE1") == "IOE1"
    assert schemes.map_type("PER.NAM", coarse=True) == "PER"
    assert schemes.map_type("PER.NOM", {"PER.NOM": "PER"}) == "PER"
    assert schemes.map_type("PER.NOM", {"PER.NOM": "PER.X"}, coarse=True) == "PER"


def test_tag_transition_codes_with_many_tags():
    # Past the pair table's size the column way is taken; the result is the same.
    rng = np.random.default_rng(5)
    tag_prefix = rng.integers(0, schemes.N_PREFIX, size=600).astype(np.int8)
    tag_type = np.where(tag_prefix == schemes.O, -1, rng.integers(0, 300, size=600))
    codes = rng.integers(0, 600, size=5000)
    start = rng.random(5000) < 0.1
    start[0] = True
    for k in (600, 40):  # column way, then the table on the first 40 tags
        c = codes % k
        got = schemes.tag_transition_codes(c, tag_prefix[:k], tag_type[:k], start)
        want = schemes.transition_codes(tag_prefix[c], tag_type[c], start)
        assert [a.tolist() for a in got] == [a.tolist() for a in want]


@st.composite
def _span_sets(draw):
    """A sentence length and non-overlapping spans (start, end exclusive, type) in it."""
    n = draw(st.integers(1, 10))
    cuts = sorted(draw(st.sets(st.integers(0, n), min_size=0, max_size=n + 1)))
    spans = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        if draw(st.booleans()):
            spans.append((a, b, draw(st.sampled_from(sorted(TYPES)))))
    return n, spans


@pytest.mark.parametrize("scheme", schemes.SCHEMES)
@settings(max_examples=200, deadline=None)
@given(case=_span_sets())
def test_encode_spans_round_trips(scheme, case):
    # Encoded tags are valid in the scheme and decode to the spans, by our decoder and (for
    # the schemes seqeval knows) by seqeval's strict reader of that scheme.
    n, spans = case
    tags = schemes.encode_spans(n, spans, scheme)
    assert _valid(tags, scheme), tags
    expected = sorted((t, a, b - 1) for a, b, t in spans)
    assert sorted(_ours([tags])) == expected
    if scheme in SEQEVAL_SCHEMES and not (scheme == "IOE1" and _seqeval_unit_e(tags)):
        assert _strict(tags, scheme) == expected


def test_encode_spans_by_hand():
    spans = [(0, 1, "PER"), (1, 3, "PER"), (4, 5, "LOC")]
    assert schemes.encode_spans(5, spans, "IOE1") == ["E-PER", "I-PER", "I-PER", "O", "I-LOC"]
    assert schemes.encode_spans(5, spans, "BMES") == ["S-PER", "B-PER", "E-PER", "O", "S-LOC"]
    assert schemes.encode_spans(5, spans, "BILOU") == ["U-PER", "B-PER", "L-PER", "O", "U-LOC"]
    with pytest.raises(ValueError, match="overlap"):
        schemes.encode_spans(4, [(0, 2, "PER"), (1, 3, "LOC")], "IOB2")
