"""Model predictions on a diagnostic suite: one label per example id (or row)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchcheck.errors import InputError
from benchcheck.io.diagnostic._rows import (
    _ID_KEYS,
    _PRED_KEYS,
    _cell,
    _LabelConverter,
    _pick,
    _records,
)


@dataclass(frozen=True)
class Predictions:
    """One model's predicted label per example id, as read from a file."""

    labels: Mapping[str, str]
    source: str
    keyed_by: str  # "id" or "row order"
    notes: tuple[str, ...] = field(default_factory=tuple)


def read_predictions(
    path: str | Path,
    *,
    ids: Sequence[str],
    label_names: Sequence[str],
    label_map: Mapping[str, str] | None = None,
    column: str | None = None,
    id_column: str | None = None,
) -> Predictions:
    """Read predictions (TSV, CSV or JSONL) for the examples ``ids`` of a suite.

    Keyed by an id column (``id``, ``index``, ``idx``, ``example_id``) when the file has one,
    else by row order, in which case the row count must equal ``len(ids)``. The label column
    is ``column`` or the first of ``prediction``, ``predicted``, ``pred``, ``label``,
    ``predicted_label``, ``output`` (else the only non-id column). Labels may be names or
    indices: ``label_map`` maps raw values (``{"0": "entailment"}``); without it an integer
    ``i`` that is not a label name means ``label_names[i]`` (the GLUE/MNLI order for NLI).
    Every error names the file and line.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    columns, records = _records(path)
    id_col = _pick(columns, id_column, _ID_KEYS, "id", path)
    pred_col = _pick(columns, column, _PRED_KEYS, "prediction", path)
    if pred_col is None:
        rest = [c for c in columns if c != id_col]
        if len(rest) != 1:
            raise InputError(
                f"cannot tell which column holds the predictions; name it ({{label_column}}); "
                f"the file has {columns}",
                path=path,
            )
        pred_col = rest[0]
    convert = _LabelConverter(path, label_names, label_map, pred_col)

    labels: dict[str, str] = {}
    if id_col is None:
        if len(records) != len(ids):
            raise InputError(
                f"predictions have no id column, so rows are matched by order; expected "
                f"{len(ids)} rows (one per suite example), found {len(records)}",
                path=path,
            )
        for ex_id, (line, rec) in zip(ids, records, strict=True):
            labels[ex_id] = convert(rec.get(pred_col), line)
        keyed = "row order"
    else:
        wanted = set(ids)
        for line, rec in records:
            cell = _cell(rec.get(id_col))
            if cell is None:
                raise InputError(f"empty id in column {id_col!r}", path=path, line=line)
            ex_id = cell
            if ex_id.endswith(".0") and ex_id[:-2].isdigit():  # ints written as floats
                ex_id = ex_id[:-2]
            if ex_id not in wanted:
                raise InputError("id not in the suite", path=path, line=line, got=ex_id)
            if ex_id in labels:
                raise InputError("id predicted twice", path=path, line=line, got=ex_id)
            labels[ex_id] = convert(rec.get(pred_col), line)
        missing = [i for i in ids if i not in labels]
        if missing:
            raise InputError(
                f"{len(missing)} suite example(s) have no prediction, e.g. {missing[:3]}",
                path=path,
            )
        keyed = "id"
    notes = []
    if convert.used_index:
        notes.append(f"integer predictions read as indices into {list(label_names)}")
    return Predictions(
        labels={i: labels[i] for i in ids}, source=str(path), keyed_by=keyed, notes=tuple(notes)
    )


def read_model_predictions(
    files: Mapping[str, str | Path],
    *,
    ids: Sequence[str],
    label_names: Sequence[str],
    label_map: Mapping[str, str] | None = None,
    column: str | None = None,
) -> tuple[dict[str, dict[str, str]], dict[str, list[str]]]:
    """Read every model's file (``{model: path}``) with :func:`read_predictions`.

    Returns ``({model: {example id: label}}, {model: notes})``; the notes say how rows were
    matched, then :attr:`Predictions.notes`.
    """
    preds: dict[str, dict[str, str]] = {}
    notes: dict[str, list[str]] = {}
    for name, path in files.items():
        read = read_predictions(
            path, ids=ids, label_names=label_names, label_map=label_map, column=column
        )
        preds[name] = dict(read.labels)
        notes[name] = [f"matched by {read.keyed_by}", *read.notes]
    return preds, notes
