"""Controlled dataset adjustment (Statistical dataset evaluation, Sec. 6.4).

From one split, build subsets of one size whose value of one metric is set to a target (the
paper: test sets with 80% vs 20% unseen entities, ambiguous entities or leaked instances;
train/dev sets with Entity-Null Rate 0.8, 0.2, 0.0), report the achieved value beside the
target, and say how far the selection moved the rest of the distribution.

Supported metrics and how the subset is chosen (``rng`` seeded; same input, same output):

- ``leakage_ratio`` (any task; the split against train and dev, Eq. 3) and
  ``entity_null_rate`` (NER, Eq. 9): the metric is a mean of a per-instance indicator, so the
  subset takes round(target · size) instances with the indicator and the rest without it;
  the achieved value is within 1/(2·size) of the target.
- ``unseen_entity_ratio`` (NER, Eq. 4 against train) and ``ambiguous_entity_share`` (NER:
  share of the subset's distinct entity surfaces labelled with two or more types anywhere in
  the dataset): ratios over the subset's *distinct* surfaces. Entity-free sentences keep
  their share of the source split; the others are added greedily, each step taking, among
  the next sentence of three seeded queues (only flagged surfaces, only unflagged, mixed),
  the one that brings the exact ratio closest to the target; then random swaps of a chosen
  and an unchosen sentence are kept while they bring it closer still.
- ``label_imbalance_degree`` (classification, pair; std of label shares, Eq. 8's analogue):
  label counts from the family p_l ∝ c_l**t (t = 0 uniform, 1 the source distribution,
  larger more skewed; c_l the source counts) with t found by bisection, capped by the
  instances available per label.

Inside each group the instances are drawn stratified by length quartile of the source, so
lengths move as little as the constraint allows. The result reports, per subset, the mean
length and the Kolmogorov–Smirnov statistic against the source, and the total variation
distance of entity types (NER) or labels (text tasks). A target is refused, with the
reason, when the split cannot reach it within ``tolerance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.model import Dataset, Split
from benchcheck.errors import UsageError
from benchcheck.metrics._common import occurs_in, reference_splits

ADJUSTABLE: dict[str, tuple[str, ...]] = {
    "unseen_entity_ratio": ("ner",),
    "ambiguous_entity_share": ("ner",),
    "leakage_ratio": ("ner", "classification", "pair"),
    "entity_null_rate": ("ner",),
    "label_imbalance_degree": ("classification", "pair"),
}


@dataclass(frozen=True)
class Subset:
    """One adjusted subset: the chosen rows (0-based, ascending) and how it came out."""

    target: float
    achieved: float
    rows: tuple[int, ...]
    shift: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object (without the row list)."""
        return {
            "target": self.target,
            "achieved": self.achieved,
            "difference": self.achieved - self.target,
            "n": len(self.rows),
            "shift": dict(self.shift),
        }


@dataclass(frozen=True)
class Adjustment:
    """The result of :func:`adjust`: one subset per target, all of one size."""

    metric: str
    split: str
    size: int
    seed: int
    source_value: float | None
    subsets: tuple[Subset, ...]
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON object (``schema_version`` is added by the writer)."""
        return {
            "metric": self.metric,
            "split": self.split,
            "size": self.size,
            "seed": self.seed,
            "source_value": self.source_value,
            "subsets": [s.to_json() for s in self.subsets],
            "notes": list(self.notes),
        }


# --------------------------------------------------------------------------- subsets


def subset_split(split: Split, rows: Sequence[int] | np.ndarray) -> Split:
    """Restrict the split to ``rows`` (ascending), with NER sentence ids renumbered."""
    rows = np.asarray(sorted(rows), dtype=np.int64)
    table = split.table[rows]
    tokens, spans = split.tokens, split.spans
    if "sentence" in table.columns:
        remap = np.full(split.n, -1, dtype=np.int64)
        remap[rows] = np.arange(rows.size)
        table = table.with_columns(pl.Series("sentence", np.arange(rows.size, dtype=np.uint32)))

        def _re(frame: pl.DataFrame | None) -> pl.DataFrame | None:
            if frame is None:
                return None
            new = remap[frame.get_column("sentence").to_numpy().astype(np.int64)]
            return (
                frame.with_columns(pl.Series("sentence", new))
                .filter(pl.col("sentence") >= 0)
                .with_columns(pl.col("sentence").cast(pl.UInt32))
            )

        tokens, spans = _re(tokens), _re(spans)
    return Split(
        name=split.name,
        source=split.source,
        table=table,
        tokens=tokens,
        spans=spans,
        scheme=split.scheme,
        tag_repairs=split.tag_repairs,
    )


def _with_split(dataset: Dataset, split: Split) -> Dataset:
    splits = dict(dataset.splits)
    splits[split.name] = split
    return Dataset(
        task=dataset.task,
        splits=splits,
        name=dataset.name,
        label_names=dataset.label_names,
        meta=dataset.meta,
    )


def _lengths(split: Split) -> np.ndarray:
    t = split.table
    if "n_tokens" in t.columns:
        return t.get_column("n_tokens").to_numpy().astype(np.int64)
    return (t.get_column("n_tokens_a") + t.get_column("n_tokens_b")).to_numpy().astype(np.int64)


def _bins(lengths: np.ndarray) -> np.ndarray:
    """Length quartile (0..3) of each instance, cut at the source's quartiles."""
    if lengths.size == 0:
        return lengths
    edges = np.unique(np.quantile(lengths, [0.25, 0.5, 0.75]))
    return np.searchsorted(edges, lengths, side="right")


def _draw(pool: np.ndarray, k: int, bins: np.ndarray, share: np.ndarray, rng) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Draw k rows from ``pool``, by length bin in the proportions ``share``, then at random."""
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k >= pool.size:
        return np.sort(pool)
    pool = rng.permutation(pool)
    chosen: list[np.ndarray] = []
    want = np.floor(share * k).astype(np.int64)
    taken = np.zeros(pool.size, dtype=bool)
    pb = bins[pool]
    for b, w in enumerate(want):
        idx = np.flatnonzero(pb == b)[:w]
        taken[idx] = True
        chosen.append(pool[idx])
    rest = k - int(taken.sum())
    if rest > 0:
        chosen.append(pool[~taken][:rest])
    return np.sort(np.concatenate(chosen))


# --------------------------------------------------------------------------- metrics on subsets


def _indicator(dataset: Dataset, split: str, metric: str) -> np.ndarray:
    s = dataset[split]
    if metric == "entity_null_rate":
        return (s.table.get_column("n_entities") == 0).to_numpy()
    refs = reference_splits(dataset, split)
    if not refs:
        raise UsageError(f"leakage_ratio needs a train or dev split besides {split!r}")
    return occurs_in(s, refs, "xy_hash")


def _spans_of(split: Split) -> pl.DataFrame:
    if split.spans is None:
        raise UsageError(f"split {split.name!r} has no entity spans (not an NER split)")
    return split.spans


def _flagged_surfaces(dataset: Dataset, split: str, metric: str) -> set[int]:
    if metric == "unseen_entity_ratio":
        if "train" not in dataset or split == "train":
            raise UsageError("unseen_entity_ratio needs a train split and another split to adjust")
        train = set(_spans_of(dataset["train"]).get_column("surface_hash").to_list())
        test = _spans_of(dataset[split]).get_column("surface_hash").to_list()
        return {h for h in test if h not in train}
    spans = pl.concat(
        [_spans_of(s).select("surface_hash", pl.col("type").cast(pl.String)) for s in dataset]
    )
    amb = spans.unique().group_by("surface_hash").len().filter(pl.col("len") > 1)
    return set(amb.get_column("surface_hash").to_list())


def measure(dataset: Dataset, split: str, metric: str, rows: Sequence[int]) -> float | None:
    """Compute the metric on the subset ``rows`` of ``split`` with the registered functions."""
    from benchcheck.metrics import reliability, text, validity
    from benchcheck.metrics.difficulty import unseen_entity_ratio

    sub = subset_split(dataset[split], rows)
    if metric == "entity_null_rate":
        return validity.entity_null_rate(sub)
    if metric == "label_imbalance_degree":
        return text.label_imbalance_degree(sub)
    if metric == "ambiguous_entity_share":
        flagged = _flagged_surfaces(dataset, split, metric)
        surfaces = set(sub.spans.get_column("surface_hash").to_list())  # type: ignore[union-attr]
        return len(surfaces & flagged) / len(surfaces) if surfaces else None
    if metric == "unseen_entity_ratio":
        tmp = Dataset(task="ner", splits={"train": dataset["train"], "test": sub})
        return unseen_entity_ratio(tmp)
    if metric == "leakage_ratio":
        refs = {r.name: r for r in reference_splits(dataset, split)}
        tmp = Dataset(task=dataset.task, splits={**refs, "test": replace(sub, name="test")})
        return reliability.leakage_ratio(tmp)
    raise UsageError(f"cannot adjust {metric!r}")


# --------------------------------------------------------------------------- selection


def _select_indicator(
    flag: np.ndarray,
    target: float,
    size: int,
    bins: np.ndarray,
    share: np.ndarray,
    rng,
    what: str,  # type: ignore[no-untyped-def]
) -> np.ndarray:
    k = int(round(target * size))
    pos, neg = np.flatnonzero(flag), np.flatnonzero(~flag)
    if k > pos.size or size - k > neg.size:
        hi = pos.size / size if size else 0.0
        lo = 1 - neg.size / size if size else 0.0
        raise UsageError(
            f"target {target} is out of reach at size {size}: it needs {k} {what} instances "
            f"and {size - k} others; the split has {pos.size} and {neg.size}, so at this size "
            f"the value can only lie in [{max(lo, 0.0):.4f}, {min(hi, 1.0):.4f}]"
        )
    return np.sort(
        np.concatenate([_draw(pos, k, bins, share, rng), _draw(neg, size - k, bins, share, rng)])
    )


def _select_surfaces(
    split: Split,
    flagged: set[int],
    target: float,
    size: int,
    bins: np.ndarray,
    share: np.ndarray,
    rng,  # type: ignore[no-untyped-def]
    info: dict[str, int] | None = None,
) -> np.ndarray:
    spans = split.spans
    assert spans is not None
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
    chosen = _improve_by_swaps(chosen, surf_of, flagged, target, rng)
    picked_null = _draw(null, n_null, bins, share, rng) if n_null else np.zeros(0, np.int64)
    return np.sort(np.concatenate([np.asarray(chosen, dtype=np.int64), picked_null]))


def _improve_by_swaps(
    chosen: list[int],
    surf_of: dict[int, list[int]],
    flagged: set[int],
    target: float,
    rng,  # type: ignore[no-untyped-def]
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


def _imbalance_counts(counts: np.ndarray, target: float, size: int) -> np.ndarray:
    def alloc(t: float) -> np.ndarray:
        w = counts.astype(np.float64) ** t
        n = np.zeros(counts.size)
        free = np.ones(counts.size, dtype=bool)
        left = float(size)
        for _ in range(counts.size):
            share = w * free / (w * free).sum()
            n = np.where(free, np.minimum(share * left + n, counts), n)
            capped = free & (n >= counts)
            left = size - n.sum()
            if not capped.any() or left <= 1e-9:
                break
            free &= ~capped
            if not free.any():
                break
        out = np.floor(n).astype(np.int64)
        frac = n - out
        for i in np.argsort(-frac)[: size - int(out.sum())]:
            if out[i] < counts[i]:
                out[i] += 1
        # Keep every label present (the metric runs over the labels that occur, so a label
        # dropped to zero would make the shares less, not more, imbalanced).
        for i in np.flatnonzero(out == 0):
            j = int(np.argmax(out))
            if out[j] > 1 and size >= counts.size:
                out[j] -= 1
                out[i] = 1
        return out

    def std(n: np.ndarray) -> float:
        n = n[n > 0]
        return float(np.std(n / n.sum(), ddof=0))

    lo, hi = 0.0, 60.0
    best = alloc(0.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        n = alloc(mid)
        if abs(std(n) - target) < abs(std(best) - target):
            best = n
        if std(n) < target:
            lo = mid
        else:
            hi = mid
    for t in (hi, 60.0):
        n = alloc(t)
        if abs(std(n) - target) < abs(std(best) - target):
            best = n
    return best


def _shift(dataset: Dataset, split: str, rows: np.ndarray) -> dict[str, Any]:
    from scipy.stats import ks_2samp

    src = dataset[split]
    lengths = _lengths(src)
    sub = lengths[rows]
    out: dict[str, Any] = {
        "length_mean_source": float(lengths.mean()),
        "length_mean_subset": float(sub.mean()) if sub.size else None,
        "length_ks": float(ks_2samp(lengths, sub).statistic) if sub.size else None,
    }
    if dataset.task == "ner" and src.spans is not None:
        types = src.spans.select("sentence", pl.col("type").cast(pl.String))
        chosen = types.filter(pl.col("sentence").is_in(pl.Series(rows, dtype=pl.UInt32).implode()))
        out["entity_type_tvd"] = _tvd(types.get_column("type"), chosen.get_column("type"))
        out["entity_null_rate_source"] = float((src.table["n_entities"] == 0).mean())  # type: ignore[arg-type]
        out["entity_null_rate_subset"] = (
            float((src.table["n_entities"].to_numpy()[rows] == 0).mean()) if rows.size else None
        )
    elif "label" in src.table.columns:
        lab = src.table.get_column("label")
        out["label_tvd"] = _tvd(lab, lab.gather(rows))
    return out


def _tvd(source: pl.Series, subset: pl.Series) -> float:
    """Total variation distance between the value shares of two series (same name)."""
    key = source.name
    p = source.value_counts(normalize=True, name="p")
    q = subset.value_counts(normalize=True, name="q")
    both = p.join(q, on=key, how="full", coalesce=True).fill_null(0.0).sort(key)
    return 0.5 * float((both["p"] - both["q"]).abs().sum())


def _granularity(dataset: Dataset, split: str, metric: str, rows: np.ndarray) -> float:
    """Half the smallest step the metric can take on this subset (the reachable tolerance)."""
    if metric in ("leakage_ratio", "entity_null_rate"):
        return 0.5 / max(rows.size, 1)
    if metric in ("unseen_entity_ratio", "ambiguous_entity_share"):
        spans = dataset[split].spans
        assert spans is not None
        chosen = spans.filter(pl.col("sentence").is_in(pl.Series(rows, dtype=pl.UInt32).implode()))
        return 0.5 / max(chosen.get_column("surface_hash").n_unique(), 1)
    return 0.0


def default_size(dataset: Dataset, split: str, metric: str, targets: Sequence[float]) -> int:
    """Return the largest size reaching every target (indicator metrics), else n // 2."""
    n = dataset[split].n
    if metric in ("leakage_ratio", "entity_null_rate"):
        flag = _indicator(dataset, split, metric)
        pos, neg = int(flag.sum()), int((~flag).sum())
        size = n
        for t in targets:
            if t > 0:
                size = min(size, int(np.floor(pos / t + 1e-9)))
            if t < 1:
                size = min(size, int(np.floor(neg / (1 - t) + 1e-9)))
        return size
    return n // 2


def adjust(
    dataset: Dataset,
    *,
    split: str,
    metric: str,
    targets: Sequence[float],
    size: int | None = None,
    seed: int = 0,
    tolerance: float = 0.02,
) -> Adjustment:
    """Build one subset of ``split`` per target, all of ``size`` instances (see the module doc).

    Raises :class:`UsageError` naming the reason when a target is out of reach (its achieved
    value would differ from the target by more than ``tolerance``, or the split lacks the
    instances it needs). ``size`` defaults to the largest size reaching every target
    (indicator metrics) or half the split.
    """
    if metric not in ADJUSTABLE:
        raise UsageError(f"cannot adjust {metric!r}; expected one of {', '.join(ADJUSTABLE)}")
    if dataset.task not in ADJUSTABLE[metric]:
        raise UsageError(
            f"{metric} applies to {', '.join(ADJUSTABLE[metric])} datasets, not {dataset.task}"
        )
    if split not in dataset:
        raise UsageError(f"no split {split!r}; the dataset has {dataset.split_names}")
    if not targets:
        raise UsageError("give at least one --target")
    for t in targets:
        if not 0.0 <= t <= 1.0:
            raise UsageError(f"targets are shares in [0, 1], got {t}")
    src = dataset[split]
    if size is None:
        size = default_size(dataset, split, metric, targets)
    if size <= 0 or size > src.n:
        raise UsageError(
            f"size must be in 1..{src.n} (the {split} split's size), got {size}"
            + (" (no size reaches every target)" if size <= 0 else "")
        )
    rng = np.random.default_rng(seed)
    lengths = _lengths(src)
    bins = _bins(lengths)
    share = np.bincount(bins, minlength=4) / max(src.n, 1)
    subsets: list[Subset] = []
    notes: list[str] = []
    for t in targets:
        reason = ""
        if metric in ("leakage_ratio", "entity_null_rate"):
            flag = _indicator(dataset, split, metric)
            what = "leaked" if metric == "leakage_ratio" else "entity-free"
            rows = _select_indicator(flag, t, size, bins, share, rng, what)
        elif metric == "label_imbalance_degree":
            labels = src.table.get_column("label")
            names = sorted(set(labels.to_list()))
            codes = labels.cast(pl.Enum(names)).to_physical().to_numpy()
            counts = np.bincount(codes, minlength=len(names))
            want = _imbalance_counts(counts, t, size)
            rows = np.sort(
                np.concatenate(
                    [
                        _draw(np.flatnonzero(codes == k), int(w), bins, share, rng)
                        for k, w in enumerate(want)
                    ]
                )
            )
        else:
            flagged = _flagged_surfaces(dataset, split, metric)
            info: dict[str, int] = {}
            rows = _select_surfaces(src, flagged, t, size, bins, share, rng, info)
            what = "unseen" if metric == "unseen_entity_ratio" else "ambiguous"
            reason = (
                f" (the split has {info['pos']} sentences whose entities are all {what}, "
                f"{info['neg']} with none {what}, {info['mix']} mixed and {info['null']} "
                "without entities)"
            )
        achieved = measure(dataset, split, metric, rows.tolist())
        if achieved is None:
            raise UsageError(f"{metric} is not defined on the subset (no entity in it)")
        allowed = max(tolerance, _granularity(dataset, split, metric, rows))
        if abs(achieved - t) > allowed + 1e-12:
            raise UsageError(
                f"target {t} for {metric} is out of reach at size {size}: the closest subset "
                f"found reaches {achieved:.4f} (tolerance {allowed:.4f}){reason}; try a smaller "
                "--size or a target nearer the split's own value"
            )
        subsets.append(
            Subset(
                target=t,
                achieved=achieved,
                rows=tuple(rows.tolist()),
                shift=_shift(dataset, split, rows),
            )
        )
    source_value = measure(dataset, split, metric, list(range(src.n)))
    return Adjustment(
        metric=metric,
        split=split,
        size=size,
        seed=seed,
        source_value=source_value,
        subsets=tuple(subsets),
        notes=tuple(notes),
    )
