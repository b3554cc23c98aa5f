"""Every command's JSON and files hold what they held before the run layer.

The goldens (``tests/cli/golden/``) were written by ``_golden_chain.py`` from the code
before the pipelines moved into ``benchcheck.runs``; outputs changed on purpose are listed
in ``_golden_chain.CHANGED`` and checked here for what must still hold. JSON and JSON lines
compare structurally (keys and their order, strings, integers, booleans, row order exactly;
floats to ``_golden.REL_TOL``), every other file byte for byte: see ``tests/_golden.py``.
"""

from __future__ import annotations

import json

import pytest
from _golden import REL_TOL, assert_matches_golden, json_difference
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
    assert_matches_golden(produced[name], GOLDEN / name)


def _json_of(data: bytes):
    return json.loads(data)


def _rows(data: bytes):
    return [json.loads(line) for line in data.decode().splitlines()]


def _same(got, expected, what: str) -> None:
    found = json_difference(got, expected)
    assert found is None, f"{what}: {found}"


def _as_old(new, old):
    """``new`` cut down to the keys ``old`` has, at every depth (dicts of dicts, lists)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {k: _as_old(new[k], v) if k in new else None for k, v in old.items()}
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [_as_old(n, o) for n, o in zip(new, old, strict=True)]
    return new


def test_changed_outputs_keep_what_they_had(produced):
    """Outputs changed on purpose only add: every old key and column keeps its value."""
    for name in ("review_import.json", "error_rate.json", "agreement.json"):
        old, new = _json_of((GOLDEN / name).read_bytes()), _json_of(produced[name])
        cut = _as_old(new, old)
        _same(
            {k: v for k, v in cut.items() if k != "warnings"},
            {k: v for k, v in old.items() if k != "warnings"},
            name,
        )
        assert set(old.get("warnings", [])) <= set(new.get("warnings", []))
    # the two experts of the chain give the same answers: identical files, now warned about
    assert any(
        "identical byte for byte" in w for w in _json_of(produced["review_import.json"])["warnings"]
    )
    old, new = (
        _json_of((GOLDEN / "review_export.json").read_bytes()),
        _json_of(produced["review_export.json"]),
    )
    _same(
        {k: new[k] for k in old if k != "files"}, {k: v for k, v in old.items() if k != "files"}, ""
    )
    assert set(old["files"]) <= set(new["files"])
    for name in ("review__key.jsonl", "gold.jsonl"):
        old_rows, new_rows = _rows((GOLDEN / name).read_bytes()), _rows(produced[name])
        _same(
            [{k: r[k] for k in o} for o, r in zip(old_rows, new_rows, strict=True)], old_rows, name
        )
        # detector_error_score: the flags table's column since issue 24, carried along
        assert {k for r in new_rows for k in r} - {k for r in old_rows for k in r} == {
            "stratum",
            "content_hash",
            "detector_error_score",
        }
    er = _json_of(produced["error_rate.json"])
    assert er["stratified"] is None and "audit sample" in er["stratified_note"]


def _perturbed(value, rel: float):
    """Every float of a parsed JSON value times (1 + rel); everything else as it was."""
    if isinstance(value, float):
        return value * (1.0 + rel)
    if isinstance(value, dict):
        return {k: _perturbed(v, rel) for k, v in value.items()}
    if isinstance(value, list):
        return [_perturbed(v, rel) for v in value]
    return value


def _as_text(name: str, data: bytes, rel: float) -> str:
    text = data.decode()
    if name.endswith(".jsonl"):
        return "".join(json.dumps(_perturbed(json.loads(x), rel)) + "\n" for x in text.splitlines())
    return json.dumps(_perturbed(json.loads(text), rel))


def test_goldens_hold_under_summation_noise(produced):
    """A 1e-13 relative change of every float (another BLAS kernel, another numpy) matches."""
    names = [n for n in produced if n.endswith((".json", ".jsonl")) and n not in CHANGED]
    assert "flags.jsonl" in names and "stats_ner.json" in names
    for name in names:
        assert_matches_golden(_as_text(name, produced[name], 1e-13), GOLDEN / name)


def test_goldens_catch_a_behavioural_change(produced):
    """One flag's rank moved, or one score moved by far more than noise: the golden fails."""
    rows = _rows(produced["flags.jsonl"])
    ranked = next(i for i, r in enumerate(rows) if r["rank"] is not None)
    changed = [dict(r) for r in rows]
    changed[ranked]["rank"] += 1
    text = "".join(json.dumps(r) + "\n" for r in changed)
    with pytest.raises(AssertionError, match="rank"):
        assert_matches_golden(text, GOLDEN / "flags.jsonl")
    changed = [dict(r) for r in rows]
    changed[ranked]["error_score"] *= 1 + 100 * REL_TOL
    text = "".join(json.dumps(r) + "\n" for r in changed)
    with pytest.raises(AssertionError, match="error_score"):
        assert_matches_golden(text, GOLDEN / "flags.jsonl")
    changed = [dict(r) for r in rows]
    changed[ranked]["flagged"] = not changed[ranked]["flagged"]
    text = "".join(json.dumps(r) + "\n" for r in changed)
    with pytest.raises(AssertionError, match="flagged"):
        assert_matches_golden(text, GOLDEN / "flags.jsonl")
