"""CoNLL reader: token in the first column, tag in the last, any number of columns between.

Format rules (each has a golden test):

- fields are separated by tabs when the file contains a tab, else by runs of spaces;
- blank or whitespace-only lines separate sentences; ``-DOCSTART-`` lines are skipped (and
  also end a sentence); CRLF line endings and a UTF-8 byte-order mark are tolerated;
- every non-blank line has the same number of fields (at least two: token and tag);
- the tagging scheme (IOB1, IOB2, BIOES) is detected, or forced with ``scheme=``.

The common, well-formed case is parsed by polars' CSV reader (no Python per line); anything
else (ragged rows, runs of separators, whitespace-only lines, stray carriage returns) goes
through a line-by-line parser that gives the same result or a precise error.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import polars as pl

from benchcheck.data.model import Split
from benchcheck.errors import InputError
from benchcheck.io._ner import build_ner_split

DOCSTART = "-DOCSTART-"


def read_conll(
    path: str | Path,
    *,
    name: str | None = None,
    scheme: str | None = None,
    strict: bool = False,
) -> Split:
    """Read one CoNLL file into an NER :class:`~benchcheck.data.Split`.

    Raises :class:`~benchcheck.errors.InputError` naming the file and line on malformed
    lines, unknown tag shapes, an empty file, or bytes that are not UTF-8.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a directory", path=path) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    parsed = _parse_fast(data) or _parse_lines(data, path)
    token, tag, line, sentence_start = parsed
    return build_ner_split(
        name=name or path.stem,
        source=str(path),
        token=token,
        tag=tag,
        sentence_start=sentence_start,
        line=line,
        scheme=scheme,
        strict=strict,
    )


def _columns(
    token: pl.Series, tag: pl.Series, blank: np.ndarray
) -> tuple[pl.Series, pl.Series, np.ndarray, np.ndarray]:
    """Drop separator rows; return tokens, tags, 1-based lines and sentence-start marks."""
    keep = ~blank
    rows = np.flatnonzero(keep)
    starts = np.zeros(rows.size, dtype=bool)
    if rows.size:
        starts[0] = True
        starts[1:] = np.diff(rows) > 1  # a dropped row (blank / DOCSTART) lies between
    mask = pl.Series(keep)
    return token.filter(mask), tag.filter(mask), rows + 1, starts


def _parse_fast(data: bytes) -> tuple[pl.Series, pl.Series, np.ndarray, np.ndarray] | None:
    """Parse well-formed files the vectorised way; ``None`` sends the file to the slow path."""
    # Runs of separators, leading or trailing separators and whitespace-only lines make a
    # row with more fields than the first line: polars rejects it and the slow path takes over.
    sep = b"\t" if b"\t" in data else b" "
    if not data or data[:1] in (b"\n", b"\r", b" ", b"\t"):
        return None
    if sep == b"\t" and (b" \t" in data or b"\t " in data):
        return None  # fields with padding: the slow path strips them
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None
    first_line = data[: data.find(b"\n")] if b"\n" in data else data
    n_fields = first_line.rstrip(b"\r").count(sep) + 1
    if n_fields < 2:
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
    if (~blank & tag.is_null()).any():
        return None  # a short row: let the slow path name it
    blank = (blank | (token == DOCSTART)).to_numpy()
    return _columns(token, tag, blank)


def _parse_lines(data: bytes, path: Path) -> tuple[pl.Series, pl.Series, np.ndarray, np.ndarray]:
    """Line-by-line parser for everything the fast path declines; exact errors."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"undecodable bytes at byte {exc.start}; expected UTF-8 text", path=path, line=line
        ) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    tab = "\t" in text
    tokens: list[str | None] = []
    tags: list[str | None] = []
    width = None
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if not stripped:
            tokens.append(None)
            tags.append(None)
            continue
        fields = [f.strip() for f in raw.strip("\r\n ").split("\t")] if tab else stripped.split()
        if any(not f for f in fields):
            raise InputError("empty field between separators", path=path, line=number, got=raw)
        if fields[0] == DOCSTART:
            tokens.append(None)
            tags.append(None)
            continue
        if len(fields) < 2:
            raise InputError(
                "expected a token and a tag separated by whitespace",
                path=path,
                line=number,
                got=raw,
            )
        if width is None:
            width = len(fields)
        elif len(fields) != width:
            raise InputError(
                f"expected {width} columns like the first line, found {len(fields)}",
                path=path,
                line=number,
                got=raw,
            )
        tokens.append(fields[0])
        tags.append(fields[-1])
    token = pl.Series("token", tokens, dtype=pl.String)
    tag = pl.Series("tag", tags, dtype=pl.String)
    return _columns(token, tag, token.is_null().to_numpy())
