"""Near-duplicates: normalisation, MinHash sketch, LSH recall on planted copies, determinism."""

from __future__ import annotations

import itertools
import json
import unicodedata

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchcheck.data.model import Dataset, Split
from benchcheck.errors import UsageError
from benchcheck.metrics import neardup
from benchcheck.metrics.neardup import (
    candidate_pairs,
    exact_jaccard,
    lsh_params,
    minhash_signatures,
    near_duplicates,
    normalise,
    shingles,
)


def _ref_normalise(s: str) -> str:
    s = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", s).casefold())
    return " ".join(s.split())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("aAbß ﬁ\t\nÉé1 ."), max_size=12), max_size=8))
def test_normalise_matches_python(values):
    got = normalise(pl.Series(values, dtype=pl.String)).to_list()
    assert got == [_ref_normalise(v) for v in values]


def test_lsh_params_match_datasketch():
    lsh = pytest.importorskip("datasketch.lsh")
    for t, p, w in [(0.8, 128, 0.5), (0.8, 128, 0.9), (0.5, 64, 0.9), (0.9, 32, 0.5)]:
        assert lsh_params(t, p, w) == lsh._optimal_param(t, p, 1 - w, w)


def _rand_docs(rng, n, vocab=400, lo=12, hi=25):
    return [
        " ".join(f"w{x}" for x in rng.integers(0, vocab, rng.integers(lo, hi))) for _ in range(n)
    ]


def test_signature_estimates_jaccard():
    rng = np.random.default_rng(0)
    base = [f"t{k}" for k in range(40)]
    docs = [" ".join(base)]
    truth = []
    for k in range(1, 40):
        other = base[k:] + [f"u{j}" for j in range(k)]
        docs.append(" ".join(other))
        truth.append((40 - k) / (40 + k))
    texts = pl.Series(docs)
    doc, sh = shingles(texts)
    sig = minhash_signatures(doc, sh, len(docs), num_perm=256, seed=3)
    est = (sig[1:] == sig[0]).mean(axis=1)
    assert np.abs(est - np.array(truth)).max() < 0.12  # ~4 standard errors at 256 perms
    # A set, not a sequence: word order and repeats do not change the signature.
    words = docs[0].split()
    rng.shuffle(words)
    d2, s2 = shingles(pl.Series([" ".join(words + words[:5])]))
    assert (minhash_signatures(d2, s2, 1, num_perm=256, seed=3)[0] == sig[0]).all()


def test_shingles_ngrams():
    doc, sh = shingles(pl.Series(["a b c", "a b", "z", ""]), ngram=2)
    assert doc.tolist() == [0, 0, 1, 2]  # 'a b','b c' | 'a b' | 'z' | none
    assert sh[0] == sh[2]


def _ds(**splits: list[str]) -> Dataset:
    return Dataset(
        task="classification",
        splits={
            k: Split(k, k, pl.DataFrame({"id": [f"{k}{i}" for i in range(len(v))], "text": v}))
            for k, v in splits.items()
        },
    )


def _jaccard(a: str, b: str) -> float:
    x, y = set(_ref_normalise(a).split(" ")), set(_ref_normalise(b).split(" "))
    return len(x & y) / len(x | y)


def test_recall_and_precision_against_brute_force():
    rng = np.random.default_rng(7)
    docs = _rand_docs(rng, 250, vocab=300)
    # Plant near-copies: one word changed, casing and spacing changed.
    for k in range(0, 50, 2):
        words = docs[k].split()
        words[3] = "CHANGED"
        docs.append(" ".join(words))
        docs.append("  " + docs[k + 1].upper().replace(" ", "\t "))
    res = near_duplicates(_ds(train=docs), threshold=0.8, seed=5)
    found = set()
    for cl in res.clusters:
        ids = sorted(int(i[5:]) for i in cl["ids"])
        found.update(itertools.combinations(ids, 2))
    truth = {
        (i, j)
        for i, j in itertools.combinations(range(len(docs)), 2)
        if _jaccard(docs[i], docs[j]) >= 0.8
    }
    assert len(truth) >= 40
    assert truth <= found or len(truth & found) / len(truth) >= 0.95
    # Every reported pair inside a cluster of two is verified (exact Jaccard ≥ threshold).
    for cl in res.clusters:
        if cl["size"] == 2:
            i, j = (int(x[5:]) for x in cl["ids"])
            assert _jaccard(docs[i], docs[j]) >= 0.8
    n_comp = len(docs) - sum(cl["size"] - 1 for cl in res.clusters)
    assert res.splits["train"]["near_duplicate_ratio"] == (len(docs) - n_comp) / len(docs)
    # Case/space copies are exact after normalisation.
    assert res.splits["train"]["normalized_duplicate_ratio"] == 25 / len(docs)


def test_leakage_and_determinism():
    rng = np.random.default_rng(1)
    train = _rand_docs(rng, 200)
    fresh = _rand_docs(rng, 30, vocab=100_000)
    copies = []
    for k in range(10):
        w = train[k].split()
        w[0] = "NEW"
        copies.append(" ".join(w))
    test = copies + [train[20].upper()] + fresh
    res = near_duplicates(_ds(train=train, test=test), seed=2)
    leaked_ids = {leak["test_id"] for leak in res.leaks}
    expected = {
        f"test{k}" for k in range(11) if _jaccard(test[k], train[k if k < 10 else 20]) >= 0.8
    }
    assert expected <= leaked_ids
    assert res.metrics["near_leakage_ratio"] == len(leaked_ids) / len(test)
    assert res.metrics["normalized_leakage_ratio"] == 1 / len(test)
    again = near_duplicates(_ds(train=train, test=test), seed=2)
    assert json.dumps(again.to_json(), sort_keys=True) == json.dumps(res.to_json(), sort_keys=True)
    other = minhash_signatures(*shingles(pl.Series(train)), len(train), seed=3)
    same = minhash_signatures(*shingles(pl.Series(train)), len(train), seed=2)
    assert not np.array_equal(other, same)


def test_stats_near_duplicates_flag(tmp_path, capsys):
    from benchcheck.cli import main

    rows = ["the quick brown fox jumps over the lazy dog today", "x y z"]
    (tmp_path / "train.jsonl").write_text(
        "".join(json.dumps({"text": t, "label": 0}) + "\n" for t in rows), encoding="utf-8"
    )
    (tmp_path / "test.jsonl").write_text(
        json.dumps({"text": "The quick brown fox jumps over the lazy dog TODAY!", "label": 0})
        + "\n",
        encoding="utf-8",
    )
    rc = main(
        ["stats", str(tmp_path), "--task", "classification", "--near-duplicates", "--json", "-"]
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    nd = out["near_duplicates"]
    assert nd["parameters"]["threshold"] == 0.8
    assert nd["metrics"]["near_leakage_ratio"] == 1.0  # sets of 9 words, 8 shared: J = 8/10
    assert nd["leaks"][0]["matches"] == [{"split": "train", "id": "0"}]


words = st.sampled_from(["a", "B", "b", "c", "ﬁ", "fi", " ", "\t"])
texts = st.lists(words, max_size=6).map("".join)


@settings(max_examples=60, deadline=None)
@given(
    train=st.lists(texts, min_size=1, max_size=12),
    test=st.lists(texts, min_size=1, max_size=12),
    test_first=st.booleans(),
)
def test_levels_are_nested_and_exact_at_threshold_one(train, test, test_first):
    from benchcheck.data.model import Dataset
    from benchcheck.io.tables import build_text_split
    from benchcheck.metrics.reliability import duplicate_ratio, text_leakage_ratio

    def split(name, rows):
        frame = pl.DataFrame(
            {"id": [str(i) for i in range(len(rows))], "text": rows, "label": ["0"] * len(rows)}
        )
        return build_text_split(frame, task="classification", name=name, source=name)

    order = [("test", test), ("train", train)] if test_first else [("train", train), ("test", test)]
    ds = Dataset(task="classification", splits={k: split(k, v) for k, v in order})
    res = near_duplicates(ds, threshold=1.0, seed=0)
    for name in ("train", "test"):
        s = res.splits[name]
        assert s["near_duplicate_ratio"] >= s["normalized_duplicate_ratio"] - 1e-12
        assert s["normalized_duplicate_ratio"] >= duplicate_ratio(ds[name]) - 1e-12
    m = res.metrics
    assert (
        m["near_leakage_ratio"]
        >= m["normalized_leakage_ratio"]
        >= text_leakage_ratio(ds["test"], [ds["train"]])
    )

    # Threshold 1: equal word sets (or equal normalised texts) — found exactly.
    def key(t):
        n = _ref_normalise(t)
        return frozenset(n.split(" ")) - {""} or ("empty", n)

    ref = {key(t) for t in train}
    assert m["near_leakage_ratio"] == sum(key(t) in ref for t in test) / len(test)


# --------------------------------------------------------------------------- bucket links

# u = {a..j}; v = {k..t}; w = v with t replaced by x: J(v, w) = 9/11, J(u, v) = J(u, w) = 0.
_HEAD, _V, _W = "a b c d e f g h i j", "k l m n o p q r s t", "k l m n o p q r s x"


def test_bucket_links_pair_that_misses_the_head():
    doc, sh = shingles(pl.Series([_HEAD, _V, _W]))
    keys = np.full((1, 3), 7, dtype=np.uint64)  # one band, all three in one bucket
    pairs = candidate_pairs(keys, np.zeros(3, np.int64), np.ones(3, bool))
    assert pairs.tolist() == [[0, 1], [0, 2], [1, 2]]  # a star gives only the first two
    assert exact_jaccard(pairs, doc, sh).tolist() == [0.0, 0.0, 9 / 11]


def _one_bucket(monkeypatch):
    # Every doc collides with every other in every band.
    monkeypatch.setattr(
        neardup, "band_keys", lambda sig, b, r: np.zeros((b, sig.shape[0]), np.uint64)
    )


def test_cluster_and_leak_found_when_the_head_is_far(monkeypatch):
    _one_bucket(monkeypatch)
    res = near_duplicates(_ds(train=[_HEAD, _V, _W]), seed=1)
    assert res.clusters == [{"split": "train", "size": 2, "ids": ["train1", "train2"]}]
    assert res.splits["train"]["near_duplicate_ratio"] == 1 / 3
    # Train heads the cross bucket: the test copy of train1 must still meet train1.
    res = near_duplicates(_ds(train=[_HEAD, _V], test=[_W]), seed=1)
    assert res.leaks == [{"test_id": "test0", "matches": [{"split": "train", "id": "train1"}]}]
    assert res.metrics["near_leakage_ratio"] == 1.0


def _ref_buckets(keys, group, active, first):
    """Members of each bucket in link order (marked ``first``, then by index)."""
    n = group.size
    order = sorted((i for i in range(n) if active[i]), key=lambda i: (not first[i], i))
    buckets: dict[tuple[int, int, int], list[int]] = {}
    for band, key in enumerate(keys):
        for i in order:
            buckets.setdefault((band, int(key[i]), int(group[i])), []).append(i)
    return list(buckets.values())


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 40),
    bands=st.integers(1, 3),
    n_keys=st.integers(1, 4),
    cap=st.integers(2, 6),
)
def test_candidate_pairs_all_pairs_up_to_cap_then_star_and_chain(data, n, bands, n_keys, cap):
    ints = st.lists(st.integers(0, n_keys), min_size=n, max_size=n)
    keys = np.array([data.draw(ints) for _ in range(bands)], dtype=np.uint64)
    group = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    active = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    first = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    got = candidate_pairs(keys, group, active, first, all_pairs_up_to=cap)
    assert got.dtype == np.int64 and got.shape[1] == 2
    got_set = {tuple(p) for p in got.tolist()}
    assert len(got_set) == got.shape[0] and got.tolist() == sorted(got.tolist())
    star, every, expected = set(), set(), set()
    for members in _ref_buckets(keys, group, active, first):
        star |= {(members[0], m) for m in members[1:]}
        every |= set(itertools.combinations(members, 2))
        if len(members) <= cap:
            expected |= set(itertools.combinations(members, 2))
        else:
            expected |= {(members[0], m) for m in members[1:]}
            expected |= set(itertools.pairwise(members))
    assert star <= got_set <= every  # never fewer links than the star, never a foreign pair
    assert got_set == expected
    wide = candidate_pairs(keys, group, active, first, all_pairs_up_to=n + 1)
    assert {tuple(p) for p in wide.tolist()} == every


def test_candidate_pairs_rejects_a_cap_below_two():
    with pytest.raises(UsageError, match="all_pairs_up_to"):
        candidate_pairs(
            np.zeros((1, 2), np.uint64), np.zeros(2, np.int64), np.ones(2, bool), all_pairs_up_to=1
        )


@settings(max_examples=200, deadline=None)
@given(
    sets=st.lists(st.sets(st.integers(0, 9), max_size=8), min_size=1, max_size=8),
    data=st.data(),
    chunk=st.integers(1, 5),
)
def test_exact_jaccard_matches_python_sets(sets, data, chunk):
    doc = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    # Repeated shingles in a doc count once.
    doc = np.concatenate([doc, doc])
    sh = np.array([x for s in sets for x in sorted(s)] * 2, dtype=np.uint64) * np.uint64(
        0x9E3779B97F4A7C15
    )
    order = np.argsort(doc, kind="stable")
    doc, sh = doc[order], sh[order]
    idx = st.integers(0, len(sets) - 1)
    pairs = np.array(data.draw(st.lists(st.tuples(idx, idx), min_size=1, max_size=10)))
    got = exact_jaccard(pairs, doc, sh, chunk=chunk)
    want = [
        len(sets[u] & sets[v]) / len(sets[u] | sets[v]) if sets[u] | sets[v] else 0.0
        for u, v in pairs.tolist()
    ]
    assert got.tolist() == want
