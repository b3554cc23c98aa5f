"""Issue 29's adversarial cases as named regression tests (the table is ``_replay.py``).

Each case runs on a fresh copy of the sweep's workspace; see ``_replay.py`` for the contract
(one ``error:`` line and exit 2 or 74, nothing written, no input changed, nothing outside
the workspace). ``python tests/cli/_replay.py`` prints tried / held per class.
"""

from __future__ import annotations

import pytest
from _replay import all_cases, run_one
from _sweep import build_workspace

CASES = all_cases()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return build_workspace(tmp_path_factory.mktemp("replay") / "ws")


@pytest.mark.parametrize("fn", [pytest.param(fn, id=f"{cls}: {name}") for cls, name, fn in CASES])
def test_case(fn, workspace, tmp_path):
    run_one(fn, workspace, tmp_path / "case")


def test_every_class_of_the_issue_is_replayed():
    classes = {cls for cls, _, _ in CASES}
    assert classes == {
        "path traversal",
        "output safety",
        "links inside outputs",
        "review import: expert names vs gold columns",
        "judge cache trusted blindly",
        "prompt templates",
        "outputs inside input globs",
        "huge JSON integers",
        "readers",
        "joins and records",
        "numbers",
        "injection",
        "decompression and dictionary bombs",
        "crafted review exports",
        "silently wrong",
        "smaller",
    }
    assert len(CASES) >= 140
