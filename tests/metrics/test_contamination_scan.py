"""Contamination scans against a brute-force reading of the definitions, and planted spans."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.errors import UsageError
from benchcheck.metrics.contamination import (
    DEFINITIONS,
    Definition,
    ScanOptions,
    ScanState,
    build_index,
    contamination,
    gpt3_n,
    item_overlap,
    leakage_result,
    scan_batch,
    tokenize,
)


def _valid_spans(item, doc, n, min_length, skip):
    """Every span the Llama 2 definition allows, by enumeration: [i, e) on diagonal j - i."""
    out = []
    for i in range(len(item) - n + 1):
        for j in range(len(doc) - n + 1):
            if item[i : i + n] != doc[j : j + n]:
                continue  # the first n tokens match exactly
            for e in range(i + max(n, min_length), len(item) + 1):
                if j + e - i > len(doc):
                    break
                a, b = item[i:e], doc[j : j + e - i]
                if a[-1] == b[-1] and sum(x != y for x, y in zip(a, b, strict=True)) <= skip:
                    out.append((i, e, j))
    return out


def _components(spans):
    """Union of spans per diagonal: (start, end, doc start) of each piece."""
    by_diag = {}
    for i, e, j in spans:
        by_diag.setdefault(j - i, []).append((i, e))
    out = []
    for diag, intervals in by_diag.items():
        intervals.sort()
        start, end = intervals[0]
        for a, b in intervals[1:]:
            if a > end:
                out.append((start, end, start + diag))
                start, end = a, b
            else:
                end = max(end, b)
        out.append((start, end, start + diag))
    return out


def reference(texts, docs, *, n, min_length, skip):
    """Plain Python, straight from the definitions: no hashing, no index."""
    items = [tokenize(t) for t in texts]
    doc_tokens = [None if d is None else tokenize(d) for d in docs]
    out = []
    for text, item in zip(texts, items, strict=True):
        covered = [False] * len(item)
        pieces = []
        grams = {tuple(item[i : i + n]) for i in range(len(item) - n + 1)}
        found = set()
        for row, doc in enumerate(doc_tokens):
            if doc is None:
                continue
            found |= grams & {tuple(doc[j : j + n]) for j in range(len(doc) - n + 1)}
            spans = _valid_spans(item, doc, n, min_length, skip)
            for i, e, _ in spans:
                covered[i:e] = [True] * (e - i)
            pieces += [(row, j, i, e - i) for i, e, j in _components(spans)]
        out.append(
            {
                "tokens": sum(covered) / len(item) if item else 0.0,
                "ngram": len(found) / len(grams) if grams else 0.0,
                "exact": sum(d == text for d in docs if d is not None),
                "normalised": sum(bool(item) and d == item for d in doc_tokens),
                "pieces": sorted(pieces),
            }
        )
    return out


words = st.lists(st.sampled_from(["a", "B", "c", "a,", "ß", "SS", "北"]), max_size=14).map(" ".join)


@settings(max_examples=120, deadline=None)
@given(
    test=st.lists(words.filter(str.strip), min_size=1, max_size=4),
    docs=st.lists(st.one_of(words, st.none()), min_size=1, max_size=6),
    n=st.integers(1, 4),
    extra=st.integers(0, 2),
    skip=st.integers(0, 3),
    cuts=st.lists(st.integers(0, 6), max_size=3),
)
def test_against_the_definition(test, docs, n, extra, skip, cuts):
    ref = reference(test, docs, n=n, min_length=n + extra, skip=skip)
    bounds = [0, *sorted(set(cuts)), len(docs)]
    batches = [docs[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    for overlap in ("tokens", "ngram"):
        d = Definition("t", overlap, n, n + extra, skip, 0.2, 0.8)
        got = contamination(test, batches, definition=d, max_matches=10**6)
        for item, want in zip(got.items, ref, strict=True):
            assert item.overlap == pytest.approx(want[overlap], abs=1e-12)
            assert (item.exact_matches, item.normalised_matches) == (
                want["exact"],
                want["normalised"],
            )
            assert item.n_matches == len(want["pieces"])
            pieces = sorted((m.row, m.offset, m.item_offset, m.length) for m in item.matches)
            assert pieces == want["pieces"]


B = [f"b{k}" for k in range(1, 41)]  # an item of 40 distinct tokens


def test_planted_spans_by_hand():
    item = " ".join(B)
    docs = [
        "x " + " ".join(B[5:15]) + " y",  # 10 tokens: a span of exactly n = 10
        " ".join(B[20:29]),  # 9 tokens: too short
        # 15 tokens, a substitution, 14 tokens: one span with skip 4, two without
        " ".join(B[:15]) + " Z " + " ".join(B[16:30]),
        # trailing mismatches are not part of a span
        " ".join(B[30:40]) + " q",
    ]
    r = contamination([item], [docs])
    i = r.items[0]
    # covered: 0..30 (doc 2 bridges the substitution at 15), 30..40 (doc 3)
    assert i.overlap == 1.0 and i.bucket == "dirty" and i.subsets == ("not_clean", "dirty")
    assert [(m.row, m.offset, m.item_offset, m.length) for m in i.matches] == [
        (0, 1, 5, 10),
        (2, 0, 0, 30),
        (3, 0, 30, 10),
    ]
    no_skip = contamination([item], [docs], definition=Definition("x", "tokens", 10, 10, 0, 0, 1))
    j = no_skip.items[0]
    assert j.overlap == 39 / 40  # only position 15, the substitution, is left
    assert j.n_matches == 4
    longer = contamination([item], [docs], definition=Definition("x", "tokens", 10, 20, 4, 0, 1))
    assert longer.items[0].overlap == 30 / 40 and longer.items[0].n_matches == 1


def test_hash_collisions_never_count(monkeypatch):
    """Every n-gram forced onto one hash: the token check refuses the false matches."""
    import pyarrow as pa

    from benchcheck.metrics.contamination import scan

    monkeypatch.setattr(scan, "rolling_hashes", lambda h, n: np.zeros(h.size - n + 1, np.uint64))
    index = build_index(["a b c"], n=2)
    index = type(index)(**{**index.__dict__, "gram_hash": np.zeros_like(index.gram_hash)})
    index.prefix[:] = True
    index.middle[:] = True
    state = ScanState.empty(index)
    scan_batch(index, ScanOptions(2), state, pa.array(["x y z", "b c"]), np.arange(2), unit=0)
    assert state.found.tolist() == [False, True, False]


def test_states_merge_in_any_order():
    rng = np.random.default_rng(3)
    vocab = np.array([f"w{k}" for k in range(30)])
    items = [" ".join(rng.choice(vocab, 25)) for _ in range(6)]
    docs = []
    for k in range(40):
        if k % 5 == 0:
            src = items[k % 6].split()
            docs.append(" ".join(src[k % 7 : k % 7 + 15]))
        else:
            docs.append(" ".join(rng.choice(vocab, 30)))
    import pyarrow as pa

    d = DEFINITIONS["llama2"].resolve(np.array([25] * 6))
    index = build_index(items, n=10)
    opts = ScanOptions(10, 4, 2)
    parts = []
    for unit, chunk in enumerate((docs[:13], docs[13:20], docs[20:])):
        st_ = ScanState.empty(index)
        scan_batch(index, opts, st_, pa.array(chunk), np.arange(len(chunk)), unit=unit)
        parts.append(st_)
    results = []
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        total = ScanState.empty(index)
        for k in order:
            total.merge(parts[k], 2)
        res = leakage_result(
            index,
            total,
            d,
            ids=list("abcdef"),
            unit_files=["u0", "u1", "u2"],
            files=["u0", "u1", "u2"],
            max_matches=2,
        )
        results.append(res.to_json())
    assert results[0] == results[1] == results[2]
    assert any(i["matches"] for i in results[0]["items"])
    assert np.array_equal(item_overlap(index, total, "tokens"), [i.overlap for i in res.items])


def test_near_duplicates_are_verified():
    item = " ".join(f"t{k}" for k in range(20))
    near = " ".join(f"t{k}" for k in range(19)) + " other"  # Jaccard 19/21
    far = " ".join(f"t{k}" for k in range(10)) + " " + " ".join(f"u{k}" for k in range(10))
    long_doc = " ".join(f"t{k % 20}" for k in range(400))  # 20 distinct tokens: Jaccard 1
    r = contamination([item], [[far, near, long_doc]], near_threshold=0.8)
    i = r.items[0]
    assert i.near_matches == 2
    assert [(m.row, round(m.jaccard, 6)) for m in i.near] == [(1, round(19 / 21, 6)), (2, 1.0)]
    assert r.to_json()["parameters"]["near"]["threshold"] == 0.8


def test_definitions():
    assert gpt3_n(np.array([30] * 19 + [9])) == 9
    assert DEFINITIONS["llama2"].resolve(np.array([5])).min_length == 10
    with pytest.raises(UsageError, match="clean_below"):
        Definition("x", "tokens", 10, 10, 4, 0.9, 0.2).check()
    with pytest.raises(UsageError, match="tokens or ngram"):
        Definition("x", "chars", 10, 10, 4, 0.2, 0.8).check()
    with pytest.raises(UsageError, match="min_length"):
        ScanOptions(5).check(10)
    r = contamination(
        ["a b c d e f g h i j k l m"], [["a b c d e f g h i j k l m"]], definition="gpt3"
    )
    assert r.definition.n == 13 and r.items[0].bucket == "dirty"
    assert contamination(["a b"], [["a b"]], definition="palm").items[0].overlap == 0.0
