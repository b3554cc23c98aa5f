"""The data files of a local folder read by ``datasets.load_dataset``, bounded by decoded size.

``load_dataset`` on a folder of data files (``hf:path/to/folder``) decodes every file into
Arrow before benchcheck sees a row: a 1 MB Parquet dictionary bomb or a ``.jsonl.gz`` that
inflates to gigabytes is decoded whole, the bound of :mod:`benchcheck.io._decoded` never
asked. :func:`check_data_files_decoded` measures each file the loader will read *before*
it runs, by the check the same file gets when given directly, the files counted together
against one bound (:func:`benchcheck.io._text.whole_read_limit`):

- Parquet: :func:`benchcheck.io._decoded.check_parquet_decoded` (footer, then dictionaries
  measured before they are expanded);
- Arrow (a stream or the IPC file format): :func:`benchcheck.io._decoded_arrow.check_arrow_decoded`;
- compressed by gzip, bz2, xz, Zstandard or LZ4 (``*.jsonl.gz``, ``*.csv.zst``, …): the
  stream is decompressed in 1 MiB pieces and counted, never held whole, refused once the
  count passes the bound (an honest file is decompressed twice, once here);
- any other file (JSON lines, CSV, text): its size on disk.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import pyarrow as pa

from benchcheck.errors import InputError
from benchcheck.io._decoded import _refuse, check_parquet_decoded
from benchcheck.io._decoded_arrow import check_arrow_decoded
from benchcheck.io._text import whole_read_limit

__all__ = ["check_compressed_decoded", "check_data_file", "check_data_files_decoded"]

#: Compression suffixes ``datasets`` decompresses on the fly, and their codecs.
COMPRESSIONS = {
    ".gz": "gzip",
    ".bz2": "bz2",
    ".xz": "xz",
    ".zst": "zstd",
    ".zstd": "zstd",
    ".lz4": "lz4",
}
_PIECE = 1 << 20


def _open(path: Path, codec: str) -> IO[bytes]:
    if codec == "gzip":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if codec == "bz2":
        return bz2.open(path, "rb")
    if codec == "xz":
        return lzma.open(path, "rb")
    return pa.CompressedInputStream(pa.OSFile(str(path)), codec)  # type: ignore[return-value]


def check_compressed_decoded(
    path: str | Path, codec: str, *, limit: int | None = None, used: int = 0
) -> int:
    """Count what the ``codec`` stream at ``path`` decompresses to; refuse past ``limit``.

    ``used`` bytes are already counted. Return the running total.

    >>> import tempfile, os
    >>> name = os.path.join(tempfile.mkdtemp(), "t.jsonl.gz")
    >>> with gzip.open(name, "wb") as fh:
    ...     _ = fh.write(b"x" * 5000)
    >>> check_compressed_decoded(name, "gzip", limit=5000, used=0)
    5000
    >>> check_compressed_decoded(name, "gzip", limit=5000, used=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: ...t.jsonl.gz: the file (decompressed) decodes to more than the bound of 5,000 bytes ...
    """  # noqa: E501
    limit = whole_read_limit() if limit is None else limit
    total = used
    try:
        with _open(Path(path), codec) as stream:
            while piece := stream.read(_PIECE):
                total += len(piece)
                if total > limit:
                    raise _refuse("the file (decompressed)", limit, path)
    except InputError:
        raise
    except (OSError, EOFError, ValueError, lzma.LZMAError, pa.ArrowException) as exc:
        raise InputError(f"cannot decompress as {codec}: {exc}", path=path) from None
    return total


def check_data_file(path: str | Path, *, limit: int | None = None, used: int = 0) -> int:
    """Measure one data file by its format's decoded-size check (module docstring)."""
    limit = whole_read_limit() if limit is None else limit
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in COMPRESSIONS:
        return check_compressed_decoded(p, COMPRESSIONS[suffix], limit=limit, used=used)
    if suffix == ".parquet":
        return check_parquet_decoded(p, limit=limit, used=used)
    if suffix == ".arrow":
        return check_arrow_decoded(p, limit=limit, used=used)
    try:
        total = used + p.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path=p) from None
    if total > limit:
        raise _refuse("the file", limit, p)
    return total


def check_data_files_decoded(files: Iterable[str | Path], *, limit: int | None = None) -> int:
    """Measure ``files`` together, each by its format's check; refuse past ``limit``."""
    limit = whole_read_limit() if limit is None else limit
    total = 0
    for file in files:
        total = check_data_file(file, limit=limit, used=total)
    return total
