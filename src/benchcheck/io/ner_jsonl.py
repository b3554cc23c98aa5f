"""NER from JSONL: one sentence per line.

Each line holds ``tokens`` and ``tags`` (tag strings), or ``tokens`` and ``ner_tags`` (indices
into a label list given by the caller). A line with no token is no instance: such lines are
counted (``empty_records``) and named in a warning, never dropped without a word.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl

from benchcheck.data.model import Split, file_split_name
from benchcheck.errors import InputError
from benchcheck.io._ner import build_ner_split, warn_empty, with_empty_records
from benchcheck.io._text import read_file_bytes
from benchcheck.io.tables import json_lines


def read_ner_jsonl(
    path: str | Path,
    *,
    name: str | None = None,
    scheme: str | None = None,
    strict: bool = False,
    label_names: Sequence[str] | None = None,
    type_map: Mapping[str, str] | None = None,
    coarse_types: bool = False,
) -> Split:
    """Read an NER JSONL file. Errors name the file, line and what was expected.

    ``type_map`` / ``coarse_types`` rename entity types (see
    :func:`benchcheck.io._ner.build_ner_split`).
    """
    path = Path(path)
    data = read_file_bytes(path).removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM, as CoNLL
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError("undecodable bytes; expected UTF-8 text", path=path, line=line) from None
    tokens: list[str] = []
    tags: list[str] = []
    lines: list[int] = []
    starts: list[bool] = []
    empty: list[str] = []  # lines without a token: counted and reported (with_empty_records)
    for number, row in json_lines(text, path):
        if (
            not isinstance(row, dict)
            or "tokens" not in row
            or ("tags" not in row and "ner_tags" not in row)
        ):
            raise InputError(
                'expected an object with "tokens" and "tags" (or "ner_tags")',
                path=path,
                line=number,
            )
        row_tokens = row["tokens"]
        row_tags = (
            row["tags"] if "tags" in row else _names(row["ner_tags"], label_names, path, number)
        )
        if (
            not isinstance(row_tokens, list)
            or not isinstance(row_tags, list)
            or len(row_tokens) != len(row_tags)
        ):
            raise InputError(
                "tokens and tags must be lists of the same length", path=path, line=number
            )
        if not row_tokens:
            empty.append(f"line {number}")
            continue
        if not all(isinstance(t, str) and t for t in row_tokens) or not all(
            isinstance(t, str) for t in row_tags
        ):
            raise InputError("tokens and tags must be non-empty strings", path=path, line=number)
        tokens.extend(row_tokens)
        tags.extend(row_tags)
        lines.extend([number] * len(row_tokens))
        starts.extend([True] + [False] * (len(row_tokens) - 1))
    if not tokens:
        last = text.count("\n") + (0 if text.endswith("\n") else 1) if text else 0
        raise InputError(
            "empty split: expected at least one row with tokens, found only blank lines and "
            "empty sentences up to here",
            path=path,
            line=last or None,
        )
    split = build_ner_split(
        name=name or file_split_name(path),
        source=str(path),
        token=pl.Series("token", tokens, dtype=pl.String),
        tag=pl.Series("tag", tags, dtype=pl.String),
        sentence_start=np.array(starts, dtype=bool),
        line=np.array(lines, dtype=np.int64),
        scheme=scheme,
        strict=strict,
        type_map=type_map,
        coarse_types=coarse_types,
    )
    return warn_empty(with_empty_records(split, empty), "lines")


def _names(indices: object, label_names: Sequence[str] | None, path: Path, line: int) -> list[str]:
    if label_names is None:
        raise InputError(
            '"ner_tags" holds indices: give the label list ({label_names})', path=path, line=line
        )
    if not isinstance(indices, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in indices
    ):
        raise InputError('"ner_tags" must be a list of integers', path=path, line=line)
    # Checked explicitly: a negative index would silently pick a label from the end.
    bad = [i for i in indices if not 0 <= i < len(label_names)]
    if bad:
        raise InputError(
            f"tag index out of range for {len(label_names)} label names",
            path=path,
            line=line,
            got=bad[0],
        )
    return [label_names[i] for i in indices]
