"""Build an NER :class:`~benchcheck.data.Split` from token and tag columns.

Shared by every NER reader (CoNLL, JSONL, HuggingFace). Everything here is vectorised over
the token column: tags are parsed once per distinct tag, spans are decoded with the scheme
tables of :mod:`benchcheck.data.schemes`, and sentences and entity surfaces are hashed with
numpy (see :mod:`benchcheck.data.model` for the hash construction and collision odds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import polars as pl
import xxhash

from benchcheck._hashset import unique_sorted
from benchcheck.data import schemes, scripts
from benchcheck.data.hashing import coded_sequence_hash, mix64, sequence_hash, string_hash
from benchcheck.data.model import Split
from benchcheck.errors import InputError
from benchcheck.io._tokens import gather_ranges, string_buffers, strings_from_buffers

#: Mixed into a sentence's tag-sequence hash before it is combined with its tokens' hash.
_K_TAGS = np.uint64(0xD6E8FEB86659FD93)


class TagCodes(NamedTuple):
    """Tags a reader has coded itself: a code per token into a list of tags.

    ``first_row`` (the first row of each code), when given, also says that every code
    occurs; without it the tags that occur are picked from ``tags`` (a reader's list of
    every possible tag).
    """

    codes: np.ndarray
    tags: Sequence[str]
    first_row: np.ndarray | None = None


def _code_strings(
    values: pl.Series, rows: np.ndarray | None = None
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Code a string column with few distinct values: (code per row, values, first row each).

    ``rows`` (optional) picks the rows to code; returned rows index into that selection.
    Distinct values are told apart by their 64-bit hash, through a small table indexed by
    a few bits of the hash (:func:`_hash_codes`): several times faster than sorting and
    binary search, or polars' unique + Enum cast, on a chunk's tags.
    """
    hashes = string_hash(values)
    if rows is not None:
        hashes = hashes[rows]
    codes = _hash_codes(hashes)
    first_row = pl.Series(codes).arg_unique().to_numpy()
    first_row = first_row[np.argsort(codes[first_row])]  # indexed by code
    picked = first_row if rows is None else rows[first_row]
    return codes, values.gather(picked).to_list(), first_row


def _hash_codes(hashes: np.ndarray) -> np.ndarray:
    """Give each distinct value of ``hashes`` its number 0..k-1 (in sorted-hash order).

    Candidates come from a sample; a table of 2**b slots indexed by ``b`` bits of the hash
    (a window where the candidates do not collide) maps each hash to its number, and every
    row is checked against the slot's hash, so a value missing from the sample is found and
    the table rebuilt. Many distinct values (over 4096) fall back to sort and search.
    """
    if hashes.size == 0:
        return np.zeros(0, dtype=np.int64)
    distinct = unique_sorted(hashes[:: max(1, hashes.size // 4096)])
    while distinct.size <= 4096:
        table = _slot_table(distinct)
        if table is None:
            break
        shift, mask, slot_hash, slot_code = table
        slot = ((hashes >> shift) & mask).astype(np.intp)
        found = slot_hash[slot] == hashes
        if found.all():
            return slot_code[slot]
        distinct = unique_sorted(np.concatenate([distinct, hashes[~found]]))
    return np.searchsorted(unique_sorted(hashes), hashes)


def _slot_table(
    distinct: np.ndarray,
) -> tuple[np.uint64, np.uint64, np.ndarray, np.ndarray] | None:
    """(shift, mask, hash per slot, code per slot) of a collision-free bit window, or None.

    An empty slot ``j`` holds ``~(j << shift)``, a hash whose own slot is not ``j``, so no
    row's hash can match it.
    """
    bits = max(4, int(distinct.size).bit_length() + 2)
    size = 1 << bits
    mask = np.uint64(size - 1)
    for shift in range(0, 64 - bits + 1, 3):
        slots = ((distinct >> np.uint64(shift)) & mask).astype(np.intp)
        if unique_sorted(slots).size == distinct.size:
            slot_hash = ~(np.arange(size, dtype=np.uint64) << np.uint64(shift))
            slot_hash[slots] = distinct
            slot_code = np.zeros(size, dtype=np.int64)
            slot_code[slots] = np.arange(distinct.size)
            return np.uint64(shift), mask, slot_hash, slot_code
    return None


def _given_codes(
    codes: np.ndarray, tags: Sequence[str]
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """:func:`_code_strings`' result for tags given as codes: only the tags that occur."""
    first = pl.Series(codes).arg_unique().to_numpy()
    present = codes[first]
    order = np.argsort(present)
    lut = np.zeros(len(tags), dtype=np.int64)
    lut[present[order]] = np.arange(present.size)
    return lut[codes], [tags[int(c)] for c in present[order]], first[order]


def check_scheme(scheme: str | None, source: str) -> str | None:
    """Return a forced scheme's canonical name (``IOBES`` → ``BIOES``); unknown ones raise."""
    if scheme is None:
        return None
    name = schemes.scheme_name(scheme)
    if name is None:
        raise InputError(
            f"unknown tagging scheme; expected one of {', '.join(schemes.SCHEMES)}",
            path=source,
            got=scheme,
        )
    return name


def check_one_scheme(
    letters: Mapping[str, tuple[int, str]], source: str, scheme: str | None = None
) -> None:
    """Raise where a file's tags stop fitting one scheme (``letters``: first line, tag each).

    With ``scheme`` forced, a prefix letter outside its alphabet is the error; otherwise the
    letters are taken in file order and the first that no scheme holds together with the
    earlier ones (``M-`` after ``I-``, ``L-`` after ``E-``) is named with its line.
    """
    seen: list[str] = []
    for letter, (where, value) in sorted(letters.items(), key=lambda kv: kv[1][0]):
        if scheme is not None:
            if letter not in schemes.ALPHABETS[scheme]:
                raise InputError(
                    f"tag prefix {letter}- is not a letter of the {scheme} scheme; expected "
                    f"tags with {', '.join(c + '-' for c in schemes.ALPHABETS[scheme] if c != 'O')}"
                    " or O",
                    path=source,
                    line=where,
                    got=value,
                )
            continue
        if not schemes.fitting_schemes([*seen, letter]):
            before = schemes.fitting_schemes(seen)
            earlier = ", ".join(f"{c}-" for c in seen if c != "O")
            raise InputError(
                f"mixed tagging schemes: a {letter}- tag after {earlier} tags; expected one "
                f"scheme per file ({' or '.join(before)} so far)",
                path=source,
                line=where,
                got=value,
            )
        seen.append(letter)


def build_ner_split(
    *,
    name: str,
    source: str,
    token: pl.Series,
    tag: pl.Series | None,
    sentence_start: np.ndarray,
    line: np.ndarray | None,
    scheme: str | None = None,
    strict: bool = False,
    keep_tokens: bool = True,
    type_map: Mapping[str, str] | None = None,
    coarse_types: bool = False,
    check_letters: bool = True,
    rows: np.ndarray | None = None,
    tag_codes: TagCodes | None = None,
) -> Split:
    """Decode spans, hash sentences and entities, and return the frozen split.

    ``token``/``tag`` hold one row per token; ``sentence_start`` marks each sentence's first
    token; ``line`` gives each token's 1-based line in ``source`` (for error messages).
    ``type_map`` renames entity types (types it does not list are kept) and ``coarse_types``
    then cuts each type at its first ``.`` (:func:`benchcheck.data.schemes.map_type`); the
    tags are read, decoded and hashed as renamed, and the split records the renaming.
    ``check_letters=False`` leaves the one-scheme check (:func:`check_one_scheme`) to
    :func:`combine_splits`, for readers whose parts are pieces of one file. ``rows``, when
    given, selects the token rows of ``token``/``tag`` (which then also hold rows that are no
    tokens, e.g. a CoNLL file's blank lines); ``sentence_start`` and ``line`` follow ``rows``.
    ``tag_codes`` (:class:`TagCodes`), when the reader made the tags itself, saves coding
    the ``tag`` strings (``tag`` may then be ``None`` unless tokens are kept).
    """
    n_tok = token.len() if rows is None else rows.size
    if n_tok == 0:
        raise InputError(
            "empty split: expected at least one sentence with tokens and tags", path=source
        )
    scheme = check_scheme(scheme, source)

    # Parse each distinct tag once, in order of first appearance (the first bad one is named).
    if tag_codes is not None and tag_codes.first_row is not None:
        codes, distinct, first_row = tag_codes.codes, tag_codes.tags, tag_codes.first_row
    elif tag_codes is not None:
        codes, distinct, first_row = _given_codes(tag_codes.codes, tag_codes.tags)
    elif tag is not None:
        codes, distinct, first_row = _code_strings(tag, rows)
    else:
        raise ValueError("build_ner_split needs tag or tag_codes")
    prefix_lut = np.zeros(len(distinct), dtype=np.int8)
    type_names: list[str] = []
    type_of_tag: list[str] = [""] * len(distinct)
    letters: dict[str, tuple[int, str]] = {}
    renamed: dict[str, str] = {}
    mapped_tags = list(distinct)
    for k in np.argsort(first_row, kind="stable"):
        value = distinct[k]
        parsed = schemes.parse_tag(value)
        row = int(first_row[k])
        where = row + 1 if line is None else int(line[row])
        if parsed is None:
            raise InputError(
                schemes.TAG_SHAPE_EXPECTED,
                path=source,
                line=None if line is None else where,
                got=value,
            )
        prefix_lut[k] = parsed[0]
        letter = value[0]
        if letter not in letters or where < letters[letter][0]:
            letters[letter] = (where, value)
        entity_type = parsed[1]
        if entity_type and (type_map or coarse_types):
            new = schemes.map_type(entity_type, type_map, coarse=coarse_types)
            if new != entity_type:
                renamed[entity_type] = new
                mapped_tags[k] = f"{letter}-{new}"
            entity_type = new
        type_of_tag[k] = entity_type
        if entity_type and entity_type not in type_names:
            type_names.append(entity_type)
    if check_letters:
        check_one_scheme(letters, source, scheme)
    if rows is not None and keep_tokens:
        token, rows = token.gather(rows), None
        tag = None  # made from the codes below, one per token
    if renamed:
        distinct = mapped_tags
        tag = None
    type_names.sort()
    type_index = {t: i for i, t in enumerate(type_names)}
    type_lut = np.array([type_index.get(t, -1) for t in type_of_tag], dtype=np.int32)
    incoming, closing = schemes.tag_transition_codes(codes, prefix_lut, type_lut, sentence_start)
    violations = schemes.violation_counts(incoming, closing)
    used = scheme or schemes.best_scheme(violations)
    if strict and violations[used]:
        prefix, type_id = prefix_lut[codes], type_lut[codes]
        row = int(schemes.invalid_transitions(prefix, type_id, sentence_start, used)[0])
        raise InputError(
            f"invalid {used} tag transition "
            "(without {strict} it is repaired the way seqeval reads it)",
            path=source,
            line=None if line is None else int(line[row]),
            got=distinct[int(codes[row])],
        )

    # Sentences.
    first = np.flatnonzero(sentence_start)
    n_sent = first.size
    lengths = np.diff(np.append(first, n_tok))
    position = np.arange(n_tok, dtype=np.int32)
    position -= np.repeat(first.astype(np.int32), lengths)
    token_h = string_hash(token)
    if rows is not None:
        token_h = token_h[rows]
    tag_key = mix64(
        np.array([xxhash.xxh3_64_intdigest(t.encode()) for t in distinct], dtype=np.uint64)
    )
    # (tokens, tags) as (token sequence, tag sequence): the tag sequence's terms come from a
    # (position, tag) table, as the classification readers combine a text with its label.
    x_hash = sequence_hash(token_h, position, first, lengths)
    tags_hash = coded_sequence_hash(codes, tag_key, position, first, lengths)
    xy_hash = mix64(x_hash ^ mix64(tags_hash ^ _K_TAGS))

    # Entity spans.
    s_idx, e_idx = schemes.decode_coded_spans(incoming, closing, sentence_start)
    span_len = e_idx - s_idx
    span_first = (
        np.concatenate(([0], np.cumsum(span_len)[:-1])).astype(np.int64)
        if span_len.size
        else np.zeros(0, np.int64)
    )
    inner = np.repeat(s_idx, span_len)
    inner_pos = np.arange(inner.size, dtype=np.int64) - np.repeat(span_first, span_len)
    inner += inner_pos
    surface_hash = sequence_hash(token_h[inner], inner_pos, span_first, span_len)
    # Each span's sentence: the last sentence start at or before its first token.
    span_sentence = (np.searchsorted(first, s_idx, side="right") - 1).astype(np.uint32)
    span_type = type_lut[codes[s_idx]] if s_idx.size else np.zeros(0, np.int32)

    # Surface strings, joined once per distinct surface (the first span showing it).
    order = np.argsort(surface_hash, kind="stable")
    head = np.ones(order.size, dtype=bool)
    ordered = surface_hash[order]
    np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
    inverse = np.empty(order.size, dtype=np.int64)
    inverse[order] = np.cumsum(head) - 1
    shown = order[head]  # one span per distinct surface, in hash order
    picked = np.zeros(surface_hash.size, dtype=bool)
    picked[shown] = True
    keep = np.repeat(picked, span_len)
    piece_rows = inner[keep] if rows is None else rows[inner[keep]]
    distinct_surface = _joined_surfaces(
        np.repeat(np.arange(surface_hash.size), span_len)[keep], token.gather(piece_rows)
    )
    # Pieces come in span order; the distinct surfaces were built in that order too.
    by_span = np.empty(surface_hash.size, dtype=np.int64)
    by_span[np.flatnonzero(picked)] = np.arange(shown.size)
    local_start = s_idx - first[span_sentence] if s_idx.size else np.zeros(0, np.int64)
    spans = pl.DataFrame(
        {
            "sentence": span_sentence.astype(np.uint32),
            "start": local_start.astype(np.int32),
            "end": (local_start + span_len).astype(np.int32),
            "type": pl.Series(type_names, dtype=pl.Enum(type_names)).gather(span_type),
            "surface_hash": surface_hash,
            "surface": distinct_surface.gather(by_span[shown][inverse]),
        },
        schema={
            "sentence": pl.UInt32,
            "start": pl.Int32,
            "end": pl.Int32,
            "type": pl.Enum(type_names),
            "surface_hash": pl.UInt64,
            "surface": pl.String,
        },
    )

    n_entities = (
        np.bincount(span_sentence, minlength=n_sent)
        if span_sentence.size
        else np.zeros(n_sent, np.int64)
    )
    table = pl.DataFrame(
        {
            "sentence": np.arange(n_sent, dtype=np.uint32),
            "line": (line[first] if line is not None else first + 1).astype(np.int64),
            "n_tokens": lengths.astype(np.int32),
            "x_hash": x_hash,
            "xy_hash": xy_hash,
            "n_entities": n_entities.astype(np.int32),
        }
    )
    tokens = (
        None
        if not keep_tokens
        else pl.DataFrame(
            {
                "sentence": np.repeat(np.arange(n_sent, dtype=np.uint32), lengths),
                "position": position,
                "token": token,
                "tag": tag
                if tag is not None
                else pl.Series(distinct, dtype=pl.String).gather(codes),
                "token_hash": token_h,
            }
        )
    )
    return Split(
        name=name,
        source=source,
        table=table,
        tokens=tokens,
        spans=spans,
        **_scheme_fields(used, violations, letters),
        type_map=renamed,
    )


def _joined_surfaces(span: np.ndarray, token: pl.Series) -> pl.Series:
    """Join each span's tokens (``span`` numbers the pieces' spans, in order) into one string.

    The joining rule is :func:`~benchcheck.data.scripts.join_tokens`': one space between two
    tokens, none where either side is a script written without spaces. Built on the UTF-8
    bytes (no Python per surface): each piece contributes an optional space and its bytes.
    """
    n = token.len()
    if n == 0:
        return pl.Series("surface", [], dtype=pl.String)
    offsets, data = string_buffers(token)
    first_of_span = np.ones(n, dtype=bool)
    np.not_equal(span[1:], span[:-1], out=first_of_span[1:])
    base, end = int(offsets[0]), int(offsets[-1])
    if end == base or int(data[base:end].max()) < 0x80:  # ASCII: no script without spaces
        sep = ~first_of_span
    else:
        table = scripts.char_table()
        head, tail = scripts.first_last_codepoints(offsets, data)
        tight = (table[head] & scripts.NO_SPACE) != 0
        tight[1:] |= (table[tail[:-1]] & scripts.NO_SPACE) != 0
        sep = ~first_of_span & ~tight
    src = np.empty(end - base + 1, dtype=np.uint8)
    src[:-1] = data[base:end]
    src[-1] = 0x20  # the separator's byte, after the tokens' bytes
    length = (offsets[1:] - offsets[:-1]).astype(np.int64)
    starts = np.empty(2 * n, dtype=np.int64)
    lengths = np.empty(2 * n, dtype=np.int64)
    starts[0::2] = src.size - 1
    lengths[0::2] = sep
    starts[1::2] = offsets[:-1] - base
    lengths[1::2] = length
    joined = gather_ranges(src, starts, lengths)
    per_span = np.add.reduceat(length + sep, np.flatnonzero(first_of_span))
    out = np.zeros(per_span.size + 1, dtype=np.int64)
    np.cumsum(per_span, out=out[1:])
    return strings_from_buffers(out, joined).alias("surface")


def _scheme_fields(used: str, violations: dict[str, int], letters: Any) -> dict[str, Any]:
    """Return a split's scheme fields: the scheme used, its repairs, every scheme's count."""
    return {
        "scheme": used,
        "tag_repairs": violations[used],
        "scheme_violations": violations,
        "tag_letters": letters,
    }


def combine_splits(parts: list[Split], *, scheme: str | None = None) -> Split:
    """Join splits read in pieces (chunks, shards) into the split of the whole, exactly.

    Sentence indices are shifted, violation counts summed (so scheme detection and
    ``tag_repairs`` equal a whole-file read), and entity types merged into one sorted list.
    The prefix letters met in all parts must fit one scheme (:func:`check_one_scheme`, named
    at the first line where they stop fitting).
    """
    if len(parts) == 1:
        first = parts[0]
        check_one_scheme(first.tag_letters, first.source, check_scheme(scheme, first.source))
        return first
    offsets = np.cumsum([0] + [p.n for p in parts[:-1]])
    table = pl.concat(
        [
            p.table.with_columns(pl.col("sentence") + int(o))
            for p, o in zip(parts, offsets, strict=True)
        ]
    )
    assert all(p.spans is not None for p in parts)  # NER parts always carry spans
    span_frames = [p.spans for p in parts if p.spans is not None]
    types = sorted(
        {t for f in span_frames for t in f.get_column("type").cast(pl.String).unique().to_list()}
    )
    enum = pl.Enum(types)
    spans = pl.concat(
        [
            f.with_columns(
                pl.col("sentence") + int(o),
                # Re-coded only where the part's types are not all of them (they mostly are).
                pl.col("type")
                if f.schema["type"] == enum
                else pl.col("type").cast(pl.String).cast(enum),
            )
            for f, o in zip(span_frames, offsets, strict=True)
        ]
    )
    tokens = None
    token_frames = [p.tokens for p in parts if p.tokens is not None]
    if len(token_frames) == len(parts):
        tokens = pl.concat(
            [
                f.with_columns(pl.col("sentence") + int(o))
                for f, o in zip(token_frames, offsets, strict=True)
            ]
        )
    violations = {k: sum(p.scheme_violations.get(k, 0) for p in parts) for k in schemes.SCHEMES}
    first = parts[0]
    letters: dict[str, tuple[int, str]] = {}
    for p in parts:
        for letter, found in p.tag_letters.items():
            if letter not in letters or found[0] < letters[letter][0]:
                letters[letter] = found
    scheme = check_scheme(scheme, first.source)
    check_one_scheme(letters, first.source, scheme)
    used = scheme or schemes.best_scheme(violations)
    reading = None
    for p in parts:
        if p.reading is not None:
            reading = p.reading if reading is None else reading + p.reading
    return Split(
        name=first.name,
        source=first.source,
        table=table,
        tokens=tokens,
        spans=spans,
        **_scheme_fields(used, violations, letters),
        type_map={k: v for p in parts for k, v in p.type_map.items()},
        reading=reading,
        empty_records=sum(p.empty_records for p in parts),
        empty_at=tuple(x for p in parts for x in p.empty_at)[:SHOWN_EMPTY],
    )


#: How many of the records left out for holding no token a note names.
SHOWN_EMPTY = 5


def with_empty_records(split: Split, where: Sequence[str], *, count: int | None = None) -> Split:
    """Count the records left out for holding no token (no instance) in the split.

    ``where`` names them (``line 3``; the first few will do when ``count`` says how many
    there are); the split keeps their count and the first :data:`SHOWN_EMPTY` names, which
    the statistics report (``empty_records``) and :func:`warn_empty` says in a warning.
    """
    import dataclasses

    n = len(where) if count is None else count
    if not n:
        return split
    shown = (*split.empty_at, *where)[:SHOWN_EMPTY]
    return dataclasses.replace(split, empty_records=split.empty_records + n, empty_at=shown)


def warn_empty(split: Split, what: str = "records") -> Split:
    """Say in one warning line how many records were left out for holding no token, and where.

    A :class:`~benchcheck.errors.DataWarning`, printed by the command line after its output
    (``/a.jsonl: 2 lines with no token left out (no instance): line 2, line 4``).
    """
    import warnings

    from benchcheck.errors import DataWarning

    n = split.empty_records
    if n:
        more = ", ..." if n > len(split.empty_at) else ""
        warnings.warn(
            DataWarning(
                f"{split.source}: {n:,} {what if n > 1 else what[:-1]} with no token left out "
                "(no instance): "
                f"{', '.join(split.empty_at)}{more}"
            ),
            stacklevel=2,
        )
    return split
