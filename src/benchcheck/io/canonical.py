"""Canonical JSON: the one serialiser behind ``results.json`` and every ``--json`` output.

Every other format (terminal, Markdown, HTML) renders from this text, so it is byte-stable:
``schema_version`` first, keys in the order the payload gives them, NaN and infinities as
``null``, numpy scalars as Python numbers, non-ASCII written as is, 2-space indent.

>>> print(dumps({"n": 3, "kappa": float("nan"), "label": "é"}), end="")
{
  "schema_version": "1.0",
  "n": 3,
  "kappa": null,
  "label": "é"
}
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from benchcheck.errors import InputError

__all__ = ["SCHEMA_VERSION", "dumps", "jsonable", "read_results"]

#: Version of every JSON object benchcheck writes; readers accept the same major version.
SCHEMA_VERSION = "1.0"


def jsonable(value: Any) -> Any:
    """Return a value as its canonical JSON holds it.

    NaN and infinities become null, tuples lists, numpy scalars Python ones, keys strings.

    >>> import numpy as np
    >>> jsonable({1: (np.float64(0.5), float("nan"))})
    {'1': [0.5, None]}
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps(payload: dict[str, Any]) -> str:
    """Return canonical JSON text: ``schema_version`` first, stable key order, 2-space indent."""
    body = {
        "schema_version": SCHEMA_VERSION,
        **{k: v for k, v in payload.items() if k != "schema_version"},
    }
    return json.dumps(jsonable(body), indent=2, ensure_ascii=False) + "\n"


def read_results(path: str | Path) -> dict[str, Any]:
    """Read a ``results.json``; accept the major version of :data:`SCHEMA_VERSION` only.

    Errors (:class:`~benchcheck.errors.InputError`) name the file, and the line of invalid
    JSON or the ``schema_version`` received.
    """
    from benchcheck.io._text import loads_json, read_text_file

    path = Path(path)
    data = loads_json(read_text_file(path), path)
    if not isinstance(data, dict) or "schema_version" not in data:
        raise InputError("expected a results.json object with a 'schema_version' key", path=path)
    major = SCHEMA_VERSION.split(".")[0]
    if str(data["schema_version"]).split(".")[0] != major:
        raise InputError(
            f"unsupported schema_version; this benchcheck reads {major}.x",
            path=path,
            got=data["schema_version"],
        )
    return data
