"""A corpus too large for memory: shards streamed batch by batch, never decompressed to disk.

Shards come as pretraining dumps ship them:

- **Parquet** (``*.parquet``): the text column read record batch by record batch;
- **JSON lines** (``*.jsonl``, ``*.ndjson``, ``*.json``), plain or compressed with gzip
  (``.gz``) or Zstandard (``.zst``, ``.zstd``): decompressed as a stream
  (``pyarrow.CompressedInputStream``) and parsed block by block by Arrow's JSON reader, only
  the text (and id) field typed, every other field skipped. Invalid UTF-8 becomes U+FFFD.

The text column is chosen by name (``column``); an optional id column names documents in
the output. Documents are addressed by ``(file, row)``, the row being the 0-based record
index in the file. Null or missing texts are skipped (their rows counted).

:func:`corpus_units` cuts the files into units of work — a JSON-lines file, or a run of a
Parquet file's row groups of at most ``unit_mb`` of text — in file order: the embedded
engine reads them one after the other, the Ray engine one per task.

Errors name the shard: no file matching, a file of another format, a shard without the text
column (Parquet: its schema; JSON lines: its first record), text of another type, a
compressed shard cut short, a record that is not JSON.
"""

from __future__ import annotations

import glob
import json
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from benchcheck.errors import InputError
from benchcheck.io._decoded import _refuse, dictionary_columns, expand_dictionary
from benchcheck.io._parquet_pages import check_page_headers
from benchcheck.io._text import HugeNumber, huge_number, json_int

__all__ = [
    "CorpusBatch",
    "CorpusUnit",
    "corpus_files",
    "corpus_kind",
    "corpus_units",
    "read_unit",
]

#: Suffixes read as JSON lines, and the compressions of those files.
JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
CODECS = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd"}
#: The formats ``--corpus`` accepts, as users name them.
FORMATS = ".parquet, .jsonl/.ndjson/.json, each JSON-lines form also .gz or .zst"


def corpus_kind(path: str | Path) -> tuple[str, str | None] | None:
    """``("parquet", None)``, ``("jsonl", codec)``, or None for another file.

    >>> corpus_kind("a/b.jsonl.zst"), corpus_kind("x.parquet"), corpus_kind("x.txt")
    (('jsonl', 'zstd'), ('parquet', None), None)
    """
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes[-1:] == [".parquet"]:
        return "parquet", None
    codec = CODECS.get(suffixes[-1]) if suffixes else None
    body = suffixes[-2:-1] if codec else suffixes[-1:]
    if body and body[0] in JSON_SUFFIXES:
        return "jsonl", codec
    return None


def corpus_files(patterns: str | Path | Sequence[str | Path]) -> list[Path]:
    """Expand glob patterns, files and folders (every corpus file below) into sorted paths."""
    if isinstance(patterns, (str, Path)):
        patterns = [patterns]
    found: set[Path] = set()
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            found.update(p for p in path.rglob("*") if corpus_kind(p) is not None)
        elif path.is_file():
            if corpus_kind(path) is None:
                raise InputError(f"not a corpus file; expected {FORMATS}", path=path)
            found.add(path)
        else:
            matched = [Path(p) for p in glob.glob(str(pattern), recursive=True)]
            found.update(p for p in matched if corpus_kind(p) is not None)
    files = sorted(p for p in found if p.is_file())
    if not files:
        raise InputError(
            f"no corpus files match ({FORMATS})", path=", ".join(str(p) for p in patterns)
        )
    return files


@dataclass(frozen=True)
class CorpusUnit:
    """A unit of work: a JSON-lines file, or row groups ``[rg_lo, rg_hi)`` of a Parquet file."""

    index: int
    path: str
    kind: str
    codec: str | None = None
    rg_lo: int = 0
    rg_hi: int = 0
    first_row: int = 0
    text_bytes: int = 0  # Parquet: uncompressed bytes of the text column (0: unknown)
    rows: int = 0


@dataclass(frozen=True)
class CorpusBatch:
    """Documents of one batch: non-null texts, their rows in the file, their ids."""

    texts: pa.Array
    rows: np.ndarray
    ids: pa.Array | None = None


def _open_parquet(path: str | Path):  # type: ignore[no-untyped-def]
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - any arrow error is a bad file here
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None


def _check_columns(names: Sequence[str], column: str, id_column: str | None, path: Path) -> None:
    for name, param in ((column, "text_column"), (id_column, "corpus_id_column")):
        if name is not None and name not in names:
            raise InputError(
                f"no column {name!r}; the file has {', '.join(names) or 'no column'} "
                f"(choose {{{param}}})",
                path=path,
            )


def _check_types(schema: pa.Schema, column: str, id_column: str | None, path: Path) -> None:
    """Refuse a text column that is not text, or an id column that is not a scalar.

    From the schema, before a value is read: a list column decodes all its elements into
    one batch, however few its rows (a ``list<string>`` of 10M repeated values).
    """
    kind = schema.field(column).type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)):
        raise InputError(f"the text column holds {kind}, expected text", path=path)
    if id_column is not None and pa.types.is_nested(schema.field(id_column).type):
        raise InputError(
            f"the id column holds {schema.field(id_column).type}, expected text or a number",
            path=path,
        )


def corpus_units(
    files: Sequence[Path], *, column: str, id_column: str | None = None, unit_mb: int = 256
) -> list[CorpusUnit]:
    """Cut the files into units of work, in file order (Parquet metadata read here)."""
    units: list[CorpusUnit] = []
    limit = unit_mb << 20
    for path in files:
        kind, codec = corpus_kind(path) or ("", None)
        if kind != "parquet":
            units.append(CorpusUnit(len(units), str(path), kind, codec))
            continue
        meta = _open_parquet(path)
        _check_columns(meta.schema_arrow.names, column, id_column, path)
        col = meta.schema_arrow.names.index(column)
        md = meta.metadata
        lo, size, first, rows = 0, 0, 0, 0
        for rg in range(md.num_row_groups):
            group = md.row_group(rg)
            size += group.column(col).total_uncompressed_size
            rows += group.num_rows
            if size >= limit or rg == md.num_row_groups - 1:
                units.append(
                    CorpusUnit(len(units), str(path), kind, None, lo, rg + 1, first, size, rows)
                )
                lo, first, size, rows = rg + 1, first + rows, 0, 0
        if md.num_row_groups == 0:
            units.append(CorpusUnit(len(units), str(path), kind))
    return units


def read_unit(
    unit: CorpusUnit, *, column: str, id_column: str | None = None, batch_mb: int = 32
) -> Iterator[CorpusBatch]:
    """Stream a unit's documents, about ``batch_mb`` of text per batch; errors name the file."""
    if unit.kind == "parquet":
        yield from _parquet_batches(unit, column, id_column, batch_mb << 20)
    else:
        yield from _json_batches(unit, column, id_column, batch_mb << 20)


def _batch(texts: pa.Array, first_row: int, ids: pa.Array | None, path: str) -> CorpusBatch:
    if not (pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)):
        if pa.types.is_null(texts.type):
            texts = texts.cast(pa.large_string())
        else:
            raise InputError(f"the text column holds {texts.type}, expected text", path=path)
    valid = texts.is_valid().to_numpy(zero_copy_only=False)
    keep = np.flatnonzero(valid)
    rows = first_row + keep
    if keep.size < len(texts):
        sel = pa.array(keep)
        texts = texts.take(sel)
        ids = None if ids is None else ids.take(sel)
    if ids is not None and not pa.types.is_large_string(ids.type):
        ids = ids.cast(pa.large_string())
    return CorpusBatch(texts, rows, ids)


def _parquet_batches(
    unit: CorpusUnit, column: str, id_column: str | None, batch_bytes: int
) -> Iterator[CorpusBatch]:
    """Batches of about ``batch_bytes`` decoded bytes each.

    Rows per read are sized from the pages' uncompressed size, which bounds plain values but
    not dictionary ones (one long value may stand for every row). So the columns are read as
    dictionaries and cut by their decoded size before they are decoded
    (:func:`benchcheck.io._decoded.expand_dictionary`).
    """
    import pyarrow.parquet as pq

    handle = _open_parquet(unit.path)
    _check_columns(handle.schema_arrow.names, column, id_column, Path(unit.path))
    _check_types(handle.schema_arrow, column, id_column, Path(unit.path))
    if unit.rg_hi <= unit.rg_lo:
        return
    cols = [column] if id_column is None else [column, id_column]
    _check_record_sizes(handle.metadata, unit, column, batch_bytes)
    # a page header declaring more than its footer is refused before Arrow allocates it; the
    # corpus streams, so the headers are held to the footer only, not to a whole-read bound
    rgs = range(unit.rg_lo, unit.rg_hi)
    check_page_headers(
        unit.path, handle, names=cols, limit=sys.maxsize, refuse=_refuse, row_groups=rgs
    )
    per_row = unit.text_bytes / unit.rows if unit.rows else 1024.0
    rows_per_batch = min(_MAX_ROWS, max(1, int(batch_bytes / max(per_row, 1.0))))
    row = unit.first_row
    try:
        handle = pq.ParquetFile(
            unit.path, read_dictionary=dictionary_columns(handle.schema_arrow, cols)
        )
        for batch in handle.iter_batches(
            batch_size=rows_per_batch, row_groups=range(unit.rg_lo, unit.rg_hi), columns=cols
        ):
            for first, part in expand_dictionary(batch.columns, max_bytes=batch_bytes):
                ids = part[1] if id_column is not None else None
                yield _batch(part[0], row + first, ids, unit.path)
            row += batch.num_rows
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any arrow error is a bad shard here
        raise InputError(f"cannot read Parquet after row {row}: {exc}", path=unit.path) from None


def _check_record_sizes(md, unit: CorpusUnit, column: str, batch_bytes: int) -> None:  # type: ignore[no-untyped-def]
    """Refuse a row group whose texts average more than a batch: some record is longer.

    From the footer, before a page is read: a page is decompressed whole, and one text
    may fill it (a 1.5 GB value compresses to 50 kB). The JSON-lines reader refuses a
    record longer than a batch the same way.
    """
    leaf = next(j for j in range(md.num_columns) if md.schema.column(j).path == column)
    for rg in range(unit.rg_lo, unit.rg_hi):
        group = md.row_group(rg)
        size = group.column(leaf).total_uncompressed_size
        if group.num_rows and size / group.num_rows > batch_bytes:
            raise InputError(
                f"row group {rg}: its texts average {size / group.num_rows / 2**20:.0f} MiB "
                f"a record, past {batch_bytes / 2**20:.0f} MiB, more than one batch of the "
                "reader holds (its batch size bounds a record)",
                path=unit.path,
            )


#: rows of one Parquet read at most (read as dictionaries: 4 bytes of indices a row)
_MAX_ROWS = 1 << 20


_JSON_TYPES = {str: pa.large_string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}


def _stream(unit: CorpusUnit) -> pa.NativeFile:
    try:
        raw: pa.NativeFile = pa.OSFile(unit.path, "rb")
    except OSError as exc:
        raise InputError(f"cannot open: {exc}", path=unit.path) from None
    return pa.CompressedInputStream(raw, unit.codec) if unit.codec else raw


_BLANK = re.compile(rb"[ \t\n\r\x0b\x0c]*")


def _first_record(unit: CorpusUnit, max_bytes: int) -> tuple[dict[str, object], int] | None:
    """Return the first record of a JSON-lines shard and its line (None without records).

    Linear in what it reads: blank lines are skipped as they come, the line is searched for
    its end only in what is new, and a first line past ``max_bytes`` (the most a batch of
    the reader holds, so no record longer can be read) is refused when it passes the bound.
    """
    stream = _stream(unit)
    buf, line_no, searched = bytearray(), 1, 0
    try:
        while True:
            blank = _BLANK.match(buf).end()  # type: ignore[union-attr]
            if blank:
                line_no += buf.count(b"\n", 0, blank)
                del buf[:blank]
                searched = 0
            end = buf.find(b"\n", searched) if buf else -1
            if end >= 0:
                return _record(bytes(buf[:end]), unit.path, line_no), line_no
            searched = len(buf)
            if len(buf) > max_bytes:
                raise InputError(
                    f"line {line_no} runs past {max_bytes / 2**20:.0f} MiB without ending, more "
                    "than one batch of the reader holds (its batch size bounds a record)",
                    path=unit.path,
                )
            chunk = stream.read(1 << 20)
            if not chunk:
                return (_record(bytes(buf), unit.path, line_no), line_no) if buf else None
            buf += chunk
    except OSError as exc:
        raise _stream_error(exc, 0, unit.path) from None
    finally:
        stream.close()


def _record(line: bytes, path: str, line_no: int) -> dict[str, object]:
    try:
        record = json.loads(line, parse_int=json_int)
    except HugeNumber as exc:
        raise huge_number(exc, path, line=line_no) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not JSON lines: {exc}", path=path, line=line_no) from None
    if not isinstance(record, dict):
        raise InputError("not JSON lines: a record must be an object", path=path, line=line_no)
    return record


_ROW = re.compile(r"in row (\d+)")


def _stream_error(exc: OSError, row: int, path: str) -> InputError:
    """Say that a shard cannot be read or decompressed to its end."""
    cut = "compressed stream cut short" if "runcated" in str(exc) else "unreadable stream"
    return InputError(f"{cut} after record {row}: {exc}", path=path)


def _json_batches(
    unit: CorpusUnit, column: str, id_column: str | None, batch_bytes: int
) -> Iterator[CorpusBatch]:
    import pyarrow.json as pj

    block = max(1 << 16, min(batch_bytes, (1 << 31) - 1))
    found = _first_record(unit, block)
    if found is None:
        return
    first, line_no = found
    if column not in first or (id_column is not None and id_column not in first):
        missing = column if column not in first else id_column
        param = "text_column" if missing == column else "corpus_id_column"
        raise InputError(
            f"no column {missing!r} in the first record; it has "
            f"{', '.join(first) or 'no field'} (choose {{{param}}})",
            path=unit.path,
            line=line_no,
        )
    fields = [pa.field(column, pa.large_string())]
    if id_column is not None:
        kind = _JSON_TYPES.get(type(first[id_column]), pa.large_string())
        fields.append(pa.field(id_column, kind))
    options = pj.ParseOptions(explicit_schema=pa.schema(fields), unexpected_field_behavior="ignore")
    row = 0
    stream = _stream(unit)
    try:
        reader = pj.open_json(
            stream, read_options=pj.ReadOptions(block_size=block), parse_options=options
        )
        for batch in reader:
            ids = batch.column(1) if id_column is not None else None
            yield _batch(batch.column(0), row, ids, unit.path)
            row += batch.num_rows
    except OSError as exc:
        raise _stream_error(exc, row, unit.path) from None
    except pa.ArrowInvalid as exc:
        at = _ROW.search(str(exc))
        where = f"record {row + int(at.group(1)) + 1}" if at else f"after record {row}"
        raise InputError(f"{where}: {exc}", path=unit.path) from None
    finally:
        stream.close()
