"""Tagging schemes as data: prefix tables, span decoding and transition checks.

Span decoding follows seqeval's default (lenient, conlleval-compatible) reading, written out
as two tables over (previous prefix, prefix, same type): :data:`STARTS` says a chunk starts at
a token, :data:`ENDS` says the chunk open at the previous token ends before it. Sentences are
padded with ``O`` on both sides, exactly as ``seqeval.metrics.sequence_labeling.get_entities``
pads its input, so the decoded spans equal seqeval's on every input (tested on random tags).

Each scheme (IOB1, IOB2, BIOES) is a table of *allowed* transitions; a transition outside it
is a tag repair: it is decoded the seqeval way and counted, or rejected in strict mode.
"""

from __future__ import annotations

import numpy as np

#: Prefix codes; ``O`` is 0 so that padding with zeros means "outside".
O, B, I, E, S = 0, 1, 2, 3, 4  # noqa: E741 - the scheme's own letters
PREFIXES = "OBIES"
SCHEMES = ("IOB1", "IOB2", "BIOES")


def _seqeval_end(prev: str, tag: str, same: bool) -> bool:
    """Seqeval's ``end_of_chunk`` with types compared as ``same`` (O has no type)."""
    if prev in "ES":
        return True
    if prev in "BI" and tag in "BSO":
        return True
    return prev != "O" and not same


def _seqeval_start(prev: str, tag: str, same: bool) -> bool:
    """Seqeval's ``start_of_chunk`` with types compared as ``same``."""
    if tag in "BS":
        return True
    if prev in "ESO" and tag in "EI":
        return True
    return tag != "O" and not same


def _table(rule) -> np.ndarray:  # type: ignore[no-untyped-def]
    out = np.zeros((5, 5, 2), dtype=bool)
    for p, prev in enumerate(PREFIXES):
        for t, tag in enumerate(PREFIXES):
            for same in (0, 1):
                # O has no type: a pair involving O never has the same type.
                s = bool(same) and prev != "O" and tag != "O"
                out[p, t, same] = rule(prev, tag, s)
    return out


STARTS = _table(_seqeval_start)
ENDS = _table(_seqeval_end)


def _allowed(scheme: str) -> np.ndarray:
    """Tabulate a scheme's allowed (prev, tag, same-type) transitions; edges are ``O``."""
    out = np.zeros((5, 5, 2), dtype=bool)
    for p, prev in enumerate(PREFIXES):
        for t, tag in enumerate(PREFIXES):
            for same in (0, 1):
                s = bool(same) and prev != "O" and tag != "O"
                out[p, t, same] = _allowed_rule(scheme, prev, tag, s)
    return out


def _allowed_rule(scheme: str, prev: str, tag: str, same: bool) -> bool:
    if scheme == "IOB2":
        if tag in "ES" or prev in "ES":
            return False
        return tag != "I" or (prev in "BI" and same)
    if scheme == "IOB1":
        if tag in "ES" or prev in "ES":
            return False
        return tag != "B" or (prev in "BI" and same)
    # BIOES: inside a chunk only I/E of the same type may follow; outside, only O/B/S.
    if prev in "BI":
        return tag in "IE" and same
    return tag in "OBS"


ALLOWED: dict[str, np.ndarray] = {name: _allowed(name) for name in SCHEMES}


def parse_tag(tag: str) -> tuple[int, str] | None:
    """Split a tag into (prefix code, type); ``None`` when the tag has no known shape.

    >>> parse_tag("B-PER"), parse_tag("O"), parse_tag("I-LOC-X"), parse_tag("PER")
    ((1, 'PER'), (0, ''), (2, 'LOC-X'), None)
    """
    if tag == "O":
        return O, ""
    if len(tag) >= 3 and tag[1] == "-" and tag[0] in "BIES":
        return PREFIXES.index(tag[0]), tag[2:]
    return None


def transition_codes(
    prefix: np.ndarray, type_id: np.ndarray, sentence_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Code every token's incoming transition, and every sentence's closing one.

    A transition (previous prefix, prefix, same type) is coded ``(prev * 5 + prefix) * 2 + same``
    (0..49), an index into the flattened tables. The first token of a sentence comes from
    ``O``; each sentence also closes with a transition from its last token into ``O``.
    Returns ``(incoming, closing)``: one code per token, one per sentence.
    """
    n = prefix.size
    prefix = prefix.astype(np.int8, copy=False)
    prev_p = np.empty(n, dtype=np.int8)
    same = np.empty(n, dtype=np.int8)
    if n:
        prev_p[0] = O
        prev_p[1:] = prefix[:-1]
        same[0] = 0
        np.equal(type_id[1:], type_id[:-1], out=same[1:], casting="unsafe")
        prev_p[sentence_start] = O
        same[sentence_start] = 0
        same[prefix == O] = 0
        same[prev_p == O] = 0
    incoming = (prev_p * 5 + prefix) * 2 + same
    last = np.empty(n, dtype=bool)
    if n:
        last[-1] = True
        last[:-1] = sentence_start[1:]
    closing = (prefix[last] * 5 + O) * 2
    return incoming.astype(np.int8, copy=False), closing.astype(np.int8, copy=False)


def decode_spans(
    prefix: np.ndarray, type_id: np.ndarray, sentence_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Decode entity spans (global token index ``start``, exclusive ``end``) the seqeval way.

    ``prefix`` holds prefix codes, ``type_id`` the type of each token (-1 for ``O``), and
    ``sentence_start`` is a boolean mask of sentence-initial tokens.
    """
    return decode_coded_spans(
        prefix, *transition_codes(prefix, type_id, sentence_start), sentence_start
    )


def decode_coded_spans(
    prefix: np.ndarray, incoming: np.ndarray, closing: np.ndarray, sentence_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`decode_spans` from precomputed :func:`transition_codes`."""
    n = prefix.size
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    starts = _STARTS_FLAT[incoming]
    # The chunk open at token j ends there when the transition out of j says so.
    outgoing = np.empty(n, dtype=np.int8)
    outgoing[:-1] = incoming[1:]
    last = np.empty(n, dtype=bool)
    last[-1] = True
    last[:-1] = sentence_start[1:]
    outgoing[last] = closing
    ends_after = _ENDS_FLAT[outgoing] & (prefix != O)
    start_idx = np.flatnonzero(starts)
    end_idx = np.flatnonzero(ends_after)
    pos = np.searchsorted(end_idx, start_idx, side="left")
    return start_idx.astype(np.int64), end_idx[pos].astype(np.int64) + 1


def violation_counts(incoming: np.ndarray, closing: np.ndarray) -> dict[str, int]:
    """Count the transitions each scheme forbids, from :func:`transition_codes`' output."""
    counts = np.bincount(incoming, minlength=50) + np.bincount(closing, minlength=50)
    return {name: int(counts[~table.reshape(-1)].sum()) for name, table in ALLOWED.items()}


def invalid_transitions(
    prefix: np.ndarray, type_id: np.ndarray, sentence_start: np.ndarray, scheme: str
) -> np.ndarray:
    """Find tokens whose incoming (or, at a sentence end, closing) transition is forbidden.

    A chunk left open at a sentence end (BIOES: B or I last) is reported at that last token.
    """
    n = prefix.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    incoming, closing = transition_codes(prefix, type_id, sentence_start)
    allowed = ALLOWED[scheme].reshape(-1)
    bad = ~allowed[incoming]
    last = np.flatnonzero(np.append(sentence_start[1:], True))
    bad[last] |= ~allowed[closing]
    return np.flatnonzero(bad)


def detect_scheme(prefix: np.ndarray, type_id: np.ndarray, sentence_start: np.ndarray) -> str:
    """Pick the scheme with the fewest invalid transitions (ties: IOB2, then IOB1, then BIOES).

    >>> import numpy as np
    >>> detect_scheme(np.array([2, 0, 2, 2]), np.array([0, -1, 1, 1]), np.array([1, 0, 0, 0], bool))
    'IOB1'
    """
    return best_scheme(violation_counts(*transition_codes(prefix, type_id, sentence_start)))


def best_scheme(counts: dict[str, int]) -> str:
    """Pick the scheme with the fewest violations; ties go to IOB2, then IOB1, then BIOES."""
    return min(("IOB2", "IOB1", "BIOES"), key=lambda s: counts[s])


_STARTS_FLAT = STARTS.reshape(-1)
_ENDS_FLAT = ENDS.reshape(-1)
