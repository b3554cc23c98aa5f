"""Where models fail: a model's seqeval F1 broken down by bucket (the paper's Sec. 6.4 analysis).

Entities are read from the gold and the predicted tags exactly as seqeval reads them
(``seqeval.metrics.sequence_labeling.get_entities``, its default, conlleval-compatible
mode); a predicted entity is correct when type, start and end match a gold entity. Per
bucket, precision = correct predicted / predicted and recall = correct gold / gold, with
F1 their harmonic mean (0 when both are 0; ``None`` when the bucket has neither gold nor
predicted entities). Buckets:

- **entity buckets** (a gold entity by its own surface, a predicted entity by its own):
  ``seen`` / ``unseen`` — the surface occurs as an entity in train; ``ambiguous`` /
  ``unambiguous`` — the surface is labelled with two or more types in the dataset's gold
  annotations (all splits);
- **sentence buckets** (every entity of a sentence follows the sentence): ``leaked`` /
  ``clean`` — the sentence (tokens and tags) occurs in train or dev (Eq. 3); ``length
  a–b`` — the sentence's number of tokens.

Scores are shares in [0, 1] (``stats`` reports model scores × 100). A sentence bucket's
F1 is seqeval's micro F1 on those sentences; the union of the two
buckets of a pair is the whole split, whose F1 is seqeval's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.model import Dataset, Split
from benchcheck.metrics.reliability import leaked_instances
from benchcheck.metrics.table import BY_NAME

LENGTH_BINS: tuple[tuple[int, int | None], ...] = ((1, 10), (11, 20), (21, 40), (41, None))


def _prf(n_correct_pred: int, n_pred: int, n_correct_gold: int, n_gold: int) -> dict[str, Any]:
    if n_pred == 0 and n_gold == 0:
        return {"f1": None, "precision": None, "recall": None, "n_gold": 0, "n_pred": 0}
    p = n_correct_pred / n_pred if n_pred else 0.0
    r = n_correct_gold / n_gold if n_gold else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"f1": f1, "precision": p, "recall": r, "n_gold": n_gold, "n_pred": n_pred}


def _tokens_and_tags(split: Split) -> tuple[list[list[str]], list[list[str]]]:
    if split.tokens is None:
        raise ValueError(f"split {split.name!r} was read without its token table")
    grouped = split.tokens.group_by("sentence", maintain_order=True).agg("token", "tag")
    return grouped.get_column("token").to_list(), grouped.get_column("tag").to_list()


def entity_sets(tags: list[list[str]]) -> list[set[tuple[str, int, int]]]:
    """Entities of each sentence as seqeval reads them: (type, start, end inclusive)."""
    from seqeval.metrics.sequence_labeling import get_entities

    return [set(get_entities(seq)) for seq in tags]


def bucket_scores(
    dataset: Dataset, predicted: Split, *, split: str = "test"
) -> dict[str, dict[str, Any]]:
    """F1, precision, recall and counts of ``predicted`` against ``split`` per bucket.

    ``predicted`` must hold the same sentences and tokens as the gold split (checked by
    :func:`benchcheck.metrics.predictions.seqeval_f1`'s rule).
    """
    from benchcheck.metrics.predictions import seqeval_f1

    gold = dataset[split]
    total = seqeval_f1(gold, predicted)  # validates alignment
    tokens, gold_tags = _tokens_and_tags(gold)
    _, pred_tags = _tokens_and_tags(predicted)
    g_ents, p_ents = entity_sets(gold_tags), entity_sets(pred_tags)

    train_surfaces: set[str] = set()
    if "train" in dataset and dataset["train"].spans is not None:
        train_surfaces = set(dataset["train"].spans.get_column("surface").to_list())  # type: ignore[union-attr]
    all_spans = pl.concat(
        [
            s.spans.select("surface", pl.col("type").cast(pl.String))
            for s in dataset
            if s.spans is not None
        ]
    )
    amb = all_spans.unique().group_by("surface").len().filter(pl.col("len") > 1)
    ambiguous = set(amb.get_column("surface").to_list())

    # The leaked bucket holds the instances the leakage ratio counts (its references).
    refs = BY_NAME["leakage_ratio"].references_in(dataset, split)
    leaked = leaked_instances(gold, refs) if refs else np.zeros(gold.n, dtype=bool)
    lengths = np.array([len(t) for t in tokens])

    def surface(i: int, e: tuple[str, int, int]) -> str:
        return " ".join(tokens[i][e[1] : e[2] + 1])

    def entity_bucket(pred_in: Any) -> dict[str, Any]:
        cp = n_p = cg = n_g = 0
        for i, (g, p) in enumerate(zip(g_ents, p_ents, strict=True)):
            for e in g:
                if pred_in(surface(i, e)):
                    n_g += 1
                    cg += e in p
            for e in p:
                if pred_in(surface(i, e)):
                    n_p += 1
                    cp += e in g
        return _prf(cp, n_p, cg, n_g)

    def sentence_bucket(mask: np.ndarray) -> dict[str, Any]:
        cp = n_p = n_g = 0
        for keep, g, p in zip(mask.tolist(), g_ents, p_ents, strict=True):
            if keep:
                n_g += len(g)
                n_p += len(p)
                cp += len(g & p)
        out = _prf(cp, n_p, cp, n_g)
        out["n_sentences"] = int(mask.sum())
        return out

    out: dict[str, dict[str, Any]] = {
        "all": {**sentence_bucket(np.ones(gold.n, dtype=bool)), "seqeval_f1": total},
        "seen": entity_bucket(lambda s: s in train_surfaces),
        "unseen": entity_bucket(lambda s: s not in train_surfaces),
        "ambiguous": entity_bucket(lambda s: s in ambiguous),
        "unambiguous": entity_bucket(lambda s: s not in ambiguous),
        "leaked": sentence_bucket(leaked),
        "clean": sentence_bucket(~leaked),
    }
    for lo, hi in LENGTH_BINS:
        mask = (lengths >= lo) & (lengths <= (hi if hi is not None else np.inf))
        out[f"length {lo}-{hi if hi is not None else ''}"] = sentence_bucket(mask)
    return out


def bucket_predictions(
    dataset: Dataset, predicted: Mapping[str, Split], *, split: str = "test"
) -> dict[str, dict[str, dict[str, Any]]]:
    """Per model's predicted split, :func:`bucket_scores` on ``split``."""
    return {name: bucket_scores(dataset, pred, split=split) for name, pred in predicted.items()}
