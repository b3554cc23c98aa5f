r"""One rule for opening and decoding input files: regular files only, UTF-8, strict JSON.

Only a regular file (or a folder) is read as data: a FIFO, a device, a socket or a symbolic
link loop is refused with one line (:func:`check_readable`) before anything opens it, so a
named pipe never blocks a run and a link to ``/dev/zero`` never fills the memory; a file is
read whole only when it fits the memory this machine has free (:func:`whole_read_limit`).

A UTF-16 or UTF-32 file (with a byte-order mark, or recognisable by its zero bytes, as
Windows tools write "Unicode" text) is reported as such, with how to convert it, instead of
whatever a reader makes of its bytes ("ragged lines", a column named ``'i\x00d\x00'``).
An undecodable UTF-8 byte is reported with its line.

JSON is read by one rule (:func:`loads_json`): a key given twice in one object, nesting
deeper than the parser recurses and lone UTF-16 surrogate escapes (``"\ud800"``) are
errors naming the file and line, never a silent choice or a traceback.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from benchcheck._memory import address_space_left, system_available
from benchcheck.errors import InputError

__all__ = [
    "HugeNumber",
    "check_readable",
    "count_newlines",
    "decode_utf8",
    "duplicate_key",
    "encoding_problem",
    "huge_number",
    "json_int",
    "loads_json",
    "nested_too_deeply",
    "read_file_bytes",
    "read_text_file",
    "refuse_other_encodings",
    "whole_read_limit",
]

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_readable(path: str | Path) -> None:
    """Raise :class:`InputError` unless ``path`` is a readable regular file or folder.

    A missing path passes (its reader says what it expected there). Symbolic links are
    followed; a loop, a link to a device, a FIFO or a socket, and a file or folder this
    user may not read are refused with one line.

    >>> check_readable("/dev/null")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: /dev/null: is a character device, not a regular file; ...
    """
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        return
    except ValueError:  # a NUL character: no file can have that name
        raise InputError("the path holds a NUL character; expected a file name", path=p) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError("a symbolic link loop; expected a file or folder", path=p) from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise InputError("cannot read: permission denied", path=p) from None
        raise InputError(f"cannot read ({exc.strerror or exc})", path=p) from None
    if stat.S_ISDIR(mode):
        try:
            os.scandir(p).close()
        except PermissionError:
            raise InputError("cannot read the folder: permission denied", path=p) from None
        return
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise InputError(f"is {kind}, not a regular file; expected a file to read", path=p)
    try:
        os.close(os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))
    except PermissionError:
        raise InputError("cannot read the file: permission denied", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", path=p) from None


def whole_read_limit() -> int:
    """Bytes a file may have to be read whole: half the memory free now (Linux), else 8 GiB.

    Free memory is the system's (``MemAvailable``), or what this process's address-space
    limit (``ulimit -v``) still leaves, whichever is less. ``BENCHCHECK_MAX_READ_BYTES``
    sets it. A file above it is refused before it is opened, instead of growing the process
    until the system kills it.
    """
    given = os.environ.get("BENCHCHECK_MAX_READ_BYTES", "")
    if given.isdigit():
        return int(given)
    free = address_space_left()
    system = system_available()
    if system is not None:
        return min(system, free if free is not None else system) // 2
    return min(8 << 30, free // 2) if free is not None else 8 << 30


def _check_size(p: Path) -> None:
    try:
        size = p.stat().st_size
    except OSError:
        return
    limit = whole_read_limit()
    if size > limit:
        raise InputError(
            f"is {size / 2**30:.1f} GiB, more than can be read whole here ({limit / 2**30:.1f} "
            "GiB, half the free memory; BENCHCHECK_MAX_READ_BYTES sets it); split it, or "
            "convert a CoNLL file to shards (benchcheck convert)",
            path=p,
        )


_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
)


def encoding_problem(head: bytes) -> str | None:
    r"""Name the encoding of a UTF-16/32 file from its first bytes, or None.

    >>> encoding_problem("id,text".encode("utf-16"))
    'UTF-16 (little-endian)'
    >>> encoding_problem("id,text\n".encode("utf-16-be"))
    'UTF-16 (big-endian)'
    >>> encoding_problem(b"id,text") is None
    True
    """
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    sample = head[:4096]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    # ASCII text in UTF-16 has a zero in every other byte; UTF-8 text has none.
    if odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.1 * len(even):
        return "UTF-16 (little-endian)"
    if even.count(0) > 0.4 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "UTF-16 (big-endian)"
    return None


def refuse_other_encodings(head: bytes, path: str | Path) -> None:
    """Raise :class:`InputError` if ``head`` (a file's first bytes) is UTF-16 or UTF-32."""
    name = encoding_problem(head)
    if name is not None:
        raise InputError(
            f"the file is encoded as {name}; expected UTF-8 (convert it, e.g. "
            f"iconv -f {name.split()[0]} -t UTF-8, or save it as UTF-8)",
            path=path,
        )


def decode_utf8(raw: bytes, path: str | Path) -> str:
    r"""Decode a whole file as UTF-8 (a leading byte-order mark dropped).

    >>> decode_utf8(b"\xef\xbb\xbfa\n", "f.txt")
    'a\n'
    >>> decode_utf8(b"a\n\xff\n", "f.txt")
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: f.txt:2: undecodable bytes; expected UTF-8 (got b'\xff')
    """
    refuse_other_encodings(raw[:4096], path)
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(
            "undecodable bytes; expected UTF-8",
            path=path,
            line=line,
            got=raw[exc.start : min(exc.end, exc.start + 4)],
        ) from None


def read_file_bytes(path: str | Path) -> bytes:
    """Read a file's bytes; a missing file, a folder or an unreadable file is an InputError.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     read_file_bytes(tmp)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: ...: is a folder; expected a file
    """
    p = Path(path)
    check_readable(p)
    if p.is_dir():
        raise InputError("is a folder; expected a file", path=p)
    _check_size(p)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=p) from None
    except PermissionError:
        raise InputError("cannot read the file: permission denied", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", path=p) from None


def read_text_file(path: str | Path) -> str:
    """Read a whole text file by the one decoding rule (:func:`decode_utf8`)."""
    return decode_utf8(read_file_bytes(path), path)


def count_newlines(data: bytes | bytearray | memoryview) -> int:
    r"""Count the ``\n`` bytes of ``data``, a mebibyte at a time with numpy.

    ``bytes.count`` of one byte compares byte by byte: 27 against 3.4 ms here for a 16 MiB
    CoNLL piece, 124 against 34 ms for pair_bench's 186 MiB JSONL file (measured; each
    slice's mask stays in cache).

    >>> count_newlines(b"a\nb\n\n"), count_newlines(b"")
    (3, 0)
    """
    import numpy as np

    raw = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 20
    return sum(int(np.count_nonzero(raw[at : at + step] == 10)) for at in range(0, raw.size, step))


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def nested_too_deeply(path: str | Path, line: int | None = None) -> InputError:
    """Return the error of JSON nested deeper than a parser recurses (a RecursionError)."""
    return InputError(
        "JSON nested too deeply (thousands of levels); expected records of plain values",
        path=path,
        line=line,
    )


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise _Duplicate(next(k for k, _ in pairs if k in seen or seen.add(k)))  # type: ignore[func-returns-value]
    return out


def duplicate_key(text: str | bytes) -> str | None:
    r"""Return the first key given twice in one object of the JSON ``text``, else None.

    >>> duplicate_key('{"id": 1, "label": "a", "label": "b"}'), duplicate_key('{"a": {"a": 1}}')
    ('label', None)
    """
    try:
        json.loads(text, object_pairs_hook=_unique)
    except _Duplicate as exc:
        return exc.key
    except (ValueError, RecursionError):
        return None
    return None


def _lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_lone_surrogate(v) for v in value)
    return False


class HugeNumber(ValueError):
    """A JSON integer longer than Python converts from text (``sys.get_int_max_str_digits``)."""

    def __init__(self, digits: str) -> None:
        super().__init__(digits[:20])
        self.digits = digits


def json_int(text: str) -> int:
    """``parse_int`` of every JSON reader: ``int(text)``, or :class:`HugeNumber` past the limit.

    Python refuses to convert integers of more than ``sys.get_int_max_str_digits()`` digits
    (4,300 by default: the conversion is quadratic); the readers turn that into one line
    naming the file and line (:func:`huge_number`) instead of Python's advice.

    >>> json_int("-12")
    -12
    >>> json_int("9" * 5000)
    Traceback (most recent call last):
    ...
    benchcheck.io._text.HugeNumber: 99999999999999999999
    """
    limit = sys.get_int_max_str_digits()
    if limit and len(text) - text.startswith("-") > limit:
        raise HugeNumber(text)
    return int(text)


def huge_number(
    exc: HugeNumber, path: str | Path, *, line: int | None = None, text: str | None = None
) -> InputError:
    """Return the one error of an over-long integer: its digits counted, file and line named.

    Without ``line``, the line is found in ``text`` (the first place the digits stand).
    """
    if line is None and text is not None:
        at = text.find(exc.digits)
        line = text.count("\n", 0, at) + 1 if at >= 0 else None
    digits = len(exc.digits) - exc.digits.startswith("-")
    return InputError(
        f"an integer of {digits} digits; expected a number of at most "
        f"{sys.get_int_max_str_digits() or digits} digits (write it as text or a float)",
        path=path,
        line=line,
    )


def loads_json(text: str | bytes, path: str | Path, *, line: int | None = None) -> Any:
    r"""Parse JSON by the one rule: strict, unique keys, bounded depth, valid Unicode.

    Errors name ``path`` and the line (``line`` for one JSON line of a file, else the
    line in ``text`` where the parser stopped).

    >>> loads_json('{"a": [1, 2]}', "f.json")
    {'a': [1, 2]}
    >>> loads_json('{"id": "e1", "id": "e2"}', "f.jsonl", line=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: f.jsonl:3: the key 'id' is given twice in one object; ...
    >>> loads_json('{"id": "\\udc80"}', "f.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: f.json:1: a lone UTF-16 surrogate escape; ...
    >>> loads_json('{"a": 1,\n "n": ' + "9" * 5000 + "}", "f.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: f.json:2: an integer of 5000 digits; expected a number of ...
    """
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("undecodable bytes; expected UTF-8", path=path, line=line) from None
    try:
        value = json.loads(text, object_pairs_hook=_unique, parse_int=json_int)
    except HugeNumber as exc:
        raise huge_number(exc, path, line=line, text=text) from None
    except _Duplicate as exc:
        raise InputError(
            f"the key {exc.key!r} is given twice in one object; expected each key once",
            path=path,
            line=line,
        ) from None
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise InputError(f"invalid JSON ({exc.msg})", path=path, line=where) from None
    except RecursionError:
        raise nested_too_deeply(path, line) from None
    if _SURROGATE.search(text) and _lone_surrogate(value):
        raise InputError(
            "a lone UTF-16 surrogate escape; expected valid Unicode text",
            path=path,
            line=line if line is not None else 1,
        )
    return value
