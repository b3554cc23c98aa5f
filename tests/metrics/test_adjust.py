"""Controlled dataset adjustment: achieved vs target on random corpora, recomputed by hand."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchcheck.data.model import Dataset
from benchcheck.errors import UsageError
from benchcheck.io.load import load
from benchcheck.io.subset import write_subset
from benchcheck.io.tables import build_text_split
from benchcheck.metrics.adjust import adjust

TYPES = ["PER", "ORG", "LOC"]


def _sentences(rng, n, names, p_null=0.3):
    out = []
    for _ in range(n):
        toks = []
        for _ in range(rng.integers(3, 12)):
            if rng.random() < 0.25 and rng.random() > p_null:
                name = names[rng.integers(len(names))]
                typ = TYPES[hash(name) % 3] if rng.random() < 0.8 else TYPES[rng.integers(3)]
                for j, w in enumerate(name.split()):
                    toks.append((w, ("B-" if j == 0 else "I-") + typ))
            else:
                toks.append((f"w{rng.integers(30)}", "O"))
        out.append(toks)
    return out


def _corpus(folder: Path, seed: int, n_test: int = 80) -> list[list[tuple[str, str]]]:
    rng = np.random.default_rng(seed)
    pool = [f"N{k}" if k % 3 else f"N{k} M{k}" for k in range(60)]
    train = _sentences(rng, 120, pool[:35])
    test = _sentences(rng, n_test, pool)
    # Leak some training sentences into test.
    test += [train[k] for k in rng.choice(len(train), size=n_test // 4, replace=False)]
    for name, sents in (("train", train), ("test", test)):
        text = "\n\n".join("\n".join(f"{w} {t}" for w, t in s) for s in sents) + "\n"
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return test


def _parse(path: Path) -> list[list[tuple[str, str]]]:
    blocks = path.read_text(encoding="utf-8").strip().split("\n\n")
    return [[tuple(line.split(" ")) for line in b.split("\n")] for b in blocks if b.strip()]


def _entities(sent):
    ents, cur = [], None
    for w, t in sent:
        if t.startswith("B-"):
            cur = [t[2:], [w]]
            ents.append(cur)
        elif t.startswith("I-") and cur is not None:
            cur[1].append(w)
        else:
            cur = None
    return [(" ".join(ws), typ) for typ, ws in ents]


def _ref_value(metric, chosen, train, all_sents):
    surfaces = {s for sent in chosen for s, _ in _entities(sent)}
    if metric == "unseen_entity_ratio":
        seen = {s for sent in train for s, _ in _entities(sent)}
        return len(surfaces - seen) / len(surfaces)
    if metric == "ambiguous_entity_share":
        types: dict[str, set] = {}
        for sent in all_sents:
            for s, t in _entities(sent):
                types.setdefault(s, set()).add(t)
        return sum(len(types[s]) > 1 for s in surfaces) / len(surfaces)
    if metric == "leakage_ratio":
        keys = {tuple(s) for s in train}
        return sum(tuple(s) in keys for s in chosen) / len(chosen)
    return sum(not _entities(s) for s in chosen) / len(chosen)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10_000),
    metric=st.sampled_from(
        ["unseen_entity_ratio", "ambiguous_entity_share", "leakage_ratio", "entity_null_rate"]
    ),
    target=st.sampled_from([0.0, 0.2, 0.5, 0.8]),
    size=st.integers(10, 40),
)
def test_achieved_within_reachable_tolerance(seed, metric, target, size):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _corpus(folder, seed)
        ds = load(folder)
        split = "train" if metric == "entity_null_rate" else "test"
        try:
            res = adjust(ds, split=split, metric=metric, targets=[target], size=size, seed=seed)
        except UsageError as err:
            assert "out of reach" in str(err) or "needs" in str(err)
            if metric in ("leakage_ratio", "entity_null_rate"):
                # An indicator metric refuses only when the split lacks the instances.
                src = _parse(folder / f"{split}.txt")
                train = _parse(folder / "train.txt")
                flags = [
                    (tuple(s) in {tuple(t) for t in train})
                    if metric == "leakage_ratio"
                    else not _entities(s)
                    for s in src
                ]
                k = round(target * size)
                assert k > sum(flags) or size - k > len(flags) - sum(flags)
            return
        sub = res.subsets[0]
        assert len(sub.rows) == size == len(set(sub.rows))
        out = folder / "out.txt"
        write_subset(ds[split], sub.rows, out)
        chosen = _parse(out)
        src = _parse(folder / f"{split}.txt")
        assert chosen == [src[r] for r in sub.rows]  # original lines, original order
        train = _parse(folder / "train.txt")
        ref = _ref_value(metric, chosen, train, train + _parse(folder / "test.txt"))
        assert abs(ref - sub.achieved) < 1e-12
        surfaces = {s for sent in chosen for s, _ in _entities(sent)}
        step = 0.5 / (size if metric in ("leakage_ratio", "entity_null_rate") else len(surfaces))
        assert abs(sub.achieved - target) <= max(0.02, step) + 1e-12


def _tvd(source, subset):
    p, q = Counter(source), Counter(subset)
    return 0.5 * sum(abs(p[k] / len(source) - q[k] / len(subset)) for k in p.keys() | q.keys())


def test_two_targets_same_size_and_seeded(tmp_path):
    test = _corpus(tmp_path, 3, n_test=200)
    ds = load(tmp_path)
    a = adjust(ds, split="test", metric="unseen_entity_ratio", targets=[0.8, 0.2], size=40, seed=1)
    b = adjust(ds, split="test", metric="unseen_entity_ratio", targets=[0.8, 0.2], size=40, seed=1)
    assert a == b
    assert [len(s.rows) for s in a.subsets] == [40, 40]
    assert abs(a.subsets[0].achieved - 0.8) <= 0.02 and abs(a.subsets[1].achieved - 0.2) <= 0.02
    assert set(a.subsets[0].shift) >= {"length_ks", "entity_type_tvd", "length_mean_subset"}
    types = [t for sent in test for _, t in _entities(sent)]
    for sub in a.subsets:
        chosen = [t for r in sub.rows for _, t in _entities(test[r])]
        assert sub.shift["entity_type_tvd"] == pytest.approx(_tvd(types, chosen), abs=1e-12)


def test_refuses_with_reason(tmp_path):
    _corpus(tmp_path, 5)
    ds = load(tmp_path)
    with pytest.raises(UsageError, match=r"out of reach at size 100: it needs 100 leaked"):
        adjust(ds, split="test", metric="leakage_ratio", targets=[1.0], size=100)
    with pytest.raises(UsageError, match="cannot adjust"):
        adjust(ds, split="test", metric="redundancy", targets=[0.1])
    with pytest.raises(UsageError, match="applies to classification, pair"):
        adjust(ds, split="test", metric="label_imbalance_degree", targets=[0.1])


@settings(max_examples=25, deadline=None)
@given(
    counts=st.lists(st.integers(1, 60), min_size=2, max_size=5),
    target=st.floats(0.0, 0.45),
    seed=st.integers(0, 100),
)
def test_label_imbalance(counts, target, seed):
    labels = [f"l{k}" for k, c in enumerate(counts) for _ in range(c)]
    frame = pl.DataFrame(
        {"id": [str(i) for i in range(len(labels))], "text": ["t"] * len(labels), "label": labels}
    )
    ds = Dataset(
        task="classification",
        splits={"train": build_text_split(frame, task="classification", name="train", source="-")},
    )
    size = max(2, len(labels) // 2)
    try:
        res = adjust(
            ds, split="train", metric="label_imbalance_degree", targets=[target], size=size
        )
    except UsageError as err:
        assert "out of reach" in str(err)
        return
    rows = res.subsets[0].rows
    c = Counter(labels[r] for r in rows)
    shares = np.array(list(c.values())) / len(rows)
    assert abs(float(np.std(shares)) - res.subsets[0].achieved) < 1e-12
    assert abs(res.subsets[0].achieved - target) <= 0.02 + 1e-12
    assert all(c[k] <= counts[int(k[1:])] for k in c)
    want = _tvd(labels, [labels[r] for r in rows])
    assert res.subsets[0].shift["label_tvd"] == pytest.approx(want, abs=1e-12)


def test_leakage_on_pairs():
    rng = np.random.default_rng(4)

    def rows(n, tag):
        return [
            {"id": f"{tag}{i}", "text_a": f"p{rng.integers(50)}", "text_b": f"h{i}", "label": "e"}
            for i in range(n)
        ]

    train = rows(60, "tr")
    test = rows(40, "te") + [dict(r, id=f"leak{i}") for i, r in enumerate(train[:20])]
    ds = Dataset(
        task="pair",
        splits={
            name: build_text_split(pl.DataFrame(r), task="pair", name=name, source=name)
            for name, r in (("train", train), ("test", test))
        },
    )
    res = adjust(ds, split="test", metric="leakage_ratio", targets=[0.5, 0.25], size=30, seed=0)
    for sub, k in zip(res.subsets, (15, 8), strict=True):  # round(0.25 * 30) = 8 (banker's: 7.5→8)
        assert sum(test[r]["id"].startswith("leak") for r in sub.rows) == k
        assert sub.achieved == k / 30
    with pytest.raises(UsageError, match="it needs 24 leaked instances"):
        adjust(ds, split="test", metric="leakage_ratio", targets=[0.8], size=30)
