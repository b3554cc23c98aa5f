"""Documents → (tokens, tags) sentences in plain Python: the reference the readers must equal.

Nothing here imports benchcheck. Each step follows the rule benchcheck documents, written
out the obvious way: the unicode tokeniser as one ``regex`` pattern (as in
test_offset_formats), sentences from ``sentencex`` with a cut inside a mention moved to
its end and a piece without a letter or digit joined to the one before, overlapping
mentions resolved longest first (ties: the earlier start), IOB2 tags. The sentences feed
``_plain_ner.split_stats``.
"""

from __future__ import annotations

import regex
import sentencex

Doc = tuple[str, list[tuple[int, int, str]]]  # text, mentions (start, end, type)
_NOSPACE = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}"
_TOKEN = regex.compile(
    rf"[{_NOSPACE}]\p{{M}}*|[^\W{_NOSPACE}]+(?:\p{{M}}[^\W{_NOSPACE}]*)*|[^\w\s]\p{{M}}*"
)


def cut_sentences(text: str, mentions: list[tuple[int, int, str]], lang: str = "en") -> list[int]:
    """Sentence starts of a document (0 first), after moving and joining (see the module)."""
    cuts = [b["start_index"] for b in sentencex.get_sentence_boundaries(lang, text)[1:]]
    moved = []
    for c in cuts:
        while True:
            reach = max((e for s, e, _ in mentions if s < c < e), default=None)
            if reach is None:
                break
            c = reach
        moved.append(c)
    starts = sorted({0, *[c for c in moved if c < len(text)]})
    kept = [starts[0]]
    for k, s in enumerate(starts[1:], start=1):
        end = starts[k + 1] if k + 1 < len(starts) else len(text)
        if regex.search(r"[\p{L}\p{N}]", text[s:end]):
            kept.append(s)
    return kept


def tag_piece(text: str, start: int, end: int, mentions: list[tuple[int, int, str]]):
    """(tokens, IOB2 tags) of ``text[start:end]`` with the mentions inside it, or None."""
    toks = [
        (m.start() + start, m.end() + start, m.group()) for m in _TOKEN.finditer(text[start:end])
    ]
    if not toks:
        return None
    first = {a: k for k, (a, _, _) in enumerate(toks)}
    last = {b: k for k, (_, b, _) in enumerate(toks)}
    spans = []
    for s, e, t in mentions:
        if start <= s and e <= end:
            assert s in first and e in last, (text[s:e], "not on token boundaries")
            spans.append((first[s], last[e] + 1, t))
    chosen: list[tuple[int, int, str]] = []
    for a, b, t in sorted(spans, key=lambda x: (-(x[1] - x[0]), x[0])):
        if all(b <= x or a >= y for x, y, _ in chosen):
            chosen.append((a, b, t))
    tags = ["O"] * len(toks)
    for a, b, t in chosen:
        tags[a] = "B-" + t
        for k in range(a + 1, b):
            tags[k] = "I-" + t
    return [tok for _, _, tok in toks], tags


def sentences(docs: list[Doc], *, split: bool = True, lang: str = "en"):
    """All (tokens, tags) instances of documents: sentences, or whole documents."""
    out = []
    for text, mentions in docs:
        starts = cut_sentences(text, mentions, lang) if split else [0]
        for k, s in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(text)
            piece = tag_piece(text, s, end, mentions)
            if piece is not None:
                out.append(piece)
    return out


def dropped_overlaps(docs: list[Doc], *, split: bool = True) -> int:
    """How many mentions longest-first resolution drops (to compare with the reading)."""
    n_in = sum(len(m) for _, m in docs)
    n_out = sum(
        sum(1 for t in tags if t.startswith("B-")) for _, tags in sentences(docs, split=split)
    )
    return n_in - n_out
