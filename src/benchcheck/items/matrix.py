"""The score matrix of a benchmark: items × models, built from predictions or given whole.

A benchmark is an exam whose examinees are models (methods.md section 4): cell ``(i, j)``
is 1 when model ``j`` answered item ``i`` correctly, 0 when not, or a partial credit in
[0, 1]. Pure: objects in, a frozen :class:`ItemMatrix` out; files are read in
:mod:`benchcheck.io.items`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from benchcheck.errors import InputError, UsageError

__all__ = ["ItemMatrix", "item_matrix", "matrix_from_predictions"]


@dataclass(frozen=True, eq=False)
class ItemMatrix:
    """Scores of ``models`` (columns) on ``item_ids`` (rows), with what was left out.

    ``scores`` is a read-only float array of shape ``(len(item_ids), len(models))``.
    ``labels`` (the item's label) and ``predictions`` (each model's answer, by model) are
    kept when the matrix was built from predictions, for the review export. ``dropped``
    counts, per model, the items it was scored on that the matrix leaves out (the
    intersection rule); ``notes`` says what the reader did.
    """

    item_ids: tuple[str, ...]
    models: tuple[str, ...]
    scores: np.ndarray
    labels: tuple[str, ...] | None = None
    predictions: Mapping[str, tuple[str, ...]] | None = None
    dropped: Mapping[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def n_items(self) -> int:
        """Number of items (rows)."""
        return len(self.item_ids)

    @property
    def n_models(self) -> int:
        """Number of models (columns)."""
        return len(self.models)


def item_matrix(
    item_ids: Sequence[str],
    models: Sequence[str],
    scores: np.ndarray | Sequence[Sequence[float]],
    *,
    labels: Sequence[str] | None = None,
    predictions: Mapping[str, Sequence[str]] | None = None,
    dropped: Mapping[str, int] | None = None,
    notes: Sequence[str] = (),
    source: str | None = None,
) -> ItemMatrix:
    """Validate and freeze a score matrix.

    Refuses (``InputError`` naming ``source``): fewer than two models (no item statistic is
    defined over one examinee), no item, duplicate item ids or model names, a shape that
    does not match, scores outside [0, 1] or missing.

    >>> m = item_matrix(["q1", "q2"], ["A", "B"], [[1, 0], [1, 1]])
    >>> m.n_items, m.n_models, m.scores.tolist()
    (2, 2, [[1.0, 0.0], [1.0, 1.0]])
    """
    ids = tuple(str(i) for i in item_ids)
    names = tuple(str(n) for n in models)
    arr = np.array(scores, dtype=float)
    if len(names) < 2:
        raise InputError(
            f"item analysis needs at least two models (examinees); got {len(names)}",
            path=source,
            got=list(names) or None,
        )
    if not ids:
        raise InputError("no item to analyse", path=source)
    for what, seq in (("item id", ids), ("model name", names)):
        seen: set[str] = set()
        for v in seq:
            if v in seen:
                raise InputError(f"{what} given twice", path=source, got=v)
            seen.add(v)
    if arr.shape != (len(ids), len(names)):
        raise InputError(
            f"scores have shape {arr.shape}; expected ({len(ids)} items, {len(names)} models)",
            path=source,
        )
    if np.isnan(arr).any():
        i, j = map(int, np.argwhere(np.isnan(arr))[0])
        raise InputError(f"missing score of model {names[j]!r} on item {ids[i]!r}", path=source)
    bad = (arr < 0) | (arr > 1)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise InputError(
            f"score of model {names[j]!r} on item {ids[i]!r} must be in [0, 1] "
            "(1 correct, 0 wrong, or a partial credit)",
            path=source,
            got=float(arr[i, j]),
        )
    arr.setflags(write=False)
    preds = None
    if predictions is not None:
        preds = {n: tuple(str(v) for v in predictions[n]) for n in names}
    return ItemMatrix(
        ids,
        names,
        arr,
        None if labels is None else tuple(str(v) for v in labels),
        preds,
        dict(dropped or {}),
        tuple(notes),
    )


def matrix_from_predictions(
    item_ids: Sequence[str],
    labels: Sequence[str],
    predictions: Mapping[str, Mapping[str, str]],
    *,
    intersect: bool = False,
    source: str | None = None,
) -> ItemMatrix:
    """Score each model's predicted label against the item's label: 1 if equal, else 0.

    ``predictions`` maps a model to ``{item id: predicted label}``. Models scored on
    different item sets are refused with the counts, or with ``intersect`` the matrix keeps
    the items every model answered and :attr:`ItemMatrix.dropped` says how many each model
    lost (ids a model answered that are not in the data count there too).

    >>> m = matrix_from_predictions(["a", "b"], ["1", "0"], {"A": {"a": "1", "b": "1"},
    ...                              "B": {"a": "0", "b": "0"}})
    >>> m.scores.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    ids = [str(i) for i in item_ids]
    if len(ids) != len(labels):
        raise ValueError(f"{len(ids)} item ids but {len(labels)} labels")
    in_data = set(ids)
    missing = {n: [i for i in ids if i not in p] for n, p in predictions.items()}
    extra = {n: sum(1 for i in p if i not in in_data) for n, p in predictions.items()}
    keep = ids
    dropped: dict[str, int] = {}
    notes: list[str] = []
    if any(missing.values()):
        if not intersect:
            short = {n: m for n, m in missing.items() if m}
            counts = ", ".join(f"{n}: {len(ids) - len(m)} of {len(ids)}" for n, m in short.items())
            if len(short) < len(missing):
                counts += f"; the other {len(missing) - len(short)} model(s): all {len(ids)}"
            first = next((n, m[0]) for n, m in missing.items() if m)
            raise UsageError(
                f"the models were scored on different items ({counts} items answered); "
                f"model {first[0]!r} has no prediction for item {first[1]!r}. Give every "
                "model's predictions on every item, or set {intersect} to analyse the "
                "items all models answered"
            )
        lost = set().union(*(set(m) for m in missing.values()))
        keep = [i for i in ids if i not in lost]
        if not keep:
            raise UsageError("the models share no item: the intersection is empty")
        notes.append(
            f"{len(ids) - len(keep)} of {len(ids)} items left out: not every model answered "
            "them (the intersection is analysed)"
        )
    for n, p in predictions.items():
        answered = sum(1 for i in p if i in in_data)
        dropped[n] = answered - len(keep) + extra[n]
    label_of = dict(zip(ids, (str(v) for v in labels), strict=True))
    names = list(predictions)
    scores = np.array(
        [[1.0 if str(predictions[n][i]) == label_of[i] else 0.0 for n in names] for i in keep]
    ).reshape(len(keep), len(names))
    return item_matrix(
        keep,
        names,
        scores,
        labels=[label_of[i] for i in keep],
        predictions={n: [str(predictions[n][i]) for i in keep] for n in names},
        dropped=dropped,
        notes=notes,
        source=source,
    )
