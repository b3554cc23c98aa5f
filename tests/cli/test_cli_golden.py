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


def _json_of(data: bytes):
    import json

    return json.loads(data)


def _rows(data: bytes):
    import json

    return [json.loads(line) for line in data.decode().splitlines()]


def test_changed_outputs_keep_what_they_had(produced):
    """Outputs changed on purpose only add: every old key and column keeps its value."""
    for name in ("review_import.json", "error_rate.json"):
        old, new = _json_of((GOLDEN / name).read_bytes()), _json_of(produced[name])
        assert {k: new[k] for k in old if k != "warnings"} == {
            k: v for k, v in old.items() if k != "warnings"
        }, name
        assert set(old.get("warnings", [])) <= set(new.get("warnings", []))
    # the two experts of the chain give the same answers: identical files, now warned about
    assert any(
        "identical byte for byte" in w for w in _json_of(produced["review_import.json"])["warnings"]
    )
    old, new = (
        _json_of((GOLDEN / "review_export.json").read_bytes()),
        _json_of(produced["review_export.json"]),
    )
    assert {k: new[k] for k in old if k != "files"} == {
        k: v for k, v in old.items() if k != "files"
    }
    assert set(old["files"]) <= set(new["files"])
    for name in ("review__key.jsonl", "gold.jsonl"):
        old_rows, new_rows = _rows((GOLDEN / name).read_bytes()), _rows(produced[name])
        assert [{k: r[k] for k in o} for o, r in zip(old_rows, new_rows, strict=True)] == old_rows
        assert {k for r in new_rows for k in r} - {k for r in old_rows for k in r} == {
            "stratum",
            "content_hash",
        }
    er = _json_of(produced["error_rate.json"])
    assert er["stratified"] is None and "audit sample" in er["stratified_note"]
