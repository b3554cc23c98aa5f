"""Tabular readers (JSONL, CSV, TSV, Parquet, saved HF) for classification and pair datasets.

:func:`read_table` returns a normalised polars frame with the columns ``id``, ``text`` (or
``text_a`` and ``text_b``) and ``label`` (when a label column is named), every value kept as
written: labels are strings, so ``0`` and ``"0"`` read the same.

:func:`read_text_split` turns such a table into a :class:`~benchcheck.data.Split` of the
dataset model: labels given as indices are mapped to names (``label_names``), and each row
gets ``x_hash`` (the text, or the ordered pair of texts), ``xy_hash`` (text(s) and label),
for pairs ``a_hash``/``b_hash`` (each side alone), and whitespace-token lengths
(``n_tokens``, or ``n_tokens_a``/``n_tokens_b``). Hashes are 64-bit; two different inputs
collide with probability about 2**-64 per pair.
"""

from __future__ import annotations

import json
import math
import mmap
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.columns import Columns
from benchcheck.data.model import Split
from benchcheck.errors import InputError, UsageError
from benchcheck.io._ner import mix64, string_hash
from benchcheck.io._tokens import whitespace_token_counts
from benchcheck.io.hf import arrow_table, saved_hf_parts
from benchcheck.io.output import atomic_file

TABLE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet")


def read_rows(path: str | Path) -> pl.DataFrame:
    """Read a JSONL / CSV / TSV / Parquet file into a frame of strings and numbers, as written.

    Errors name the file and line (JSONL) and what was expected.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return _read_jsonl(path)
    if suffix in (".csv", ".tsv"):
        sep = "\t" if suffix == ".tsv" else ","
        try:
            return pl.read_csv(
                path, separator=sep, infer_schema=False, quote_char='"' if sep == "," else None
            )
        except (pl.exceptions.ComputeError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read as {suffix[1:].upper()}: {exc}", path=path) from None
    if suffix == ".parquet":
        try:
            return pl.read_parquet(path)
        except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
            raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    raise InputError(
        f"unknown table format; expected one of {', '.join(TABLE_SUFFIXES)}", path=path
    )


def json_lines(text: str, path: str | Path) -> Iterator[tuple[int, Any]]:
    r"""Yield ``(1-based line number, parsed value)`` for each non-blank line of JSONL text.

    Splits on newlines only: ``str.splitlines()`` also breaks at U+0085, U+2028 and U+2029,
    which JSON strings may hold unescaped. Invalid JSON raises :class:`InputError` naming
    the line.

    >>> list(json_lines('{"a": "x\u2028y"}\n\n[1]\n', "f.jsonl"))
    [(1, {'a': 'x\u2028y'}), (3, [1])]
    """
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg})", path=path, line=number) from None
        yield number, value


def _read_jsonl(path: Path) -> pl.DataFrame:
    fast = _read_jsonl_fast(path)
    if fast is not None:
        return fast
    raw = path.read_bytes().removeprefix(b"\xef\xbb\xbf")  # a byte-order mark, as CSV reads
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw.count(b"\n", 0, exc.start) + 1
        raise InputError("undecodable bytes; expected UTF-8", path=path, line=bad) from None
    rows = []
    for number, row in json_lines(text, path):
        if not isinstance(row, dict):
            raise InputError("expected one JSON object per line", path=path, line=number)
        row.setdefault("__line__", number)
        rows.append(row)
    if not rows:
        raise InputError("empty file: expected one JSON object per line", path=path)
    try:
        return pl.DataFrame(rows, infer_schema_length=None)
    except Exception as exc:  # noqa: BLE001 - mixed types across rows
        raise InputError(f"rows do not share one schema: {exc}", path=path) from None


def _read_jsonl_fast(path: Path) -> pl.DataFrame | None:
    """Use polars' NDJSON reader for the common case: no blank lines, flat objects, one schema.

    Returns ``None`` (use the line-by-line reader, which gives precise errors) otherwise.
    """
    data = path.read_bytes()
    if not _plain_jsonl(data):
        return None
    try:
        frame = pl.read_ndjson(data, infer_schema_length=None)
    except Exception:  # noqa: BLE001 - any parse problem: fall back to the precise reader
        return None
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if frame.height != n_lines or frame.height == 0 or "__line__" in frame.columns:
        return None
    if any(isinstance(dt, pl.Struct | pl.List | pl.Array | pl.Null) for dt in frame.dtypes):
        return None  # nested values: keep the reader whose typing other modules rely on
    return frame.with_columns(pl.int_range(1, frame.height + 1, dtype=pl.Int64).alias("__line__"))


def _plain_jsonl(data: bytes | mmap.mmap) -> bool:
    """Whether polars' NDJSON reader may take these bytes (no BOM, no CR, not empty).

    Takes the bytes or a memory map of them (both fast paths ask). Blank lines are caught
    after reading: polars skips them, so the row count falls short of the line count and
    the precise reader takes over. (Searching the bytes for a blank line here cost more
    than the whole NDJSON parse.)
    """
    return (
        len(data) > 0 and data[:3] != b"\xef\xbb\xbf" and data[:1] != b"\n" and data.find(b"\r") < 0
    )


def read_table(
    path: str | Path,
    *,
    text: str | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    id: str | None = None,  # noqa: A002 - mirrors the --id option
) -> pl.DataFrame:
    """Read a classification (``text``) or pair (``text_a`` + ``text_b``) table.

    Returns columns ``id`` (the ``id`` column, else the 0-based row number as a string),
    ``text`` or ``text_a``/``text_b``, and ``label`` as strings when ``label`` is given.
    Missing columns raise :class:`InputError` naming the columns that exist.
    """
    return _normalise(
        read_rows(path), path, text=text, text_a=text_a, text_b=text_b, label=label, id=id
    )


def table_from_rows(
    frame: pl.DataFrame,
    path: str | Path,
    columns: Columns,
    *,
    label: str = "label",
) -> pl.DataFrame:
    """Normalise rows read by :func:`read_rows` as :func:`read_table` does, from a ``Columns``.

    Without text columns, ``text`` is taken when present, else a known pair of columns
    (``text_a``/``text_b``, ``premise``/``hypothesis``, ``sentence1``/``sentence2``); the
    label column defaults to ``label``.

    >>> rows = pl.DataFrame({"premise": ["p"], "hypothesis": ["h"], "label": [1]})
    >>> table_from_rows(rows, "d.csv", Columns()).columns
    ['id', 'text_a', 'text_b', 'label']
    """
    text, text_a, text_b = columns.text, columns.text_a, columns.text_b
    if text is None and text_a is None and "text" not in frame.columns:
        found = _pair_columns(frame.columns)
        if found is None:
            raise InputError(
                "name the text column ({text}) or the pair columns ({text_a}, {text_b}); the "
                f"file has {[c for c in frame.columns if c != '__line__']}",
                path=path,
            )
        text_a, text_b = found
    return _normalise(
        frame,
        path,
        text=text,
        text_a=text_a,
        text_b=text_b,
        label=columns.label or label,
        id=columns.id,
    )


def _normalise(
    frame: pl.DataFrame,
    path: str | Path,
    *,
    text: str | None,
    text_a: str | None,
    text_b: str | None,
    label: str | None,
    id: str | None,  # noqa: A002
) -> pl.DataFrame:
    if (text is None) == (text_a is None):
        if text is None and text_a is None and "text" in frame.columns:
            text = "text"
        elif text_a is None and text is None:
            raise InputError(
                "name the text column (--text) or the two pair columns (--text-a/--text-b)",
                path=path,
            )
    if text_a is not None and text_b is None:
        raise InputError("--text-a needs --text-b", path=path)
    wanted = {"text": text, "text_a": text_a, "text_b": text_b, "label": label}
    columns: dict[str, pl.Series] = {}
    if id is not None:
        _need(frame, id, path)
        columns["id"] = frame[id].cast(pl.String)
    elif "id" in frame.columns:
        columns["id"] = frame["id"].cast(pl.String)
    else:
        columns["id"] = pl.int_range(0, frame.height, eager=True).cast(pl.String).alias("id")
    for new, old in wanted.items():
        if old is None:
            continue
        _need(frame, old, path)
        columns[new] = frame[old].cast(pl.String)
    out = pl.DataFrame(columns)
    if "__line__" in frame.columns:
        out = out.with_columns(frame["__line__"].alias("line"))
    for name in ("text", "text_a", "text_b", "label"):
        if name in out.columns and out[name].null_count():
            first = out.with_row_index("_r").filter(pl.col(name).is_null())["_r"][0]
            line = int(out["line"][first]) if "line" in out.columns else None
            raise InputError(f"missing value in column {wanted[name]!r}", path=path, line=line)
    dup = out["id"].is_duplicated() if id is not None or "id" in frame.columns else None
    if dup is not None and dup.any():
        raise InputError("ids must be unique", path=path, got=out["id"].filter(dup)[0])
    return out


def _need(frame: pl.DataFrame, column: str, path: str | Path) -> None:
    if column not in frame.columns:
        shown = [c for c in frame.columns if c != "__line__"]
        raise InputError(f"no column {column!r}; the file has {shown}", path=path)


_K_LABEL = np.uint64(0x2545F4914F6CDD1D)
_K_PAIR = np.uint64(0x9E3779B97F4A7C15)
TEXT_TASKS = ("classification", "pair")


def pair_hash(a_hash: np.ndarray, b_hash: np.ndarray) -> np.ndarray:
    """Order-sensitive 64-bit hash of the pair (a, b): (a, b) and (b, a) differ."""
    with np.errstate(over="ignore"):
        return mix64(mix64(a_hash ^ _K_PAIR) + b_hash)


def labelled_hash(x_hash: np.ndarray, label: pl.Series) -> np.ndarray:
    """64-bit hash of (x, y) from the input's hash and the label string."""
    return mix64(x_hash ^ mix64(string_hash(label) ^ _K_LABEL))


def name_labels(
    label: pl.Series,
    label_names: Sequence[str] | None,
    *,
    source: str,
    line: pl.Series | None = None,
) -> pl.Series:
    """Map label indices to ``label_names`` (when given); labels stay strings otherwise.

    With ``label_names``, every label must be an index 0..k-1 or already one of the names;
    anything else raises :class:`InputError` naming the row's line.

    >>> name_labels(pl.Series(["1", "0", "neg"]), ["neg", "pos"], source="x").to_list()
    ['pos', 'neg', 'neg']
    """
    label = label.cast(pl.String)
    if not label_names:
        return label
    names = [str(n) for n in label_names]
    as_int = label.str.strip_chars().cast(pl.Int64, strict=False)
    valid_index = as_int.is_between(0, len(names) - 1).fill_null(False)
    is_name = label.is_in(names)
    bad = ~(valid_index | is_name)
    if bad.any():
        k = int(bad.arg_true()[0])
        raise InputError(
            f"label is neither an index 0..{len(names) - 1} nor one of the names {names}",
            path=source,
            line=None if line is None else int(line[k]),
            got=label[k],
        )
    lut = pl.Series(names, dtype=pl.String)
    mapped = lut.gather(as_int.fill_null(0).clip(0, len(names) - 1))
    return (
        pl.select(pl.when(valid_index & ~is_name).then(mapped).otherwise(label))
        .to_series()
        .alias("label")
    )


def build_text_split(
    frame: pl.DataFrame,
    *,
    task: str,
    name: str,
    source: str,
    label_names: Sequence[str] | None = None,
) -> Split:
    """Turn a normalised table (see :func:`read_table`) into a classification or pair split.

    ``frame`` has ``id``, ``text`` (classification) or ``text_a``/``text_b`` (pair), and
    ``label``; a ``line`` column (1-based line or row of the source) is kept when present.
    """
    if task not in TEXT_TASKS:
        raise InputError(f"expected task 'classification' or 'pair', got {task!r}", path=source)
    need = ("text",) if task == "classification" else ("text_a", "text_b")
    for col in (*need, "label"):
        if col not in frame.columns:
            what = "--text" if col == "text" else f"--{col.replace('_', '-')}"
            raise InputError(
                f"a {task} split needs a {col!r} column (name it with {what})", path=source
            )
    if frame.height == 0:
        raise InputError("empty split: expected at least one row", path=source)
    line = (
        frame.get_column("line").cast(pl.Int64)
        if "line" in frame.columns
        else pl.Series("line", np.arange(1, frame.height + 1, dtype=np.int64))
    )
    label = name_labels(frame.get_column("label"), label_names, source=source, line=line)
    cols: dict[str, pl.Series | np.ndarray] = {"id": frame.get_column("id").cast(pl.String)}
    if task == "classification":
        text = frame.get_column("text").cast(pl.String)
        x_hash = mix64(string_hash(text))
        cols.update({"text": text, "label": label, "line": line})
        cols["n_tokens"] = whitespace_token_counts(text)
    else:
        a = frame.get_column("text_a").cast(pl.String)
        b = frame.get_column("text_b").cast(pl.String)
        a_hash, b_hash = mix64(string_hash(a)), mix64(string_hash(b))
        x_hash = pair_hash(a_hash, b_hash)
        cols.update({"text_a": a, "text_b": b, "label": label, "line": line})
        cols["a_hash"], cols["b_hash"] = a_hash, b_hash
        cols["n_tokens_a"] = whitespace_token_counts(a)
        cols["n_tokens_b"] = whitespace_token_counts(b)
    cols["x_hash"] = x_hash
    cols["xy_hash"] = labelled_hash(x_hash, label)
    table = pl.DataFrame(
        {k: (v.alias(k) if isinstance(v, pl.Series) else v) for k, v in cols.items()}
    )
    return Split(name=name, source=source, table=table)


def read_text_split(
    path: str | Path,
    *,
    task: str,
    name: str | None = None,
    text: str | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    id: str | None = None,  # noqa: A002 - mirrors the --id option
    label_names: Sequence[str] | None = None,
) -> Split:
    """Read one JSONL / CSV / TSV / Parquet file as a classification or pair split.

    Column defaults: ``text`` (classification), ``text_a``/``text_b`` then ``premise``/
    ``hypothesis`` or ``sentence1``/``sentence2`` (pair), ``label``, ``id``.
    """
    path = Path(path)
    label = label or "label"
    frame = _read_jsonl_columns(path, task, text, text_a, text_b, label, id)
    if frame is None:
        frame = read_rows(path)
    if task == "pair" and text_a is None and text_b is None:
        found = _pair_columns(frame.columns)
        if found is None:
            raise InputError(
                "name the two pair columns with --text-a and --text-b; the file has "
                f"{[c for c in frame.columns if c != '__line__']}",
                path=path,
            )
        text_a, text_b = found
    if task == "classification":
        text = text or "text"
    table = _normalise(frame, path, text=text, text_a=text_a, text_b=text_b, label=label, id=id)
    if "line" not in table.columns:
        offset = 2 if path.suffix.lower() in (".csv", ".tsv") else 1  # header line
        table = table.with_columns(pl.int_range(offset, table.height + offset).alias("line"))
    return build_text_split(
        table, task=task, name=name or path.stem, source=str(path), label_names=label_names
    )


_PAIR_DEFAULTS = (("text_a", "text_b"), ("premise", "hypothesis"), ("sentence1", "sentence2"))


def _pair_columns(columns: Iterable[str]) -> tuple[str, str] | None:
    """Return the first default pair of columns (:data:`_PAIR_DEFAULTS`) present, or None.

    >>> _pair_columns(["hypothesis", "premise", "text_b"])
    ('premise', 'hypothesis')
    """
    have = set(columns)
    return next(((a, b) for a, b in _PAIR_DEFAULTS if a in have and b in have), None)


def _read_jsonl_columns(
    path: Path,
    task: str,
    text: str | None,
    text_a: str | None,
    text_b: str | None,
    label: str,
    id: str | None,  # noqa: A002
) -> pl.DataFrame | None:
    """Read only the needed JSONL fields, as strings (about 2× faster than inferring all).

    Used when the file is plain (see :func:`_read_jsonl_fast`) and its first object has
    every needed key; otherwise ``None``, and the general reader gives the precise error.
    """
    if path.suffix.lower() not in (".jsonl", ".ndjson") or not path.is_file():
        return None
    # The checks read the file through a memory map and polars reads it by path: the
    # bytes are never copied into Python (0.14 s saved on 200 MB).
    with _mapped(path) as data:
        if data is None or not _plain_jsonl(data):
            return None
        end = data.find(b"\n")
        try:
            keys = set(json.loads(data[: end if end >= 0 else len(data)]))
        except (json.JSONDecodeError, TypeError, UnicodeDecodeError):
            return None
        if task == "pair" and text_a is None and text_b is None:
            found = _pair_columns(keys)
            if found is None:
                return None
            text_a, text_b = found
        if task == "classification":
            text = text or "text"
        wanted = [c for c in (text, text_a, text_b, label, id) if c is not None]
        if id is None and "id" in keys:
            wanted.append("id")
        if not set(wanted) <= keys or "__line__" in keys:
            return None
        try:
            frame = pl.read_ndjson(path, schema=dict.fromkeys(wanted, pl.String))
        except Exception:  # noqa: BLE001 - anything unusual: the general reader decides
            return None
        # A float label reads "1" here but "1.0" through the general reader: leave it to that.
        # Only integer-looking labels can hide a float, so the byte scan is skipped for names.
        if frame.get_column(label).unique().str.contains(r"^-?[0-9]+$").any() and re.search(
            rb'"' + re.escape(label.encode()) + rb'"\s*:\s*-?[0-9]+[.eE]', data
        ):
            return None
        as_bytes = np.frombuffer(data, dtype=np.uint8)
        n_lines = int(np.count_nonzero(as_bytes == 10)) + (0 if as_bytes[-1] == 10 else 1)
        del as_bytes  # the map cannot close while numpy holds it
        if frame.height != n_lines:
            return None
        return frame.with_columns(
            pl.int_range(1, frame.height + 1, dtype=pl.Int64).alias("__line__")
        )


@contextmanager
def _mapped(path: Path) -> Iterator[mmap.mmap | None]:
    """Map the file read-only (``None`` for an empty file, which cannot be mapped)."""
    with path.open("rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            yield None
            return
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            yield data


def read_hf_text(
    path: str | Path,
    *,
    task: str,
    text: str | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    id: str | None = None,  # noqa: A002 - mirrors the --id option
    label_names: Sequence[str] | None = None,
) -> dict[str, Split]:
    """Read a saved HuggingFace dataset (``save_to_disk``) as classification or pair splits.

    A ``ClassLabel`` label column is mapped to its names (``label_names`` overrides them).
    Needs the ``hf`` extra.
    """
    out: dict[str, Split] = {}
    for name, source, part in saved_hf_parts(Path(path)):
        frame = pl.from_arrow(arrow_table(part))
        assert isinstance(frame, pl.DataFrame)
        lab = label or "label"
        names = label_names
        feature = part.features.get(lab)
        if names is None and getattr(feature, "names", None):
            names = list(feature.names)
        if task == "pair" and text_a is None and text_b is None:
            text_a, text_b = _pair_columns(frame.columns) or (None, None)
        table = _normalise(
            frame,
            source,
            text=text or ("text" if task == "classification" else None),
            text_a=text_a,
            text_b=text_b,
            label=lab,
            id=id,
        ).with_columns(pl.int_range(1, frame.height + 1).alias("line"))
        out[name] = build_text_split(table, task=task, name=name, source=source, label_names=names)
    return out


def _json_value(value: object) -> object:
    """NaN and infinities as None (``null``): JSON has no spelling for them."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_rows(frame: pl.DataFrame, path: str | Path, *, like: str | Path | None = None) -> Path:
    r"""Write rows as JSONL, CSV, TSV or Parquet by the suffix of ``like`` (default: ``path``).

    JSONL (``.jsonl``, ``.ndjson``, ``.json``) is one object per line in column order,
    UTF-8 with non-ASCII as is, ``None``, NaN and infinities as ``null``: valid JSON and
    byte-stable. CSV and TSV are polars' writers (a missing value is an empty field);
    Parquet keeps the types. The reader's ``__line__`` column is left out and the parent
    folder is created. The file is written atomically
    (:func:`benchcheck.io.output.atomic_file`): a killed run leaves the previous file or
    none. Returns ``path``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = write_rows(pl.DataFrame({"id": [1], "p": [float("nan")]}), f"{tmp}/a.jsonl")
    ...     out.read_text()
    '{"id": 1, "p": null}\n'
    """
    path = Path(path)
    suffix = Path(path if like is None else like).suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        shown = path if like is None else f"{path} in the format of {like}"
        raise UsageError(f"cannot write {shown}: use .jsonl, .csv, .tsv or .parquet")
    frame = frame.drop("__line__", strict=False)
    with atomic_file(path) as tmp:
        if suffix in (".jsonl", ".ndjson", ".json"):
            with tmp.open("w", encoding="utf-8") as fh:
                for row in frame.iter_rows(named=True):
                    clean = {k: _json_value(v) for k, v in row.items()}
                    fh.write(json.dumps(clean, ensure_ascii=False) + "\n")
        elif suffix in (".csv", ".tsv"):
            frame.write_csv(tmp, separator="\t" if suffix == ".tsv" else ",")
        else:
            frame.write_parquet(tmp)
    return path
