"""Golden files compared as behaviour, not as the last bit of a float.

A golden JSON (or JSON-lines) file must match in everything that is behaviour: the same
keys in the same order, the same strings, integers, booleans and nulls, the same rows in the
same order. Floats computed by the code match to :data:`REL_TOL`: their last digits depend on
summation order, which another numpy, SciPy, scikit-learn or polars build, another BLAS
kernel chosen for the CPU, or another thread count may change (issue 22 saw
``0.6130252568423931`` become ``0.6130252568423928`` on a fresh machine). No published number
is checked through these files; a test that needs an exact float says so where it asserts it.

>>> assert_json_text_close('{"a": 0.1, "n": 3}', '{"a": 0.1000000000000001, "n": 3}')
>>> json_difference({"rank": 14}, {"rank": 13})
'$.rank: 14 != 13'

A value under a key of :data:`WALL_CLOCK_KEYS` is a measured duration: it matches any
duration (a number >= 0, or null where the golden has null), never a fixed one.

>>> json_difference({"seconds": 0.31}, {"seconds": 0.52}) is None
True
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

#: Relative tolerance of a float in a golden file. Summation-order noise is ~1e-16 relative
#: per operation; a pipeline of a few hundred operations stays far below 1e-9, while a
#: behavioural change (another threshold, rule, seed or count) moves a value by far more.
REL_TOL = 1e-9
#: Absolute tolerance for values whose exact result is 0 (e.g. 1 - 1.0000000000000002).
ABS_TOL = 1e-12
#: Keys whose values are wall-clock measurements (the audit's NER label-error ``seconds``
#: per split): compared as "a duration", not by value.
WALL_CLOCK_KEYS = frozenset({"seconds"})


def json_difference(got: Any, expected: Any, path: str = "$") -> str | None:
    """The first difference between two parsed JSON values (``None`` when they match)."""
    if isinstance(expected, float) and isinstance(got, float):
        if math.isclose(got, expected, rel_tol=REL_TOL, abs_tol=ABS_TOL):
            return None
        return f"{path}: {got!r} != {expected!r} (beyond rel_tol {REL_TOL})"
    if type(got) is not type(expected):
        return f"{path}: {type(got).__name__} {got!r} != {type(expected).__name__} {expected!r}"
    if isinstance(expected, dict):
        if list(got) != list(expected):
            return f"{path}: keys {list(got)} != {list(expected)}"
        for key in expected:
            if key in WALL_CLOCK_KEYS:
                found = _duration_difference(got[key], expected[key], f"{path}.{key}")
            else:
                found = json_difference(got[key], expected[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if len(got) != len(expected):
            return f"{path}: {len(got)} items != {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            found = json_difference(g, e, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if got == expected else f"{path}: {got!r} != {expected!r}"


def _duration_difference(got: Any, expected: Any, path: str) -> str | None:
    """Whether ``got`` is a duration where ``expected`` is one (null where it is null)."""
    if expected is None or got is None:
        return None if got is expected else f"{path}: {got!r} != {expected!r}"
    if isinstance(got, int | float) and not isinstance(got, bool) and got >= 0:
        return None
    return f"{path}: {got!r} is not a duration in seconds"


def without_wall_clock(value: Any) -> Any:
    """``value`` (parsed JSON, or JSON text) with every :data:`WALL_CLOCK_KEYS` value nulled.

    Two runs on the same inputs give the same results but for the measured durations:
    compare them through this.

    >>> without_wall_clock({"splits": [{"split": "dev", "seconds": 0.3}]})
    {'splits': [{'split': 'dev', 'seconds': None}]}
    """
    if isinstance(value, str):
        return json.dumps(_nulled(json.loads(value)))
    return _nulled(value)


def _nulled(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: None if k in WALL_CLOCK_KEYS else _nulled(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_nulled(v) for v in value]
    return value


def assert_json_text_close(got: str, expected: str) -> None:
    """Two JSON texts hold the same document (floats to :data:`REL_TOL`)."""
    found = json_difference(json.loads(got), json.loads(expected))
    assert found is None, found


def assert_jsonl_text_close(got: str, expected: str) -> None:
    """Two JSON-lines texts hold the same rows in the same order (floats to :data:`REL_TOL`)."""
    g, e = got.splitlines(), expected.splitlines()
    assert len(g) == len(e), f"{len(g)} rows != {len(e)}"
    for i, (a, b) in enumerate(zip(g, e, strict=True)):
        found = json_difference(json.loads(a), json.loads(b), f"line {i + 1}")
        assert found is None, found


def assert_matches_golden(got: bytes | str, golden: Path) -> None:
    """``got`` matches the golden file: JSON and JSONL structurally, anything else exactly.

    Text formats (CSV, Markdown) hold numbers as rendered at their displayed precision,
    which :func:`benchcheck.report.numbers.num` keeps stable, so they compare byte for byte.
    """
    text = got.decode("utf-8") if isinstance(got, bytes) else got
    expected = golden.read_text(encoding="utf-8")
    if golden.suffix == ".json":
        assert_json_text_close(text, expected)
    elif golden.suffix == ".jsonl":
        assert_jsonl_text_close(text, expected)
    else:
        assert text == expected, f"{golden.name} differs"
