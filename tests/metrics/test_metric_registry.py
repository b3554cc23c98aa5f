"""The registry lists metrics in one order, whichever metric module was imported first."""

from __future__ import annotations

import subprocess
import sys

import pytest

ORDER = (
    "from benchcheck.metrics.compute import compute_stats; "
    "from benchcheck.io.load import load; "
    "from benchcheck.metrics.registry import REGISTRY, specs_for; "
    "from benchcheck.sample_data import NER_SAMPLE; "
    "print(','.join(s.name for s in specs_for('ner'))); "
    "print(','.join(compute_stats(load(NER_SAMPLE)).metrics)); "
    "print(','.join(REGISTRY))"
)


def _run(first: str) -> list[str]:
    code = f"{first}; {ORDER}" if first else ORDER
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


@pytest.mark.parametrize(
    "first",
    [
        "import benchcheck.metrics.validity",
        "from benchcheck.metrics import reliability, text",
        "import benchcheck.metrics.text, benchcheck.metrics.difficulty",
    ],
)
def test_metric_order_does_not_depend_on_import_order(first: str) -> None:
    assert _run(first) == _run("")
