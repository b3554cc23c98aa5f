"""Helpers every command module shares: JSON output, option parsing."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from benchcheck.cli._app import console
from benchcheck.errors import UsageError

SCHEMA_VERSION = "1.0"


def _clean(value: Any) -> Any:
    """Make a value JSON-safe: NaN/inf become null, tuples lists, numpy scalars Python ones."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps(payload: dict[str, Any]) -> str:
    """Canonical JSON text: ``schema_version`` first, stable key order inside, 2-space indent."""
    body = {
        "schema_version": SCHEMA_VERSION,
        **{k: v for k, v in payload.items() if k != "schema_version"},
    }
    return json.dumps(_clean(body), indent=2, ensure_ascii=False) + "\n"


def write_json(payload: dict[str, Any], path: str | None) -> None:
    """Write canonical JSON to ``path`` (``-`` is standard output); no-op when ``path`` is None."""
    if path is None:
        return
    text = dumps(payload)
    if path == "-":
        console.out(text, end="", highlight=False)
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def parse_assignments(values: list[str] | None, option: str) -> dict[str, str]:
    """Parse repeated ``NAME=VALUE`` options into an ordered dict; errors name the option."""
    out: dict[str, str] = {}
    for item in values or []:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise UsageError(f"{option} expects NAME=VALUE, got {item!r}")
        if name in out:
            raise UsageError(f"{option}: name {name!r} given twice")
        out[name] = value
    return out
