"""Helpers shared by test packages."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest


def _heavy_modules_after(statement: str, heavy: tuple[str, ...]) -> list[str]:
    """Run ``statement`` in a fresh interpreter; return which of ``heavy`` it imported."""
    code = f"import sys; {statement}; print(','.join(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    return [m for m in out.split(",") if m]


@pytest.fixture
def heavy_modules_after() -> Callable[[str, tuple[str, ...]], list[str]]:
    """``heavy_modules_after("import x", ("numpy", ...))``: heavy modules a fresh import pulls."""
    return _heavy_modules_after
