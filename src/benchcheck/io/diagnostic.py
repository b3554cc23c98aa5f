"""Readers for phenomenon-tagged diagnostic suites and for model predictions on them.

Two suite formats, both read into a ``pair`` :class:`~benchcheck.data.Dataset` with one split,
``diagnostic``, one row per *direction* (methods.md section 3):

- **GLUE diagnostic TSV** (``diagnostic-full.tsv``): columns ``Lexical Semantics``,
  ``Predicate-Argument Structure``, ``Logic``, ``Knowledge``, ``Domain``, ``Premise``,
  ``Hypothesis``, ``Label``; fine tags ``;``-separated inside each coarse column; one row per
  direction. Rows are paired by swapping premise and hypothesis: the first row of a pair is
  ``forward``, its swap ``backward``; a row without a swapped partner has no direction.
  Any other column than ``id``/``index``, ``Domain``, ``Premise``, ``Hypothesis`` and
  ``Label`` is read as a coarse category, so other domains' suites fit the same form.
  Example ids are the 0-based row numbers (GLUE's ``index``) unless an ``id``/``index``
  column exists.
- **JSONL**: ``{"id", "sentence1", "sentence2", "forward", "backward", "tags": [...],
  "domain"}``, expanded to two examples with ids ``<id>:forward`` (sentence 1 is the
  premise) and ``<id>:backward``; a ``null`` backward label leaves only the forward example.

The split's table has the columns ``id``, ``pair_id``, ``direction`` (``forward``,
``backward`` or null), ``text_a`` (premise), ``text_b`` (hypothesis), ``label``, ``tags``
(fine tags as written), ``tag_coarse`` (the coarse column each tag came from, null in
JSONL), ``source`` (the pair's sentence 1), ``domain`` and ``line``. Tags are resolved
against a taxonomy later, in :mod:`benchcheck.diagnostics`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from benchcheck.data import Dataset, Split
from benchcheck.data.model import SPLIT_ALIASES
from benchcheck.errors import InputError, UsageError

__all__ = [
    "NLI_LABELS",
    "Predictions",
    "find_pair_splits",
    "read_diagnostic",
    "read_diagnostic_jsonl",
    "read_glue_diagnostic_tsv",
    "looks_like_suite",
    "read_annotations",
    "read_pairs",
    "read_model_predictions",
    "read_predictions",
    "suite_label_names",
]

#: Label order of the three-way NLI task (also the index order of GLUE/MNLI models).
NLI_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")

_META = {"id", "index", "domain", "premise", "hypothesis", "label", "sentence1", "sentence2"}
_EMPTY = {"", "nan", "none", "null"}
_SCHEMA: dict[str, Any] = {
    "id": pl.String,
    "pair_id": pl.String,
    "direction": pl.String,
    "text_a": pl.String,
    "text_b": pl.String,
    "label": pl.String,
    "tags": pl.List(pl.String),
    "tag_coarse": pl.List(pl.String),
    "source": pl.String,
    "domain": pl.String,
    "line": pl.Int64,
}


def _read_delimited(path: Path, sep: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and ``(line number, cells)`` rows; TSV is read without quoting."""
    from benchcheck.io._text import decode_utf8

    text = decode_utf8(path.read_bytes(), path)
    # Lines end at \n, \r or \r\n only, as the csv module asks (newline=""):
    # str.splitlines() also broke a cell at U+2028, U+0085 or a form feed.
    lines = io.StringIO(text, newline="")
    if sep == "\t":
        reader = csv.reader(lines, delimiter=sep, quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(lines, delimiter=sep, quoting=csv.QUOTE_MINIMAL)
    rows: list[tuple[int, list[str]]] = []
    header: list[str] | None = None
    try:
        for cells in reader:
            if not cells or all(not c.strip() for c in cells):
                continue
            if header is None:
                header = [c.strip() for c in cells]
                continue
            rows.append((reader.line_num, cells))
    except csv.Error as exc:
        raise InputError(
            f"cannot read as delimited text: {exc}", path=path, line=reader.line_num
        ) from None
    if header is None:
        raise InputError("empty file: expected a header row", path=path)
    return header, rows


def _read_jsonl_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line, by the one JSONL line rule."""
    from benchcheck.io._text import decode_utf8
    from benchcheck.io.tables import json_lines

    text = decode_utf8(path.read_bytes(), path)
    out = []
    for number, obj in json_lines(text, path):
        if not isinstance(obj, dict):
            raise InputError("expected one JSON object per line", path=path, line=number)
        out.append((number, obj))
    if not out:
        raise InputError("empty file: expected one JSON object per line", path=path)
    return out


def _cell(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return None if text.casefold() in _EMPTY else text


def _split_tags(value: object) -> list[str]:
    text = _cell(value)
    if text is None:
        return []
    return [t.strip() for t in text.split(";") if t.strip()]


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=_SCHEMA)


def _check_labels(rows: list[dict[str, Any]], path: Path) -> None:
    """Refuse a suite that mixes NLI labels with others (a typo such as ``entailmnet``).

    A suite whose labels are all NLI labels is an NLI suite; one with none of them is a
    suite of another task (``safe``/``unsafe``); a mix is an error naming the first line
    whose label is not one of the three.
    """
    labels = {r["label"] for r in rows}
    if not labels & set(NLI_LABELS) or labels <= set(NLI_LABELS):
        return
    bad = next(r for r in rows if r["label"] not in NLI_LABELS)
    raise InputError(
        f"label is not one of the NLI labels {', '.join(NLI_LABELS)}, which the suite's other "
        "labels are",
        path=path,
        line=bad["line"],
        got=bad["label"],
    )


def _dataset(rows: list[dict[str, Any]], path: Path, fmt: str) -> Dataset:
    _check_labels(rows, path)
    table = _frame(rows)
    split = Split(name="diagnostic", source=str(path), table=table)
    return Dataset(
        task="pair",
        splits={"diagnostic": split},
        name=path.stem,
        label_names=suite_label_names(table["label"].to_list()),
        meta={"format": fmt},
    )


def suite_label_names(labels: Sequence[str | None]) -> tuple[str, ...]:
    """Label order of a suite: the NLI order when every label is an NLI label, else sorted.

    >>> suite_label_names(["neutral", "entailment"])
    ('entailment', 'neutral', 'contradiction')
    >>> suite_label_names(["unsafe", "safe"])
    ('safe', 'unsafe')
    """
    seen = {lab for lab in labels if lab is not None}
    if seen <= set(NLI_LABELS):
        return NLI_LABELS
    return tuple(sorted(seen))


def _norm_label(value: str) -> str:
    text = value.strip()
    return text.casefold() if text.casefold() in NLI_LABELS else text


def read_glue_diagnostic_tsv(path: str | Path) -> Dataset:
    """Read the GLUE diagnostic TSV (one row per direction; see the module docstring)."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    header, rows = _read_delimited(path, "\t")
    lower = [h.casefold() for h in header]
    for need in ("premise", "hypothesis", "label"):
        if need not in lower:
            raise InputError(
                f"no column {need.capitalize()!r}; the GLUE diagnostic TSV has Premise, "
                f"Hypothesis, Label and one column per coarse category; the file has {header}",
                path=path,
                line=1,
            )
    col = {name: lower.index(name) for name in _META if name in lower}
    coarse_cols = [(i, h) for i, h in enumerate(header) if h.casefold() not in _META and h]
    id_col = col.get("id", col.get("index"))
    out: list[dict[str, Any]] = []
    waiting: dict[tuple[str, str], list[int]] = {}
    seen_ids: set[str] = set()
    for number, (line, cells) in enumerate(rows):
        if len(cells) < len(header):
            cells = cells + [""] * (len(header) - len(cells))
        if len(cells) > len(header):
            raise InputError(
                f"expected {len(header)} tab-separated columns, found {len(cells)}",
                path=path,
                line=line,
            )
        premise = _cell(cells[col["premise"]])
        hypothesis = _cell(cells[col["hypothesis"]])
        label = _cell(cells[col["label"]])
        if premise is None or hypothesis is None:
            raise InputError("empty Premise or Hypothesis", path=path, line=line)
        if label is None:
            raise InputError(
                "empty Label: a diagnostic suite needs gold labels", path=path, line=line
            )
        ex_id = str(number) if id_col is None else (_cell(cells[id_col]) or str(number))
        if ex_id in seen_ids:
            raise InputError("ids must be unique", path=path, line=line, got=ex_id)
        seen_ids.add(ex_id)
        tags: list[str] = []
        coarse: list[str] = []
        for i, name in coarse_cols:
            for tag in _split_tags(cells[i]):
                tags.append(tag)
                coarse.append(name)
        row = {
            "id": ex_id,
            "pair_id": ex_id,
            "direction": None,
            "text_a": premise,
            "text_b": hypothesis,
            "label": _norm_label(label),
            "tags": tags,
            "tag_coarse": coarse,
            "source": premise,
            "domain": _cell(cells[col["domain"]]) if "domain" in col else None,
            "line": line,
        }
        partner = waiting.get((hypothesis, premise))
        if partner and premise != hypothesis:
            first = out[partner.pop(0)]
            first["direction"] = "forward"
            row.update(direction="backward", pair_id=first["pair_id"], source=first["text_a"])
        else:
            waiting.setdefault((premise, hypothesis), []).append(len(out))
        out.append(row)
    if not out:
        raise InputError("no examples after the header", path=path)
    return _dataset(out, path, "glue-tsv")


def read_diagnostic_jsonl(path: str | Path) -> Dataset:
    """Read our JSONL suite form, expanding each pair into forward and backward examples."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for line, obj in _read_jsonl_objects(path):
        for key in ("id", "sentence1", "sentence2", "forward"):
            if _cell(obj.get(key)) is None:
                raise InputError(
                    f"missing {key!r}; expected {{id, sentence1, sentence2, forward, backward, "
                    "tags, domain}",
                    path=path,
                    line=line,
                )
        pair_id = str(obj["id"]).strip()
        if pair_id in seen:
            raise InputError("ids must be unique", path=path, line=line, got=pair_id)
        seen.add(pair_id)
        raw_tags = obj.get("tags", [])
        if isinstance(raw_tags, str):
            tags = _split_tags(raw_tags)
        elif isinstance(raw_tags, list) and all(isinstance(t, str) for t in raw_tags):
            tags = [t.strip() for t in raw_tags if t.strip()]
        else:
            raise InputError("'tags' must be a list of strings", path=path, line=line, got=raw_tags)
        s1, s2 = str(obj["sentence1"]).strip(), str(obj["sentence2"]).strip()
        domain = _cell(obj.get("domain"))
        for direction, premise, hypothesis in (("forward", s1, s2), ("backward", s2, s1)):
            raw = obj.get(direction)
            if isinstance(raw, list | dict) or (isinstance(raw, float) and raw != raw):
                kind = "a list" if isinstance(raw, list) else "an object"
                raise InputError(
                    f"{direction!r} must be one label (a string), not "
                    f"{kind if isinstance(raw, list | dict) else 'NaN'}",
                    path=path,
                    line=line,
                    got=raw,
                )
            label = _cell(raw)
            if label is None:
                continue
            out.append(
                {
                    "id": f"{pair_id}:{direction}",
                    "pair_id": pair_id,
                    "direction": direction,
                    "text_a": premise,
                    "text_b": hypothesis,
                    "label": _norm_label(label),
                    "tags": tags,
                    "tag_coarse": [None] * len(tags),
                    "source": s1,
                    "domain": domain,
                    "line": line,
                }
            )
    return _dataset(out, path, "jsonl")


def read_diagnostic(path: str | Path) -> Dataset:
    """Read a suite: ``.tsv`` as the GLUE diagnostic TSV, ``.jsonl``/``.json`` as our JSONL."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        return read_glue_diagnostic_tsv(path)
    if suffix in (".jsonl", ".ndjson", ".json"):
        return read_diagnostic_jsonl(path)
    raise InputError(
        "unknown suite format; expected .tsv (GLUE diagnostic) or .jsonl (benchcheck form)",
        path=path,
    )


@dataclass(frozen=True)
class Predictions:
    """One model's predicted label per example id, as read from a file."""

    labels: Mapping[str, str]
    source: str
    keyed_by: str  # "id" or "row order"
    notes: tuple[str, ...] = field(default_factory=tuple)


_ID_KEYS = ("id", "index", "idx", "example_id")
_PRED_KEYS = ("prediction", "predicted", "pred", "label", "predicted_label", "output")


def _pick(columns: Sequence[str], wanted: str | None, options: Sequence[str], what: str,
          path: Path) -> str | None:
    lower = {c.casefold(): c for c in columns}
    if wanted is not None:
        if wanted not in columns and wanted.casefold() not in lower:
            raise InputError(
                f"no {what} column {wanted!r}; the file has {list(columns)}", path=path
            )
        return wanted if wanted in columns else lower[wanted.casefold()]
    for opt in options:
        if opt in lower:
            return lower[opt]
    return None


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
                f"cannot tell which column holds the predictions; name it (--label-column); "
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
    return Predictions(labels={i: labels[i] for i in ids}, source=str(path), keyed_by=keyed,
                       notes=tuple(notes))


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
        read = read_predictions(path, ids=ids, label_names=label_names, label_map=label_map,
                                column=column)
        preds[name] = dict(read.labels)
        notes[name] = [f"matched by {read.keyed_by}", *read.notes]
    return preds, notes


class _LabelConverter:
    """Turn a raw cell into a label name: mapping, then a name, then an index."""

    def __init__(self, path: Path, label_names: Sequence[str],
                 label_map: Mapping[str, str] | None, column: str) -> None:
        self.path = path
        self.names = list(label_names)
        self.lookup = {n.casefold(): n for n in self.names}
        self.label_map = label_map
        self.column = column
        self.used_index = False

    def __call__(self, raw: object, line: int) -> str:
        value = _cell(raw)
        if value is None:
            raise InputError(f"empty value in column {self.column!r}", path=self.path, line=line)
        if self.label_map is not None and value in self.label_map:
            return self.label_map[value]
        if value.casefold() in self.lookup:
            return self.lookup[value.casefold()]
        if self.label_map is not None:
            raise InputError(
                f"label not in the label mapping {dict(self.label_map)} nor one of {self.names}",
                path=self.path,
                line=line,
                got=value,
            )
        try:
            as_int = int(float(value)) if float(value).is_integer() else None
        except ValueError:
            as_int = None
        if as_int is not None and 0 <= as_int < len(self.names):
            self.used_index = True
            return self.names[as_int]
        raise InputError(
            f"unknown label; expected one of {self.names} or an index 0..{len(self.names) - 1}",
            path=self.path,
            line=line,
            got=value,
        )


def _records(path: Path) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    """Columns and ``(line, record)`` rows of a JSONL, TSV or CSV file."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        records = _read_jsonl_objects(path)
        columns: list[str] = []
        for _, obj in records:
            columns.extend(k for k in obj if k not in columns)
        return columns, records
    if suffix in (".tsv", ".csv"):
        header, rows = _read_delimited(path, "\t" if suffix == ".tsv" else ",")
        out = []
        for line, cells in rows:
            if len(cells) != len(header):
                raise InputError(
                    f"expected {len(header)} columns, found {len(cells)}", path=path, line=line
                )
            out.append((line, dict(zip(header, cells, strict=True))))
        return header, out
    raise InputError("unknown format; expected .tsv, .csv or .jsonl", path=path)


def read_annotations(
    path: str | Path,
    *,
    ids: Sequence[str],
    label_names: Sequence[str],
    label_map: Mapping[str, str] | None = None,
) -> dict[str, dict[str, str]]:
    """Read human annotations of suite examples: ``{annotator: {example id: label}}``.

    Two layouts (TSV, CSV or JSONL): *long*, with columns ``id``, ``annotator`` and
    ``label``; or *wide*, with an ``id`` column and one column per annotator (an empty
    cell means not annotated). Labels are names or indices, as in :func:`read_predictions`.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    columns, records = _records(path)
    lower = {c.casefold(): c for c in columns}
    id_col = _pick(columns, None, _ID_KEYS, "id", path)
    if id_col is None:
        raise InputError(f"no id column (one of {list(_ID_KEYS)}); the file has {columns}",
                         path=path)
    wanted = set(ids)
    out: dict[str, dict[str, str]] = {}
    long = "annotator" in lower and "label" in lower
    # One converter per column holding labels: the label column (long) or each annotator's.
    convert = {c: _LabelConverter(path, label_names, label_map, c) for c in columns}
    for line, rec in records:
        ex_id = _cell(rec.get(id_col))
        if ex_id is None or ex_id not in wanted:
            raise InputError("id not in the suite", path=path, line=line, got=ex_id)
        if long:
            who = _cell(rec.get(lower["annotator"]))
            if who is None:
                raise InputError("empty annotator", path=path, line=line)
            cells = {who: (lower["label"], rec.get(lower["label"]))}
        else:
            cells = {c: (c, rec.get(c)) for c in columns if c != id_col and _cell(rec.get(c))}
        for who, (column, raw) in cells.items():
            seen = out.setdefault(who, {})
            if ex_id in seen:
                raise InputError(f"annotator {who!r} labels this id twice", path=path,
                                 line=line, got=ex_id)
            seen[ex_id] = convert[column](raw, line)
    if not out:
        raise InputError("no annotations found", path=path)
    return out


@dataclass(frozen=True)
class PairTexts:
    """Premises, hypotheses and labels of a pair file (a suite or a plain pair table)."""

    premises: list[str]
    hypotheses: list[str]
    labels: list[str]
    source: str
    kind: str  # "suite" or "table"
    n_skipped: int = 0


_PAIR_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet")


def find_pair_splits(folder: str | Path) -> tuple[Path, Path]:
    """Find the train file and the evaluation file (test, else dev) of a pair dataset folder.

    A file's split is the first word of its name found in
    :data:`~benchcheck.data.model.SPLIT_ALIASES` (the loader's split words).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder; give --train and --eval for files")
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in _PAIR_SUFFIXES:
            continue
        words = re.split(r"[._\-\s]+", path.stem.casefold())
        split = next((SPLIT_ALIASES[w] for w in words if w in SPLIT_ALIASES), None)
        if split is not None:
            found.setdefault(split, []).append(path)
    train = found.get("train", [])
    evals = found.get("test") or found.get("dev") or []
    if len(train) != 1 or len(evals) != 1:
        names = {k: [p.name for p in v] for k, v in found.items()}
        raise UsageError(
            f"{folder}: expected one train file and one test (or dev) file, found {names}; "
            "give --train and --eval instead"
        )
    return train[0], evals[0]


def looks_like_suite(path: str | Path) -> bool:
    """Whether a file's first line is a GLUE diagnostic header or a benchcheck suite row."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        with path.open(encoding="utf-8-sig") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError):
        return False
    if suffix == ".tsv":
        cols = {c.strip().casefold() for c in first.split("\t")}
        return {"premise", "hypothesis", "label"} <= cols
    if suffix in (".jsonl", ".ndjson", ".json"):
        try:
            obj = json.loads(first)
        except json.JSONDecodeError:
            return False
        return isinstance(obj, dict) and {"sentence1", "sentence2", "forward"} <= set(obj)
    return False


def read_pairs(
    path: str | Path,
    *,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    skip_labels: Sequence[str] = ("-", ""),
) -> PairTexts:
    """Read premise/hypothesis/label triples from a diagnostic suite or a pair table.

    A GLUE diagnostic TSV or a benchcheck JSONL suite is recognised from its first line and
    read with both directions. Any other JSONL/CSV/TSV/Parquet file is read with
    :func:`benchcheck.io.tables.read_table`; the columns default to ``premise``/
    ``hypothesis`` or ``sentence1``/``sentence2``, and ``label`` or ``gold_label`` (SNLI).
    Rows whose label is in ``skip_labels`` (SNLI's ``-``: no annotator majority) are dropped
    and counted.
    """
    from benchcheck.io.tables import read_rows, read_table

    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    if text_a is None and text_b is None and label is None and looks_like_suite(path):
        tab = read_diagnostic(path)["diagnostic"].table
        return PairTexts(tab["text_a"].to_list(), tab["text_b"].to_list(),
                         tab["label"].to_list(), str(path), "suite")
    columns = read_rows(path).columns
    if text_a is None or text_b is None:
        for a, b in (("premise", "hypothesis"), ("sentence1", "sentence2"),
                     ("text_a", "text_b")):
            if a in columns and b in columns:
                text_a, text_b = text_a or a, text_b or b
                break
        else:
            raise InputError(
                f"name the pair columns (--text-a/--text-b); the file has "
                f"{[c for c in columns if c != '__line__']}",
                path=path,
            )
    if label is None:
        label = next((c for c in ("label", "gold_label") if c in columns), None)
        if label is None:
            raise InputError(f"name the label column (--label); the file has {columns}",
                             path=path)
    frame = read_table(path, text_a=text_a, text_b=text_b, label=label)
    skip = {s.strip() for s in skip_labels}
    keep = [lab.strip() not in skip for lab in frame["label"].to_list()]
    kept = frame.filter(pl.Series(keep))
    return PairTexts(kept["text_a"].to_list(), kept["text_b"].to_list(),
                     [_norm_label(x) for x in kept["label"].to_list()], str(path), "table",
                     n_skipped=frame.height - kept.height)
