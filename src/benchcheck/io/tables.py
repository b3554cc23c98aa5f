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
from benchcheck.data.hashing import mix64, string_hash
from benchcheck.data.model import Split
from benchcheck.errors import InputError, UsageError, uninterrupted
from benchcheck.io._decoded import read_parquet_bounded
from benchcheck.io._text import (
    HugeNumber,
    check_readable,
    json_int,
    loads_json,
    read_file_bytes,
    read_text_file,
    refuse_other_encodings,
)
from benchcheck.io._tokens import whitespace_token_counts
from benchcheck.io.hf import arrow_table, saved_hf_parts
from benchcheck.io.output import atomic_file

TABLE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet")


def read_rows(path: str | Path) -> pl.DataFrame:
    """Read a JSONL / CSV / TSV / Parquet file into a frame of strings and numbers, as written.

    Errors name the file and line (JSONL) and what was expected.
    """
    path = Path(path)
    check_readable(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    if path.is_dir():
        raise InputError("is a folder; expected a file", path=path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return _read_jsonl(path)
    if suffix in (".csv", ".tsv"):
        return _rows(_read_delimited(path, "\t" if suffix == ".tsv" else ","), path)
    if suffix == ".parquet":
        frame = pl.from_arrow(read_parquet_bounded(path))
        assert isinstance(frame, pl.DataFrame)
        return _rows(frame, path)
    raise InputError(
        f"unknown table format; expected one of {', '.join(TABLE_SUFFIXES)}", path=path
    )


def _rows(frame: pl.DataFrame, path: Path) -> pl.DataFrame:
    """Refuse a table without rows (a header alone), as an empty JSONL file is refused."""
    if frame.height == 0:
        what = "a header and no rows" if path.suffix.lower() in (".csv", ".tsv") else "no rows"
        raise InputError(f"the table has {what}; expected at least one row", path=path)
    return frame


def json_lines(text: str, path: str | Path) -> Iterator[tuple[int, Any]]:
    r"""Yield ``(1-based line number, parsed value)`` for each non-blank line of JSONL text.

    Splits on newlines only: ``str.splitlines()`` also breaks at U+0085, U+2028 and U+2029,
    which JSON strings may hold unescaped. Each line is parsed by the one JSON rule
    (:func:`benchcheck.io._text.loads_json`): invalid JSON, a key given twice, nesting too
    deep or a lone surrogate raises :class:`InputError` naming the line.

    >>> list(json_lines('{"a": "x\u2028y"}\n\n[1]\n', "f.jsonl"))
    [(1, {'a': 'x\u2028y'}), (3, [1])]
    """
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        yield number, loads_json(raw, path, line=number)


def _read_delimited(path: Path, sep: str) -> pl.DataFrame:
    """CSV (quoted with ``"``) or TSV (no quoting) as strings, with each row's ``__line__``.

    Errors name the file and the line (a row with more fields than the header, an unclosed
    quote, an undecodable byte, a UTF-16 file) in benchcheck's words, never polars'.
    """
    name = "TSV" if sep == "\t" else "CSV"
    with path.open("rb") as fh:
        head = fh.read(4096)
    refuse_other_encodings(head, path)
    if not head.strip(b"\xef\xbb\xbf \t\r\n"):
        raise InputError(f"empty file: expected a header line and rows of {name}", path=path)
    try:
        frame = pl.read_csv(
            path, separator=sep, infer_schema=False, quote_char='"' if sep == "," else None
        )
    except Exception:  # noqa: BLE001 - any polars parse error: say where, in our words
        text = read_text_file(path)
        problem = _delimited_problem(text, sep)
        line, message = problem or (None, "the file is not well-formed")
        raise InputError(f"cannot read as {name}: {message}", path=path, line=line) from None
    import csv

    try:
        _refuse_repeated_columns(path, sep, frame.columns)
        if frame.width and frame[frame.columns[-1]].null_count():
            # polars pads a row with too few fields with nulls: a truncated file would pass
            short = _short_row(read_text_file(path), sep)
            if short is not None:
                line, message = short
                raise InputError(f"cannot read as {name}: {message}", path=path, line=line)
        lines = _record_lines(path, sep, frame.height)
    except csv.Error:
        # polars read a quote leniently (e.g. a stray '"' opening the header) that the
        # strict reader of lines and widths refuses: the file is malformed, say where
        problem = _delimited_problem(read_text_file(path), sep)
        line, message = problem or (None, "the file is not well-formed")
        raise InputError(f"cannot read as {name}: {message}", path=path, line=line) from None
    return frame.with_columns(pl.Series("__line__", lines))


def _refuse_repeated_columns(path: Path, sep: str, columns: Sequence[str]) -> None:
    """Refuse a header naming a column twice (polars would rename the second silently)."""
    if not any(c.endswith("_duplicated_0") for c in columns):
        return
    with path.open("rb") as fh:
        first = fh.readline().decode("utf-8", errors="replace").lstrip("\ufeff")
    names: list[str] = next(_csv_reader(first, sep), [])
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(
                f"the header names the column {name!r} twice; expected each column once",
                path=path,
                line=1,
            )
        seen.add(name)


def _short_row(text: str, sep: str) -> tuple[int, str] | None:
    """Find the first non-blank row with fewer fields than the header: (line, message)."""
    reader = _csv_reader(text, sep)
    width = None
    start = 1
    for cells in reader:
        if cells and width is None:
            width = len(cells)
        elif cells and any(c.strip() for c in cells) and len(cells) < width:  # type: ignore[operator]
            return start, (
                f"expected {width} fields, as the header has, found {len(cells)} (a cut or "
                "truncated row?)"
            )
        start = reader.line_num + 1
    return None


def _csv_reader(text: str, sep: str) -> Any:
    """Return a strict csv-module reader over ``text`` (TSV unquoted, as polars reads it)."""
    import csv
    import io

    lines = io.StringIO(text, newline="")
    if sep == "\t":
        return csv.reader(lines, delimiter=sep, quoting=csv.QUOTE_NONE, strict=True)
    return csv.reader(lines, delimiter=sep, quoting=csv.QUOTE_MINIMAL, strict=True)


def _delimited_problem(text: str, sep: str) -> tuple[int, str] | None:
    """Find the first line polars cannot read, with the csv module: (line, what is wrong)."""
    import csv

    reader = _csv_reader(text, sep)
    width = None
    start = 1
    try:
        for cells in reader:
            if cells and width is None:
                width = len(cells)
            elif cells and len(cells) > width:  # type: ignore[operator]
                return start, f"expected {width} fields, as the header has, found {len(cells)}"
            start = reader.line_num + 1
    except csv.Error as exc:
        if "end of data" in str(exc) or "EOF" in str(exc):
            return start, 'a quoted field starts here and never ends (a missing closing ")'
        return start, f"malformed {'TSV' if sep == chr(9) else 'CSV'} row ({exc})"
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return line, "a NUL byte: this looks like a binary file, not text"
    return None


def _record_lines(path: Path, sep: str, height: int) -> np.ndarray:
    """1-based line of each data row: row k + 2, unless quoted fields span lines."""
    with _mapped(path) as data:
        if data is None:
            return np.zeros(0, dtype=np.int64)
        as_bytes = np.frombuffer(data, dtype=np.uint8)
        newlines = int(np.count_nonzero(as_bytes == 10))
        ends_open = bool(as_bytes[-1] != 10)
        del as_bytes  # the map cannot close while numpy holds it
    n_lines = newlines + (1 if ends_open else 0)
    if n_lines == height + 1 or sep == "\t":
        return np.arange(2, height + 2, dtype=np.int64)
    # quoted newlines (or trailing blank lines): follow the records with the csv module
    text = read_text_file(path)
    reader = _csv_reader(text, sep)
    starts: list[int] = []
    start = 1
    for k, _cells in enumerate(reader):
        if k:
            starts.append(start)
        start = reader.line_num + 1
    if len(starts) < height:
        starts += list(range(start, start + height - len(starts)))
    return np.asarray(starts[:height], dtype=np.int64)


def _read_jsonl(path: Path) -> pl.DataFrame:
    fast = _read_jsonl_fast(path)
    if fast is not None:
        return fast
    text = read_text_file(path)
    rows = []
    nonfinite: dict[str, tuple[int, float]] = {}  # field → first line holding NaN/inf
    for number, row in json_lines(text, path):
        if not isinstance(row, dict):
            raise InputError("expected one JSON object per line", path=path, line=number)
        for key, value in row.items():
            if isinstance(value, float) and not math.isfinite(value):
                nonfinite.setdefault(key, (number, value))
        row.setdefault("__line__", number)
        rows.append(row)
    if not rows:
        raise InputError("empty file: expected one JSON object per line", path=path)
    try:
        frame = pl.DataFrame(rows, infer_schema_length=None)
    except Exception:  # noqa: BLE001 - mixed types across rows
        raise _schema_error(rows, path) from None
    for key, (line, value) in nonfinite.items():
        # polars turns NaN into the text "NaN" in a column of strings: a label "NaN"
        if frame.schema.get(key) == pl.String:
            raise InputError(
                f"field {key!r} holds {value} here, where other lines hold text",
                path=path,
                line=line,
            )
    return frame


def _kind(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "object"


def _schema_error(rows: list[dict[str, Any]], path: Path) -> InputError:
    """Name the first field whose kind of value differs from an earlier line's."""
    first: dict[str, tuple[str, int]] = {}
    for row in rows:
        line = int(row["__line__"])
        for key, value in row.items():
            kind = _kind(value)
            if kind is None or key == "__line__":
                continue
            seen = first.setdefault(key, (kind, line))
            if seen[0] != kind:
                return InputError(
                    f"field {key!r} holds a {kind} here but a {seen[0]} on line {seen[1]}; "
                    "each field must hold one kind of value",
                    path=path,
                    line=line,
                )
    return InputError("rows do not share one schema", path=path)


def _read_jsonl_fast(path: Path) -> pl.DataFrame | None:
    """Use polars' NDJSON reader for the common case: no blank lines, flat objects, one schema.

    Returns ``None`` (use the line-by-line reader, which gives precise errors) otherwise:
    also when a key might be given twice in a line (polars keeps the first) or a string
    holds a surrogate escape (polars reads a lone one as NUL), which that reader checks.
    """
    data = read_file_bytes(path)
    if not _plain_jsonl(data):
        return None
    try:
        frame = pl.read_ndjson(data, infer_schema_length=None)
    except Exception:  # noqa: BLE001 - any parse problem: fall back to the precise reader
        return None
    if frame.height == 0 or "__line__" in frame.columns:
        return None
    if any(isinstance(dt, pl.Struct | pl.List | pl.Array | pl.Null) for dt in frame.dtypes):
        return None  # nested values: keep the reader whose typing other modules rely on
    if _hides_nested(frame, frame.columns, data):
        return None
    if _keys_per_line(data, frame.width) != frame.height:
        return None
    return frame.with_columns(pl.int_range(1, frame.height + 1, dtype=pl.Int64).alias("__line__"))


def _keys_per_line(data: bytes | mmap.mmap, keys: int) -> int | None:
    r"""Count the lines if each (a flat JSON object) writes ``keys`` keys and no ``\ud…``.

    In JSON a quote followed by a colon ends a key and nothing else (a quote inside a
    string is escaped), so counting that pair per line tells, without parsing, that no line
    gives a key twice (polars would keep the first silently) or lacks one. Lines written
    otherwise (a space before the colon, an escaped quote before one inside a text, a blank
    line) count differently, and so does a file with a surrogate escape (polars reads a lone
    one as NUL): then ``None``, and the caller takes the precise reader, which checks both.
    Counted with numpy a block at a time, in one pass (``benchmarks/reliability_bench.py``
    times it). One double fault passes: a line giving one key twice *and* lacking another.

    >>> _keys_per_line(b'{"a": 1}\n{"a": 2}', 1), _keys_per_line(b'{"a": 1, "a": 2}\n', 1)
    (2, None)
    """
    a = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 24
    carry = lines = 0
    for lo in range(0, a.size, step):
        hi = min(lo + step, a.size)
        block = a[lo : min(hi + 2, a.size)]  # two bytes more: a pattern across the cut
        back = np.flatnonzero(block[:-2] == 92)  # escapes: a \ud... is a surrogate
        if back.size and ((block[back + 1] == 117) & ((block[back + 2] | 32) == 100)).any():
            return None
        pair = np.flatnonzero((block[:-1] == 34) & (block[1:] == 58))
        pair = pair[pair < hi - lo]
        ends = np.flatnonzero(block[: hi - lo] == 10)
        per_line = np.bincount(np.searchsorted(ends, pair), minlength=ends.size + 1)
        per_line[0] += carry
        if ends.size and not (per_line[: ends.size] == keys).all():
            return None
        lines += int(ends.size)
        carry = int(per_line[ends.size])
    del a
    if carry not in (0, keys):
        return None
    return lines + (1 if carry else 0)


def _hides_nested(frame: pl.DataFrame, columns: Iterable[str], data: bytes | mmap.mmap) -> bool:
    """Whether a string column holds a list or an object that polars read as its JSON text.

    (Mixed with strings, or under a String schema, ``[1, 0]`` reads as the text "[1, 0]";
    the general reader refuses it with its line.) Only columns with a value that looks like
    one are searched for in the bytes.
    """
    for col in columns:
        series = frame.get_column(col)
        if series.dtype != pl.String or not series.str.contains(r"^[\[{]").any():
            continue
        if re.search(rb'"' + re.escape(col.encode()) + rb'"\s*:\s*[\[{]', data):
            return True
    return False


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
                "name the text column ({text}) or the two pair columns ({text_a}/{text_b})",
                path=path,
            )
    if text_a is not None and text_b is None:
        raise InputError("{text_a} needs {text_b}", path=path)
    wanted = {"text": text, "text_a": text_a, "text_b": text_b, "label": label}
    columns: dict[str, pl.Series] = {}
    if id is not None:
        _need(frame, id, path)
        columns["id"] = scalar_strings(frame, id, path=path)
    elif "id" in frame.columns:
        columns["id"] = scalar_strings(frame, "id", path=path)
    else:
        columns["id"] = pl.int_range(0, frame.height, eager=True).cast(pl.String).alias("id")
    for new, old in wanted.items():
        if old is None:
            continue
        _need(frame, old, path)
        columns[new] = scalar_strings(
            frame, old, path=path, what="label" if new == "label" else "value"
        )
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


def scalar_strings(
    frame: pl.DataFrame, column: str, *, path: str | Path | None, what: str = "value"
) -> pl.Series:
    """Return a column of single values (strings, numbers, booleans) as strings.

    A list or an object where one value is expected, and NaN or an infinity (as a
    ``label``, ``what="label"``), raise :class:`InputError` naming the row's line
    (``__line__``); integers-valued floats stay as written (``1.0``). Missing values stay
    missing (the caller decides whether they are allowed).

    >>> f = pl.DataFrame({"label": [[1, 0], [1]], "__line__": [3, 4]})
    >>> scalar_strings(f, "label", path="d.jsonl", what="label")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: d.jsonl:3: a label must be one value ... not a list (got '[1, 0]')
    """
    series = frame[column]
    lines = frame["__line__"] if "__line__" in frame.columns else None

    def fail(k: int, message: str, got: object) -> InputError:
        line = None if lines is None else int(lines[k])
        return InputError(message, path=path, line=line, got=got)

    dtype = series.dtype
    if isinstance(dtype, pl.List | pl.Array | pl.Struct | pl.Object):
        kind = "an object" if isinstance(dtype, pl.Struct | pl.Object) else "a list"
        k = int(series.is_not_null().arg_true()[0]) if series.is_not_null().any() else 0
        value = series[k]
        shown = json.dumps(value.to_list() if isinstance(value, pl.Series) else value, default=str)
        noun = "a label" if what == "label" else f"column {column!r}"
        verb = "must be" if what == "label" else "must hold"
        raise fail(k, f"{noun} {verb} one value (a string or a number), not {kind}", shown)
    if what == "label" and dtype.is_float():
        bad = series.is_nan() | series.is_infinite()
        if bad.any():
            k = int(bad.arg_true()[0])
            raise fail(k, "a label must be a string or a finite number", float(series[k]))
    return series.cast(pl.String)


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
            raise InputError(
                f"a {task} split needs a {col!r} column (name it with {{{col}}})", path=source
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
    columns: Columns | None = None,
    label_names: Sequence[str] | None = None,
) -> Split:
    """Read one JSONL / CSV / TSV / Parquet file as a classification or pair split.

    Column defaults: ``text`` (classification), ``text_a``/``text_b`` then ``premise``/
    ``hypothesis`` or ``sentence1``/``sentence2`` (pair), ``label``, ``id``.
    """
    path = Path(path)
    cols = columns or Columns()
    text, text_a, text_b, id = cols.text, cols.text_a, cols.text_b, cols.id  # noqa: A001
    label = cols.label or "label"
    frame = _read_jsonl_columns(path, task, text, text_a, text_b, label, id)
    if frame is None:
        frame = read_rows(path)
    if task == "pair" and text_a is None and text_b is None:
        found = _pair_columns(frame.columns)
        if found is None:
            raise InputError(
                "name the two pair columns with {text_a} and {text_b}; the file has "
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
    check_readable(path)
    with _mapped(path) as data:
        if data is None or not _plain_jsonl(data):
            return None
        end = data.find(b"\n")
        try:
            keys = set(json.loads(data[: end if end >= 0 else len(data)], parse_int=json_int))
        except (json.JSONDecodeError, TypeError, UnicodeDecodeError, RecursionError, HugeNumber):
            return None  # the full reader names what is wrong, with the line
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
        if _hides_nested(frame, wanted, data):
            return None
        if _keys_per_line(data, len(keys)) != frame.height:
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
    columns: Columns | None = None,
    label_names: Sequence[str] | None = None,
) -> dict[str, Split]:
    """Read a saved HuggingFace dataset (``save_to_disk``) as classification or pair splits.

    A ``ClassLabel`` label column is mapped to its names (``label_names`` overrides them).
    Needs the ``hf`` extra.
    """
    out: dict[str, Split] = {}
    cols = columns or Columns()
    text, text_a, text_b, label, id = cols.text, cols.text_a, cols.text_b, cols.label, cols.id  # noqa: A001
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


def write_rows(
    frame: pl.DataFrame,
    path: str | Path,
    *,
    like: str | Path | None = None,
    spreadsheet_safe: bool = False,
) -> Path:
    r"""Write rows as JSONL, CSV, TSV or Parquet by the suffix of ``like`` (default: ``path``).

    JSONL (``.jsonl``, ``.ndjson``, ``.json``) is one object per line in column order,
    UTF-8 with non-ASCII as is, ``None``, NaN and infinities as ``null``: valid JSON and
    byte-stable. CSV and TSV are polars' writers (a missing value is an empty field);
    Parquet keeps the types. The reader's ``__line__`` column is left out and the parent
    folder is created. The file is written atomically
    (:func:`benchcheck.io.output.atomic_file`): a killed run leaves the previous file or
    none. Returns ``path``. With ``spreadsheet_safe``, a CSV or TSV (the formats people
    open in a spreadsheet) has its formula-like cells neutralised by the one rule of
    :func:`benchcheck.io.spreadsheet.neutralise_frame` (OWASP: a leading ``'``, undone by
    :func:`~benchcheck.io.spreadsheet.restore_frame`); the other formats are written as
    always.

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
            if spreadsheet_safe:
                from benchcheck.io.spreadsheet import neutralise_frame

                frame = neutralise_frame(frame)
            frame.write_csv(tmp, separator="\t" if suffix == ".tsv" else ",")
        else:
            with uninterrupted():  # a signal mid-write would panic polars' writer threads
                frame.write_parquet(tmp)
    return path
