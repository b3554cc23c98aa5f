"""Selection for a metric that is a share of flagged entity surfaces (:class:`SurfaceShare`).

Ratios over the subset's *distinct* surfaces. Entity-free sentences keep their share of the
source split; the others are added greedily, each step taking, among the next sentence of
three seeded queues (only flagged surfaces, only unflagged, mixed), the one that brings the
exact ratio closest to the target; then random swaps of a chosen and an unchosen sentence
are kept while they bring it closer still.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from benchcheck.data.model import Split
from benchcheck.errors import UsageError
from benchcheck.metrics.adjust.subsets import draw


def select_surfaces(
    split: Split,
    flagged: set[int],
    target: float,
    size: int,
    bins: np.ndarray,
    share: np.ndarray,
    rng: np.random.Generator,
    info: dict[str, int] | None = None,
) -> np.ndarray:
    """Rows whose share of flagged distinct surfaces is as close to ``target`` as found.

    ``info`` (optional) receives the sizes of the three queues and the entity-free count,
    for the refusal message.
    """
    spans = split.spans
    if spans is None:
        raise UsageError(f"split {split.name!r} has no entity spans (not an NER split)")
    per = (
        spans.select("sentence", "surface_hash")
        .unique()
        .group_by("sentence")
        .agg(pl.col("surface_hash"))
        .sort("sentence")
    )
    surf_of = dict(zip(per["sentence"].to_list(), per["surface_hash"].to_list(), strict=True))
    null = np.array([i for i in range(split.n) if i not in surf_of], dtype=np.int64)
    null_share = null.size / split.n if split.n else 0.0
    n_null = min(int(round(null_share * size)), null.size)
    need = size - n_null
    if need > len(surf_of):
        raise UsageError(
            f"size {size} needs {need} sentences with entities; the split has {len(surf_of)}"
        )
    queues: dict[str, list[int]] = {"pos": [], "neg": [], "mix": []}
    for s in rng.permutation(np.fromiter(surf_of, dtype=np.int64)).tolist():
        f = [h in flagged for h in surf_of[s]]
        queues["pos" if all(f) else "neg" if not any(f) else "mix"].append(s)
    if info is not None:
        info.update({k: len(v) for k, v in queues.items()}, null=int(null.size))
    heads = {k: 0 for k in queues}
    seen: dict[int, bool] = {}
    n_flag = 0
    chosen: list[int] = []
    for _ in range(need):
        best, best_err = None, None
        for key, q in queues.items():
            if heads[key] >= len(q):
                continue
            s = q[heads[key]]
            new = [h for h in set(surf_of[s]) if h not in seen]
            total = len(seen) + len(new)
            ratio = (n_flag + sum(h in flagged for h in new)) / total if total else target
            err = abs(ratio - target)
            if best_err is None or err < best_err - 1e-12:
                best, best_err = key, err
        assert best is not None
        s = queues[best][heads[best]]
        heads[best] += 1
        chosen.append(s)
        for h in set(surf_of[s]):
            if h not in seen:
                seen[h] = True
                n_flag += h in flagged
    chosen = improve_by_swaps(chosen, surf_of, flagged, target, rng)
    picked_null = draw(null, n_null, bins, share, rng) if n_null else np.zeros(0, np.int64)
    return np.sort(np.concatenate([np.asarray(chosen, dtype=np.int64), picked_null]))


def improve_by_swaps(
    chosen: list[int],
    surf_of: dict[int, list[int]],
    flagged: set[int],
    target: float,
    rng: np.random.Generator,
    budget: int = 20_000,
) -> list[int]:
    """Swap chosen and unchosen entity sentences at random while it brings the ratio closer."""
    chosen = list(chosen)
    inside = set(chosen)
    outside = [s for s in surf_of if s not in inside]
    if not chosen or not outside:
        return chosen
    sets = {s: set(surf_of[s]) for s in surf_of}
    cnt: dict[int, int] = {}
    for s in chosen:
        for h in sets[s]:
            cnt[h] = cnt.get(h, 0) + 1
    total = len(cnt)
    n_flag = sum(h in flagged for h in cnt)
    err = abs(n_flag / total - target) if total else 1.0
    picks_i = rng.integers(0, len(chosen), size=budget)
    picks_j = rng.integers(0, len(outside), size=budget)
    for i, j in zip(picks_i.tolist(), picks_j.tolist(), strict=True):
        if err < 1e-12:
            break
        rem, add = sets[chosen[i]], sets[outside[j]]
        lost = [h for h in rem if cnt[h] == 1 and h not in add]
        gained = [h for h in add if cnt.get(h, 0) == 0]
        new_total = total - len(lost) + len(gained)
        if new_total == 0:
            continue
        new_flag = n_flag - sum(h in flagged for h in lost) + sum(h in flagged for h in gained)
        new_err = abs(new_flag / new_total - target)
        if new_err < err - 1e-12:
            for h in rem:
                cnt[h] -= 1
                if cnt[h] == 0:
                    del cnt[h]
            for h in add:
                cnt[h] = cnt.get(h, 0) + 1
            chosen[i], outside[j] = outside[j], chosen[i]
            total, n_flag, err = new_total, new_flag, new_err
    return chosen
