"""The windowed distinct-surface marking behind entity_density equals a plain set walk."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.metrics.difficulty import _first_in_sentence


@settings(max_examples=300, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), max_size=80),
    window=st.integers(1, 6),
)
def test_first_in_sentence_matches_a_set_walk(pairs, window):
    pairs = sorted(pairs, key=lambda p: p[0])  # spans come sorted by sentence
    sentence = np.array([p[0] for p in pairs], dtype=np.uint32)
    surface = np.array([p[1] for p in pairs], dtype=np.uint64)
    seen, expected = set(), []
    for pair in pairs:
        expected.append(pair not in seen)
        seen.add(pair)
    assert _first_in_sentence(sentence, surface, window=window).tolist() == expected
