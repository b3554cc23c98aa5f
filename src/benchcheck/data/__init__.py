"""The dataset model; names load on first use, so ``benchcheck.data.columns`` needs no polars."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "SPLIT_ALIASES": "benchcheck.data.model",
    "TASK_KINDS": "benchcheck.data.model",
    "Dataset": "benchcheck.data.model",
    "Split": "benchcheck.data.model",
    "TaskKind": "benchcheck.data.model",
    "Columns": "benchcheck.data.columns",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'benchcheck.data' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
