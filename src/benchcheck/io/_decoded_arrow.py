"""Arrow IPC streams (a ``save_to_disk`` folder's files) bounded by decoded size.

``datasets.load_from_disk`` memory-maps its Arrow files, so their size looks free; but an
IPC-compressed stream (zstd, lz4) is decompressed whole when it is read, and a dictionary
of text is expanded when the table is cast or handed to polars: one 1,000-character value
under 10M indices is a 4 kB file that decodes to 10 GB. :func:`check_arrow_decoded`
measures both before anything is decoded, under the bound of
:func:`benchcheck.io._text.whole_read_limit`, the rule of :mod:`benchcheck.io._decoded`:

1. every message's buffers as the stream declares them, without decompressing: a
   compressed buffer starts with its uncompressed length (int64; ``-1``: stored as is), an
   uncompressed one counts its length. No batch then decompresses past the bound;
2. then batch by batch, each text dictionary's value lengths taken by its indices
   (:func:`benchcheck.io._decoded.decoded_nbytes`), the other columns their buffers.

The running total of a folder's files is refused, naming the file, once it passes.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from benchcheck.errors import InputError
from benchcheck.io._decoded import _refuse, decoded_nbytes
from benchcheck.io._text import whole_read_limit

__all__ = ["check_arrow_decoded", "check_saved_hf_decoded", "declared_nbytes", "saved_hf_files"]

#: ``MessageHeader`` union tags of the Arrow format (``Message.fbs``)
_DICTIONARY_BATCH, _RECORD_BATCH = 2, 3
#: The IPC *file* format starts with this (then padding to 8 bytes, then a stream)
_FILE_MAGIC = b"ARROW1"


class _Table:
    """One flatbuffer table: its fields read by index, every offset checked against the data."""

    def __init__(self, data: bytes, pos: int) -> None:
        self.data, self.pos = data, pos
        vtable = pos - self._int("<i", pos)
        self.vtable = vtable
        self.vsize = self._int("<H", vtable)

    def _int(self, fmt: str, at: int) -> int:
        if at < 0 or at + struct.calcsize(fmt) > len(self.data):
            raise ValueError("an offset points outside the message")
        return int(struct.unpack_from(fmt, self.data, at)[0])

    def _field(self, index: int) -> int:
        """Position of field ``index`` (0: absent)."""
        slot = 4 + 2 * index
        offset = self._int("<H", self.vtable + slot) if slot < self.vsize else 0
        return self.pos + offset if offset else 0

    def scalar(self, index: int, fmt: str, default: int = 0) -> int:
        at = self._field(index)
        return self._int(fmt, at) if at else default

    def table(self, index: int) -> _Table | None:
        at = self._field(index)
        return _Table(self.data, at + self._int("<I", at)) if at else None

    def structs(self, index: int, width: int) -> Iterator[int]:
        """Positions of a vector of ``width``-byte structs."""
        at = self._field(index)
        if not at:
            return
        start = at + self._int("<I", at)
        count = self._int("<I", start)
        if start + 4 + count * width > len(self.data):
            raise ValueError("a vector runs past the message")
        yield from range(start + 4, start + 4 + count * width, width)


def _batch_table(message: pa.ipc.Message) -> _Table | None:
    """Return the ``RecordBatch`` table of a record or dictionary batch message (else None)."""
    data = message.metadata.to_pybytes()
    root = _Table(data, struct.unpack_from("<I", data, 0)[0])
    kind = root.scalar(1, "<B")
    header = root.table(2)
    if header is None or kind not in (_DICTIONARY_BATCH, _RECORD_BATCH):
        return None
    return header.table(1) if kind == _DICTIONARY_BATCH else header


def declared_nbytes(message: pa.ipc.Message) -> int:
    """Bytes a batch message's buffers take once decompressed, as the stream declares them.

    Read from the message's metadata and the first 8 bytes of each compressed buffer;
    nothing is decompressed.
    """
    batch = _batch_table(message)
    if batch is None:
        return 0
    compressed = batch.table(3) is not None
    body = message.body
    total = 0
    for at in batch.structs(2, 16):
        offset, length = struct.unpack_from("<qq", batch.data, at)
        if offset < 0 or length < 0 or (body is not None and offset + length > body.size):
            raise ValueError("a buffer lies outside the message body")
        if not compressed or length == 0:
            total += length
            continue
        if length < 8 or body is None:
            raise ValueError("a compressed buffer has no length prefix")
        (size,) = struct.unpack("<q", body[offset : offset + 8].to_pybytes())
        total += length - 8 if size == -1 else size
        if size < -1:
            raise ValueError("a compressed buffer declares a negative length")
    return total


def check_arrow_decoded(path: str | Path, *, limit: int | None = None, used: int = 0) -> int:
    """Measure what the Arrow IPC stream (or file) at ``path`` decodes to; refuse past ``limit``.

    ``used`` bytes are already counted (other files of the same folder). Return the running
    total. Nothing is decompressed before step 1 (module docstring) has passed.
    """
    limit = whole_read_limit() if limit is None else limit
    total = used
    try:
        with pa.memory_map(str(path)) as source:
            is_file = source.read(len(_FILE_MAGIC)) == _FILE_MAGIC
            source.seek(8 if is_file else 0)  # the file format: magic, padding, a stream
            for message in pa.ipc.MessageReader.open_stream(source):
                total += declared_nbytes(message)
                if total > limit:
                    raise _refuse("the Arrow stream (its buffers decompressed)", limit, path)
        total = used
        with pa.memory_map(str(path)) as source:
            reader = pa.ipc.open_file(source) if is_file else pa.ipc.open_stream(source)
            batches = (
                (reader.get_batch(i) for i in range(reader.num_record_batches))
                if is_file
                else reader
            )
            for batch in batches:
                total += sum(decoded_nbytes(column) for column in batch.columns)
                if total > limit:
                    raise _refuse("the table", limit, path)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any arrow or layout error is a bad file here
        raise InputError(f"cannot read as an Arrow stream: {exc}", path=path) from None
    return total


def saved_hf_files(folder: Path) -> list[Path]:
    """List the Arrow files ``datasets.load_from_disk`` reads from ``folder`` (``state.json``).

    Unreadable bookkeeping gives no files: the loader then says what is wrong.
    """
    splits = [folder]
    try:
        if (folder / "dataset_dict.json").exists():
            names = json.loads((folder / "dataset_dict.json").read_text())["splits"]
            splits = [folder / str(name) for name in names]
        files = []
        for split in splits:
            state = json.loads((split / "state.json").read_text())
            files += [split / str(entry["filename"]) for entry in state["_data_files"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [f for f in files if f.is_file()]


def check_saved_hf_decoded(folder: Path, *, limit: int | None = None) -> int:
    """Measure a ``save_to_disk`` folder's Arrow files together; refuse past ``limit``."""
    limit = whole_read_limit() if limit is None else limit
    total = 0
    for file in saved_hf_files(folder):
        total = check_arrow_decoded(file, limit=limit, used=total)
    return total
