"""CoNLL reader: token in the first column, tag in the last, any number of columns between.

Format rules (each has a golden test):

- fields are separated by tabs when the first content line holds a tab, else by runs of
  spaces and tabs (only ASCII space and tab separate: NBSP or control characters are token
  characters);
- blank or whitespace-only lines separate sentences; ``-DOCSTART-`` lines are skipped (and
  also end a sentence); CRLF line endings and a UTF-8 byte-order mark are tolerated;
- every content line has at least two fields: the token is the first, the tag the last, and
  the columns between are free (their number may change from line to line, as in MeCab
  output with 10 or 12 feature columns);
- a tab-separated file (its first content line holds a tab) splits every line at tabs only,
  so a line without a tab is an error that says so;
- a NUL byte is an error (no token holds one; it is a sign of a binary or UTF-16 file);
- the tagging scheme (IOB1, IOB2, IOE1, IOE2, BIOES, BILOU, BMES) is detected, or forced
  with ``scheme=`` (see :mod:`benchcheck.data.schemes`); entity types may be renamed with
  ``type_map=`` / ``coarse_types=``.

The common, well-formed case (LF line ends, one separator between fields) is cut with numpy
at the separator bytes into Arrow string views of the file's own bytes, and for statistics
the tags are coded from their bytes without a tag column (:func:`_parse_bytes`); CRLF files
go through polars' CSV reader (:func:`_parse_csv`); anything else (rows of different
widths, runs of separators, whitespace-only lines, stray carriage returns) goes through a
line-by-line parser that gives the same result or a precise error. None of them runs
Python per line.

Files are read in chunks cut at blank lines (sentence boundaries), and the parts are
combined exactly (see :func:`benchcheck.io._ner.combine_splits`): with ``keep_tokens=False``
only the per-sentence and per-entity columns the statistics need are kept, so a corpus far
larger than memory streams through in bounded memory and gives the same numbers.
"""

from __future__ import annotations

import dataclasses
import io
import re
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl
import pyarrow as pa

from benchcheck.data.hashing import mix64
from benchcheck.data.model import Split, file_split_name
from benchcheck.errors import InputError
from benchcheck.io._ner import TagCodes, _slot_table, build_ner_split, combine_splits
from benchcheck.io._text import check_readable, count_newlines
from benchcheck.io._tokens import series_from_arrow
from benchcheck.io._workers import WORKERS, chunk_pool, settle

DOCSTART = "-DOCSTART-"
_DOCSTART_BYTES = DOCSTART.encode()
#: Only ASCII space and tab separate fields (a token may be any other character, NBSP and
#: control characters included); a trailing carriage return belongs to the line ending.
_WS = " \t\r"
_WS_BYTES = b" \t\r"
_SPACES = re.compile(r"[ \t]+")
CHUNK_BYTES = 16 << 20

#: (tab-separated?, number of fields), decided by the file's first content line.
Format = tuple[bool, int]


class Parsed(NamedTuple):
    """One parsed piece: token and tag per kept row, their 1-based lines, sentence starts."""

    token: pl.Series
    tag: pl.Series | None
    line: np.ndarray
    sentence_start: np.ndarray
    #: Newlines in the piece (the next piece's line offset).
    n_newlines: int
    #: With ``filtered=False``: ``token``/``tag`` keep every line (None on blank ones) and
    #: this picks the token rows; ``line`` and ``sentence_start`` follow it.
    rows: np.ndarray | None = None
    #: With ``tag_codes=True`` (:func:`_parse_bytes`): code per token, tag per code and
    #: first row of each code (every code occurs), and ``tag`` is None.
    tag_codes: TagCodes | None = None


def read_conll(
    path: str | Path,
    *,
    name: str | None = None,
    scheme: str | None = None,
    strict: bool = False,
    keep_tokens: bool = True,
    chunk_bytes: int = CHUNK_BYTES,
    type_map: Mapping[str, str] | None = None,
    coarse_types: bool = False,
) -> Split:
    """Read one CoNLL file into an NER :class:`~benchcheck.data.Split`.

    ``keep_tokens=False`` drops the token table (statistics do not need it) so that memory
    stays bounded by ``chunk_bytes`` plus a few bytes per sentence and entity. Raises
    :class:`~benchcheck.errors.InputError` naming the file and line on malformed lines,
    unknown tag shapes, an empty file, or bytes that are not UTF-8, and with ``strict`` on
    the first transition the (given or detected) scheme forbids.
    """
    path = Path(path)
    parts: list[Split] = []
    fmt: Format | None = None

    def read_part(data: bytes, fmt: Format) -> tuple[Split | None, int]:
        """Parse and hash one chunk with line numbers relative to it; count its lines."""
        # Statistics need no tag column, only codes (no string column is made for tags).
        coded = None if keep_tokens else _parse_bytes(data, fmt, tag_codes=True)
        token, tag, line, sentence_start, n_newlines, rows, tag_codes = (
            coded or _parse_fast(data, fmt, filtered=False) or _parse_lines(data, path, fmt)
        )
        part = None
        if token.len() if rows is None else rows.size:
            part = build_ner_split(
                name=name or file_split_name(path),
                source=str(path),
                token=token,
                tag=tag,
                sentence_start=sentence_start,
                line=line,
                scheme=scheme,
                strict=strict and scheme is not None,
                keep_tokens=keep_tokens,
                type_map=type_map,
                coarse_types=coarse_types,
                check_letters=False,
                rows=rows,
                tag_codes=tag_codes,
            )
        return part, n_newlines

    def take(future: Future[tuple[Split | None, int]], offset: int) -> int:
        """Collect one chunk (in file order), shifting its line numbers by ``offset``."""
        try:
            part, n_lines = future.result()
        except InputError as exc:
            if exc.line is None or exc.path != str(path):
                raise
            raise InputError(
                exc.message, path=exc.path, line=exc.line + offset, got=exc.got
            ) from None
        if part is not None:
            table = part.table.with_columns(pl.col("line") + offset)
            letters = {k: (at + offset, tag) for k, (at, tag) in part.tag_letters.items()}
            parts.append(dataclasses.replace(part, table=table, tag_letters=letters))
        return offset + n_lines

    # Chunks are parsed and hashed on the shared worker threads (:mod:`._workers`; polars
    # and numpy release the GIL), each counting its own lines; at most WORKERS are in
    # flight, and they are collected in file order, so line numbers are exact and the
    # first error in the file is the one raised.
    pending: deque[Future[tuple[Split | None, int]]] = deque()
    offset = 0
    ends_with_newline = True
    pool = chunk_pool()
    try:
        for data in _pieces(path, chunk_bytes):
            ends_with_newline = data.endswith(b"\n")
            if fmt is None or not fmt[1]:  # until a chunk with a content line fixes the format
                fmt = _format_of(data, path, 1)
            pending.append(pool.submit(read_part, data, fmt))
            while len(pending) > WORKERS:
                offset = take(pending.popleft(), offset)
        while pending:
            offset = take(pending.popleft(), offset)
    finally:
        settle(pending)
    last_line = offset + (0 if ends_with_newline else 1)
    if not parts:
        raise empty_split_error(path, last_line)
    split = combine_splits(parts, scheme=scheme)
    if strict and split.tag_repairs:
        # The scheme is known only once the whole file is read: read again, forcing it,
        # to stop at the first invalid transition with its line.
        read_conll(
            path,
            scheme=split.scheme,
            strict=True,
            keep_tokens=False,
            chunk_bytes=chunk_bytes,
            type_map=type_map,
            coarse_types=coarse_types,
        )
    return split


def _docstart_lines(data: bytes) -> np.ndarray:
    """Return the 1-based line of each ``-DOCSTART-`` line of a file's bytes (sorted)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)
    at = np.array(
        [
            m.start()
            for m in re.finditer(
                rb"(?m)^(?:\xef\xbb\xbf)?[ \t]*" + re.escape(_DOCSTART_BYTES), data
            )
        ],
        dtype=np.int64,
    )
    return (np.searchsorted(newlines, at) + 1).astype(np.int64)


def sentence_documents(path: str | Path, first_lines: np.ndarray) -> np.ndarray | None:
    r"""Document number of each sentence (1-based: how many ``-DOCSTART-`` lines precede it).

    ``first_lines``: the 1-based line of each sentence's first token (``Split.table["line"]``).
    ``None`` when the file has no ``-DOCSTART-`` line; sentences before the first one are
    document 0.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "a.conll")
    >>> _ = open(f, "w").write("-DOCSTART- O\n\nA O\n\n-DOCSTART- O\n\nB O\n\nC O\n")
    >>> sentence_documents(f, np.array([3, 7, 9])).tolist()
    [1, 2, 2]
    """
    data = Path(path).read_bytes()
    if _DOCSTART_BYTES not in data:
        return None
    marker_lines = _docstart_lines(data)
    return np.searchsorted(marker_lines, np.asarray(first_lines, dtype=np.int64)).astype(np.int64)


def document_names(path: str | Path, first_lines: Sequence[int]) -> list[str | None]:
    r"""Name each sentence's document ``doc N (line L)``: the N-th ``-DOCSTART-``, at line L.

    A file without ``-DOCSTART-`` (and a sentence before the first one) has no document (None).

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "a.conll")
    >>> _ = open(f, "w").write("-DOCSTART- O\n\nA O\n\n-DOCSTART- O\n\nB O\n")
    >>> document_names(f, [3, 7])
    ['doc 1 (line 1)', 'doc 2 (line 5)']
    """
    data = Path(path).read_bytes()
    if _DOCSTART_BYTES not in data:
        return [None] * len(first_lines)
    starts = _docstart_lines(data)
    where = np.searchsorted(starts, np.asarray(first_lines, dtype=np.int64))
    return [None if k == 0 else f"doc {k} (line {starts[k - 1]})" for k in where.tolist()]


def empty_split_error(path: Path, last_line: int) -> InputError:
    """Return the error for a file with no sentence (also raised by ``benchcheck convert``).

    Named at the file's last line: everything up to it was blank or -DOCSTART-.
    """
    return InputError(
        "empty split: expected at least one sentence with tokens and tags, found only "
        "blank and -DOCSTART- lines up to here",
        path=path,
        line=last_line or None,
    )


def _pieces(path: Path, chunk_bytes: int):  # type: ignore[no-untyped-def]
    """Yield pieces of the file of about ``chunk_bytes``, each ending at a blank line.

    Each piece is one ``bytearray`` the file is read into (after the few bytes carried over
    from the previous read), cut in place: no piece-sized copy is made, so each piece's
    memory is touched once, by the read.
    """
    check_readable(path)  # a FIFO would block, /dev/zero would never end
    try:
        handle = path.open("rb", buffering=0)
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a directory", path=path) from None
    carry = b""
    first = True
    with handle:
        while True:
            data = bytearray(len(carry) + chunk_bytes)
            data[: len(carry)] = carry
            view = memoryview(data)
            got = len(carry)
            while got < len(data):  # a raw read may return less than asked
                n = handle.readinto(view[got:])
                if not n:
                    break
                got += n
            view.release()
            at_end = got < len(data)
            del data[got:]
            if first:
                first = False
                if data.startswith(b"\xef\xbb\xbf"):
                    del data[:3]
            if at_end:
                if data:
                    yield data
                return
            # The last blank line (LF or CRLF); the CRLF search only looks past the last
            # "\n\n", so an LF file is not scanned whole for a pattern it never has.
            lf = data.rfind(b"\n\n")
            crlf = data.rfind(b"\n\r\n", max(lf, 0))
            cut = max(lf + 2 if lf >= 0 else 0, crlf + 3 if crlf >= 0 else 0)
            if cut == 0:
                carry = bytes(data)
                continue
            carry = bytes(data[cut:])
            del data[cut:]
            yield data


def _chunks(path: Path, chunk_bytes: int):  # type: ignore[no-untyped-def]
    """Yield (bytes, first line number, newline count) pieces, each ending at a blank line."""
    line_no = 1
    for piece in _pieces(path, chunk_bytes):
        n_lines = count_newlines(piece)
        yield piece, line_no, n_lines
        line_no += n_lines


def _format_of(data: bytes, path: Path, first_line: int) -> Format:
    """Separator and field count from the first content line (not blank, not -DOCSTART-).

    ``(tab in data, 0)`` when ``data`` has no content line (0: width not known yet).
    """
    start = 0
    while start < len(data):
        # Line by line up to the first content line, however many blank lines come first.
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        text = data[start:end].strip(_WS_BYTES)
        start = end + 1
        if not text:
            continue
        tab = b"\t" in text
        fields = [
            f
            for f in (text.split(b"\t") if tab else re.split(rb"[ \t]+", text))
            if f.strip(_WS_BYTES)
        ]
        if fields[0].strip(b" ") != DOCSTART.encode():  # as the parsers tell a DOCSTART line
            return tab, len(fields)
    return b"\t" in data, 0


def _columns(
    token: pl.Series, tag: pl.Series, blank: np.ndarray, *, filtered: bool = True
) -> tuple[pl.Series, pl.Series, np.ndarray, np.ndarray, np.ndarray | None]:
    """Drop separator rows: tokens, tags, 1-based lines, sentence-start marks, kept rows.

    ``filtered=False`` keeps the columns whole and returns the kept rows instead (no copy
    of the strings).
    """
    rows = np.flatnonzero(~blank)
    starts = np.zeros(rows.size, dtype=bool)
    if rows.size:
        starts[0] = True
        starts[1:] = rows[1:] - rows[:-1] > 1  # a dropped row (blank / DOCSTART) lies between
    if not filtered:
        return token, tag, rows + 1, starts, rows
    mask = pl.Series(~blank)
    return token.filter(mask), tag.filter(mask), rows + 1, starts, None


def _padded(raw: np.ndarray) -> bool:
    """Tell whether a tab-separated piece has a space beside a tab or at a line's ends."""
    at = np.flatnonzero(raw == 32)
    if at[-1] == raw.size - 1 or at[0] == 0:
        return True
    after = raw[at + 1]
    before = raw[at - 1]
    return bool(
        ((after == 9) | (after == 10) | (after == 13) | (before == 9) | (before == 10)).any()
    )


def _parse_fast(
    data: bytes, fmt: Format | None = None, *, first_line: int = 1, filtered: bool = True
) -> Parsed | None:
    """Parse well-formed files the vectorised way; ``None`` sends the file to the slow path.

    The plain case (LF line ends, one separator between fields) is cut with numpy
    (:func:`_parse_bytes`); the rest that polars' CSV reader takes (CRLF line ends) goes
    through :func:`_parse_csv`.
    """
    fmt = fmt or _format_of(data, Path(), 1)
    return _parse_bytes(data, fmt, first_line=first_line) or _parse_csv(
        data, fmt, first_line=first_line, filtered=filtered
    )


#: Masks of the low ``k`` bytes of a uint64, k = 0..8.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
#: Bytes per block of :func:`_parse_bytes` (its temporaries stay in cache and are reused).
_BLOCK_BYTES = 1 << 18


def _write_views(
    out: np.ndarray, words: np.ndarray, start: np.ndarray, length: np.ndarray, origin: int
) -> None:
    """Write the Arrow ``string_view`` views of byte ranges into ``out`` (uint64, shape (k, 2)).

    A view is 16 bytes: the length (int32), then the whole string zero-padded when it has
    at most 12 bytes, else its first 4 bytes, buffer index 0 and its offset (int32)
    (Arrow columnar format, "Variable-size Binary View Layout"). The ranges start at
    ``start`` in ``words`` (:func:`_read_words`), a copy of the block found at ``origin`` in
    the buffer the long views point into.
    """
    head, tail = _read_words(words, start, 2)
    head &= _LOW_BYTES.take(length, mode="clip")  # bytes 0-7, those of the string
    tail &= _LOW_BYTES.take(length - 8, mode="clip")  # bytes 8-15, likewise
    size = length.astype(np.uint64)
    out[:, 0] = size | (head << np.uint64(32))  # the length and bytes 0-3
    head >>= np.uint64(32)
    tail <<= np.uint64(32)
    tail |= head  # bytes 4-11
    long = size > 12
    if long.any():
        tail[long] = (start[long] + origin).astype(np.uint64) << np.uint64(32)
    out[:, 1] = tail


def _read_words(words: np.ndarray, start: np.ndarray, count: int) -> list[np.ndarray]:
    """Return the ``count`` little-endian uint64 at byte offsets ``start``, ``start + 8``, ….

    ``words`` is the uint64 view of an 8-byte aligned buffer, readable ``8 * count + 8``
    bytes past every start. Each word is put together from the two aligned words it
    straddles: gathering aligned words and shifting is 3-4x faster than numpy's gather from
    an unaligned strided view, which copies byte by byte (measured on a block of 36k lines).
    """
    at = start >> 3
    right = (start & 7).astype(np.uint64)
    right <<= np.uint64(3)
    left = np.uint64(64) - right  # (a shift by 64 gives 0 in numpy: aligned starts)
    low = words.take(at)
    out = []
    for k in range(1, count + 1):
        high = words.take(at + k)
        low >>= right
        low |= high << left
        out.append(low)
        low = high
    return out


def _string_views(buffer: bytes, views: np.ndarray) -> pl.Series:
    """Return the string column whose Arrow views (:func:`_write_views`) point into ``buffer``.

    No byte of the strings is copied; the views must describe valid UTF-8.
    """
    arr = pa.StringViewArray.from_buffers(
        pa.string_view(), views.shape[0], [None, pa.py_buffer(views), pa.py_buffer(buffer)]
    )
    return series_from_arrow(arr)


def _parse_bytes(
    data: bytes, fmt: Format, *, first_line: int = 1, tag_codes: bool = False
) -> Parsed | None:
    """Parse a plain well-formed piece with numpy: fields cut at separator bytes.

    Taken only where every line is blank or holds exactly ``n_fields`` non-empty fields
    with one separator byte between them (no separator at a line's ends, no carriage
    return, no NUL, valid UTF-8); all else returns ``None``. ``-DOCSTART-`` lines are
    dropped as :func:`_parse_csv` drops them. The token and tag columns are Arrow string
    views into ``data`` (:func:`_write_views`), so no string is copied; the piece is cut
    in blocks of whole lines of about ``_BLOCK_BYTES``, so every temporary array is small.

    ``tag_codes=True`` codes the tags instead of making a tag column (``Parsed.tag_codes``):
    each tag of at most 16 bytes is read as two zero-padded little-endian words (exact, as
    no tag holds a NUL byte) and hashed with :func:`~benchcheck.data.hashing.mix64`, a
    bijection, so tags of up to 8 bytes are told apart exactly and longer ones by 64 bits
    as everywhere else; a longer tag returns ``None`` (the caller reads the piece again
    without codes).
    """
    tab, n_fields = fmt
    if (
        n_fields < 2
        or not data
        or len(data) >= 1 << 31
        or data[:1] in (b" ", b"\t")
        or b"\r" in data
        or b"\x00" in data
    ):
        return None
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None  # the slow path names the line
    raw = np.frombuffer(data, dtype=np.uint8)
    # Empty fields ("\t\t", a separator at a line's start or end) are caught per block below.
    if tab:
        if b" " in data and _padded(raw):
            return None
        sep = b"\t"
    else:
        if b"\t" in data:
            return None  # a tab in a space-separated file: whitespace, the slow path splits on it
        sep = b" "
    per_line = n_fields - 1
    # Rows are at most the lines, and each content line holds n_fields fields and a line
    # break (the tighter bound keeps the views out of a fresh mapping of their own).
    n = min(count_newlines(data) + 1, (len(data) + 1) // (2 * n_fields))
    # Fields are read a word at a time from an aligned copy of their block, with room for
    # the 24 bytes read past a field's start (one buffer for all blocks: it stays in cache).
    copy = np.zeros(0, dtype=np.uint8)
    token_views = np.empty((n, 2), dtype=np.uint64)
    tag_views = np.empty((0 if tag_codes else n, 2), dtype=np.uint64)
    tag_code = np.empty(n if tag_codes else 0, dtype=np.int16)
    coder = _TagCoder() if tag_codes else None
    line = np.empty(n, dtype=np.int64)
    sentence_start = np.empty(n, dtype=bool)
    markers = np.zeros(0, dtype=np.int64)
    if _DOCSTART_BYTES in data:
        markers = np.array(
            [m.start() for m in re.finditer(re.escape(_DOCSTART_BYTES), data)], dtype=np.int64
        )
    sep_byte = sep[0]
    done = 0  # rows written
    lines_before = 0  # lines in the blocks before
    last_kept = -2  # line index of the last kept row (-2: none, so the next starts a sentence)
    pos = 0
    while pos < len(data):
        stop = min(pos + _BLOCK_BYTES, len(data))
        if stop < len(data):
            cut = data.rfind(b"\n", pos, stop)
            if cut < 0:
                cut = data.find(b"\n", stop)
            stop = len(data) if cut < 0 else cut + 1
        block = raw[pos:stop]
        if copy.size < block.size + 24:
            copy = np.zeros((block.size + 24 + 7) // 8 * 8, dtype=np.uint8)
        copy[: block.size] = block
        words = copy.view(np.uint64)
        newline = np.flatnonzero(block == 10)
        n_lines = newline.size + (0 if block[-1] == 10 else 1)
        line_end = np.empty(n_lines, dtype=np.int64)
        line_end[: newline.size] = newline
        line_end[newline.size :] = block.size
        line_start = np.empty(n_lines, dtype=np.int64)
        line_start[0] = 0
        line_start[1:] = line_end[:-1] + 1
        content = np.flatnonzero(line_end > line_start)
        sep_at = np.flatnonzero(block == sep_byte)
        if sep_at.size != per_line * content.size:
            return None
        seps = sep_at.reshape(content.size, per_line)
        first_sep, last_sep = seps[:, 0], seps[:, -1]
        start, end = line_start[content], line_end[content]
        # Separators are sorted, so a line's first lying after its start and its last
        # before its end (the tag is not empty) puts per_line of them in every line.
        if not (bool((first_sep > start).all()) and bool((last_sep + 1 < end).all())):
            return None
        if per_line > 1 and bool((seps[:, 1:] - seps[:, :-1] == 1).any()):
            return None  # an empty middle field
        if markers.size:
            here = markers[(markers >= pos) & (markers < stop)] - pos
            at = np.searchsorted(start, here)
            at = at[(at < start.size) & (start[np.minimum(at, start.size - 1)] == here)]
            # A document marker: the whole first field, or (tab files) its first word.
            marked = first_sep[at] - start[at] == len(_DOCSTART_BYTES)
            if tab:
                marked |= block[start[at] + len(_DOCSTART_BYTES)] == 32
            if marked.any():
                kept = np.ones(content.size, dtype=bool)
                kept[at[marked]] = False
                content, start, end = content[kept], start[kept], end[kept]
                first_sep, last_sep = first_sep[kept], last_sep[kept]
        k = content.size
        rows = slice(done, done + k)
        _write_views(token_views[rows], words, start, first_sep - start, pos)
        tag_start = last_sep + 1  # (last_sep is first_sep with two fields)
        if coder is not None:
            hashes = _tag_hashes(words, tag_start, end - tag_start)
            tag_start += pos  # (the coder reads a new tag's text from the piece)
            end += pos
            if hashes is None or not coder.code(tag_code[rows], hashes, done, data, tag_start, end):
                return None
        else:
            _write_views(tag_views[rows], words, tag_start, end - tag_start, pos)
        content += lines_before
        line[rows] = content
        if k:
            starts = sentence_start[rows]
            starts[0] = content[0] - last_kept > 1
            np.greater(content[1:] - content[:-1], 1, out=starts[1:])
            last_kept = int(content[-1])
        done += k
        lines_before += newline.size
        pos = stop
    token_views, tag_views = token_views[:done], tag_views[:done]
    line, sentence_start = line[:done], sentence_start[:done]
    line += first_line
    if coder is not None:
        token = _string_views(data, token_views)
        coded = coder.result(tag_code[:done])
        return Parsed(token, None, line, sentence_start, lines_before, tag_codes=coded)
    return Parsed(
        _string_views(data, token_views),
        _string_views(data, tag_views),
        line,
        sentence_start,
        lines_before,
    )


class _TagCoder:
    """Number a piece's tags block by block, in order of first appearance (at most 4096).

    Each block's tag hashes (:func:`_tag_hashes`) are looked up in a table of ``2**b``
    slots indexed by ``b`` bits of the hash (a window where the known tags do not collide,
    :func:`benchcheck.io._ner._slot_table`), and each row is checked against its slot's hash;
    a tag not yet known is added with its first row and its text, and the table rebuilt.
    Coding a block while it is in cache is what makes this cheaper than coding the column.
    """

    LIMIT = 4096

    def __init__(self) -> None:
        self.hashes = np.zeros(0, dtype=np.uint64)
        self.tags: list[str] = []
        self.first_row: list[int] = []
        self.table: tuple[np.uint64, np.uint64, np.ndarray, np.ndarray] | None = None

    def code(
        self,
        out: np.ndarray,
        hashes: np.ndarray,
        row0: int,
        data: bytes,
        start: np.ndarray,
        end: np.ndarray,
    ) -> bool:
        """Write the code of each hash into ``out``; False past :attr:`LIMIT` tags.

        ``row0`` is the piece row of the block's first hash; ``start``/``end`` delimit each
        row's tag in ``data`` (the text of a new tag is read from there).
        """
        while True:
            if self.table is not None:
                shift, mask, slot_hash, slot_code = self.table
                slot = ((hashes >> shift) & mask).astype(np.intp)
                found = slot_hash[slot] == hashes
                if found.all():
                    np.take(slot_code, slot, out=out)
                    return True
                missing = np.flatnonzero(~found)
            else:
                missing = np.arange(hashes.size)
            new, at = np.unique(hashes[missing], return_index=True)
            order = np.argsort(at)  # first appearance
            for k in missing[at[order]].tolist():
                self.tags.append(data[int(start[k]) : int(end[k])].decode("utf-8"))
                self.first_row.append(row0 + k)
            self.hashes = np.concatenate([self.hashes, new[order]])
            if self.hashes.size > self.LIMIT:
                return False
            self.table = _slot_table(self.hashes)
            if self.table is None:
                return False

    def result(self, codes: np.ndarray) -> TagCodes:
        """Return the piece's tags as :func:`build_ner_split` takes them (every code occurs)."""
        return TagCodes(codes, self.tags, np.array(self.first_row, dtype=np.int64))


def _tag_hashes(words: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray | None:
    """Return each tag's hash (see :func:`_parse_bytes`); None past 16 bytes."""
    longest = int(size.max()) if size.size else 0
    if longest > 16:
        return None
    key, *rest = _read_words(words, start, 1 if longest <= 8 else 2)
    key &= _LOW_BYTES.take(size, mode="clip")
    if rest:
        second = rest[0]
        second &= _LOW_BYTES.take(size - 8, mode="clip")
        key ^= mix64(second + _SECOND_WORD)
    return mix64(key)


#: Added to a tag's second word before it is mixed into the first.
_SECOND_WORD = np.uint64(0x9E3779B97F4A7C15)


def _parse_csv(
    data: bytes, fmt: Format, *, first_line: int = 1, filtered: bool = True
) -> Parsed | None:
    """Parse with polars' CSV reader (two columns projected); ``None`` for the slow path."""
    # Runs of separators, leading or trailing separators and whitespace-only lines make a
    # row with more fields than the first line: polars rejects it and the slow path takes over.
    tab, n_fields = fmt
    sep = b"\t" if tab else b" "
    if not data or data[:1] in (b"\n", b"\r", b" ", b"\t") or b"\x00" in data:
        return None
    raw = np.frombuffer(data, dtype=np.uint8)
    if tab:
        tabs = np.flatnonzero(raw == 9)
        if tabs.size > 1 and bool((tabs[1:] - tabs[:-1] == 1).any()):
            return None  # an empty field ("\t\t"): the slow path names it
        if b" " in data and _padded(raw):
            return None  # padded fields (also at a line's ends): the slow path strips them
        n_seps = tabs.size
    else:
        if b"\t" in data:
            return None  # a tab in a space-separated file: whitespace, the slow path splits on it
        n_seps = -1  # counted below, only where needed
    if b"\r" in data:
        cr = np.flatnonzero(raw == 13)
        if cr[-1] + 1 >= raw.size or bool((raw[cr + 1] != 10).any()):
            return None  # a carriage return that does not end a line
    head = data[: data.find(b"\n")] if b"\n" in data else data
    if head.rstrip(b"\r").count(sep) + 1 != n_fields or n_fields < 2:
        return None
    try:
        frame = pl.read_csv(
            io.BytesIO(data),
            has_header=False,
            separator=sep.decode(),
            quote_char=None,
            schema={f"c{i}": pl.String for i in range(n_fields)},
            columns=[0, n_fields - 1],
        )
    except (pl.exceptions.PolarsError, OSError):
        return None
    token, tag = frame.get_column("c0"), frame.get_column(f"c{n_fields - 1}")
    blank = token.is_null()
    if (blank ^ tag.is_null()).any():
        return None  # a short row or an empty first field: let the slow path name it
    # With middle columns projected away, polars ignores fields beyond the schema: a row with
    # too many fields would pass with a middle field read as its tag. Every content row has
    # n_fields - 1 separators, and blank rows none, or the file is not this simple
    # (C-speed count). With two fields every column is read and polars rejects a longer row.
    if n_fields > 2:
        if n_seps < 0:
            n_seps = int(np.count_nonzero(raw == 32))
        if n_seps != (n_fields - 1) * (token.len() - int(blank.sum())):
            return None
    dropped = blank.to_numpy()
    if _DOCSTART_BYTES in data:
        docstart = token == DOCSTART
        if tab:  # "-DOCSTART- -X- O" in a tab file: one field, still a document marker
            docstart |= token.str.starts_with(DOCSTART + " ")
        dropped = dropped | docstart.fill_null(False).to_numpy()
    n_rows = token.len()  # one row per line, blank lines included
    token, tag, lines, starts, rows = _columns(token, tag, dropped, filtered=filtered)
    n_newlines = n_rows - (0 if data.endswith(b"\n") else 1)
    return Parsed(token, tag, lines + (first_line - 1), starts, n_newlines, rows)


def _parse_lines(
    data: bytes, path: Path, fmt: Format | None = None, *, first_line: int = 1
) -> Parsed:
    """Line-by-line parser for everything the fast path declines; exact errors.

    ``first_line`` is the file line of ``data``'s first line (for chunks).
    """
    tab, _ = fmt or _format_of(data, path, first_line)
    nul = data.find(b"\x00")
    if nul >= 0:
        column = nul - data.rfind(b"\n", 0, nul)
        raise InputError(
            f"NUL byte at byte {column} of the line; expected text (a UTF-16 or binary file?)",
            path=path,
            line=first_line + data.count(b"\n", 0, nul),
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        # The position within the line: ``data`` may be a chunk, so its offsets are not the file's.
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise InputError(
            f"undecodable bytes at byte {column} of the line; expected UTF-8 text",
            path=path,
            line=line,
        ) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    tokens: list[str | None] = []
    tags: list[str | None] = []
    for number, raw in enumerate(lines, start=first_line):
        stripped = raw.strip(_WS)
        if not stripped:
            tokens.append(None)
            tags.append(None)
            continue
        if _SPACES.split(stripped, maxsplit=1)[0] == DOCSTART:
            # A document marker, whatever separates its fields (often spaces in tab files).
            tokens.append(None)
            tags.append(None)
            continue
        if tab:
            fields = [f.strip(" \r") for f in raw.split("\t")]
        else:
            fields = _SPACES.split(stripped)
        if any(not f for f in fields):
            raise InputError("empty field between separators", path=path, line=number, got=raw)
        if fields[0] == DOCSTART:
            tokens.append(None)
            tags.append(None)
            continue
        if len(fields) < 2:
            if tab and _SPACES.search(stripped):
                raise InputError(
                    "expected a token and a tag separated by a tab: the file is tab-separated, "
                    "as its first line is, and this line has spaces but no tab",
                    path=path,
                    line=number,
                    got=raw,
                )
            raise InputError(
                "expected a token and a tag separated by whitespace",
                path=path,
                line=number,
                got=raw,
            )
        tokens.append(fields[0])
        tags.append(fields[-1])
    token = pl.Series("token", tokens, dtype=pl.String)
    tag = pl.Series("tag", tags, dtype=pl.String)
    token, tag, line_no, starts, _ = _columns(token, tag, token.is_null().to_numpy())
    return Parsed(token, tag, line_no + (first_line - 1), starts, count_newlines(data))
