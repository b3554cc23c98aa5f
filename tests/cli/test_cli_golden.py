"""Every command's JSON and files are byte for byte what they were before the run layer.

The goldens (``tests/cli/golden/``) were written by ``_golden_chain.py`` from the code
before the pipelines moved into ``benchcheck.runs``; outputs changed on purpose are listed
in ``_golden_chain.CHANGED`` and checked here for what must still hold.
"""

from __future__ import annotations

import pytest
from _golden_chain import CHANGED, GOLDEN, run_chain


@pytest.fixture(scope="module")
def produced(tmp_path_factory):
    return run_chain(tmp_path_factory.mktemp("golden") / "chain")


def test_goldens_cover_the_chain(produced):
    assert sorted(produced) == sorted(p.name for p in GOLDEN.iterdir())


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.iterdir()))
def test_output_unchanged(produced, name):
    if name in CHANGED:
        pytest.skip(f"changed on purpose: {CHANGED[name]}")
    assert produced[name].decode() == (GOLDEN / name).read_text(encoding="utf-8")
