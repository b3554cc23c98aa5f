"""Tagging schemes as data: prefix tables, span decoding and transition checks.

A tag is ``O`` or a prefix letter, ``-`` and a type (``B-PER``). Eight letters are known:
``O B I E S`` (IOB1, IOB2, IOE1, IOE2, BIOES/IOBES), ``L U`` (BILOU, spaCy's BILUO: L = last,
U = unit) and ``M`` (BMES, the Chinese releases' scheme: M = middle, with B, E and S).

Span decoding follows seqeval's default (lenient, conlleval-compatible) reading, written out
as two tables over (previous prefix, prefix, same type): :data:`STARTS` says a chunk starts at
a token, :data:`ENDS` says the chunk open at the previous token ends before it. Sentences are
padded with ``O`` on both sides, exactly as ``seqeval.metrics.sequence_labeling.get_entities``
pads its input, so the decoded spans equal seqeval's on every input of the letters seqeval's
reader knows (``O B I E S``; tested on random tags). The other letters are read through their
BIOES counterparts (``L`` as ``E``, ``U`` as ``S``, ``M`` as ``I``): a valid BILOU sequence
decodes to the spans of ``seqeval.scheme.BILOU``, and BMES decodes as BIOES with M for I.

Each scheme is a table of *allowed* transitions (:data:`ALLOWED`, built from
:data:`SCHEME_RULES`); a transition outside it is a tag repair: it is decoded the seqeval
way and counted, or rejected in strict mode. A letter outside a scheme's alphabet makes
every transition into and out of it invalid. The tables are checked against
``seqeval.scheme`` (strict mode) on random valid sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np

#: Prefix codes; ``O`` is 0 so that padding with zeros means "outside".
O, B, I, E, S, M, L, U = range(8)  # noqa: E741 - the schemes' own letters
PREFIXES = "OBIESMLU"
N_PREFIX = len(PREFIXES)
#: Every letter's BIOES counterpart, used for decoding (M inside, L last, U unit).
CANONICAL = "OBIESIES"

#: Scheme names, in detection tie order (the three first as before BMES/BILOU/IOE existed).
SCHEMES = ("IOB2", "IOB1", "BIOES", "IOE2", "IOE1", "BILOU", "BMES")

#: Other spellings accepted for a forced scheme (not "BIO" or "IOB": they name IOB1 or IOB2).
ALIASES = {"IOBES": "BIOES", "BILUO": "BILOU"}
#: The letters each scheme uses.
ALPHABETS: dict[str, str] = {
    "IOB1": "OIB",
    "IOB2": "OBI",
    "IOE1": "OIE",
    "IOE2": "OIE",
    "BIOES": "OBIES",
    "BILOU": "OBILU",
    "BMES": "OBMES",
}
#: The message every reader gives for a tag of no known shape.
TAG_SHAPE_EXPECTED = (
    "unknown tag shape; expected 'O' or a prefix B-, I-, E-, S-, M-, L- or U- followed by a type"
)


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


Rule = Callable[[str, str, bool], bool]


def _table(rule: Rule, letters: str = CANONICAL) -> np.ndarray:
    """Tabulate ``rule(prev, tag, same)`` over every pair of letters, read as ``letters``."""
    out = np.zeros((N_PREFIX, N_PREFIX, 2), dtype=bool)
    for p in range(N_PREFIX):
        for t in range(N_PREFIX):
            prev, tag = letters[p], letters[t]
            for same in (0, 1):
                # O has no type: a pair involving O never has the same type.
                s = bool(same) and prev != "O" and tag != "O"
                out[p, t, same] = rule(prev, tag, s)
    return out


STARTS = _table(_seqeval_start)
ENDS = _table(_seqeval_end)


def _iob2(prev: str, tag: str, same: bool) -> bool:
    # I continues a chunk of its type; B starts one anywhere.
    return tag != "I" or (prev in "BI" and same)


def _iob1(prev: str, tag: str, same: bool) -> bool:
    # I starts or continues a chunk; B only starts a chunk right after one of its type.
    return tag != "B" or (prev in "BI" and same)


def _ioe2(prev: str, tag: str, same: bool) -> bool:
    # Every chunk ends with E: after I only I or E of the same type may follow.
    if prev == "I":
        return tag in "IE" and same
    return True


def _ioe1(prev: str, tag: str, same: bool) -> bool:
    # I starts or continues a chunk; E ends one only when a chunk of its type follows.
    if prev == "E":
        return tag in "IE" and same
    return True


def _bioes(prev: str, tag: str, same: bool) -> bool:
    # Inside a chunk only I/E of the same type may follow; outside, only O/B/S.
    if prev in "BI":
        return tag in "IE" and same
    return tag in "OBS"


#: Scheme → (its rule over BIOES-like letters, how its alphabet reads as those letters).
SCHEME_RULES: dict[str, tuple[Rule, dict[str, str]]] = {
    "IOB2": (_iob2, {}),
    "IOB1": (_iob1, {}),
    "IOE2": (_ioe2, {}),
    "IOE1": (_ioe1, {}),
    "BIOES": (_bioes, {}),
    "BILOU": (_bioes, {"L": "E", "U": "S"}),
    "BMES": (_bioes, {"M": "I"}),
}


def _allowed(scheme: str) -> np.ndarray:
    """Tabulate a scheme's allowed (prev, tag, same-type) transitions; edges are ``O``."""
    rule, reading = SCHEME_RULES[scheme]
    alphabet = ALPHABETS[scheme]
    # Letters outside the alphabet read as "?": no rule allows a transition into or out of it.
    letters = "".join(reading.get(c, c) if c in alphabet else "?" for c in PREFIXES)

    def checked(prev: str, tag: str, same: bool) -> bool:
        return "?" not in (prev, tag) and rule(prev, tag, same)

    return _table(checked, letters)


ALLOWED: dict[str, np.ndarray] = {name: _allowed(name) for name in SCHEMES}


def scheme_name(scheme: str) -> str | None:
    """Return the canonical name of a scheme spelled any known way, else ``None``.

    >>> scheme_name("iobes"), scheme_name("BILUO"), scheme_name("bmes"), scheme_name("X")
    ('BIOES', 'BILOU', 'BMES', None)
    """
    up = scheme.upper()
    up = ALIASES.get(up, up)
    return up if up in SCHEMES else None


def parse_tag(tag: str) -> tuple[int, str] | None:
    """Split a tag into (prefix code, type); ``None`` when the tag has no known shape.

    >>> parse_tag("B-PER"), parse_tag("O"), parse_tag("M-LOC.NAM"), parse_tag("PER")
    ((1, 'PER'), (0, ''), (5, 'LOC.NAM'), None)
    """
    if tag == "O":
        return O, ""
    if len(tag) >= 3 and tag[1] == "-" and tag[0] in "BIESMLU":
        return PREFIXES.index(tag[0]), tag[2:]
    return None


def coarse_type(entity_type: str) -> str:
    """Cut a type at its first ``.`` (Weibo's ``PER.NAM`` and ``PER.NOM`` are both ``PER``).

    >>> coarse_type("PER.NAM"), coarse_type("LOC"), coarse_type(".X")
    ('PER', 'LOC', '.X')
    """
    head = entity_type.split(".", 1)[0]
    return head or entity_type


def map_type(
    entity_type: str, type_map: Mapping[str, str] | None = None, *, coarse: bool = False
) -> str:
    """Apply a type map (types it lists are renamed), then, with ``coarse``, :func:`coarse_type`.

    >>> map_type("PER.NOM", {"PER.NOM": "PER"}), map_type("GPE.NAM", coarse=True)
    ('PER', 'GPE')
    """
    if type_map:
        entity_type = type_map.get(entity_type, entity_type)
    return coarse_type(entity_type) if coarse else entity_type


def fitting_schemes(letters: Iterable[str]) -> list[str]:
    """List the schemes whose alphabet holds every prefix letter given (``O`` fits all).

    >>> fitting_schemes("OBM"), fitting_schemes("BIM")
    (['BMES'], [])
    """
    used = set(letters)
    return [name for name in SCHEMES if used <= set(ALPHABETS[name])]


def transition_codes(
    prefix: np.ndarray, type_id: np.ndarray, sentence_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Code every token's incoming transition, and every sentence's closing one.

    A transition (previous prefix, prefix, same type) is coded ``(prev * 8 + prefix) * 2 +
    same`` (0..127), an index into the flattened tables. The first token of a sentence comes
    from ``O``; each sentence also closes with a transition from its last token into ``O``.
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
    # (prev * 8 + prefix) * 2 + same: at most 127, so int8 arithmetic does not overflow.
    incoming = prev_p * np.int8(2 * N_PREFIX)
    incoming += prefix * np.int8(2)
    incoming += same
    last = np.empty(n, dtype=bool)
    if n:
        last[-1] = True
        last[:-1] = sentence_start[1:]
    closing = (prefix[last] * N_PREFIX + O) * 2
    return incoming.astype(np.int8, copy=False), closing.astype(np.int8, copy=False)


#: Most distinct tags :func:`tag_transition_codes` makes its table of tag pairs for.
_PAIR_TAGS_MAX = 512


def tag_transition_codes(
    codes: np.ndarray, tag_prefix: np.ndarray, tag_type: np.ndarray, sentence_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`transition_codes` of tags given as codes into a short list of distinct tags.

    ``tag_prefix``/``tag_type`` hold each distinct tag's prefix code and type (-1 for
    ``O``); ``codes`` number the tokens' tags. The transition code of every (previous tag,
    tag) pair is computed once, by :func:`transition_codes` itself, with one more
    "previous tag" standing for a sentence start; each token then looks its pair up, so
    the column is read a few times instead of a dozen. Same result as
    ``transition_codes(tag_prefix[codes], tag_type[codes], sentence_start)``.

    >>> prefix, kind = np.array([O, B, I]), np.array([-1, 0, 0])
    >>> start = np.array([True, False, False, True])
    >>> [a.tolist() for a in tag_transition_codes(np.array([1, 2, 0, 2]), prefix, kind, start)]
    [[2, 21, 32, 4], [0, 32]]
    """
    k = tag_prefix.size
    n = codes.size
    if k > _PAIR_TAGS_MAX:  # the pair table would not pay for itself
        return transition_codes(tag_prefix[codes], tag_type[codes], sentence_start)
    # Pair (p, c) at p * k + c: previous tag p (k: a sentence start, read as O), tag c.
    prev_prefix = np.append(tag_prefix, O).astype(np.int8)
    prev_type = np.append(tag_type, -1)
    pairs_prefix = np.repeat(prev_prefix, k)
    pairs_type = np.repeat(prev_type, k)
    tile_prefix = np.tile(tag_prefix.astype(np.int8), k + 1)
    tile_type = np.tile(tag_type, k + 1)
    two = np.ones(2 * pairs_prefix.size, dtype=bool)
    two[1::2] = False  # each pair as a two-token sentence: previous tag, tag
    both_prefix = np.empty(two.size, dtype=np.int8)
    both_prefix[0::2], both_prefix[1::2] = pairs_prefix, tile_prefix
    both_type = np.empty(two.size, dtype=np.int64)
    both_type[0::2], both_type[1::2] = pairs_type, tile_type
    table = transition_codes(both_prefix, both_type, two)[0][1::2]
    closing_table = transition_codes(tag_prefix.astype(np.int8), tag_type, np.ones(k, dtype=bool))[
        1
    ]
    prev = np.empty(n, dtype=np.intp)  # (take is 4x slower with an int32 index)
    if n:
        prev[0] = k
        prev[1:] = codes[:-1]
        np.copyto(prev, k, where=sentence_start)
        prev *= k
        prev += codes
    incoming = table.take(prev)
    last = np.empty(n, dtype=bool)
    if n:
        last[-1] = True
        last[:-1] = sentence_start[1:]
    return incoming, closing_table.take(codes[last])


def decode_spans(
    prefix: np.ndarray, type_id: np.ndarray, sentence_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Decode entity spans (global token index ``start``, exclusive ``end``) the seqeval way.

    ``prefix`` holds prefix codes, ``type_id`` the type of each token (-1 for ``O``), and
    ``sentence_start`` is a boolean mask of sentence-initial tokens.
    """
    return decode_coded_spans(*transition_codes(prefix, type_id, sentence_start), sentence_start)


def decode_coded_spans(
    incoming: np.ndarray, closing: np.ndarray, sentence_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`decode_spans` from precomputed :func:`transition_codes`.

    One lookup per token reads both tables (:data:`_DECODE_FLAGS`): whether a chunk starts
    at the token, and whether the chunk open at the token before (not ``O``) ends there.
    """
    n = incoming.size
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    flags = _DECODE_FLAGS[incoming]
    start_idx = np.flatnonzero(flags & 1)
    # The chunk open at token j ends there when the transition out of j says so: the next
    # token's incoming one, or at a sentence's last token its closing one.
    ends_after = np.empty(n, dtype=bool)
    ends_after[:-1] = flags[1:] & 2
    last = np.empty(n, dtype=bool)
    last[-1] = True
    last[:-1] = sentence_start[1:]
    ends_after[last] = _DECODE_FLAGS[closing] & 2
    end_idx = np.flatnonzero(ends_after)
    pos = np.searchsorted(end_idx, start_idx, side="left")
    return start_idx.astype(np.int64), end_idx[pos].astype(np.int64) + 1


def violation_counts(incoming: np.ndarray, closing: np.ndarray) -> dict[str, int]:
    """Count the transitions each scheme forbids, from :func:`transition_codes`' output."""
    size = N_PREFIX * N_PREFIX * 2
    counts = np.bincount(incoming.view(np.uint8), minlength=size)
    counts += np.bincount(closing.view(np.uint8), minlength=size)
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
    """Pick the scheme with the fewest invalid transitions (ties in :data:`SCHEMES` order).

    >>> import numpy as np
    >>> detect_scheme(np.array([2, 0, 2, 2]), np.array([0, -1, 1, 1]), np.array([1, 0, 0, 0], bool))
    'IOB1'
    """
    return best_scheme(violation_counts(*transition_codes(prefix, type_id, sentence_start)))


def best_scheme(counts: Mapping[str, int]) -> str:
    """Pick the scheme with the fewest violations; ties go in :data:`SCHEMES` order.

    (IOB2, then IOB1, BIOES, IOE2, IOE1, BILOU and BMES.)
    """
    return min(SCHEMES, key=lambda s: counts[s])


_STARTS_FLAT = STARTS.reshape(-1)
_ENDS_FLAT = ENDS.reshape(-1)
#: Per transition code (see :func:`transition_codes`): bit 0, a chunk starts at the token;
#: bit 1, the chunk open at the previous token ends before it (the code's previous prefix,
#: ``code // (2 * N_PREFIX)``, is not ``O``).
_DECODE_FLAGS = (
    _STARTS_FLAT.astype(np.uint8)
    | (_ENDS_FLAT & (np.arange(_ENDS_FLAT.size) // (2 * N_PREFIX) != O)).astype(np.uint8) << 1
)


def encode_spans(n_tokens: int, spans: Iterable[tuple[int, int, str]], scheme: str) -> list[str]:
    """Tag ``n_tokens`` tokens with ``spans`` (start, end exclusive, type) in ``scheme``.

    The inverse of decoding, in each scheme's own letters: IOB2 ``B I*``; BIOES ``S`` or
    ``B I* E``; BILOU ``U`` or ``B I* L``; BMES ``S`` or ``B M* E``; IOE2 ``I* E``; IOB1
    ``I+``, with ``B`` on the first token of a span that directly follows a span of the same
    type; IOE1 ``I+``, with ``E`` on the last token of a span directly followed by one of the
    same type. Written here because seqeval decodes tags but does not encode spans; the
    tests decode the result back with seqeval and with :func:`decode_spans`. Spans must not
    overlap (:class:`ValueError`).

    >>> encode_spans(5, [(0, 2, "PER"), (2, 3, "PER"), (4, 5, "LOC")], "IOB1")
    ['I-PER', 'I-PER', 'B-PER', 'O', 'I-LOC']
    >>> encode_spans(4, [(0, 3, "ORG")], "BIOES")
    ['B-ORG', 'I-ORG', 'E-ORG', 'O']
    """
    name = ALIASES.get(scheme.upper(), scheme.upper())
    if name not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; known: {list(SCHEMES)}")
    tags = ["O"] * n_tokens
    ordered = sorted(spans)
    for k, (a, b, t) in enumerate(ordered):
        if not 0 <= a < b <= n_tokens:
            raise ValueError(f"span [{a}, {b}) is outside the sentence's {n_tokens} tokens")
        if k and a < ordered[k - 1][1]:
            raise ValueError(f"spans {ordered[k - 1][:2]} and {(a, b)} overlap")
        after_same = k > 0 and ordered[k - 1][1] == a and ordered[k - 1][2] == t
        before_same = k + 1 < len(ordered) and ordered[k + 1][0] == b and ordered[k + 1][2] == t
        n = b - a
        if name == "IOB2":
            letters = "B" + "I" * (n - 1)
        elif name in ("BIOES", "BILOU", "BMES"):
            single, inner, last = tuple({"BIOES": "SIE", "BILOU": "UIL", "BMES": "SME"}[name])
            letters = single if n == 1 else "B" + inner * (n - 2) + last
        elif name == "IOE2":
            letters = "I" * (n - 1) + "E"
        elif name == "IOB1":
            letters = ("B" if after_same else "I") + "I" * (n - 1)
        else:  # IOE1
            letters = "I" * (n - 1) + ("E" if before_same else "I")
        for j, letter in enumerate(letters):
            tags[a + j] = f"{letter}-{t}"
    return tags
