"""Plain-Python NER statistics: the independent computation the reader tests compare against.

Nothing here imports benchcheck. Sentences are (tokens, tags) pairs; entities come from
seqeval's ``get_entities`` (BILOU and BMES given in their BIOES spelling: L = E, U = S,
M = I); an entity's value is its token sequence. The formulas are the paper's, written out.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import pytest
from seqeval.metrics.sequence_labeling import get_entities

Sentence = tuple[list[str], list[str]]
_SPELL = {"M": "I", "L": "E", "U": "S"}


def entities(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """(type, start, exclusive end) of each entity, the lenient seqeval way."""
    spelled = [t if t == "O" else _SPELL.get(t[0], t[0]) + t[1:] for t in tags]
    return [(t, s, e + 1) for t, s, e in get_entities(spelled)]


def read_plain(text: str) -> list[Sentence]:
    """CoNLL by hand: token first, tag last; blank/whitespace lines and -DOCSTART- separate."""
    lines = text.replace("\r\n", "\n").split("\n")
    content = [ln for ln in lines if ln.strip() and not ln.split()[0] == "-DOCSTART-"]
    tab = "\t" in content[0]
    out: list[Sentence] = []
    tokens: list[str] = []
    tags: list[str] = []
    for ln in lines:
        if not ln.strip() or ln.split()[0] == "-DOCSTART-":
            if tokens:
                out.append((tokens, tags))
            tokens, tags = [], []
            continue
        fields = ln.split("\t") if tab else ln.split()
        tokens.append(fields[0])
        tags.append(fields[-1])
    if tokens:
        out.append((tokens, tags))
    return out


def _values(sentence: Sentence) -> list[tuple[tuple[str, ...], str]]:
    tokens, tags = sentence
    return [(tuple(tokens[s:e]), t) for t, s, e in entities(tags)]


def split_stats(
    sentences: list[Sentence], values: list[list[tuple[tuple[str, ...], str]]] | None = None
) -> dict[str, float | int | None]:
    """The split-level numbers of ``benchcheck stats`` (Eqs. 1, 5, 6, 8, 9 and counts)."""
    n = len(sentences)
    values = values if values is not None else [_values(s) for s in sentences]
    pairs = Counter((tuple(x), tuple(y)) for x, y in sentences)
    mentions = [v for vs in values for v in vs]
    by_type = Counter(t for _, t in mentions)
    shares = [c / len(mentions) for c in by_type.values()]
    mean = sum(shares) / len(shares) if shares else 0.0
    types_of: dict[tuple[str, ...], set[str]] = {}
    for surface, t in mentions:
        types_of.setdefault(surface, set()).add(t)
    e_star = sum(1 for ts in types_of.values() if len(ts) > 1)
    return {
        "n_instances": n,
        "n_tokens": sum(len(x) for x, _ in sentences),
        "n_entities": len(mentions),
        "redundancy": sum(k * (k - 1) / 2 for k in pairs.values()) / n,
        "duplicate_ratio": (n - len(pairs)) / n,
        "entity_null_rate": sum(1 for vs in values if not vs) / n,
        "entity_density": sum(
            len({v for v, _ in vs}) / len(s[0]) for s, vs in zip(sentences, values, strict=True)
        )
        / n,
        "entity_imbalance_degree": (
            math.sqrt(sum((p - mean) ** 2 for p in shares) / len(shares)) if shares else None
        ),
        "entity_ambiguity_degree": 1 - e_star / n,
    }


def cross_stats(
    train: list[Sentence],
    test: list[Sentence],
    train_values_: list[list[tuple[tuple[str, ...], str]]] | None = None,
    test_values_: list[list[tuple[tuple[str, ...], str]]] | None = None,
) -> dict[str, float]:
    """Leakage (Eq. 3) and unseen entity ratios (Eq. 4) of test against train."""
    seen = {(tuple(x), tuple(y)) for x, y in train}
    seen_x = {tuple(x) for x, _ in train}
    tr = train_values_ if train_values_ is not None else [_values(s) for s in train]
    te = test_values_ if test_values_ is not None else [_values(s) for s in test]
    train_values = {v for vs in tr for v in vs}
    test_values = {v for vs in te for v in vs}
    return {
        "leakage_ratio": sum((tuple(x), tuple(y)) in seen for x, y in test) / len(test),
        "text_leakage_ratio": sum(tuple(x) in seen_x for x, _ in test) / len(test),
        "unseen_entity_ratio": len({v for v, _ in test_values} - {v for v, _ in train_values})
        / len({v for v, _ in test_values}),
        "unseen_entity_ratio_typed": len(test_values - train_values) / len(test_values),
    }


def assert_matches(result: dict, splits: dict[str, list[Sentence]]) -> None:
    """Assert benchcheck's stats JSON equals the plain computation, split by split."""
    values = {name: [_values(s) for s in sentences] for name, sentences in splits.items()}
    for name, sentences in splits.items():
        expected = split_stats(sentences, values[name])
        got = result["splits"][name]
        for key, value in expected.items():
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), (name, key)
    if "train" in splits and "test" in splits:
        cross = cross_stats(splits["train"], splits["test"], values["train"], values["test"])
        for key, value in cross.items():
            assert result["metrics"][key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
