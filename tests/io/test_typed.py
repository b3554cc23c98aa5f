"""io.typed: frozen dataclasses read from JSON (first mismatch by path), written back, schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from benchcheck.io.typed import (
    ABSENT,
    REST,
    AbsentType,
    JsonResult,
    ShapeError,
    from_json,
    json_schema,
    to_json,
)


@dataclass(frozen=True)
class Point(JsonResult):
    x: float
    label: str | None


@dataclass(frozen=True, kw_only=True)
class Row(JsonResult):
    name: str
    kind: Literal["a", "b"]
    ci: tuple[float | None, float | None]
    points: tuple[Point, ...]
    counts: dict[str, int]
    note: str | AbsentType = ABSENT
    values: Annotated[dict[str, float | None], REST] = field(default_factory=dict)


@dataclass(frozen=True)
class OtherPoint:  # another class of an existing name: refused, not silently merged
    y: int


OtherPoint.__name__ = "Point"


@dataclass(frozen=True)
class Both:
    a: Point
    b: OtherPoint


GOOD = {
    "name": "r",
    "kind": "a",
    "ci": [0.1, None],
    "points": [{"x": 1, "label": None}, {"x": 0.5, "label": "p"}],
    "counts": {"x y": 2},
    "leakage": 0.25,
    "other": None,
}


def _schema(cls: Any) -> dict:
    (root,), defs = json_schema(cls)
    return {**root, "$defs": defs}


def test_reads_and_writes_back_the_same_json() -> None:
    row = Row.from_json(GOOD)
    assert row.points[0].x == 1 and isinstance(row.points[0].x, int)  # numbers kept as read
    assert row.values == {"leakage": 0.25, "other": None} and row.note is ABSENT
    assert to_json(row) == {k: GOOD[k] for k in ("name", "kind", "ci", "points", "counts")} | {
        "leakage": 0.25,
        "other": None,
    }
    assert row.to_json() == GOOD  # the rest's keys where the field stands: after the fields
    with_note = Row.from_json({**GOOD, "note": "n"})
    assert list(with_note.to_json())[:6] == ["name", "kind", "ci", "points", "counts", "note"]
    assert not ABSENT and repr(ABSENT) == "ABSENT"


@pytest.mark.parametrize(
    ("edit", "path", "expected"),
    [
        ({"kind": "c"}, "$.kind", "one of 'a', 'b'"),
        ({"ci": [0.1]}, "$.ci", "an array of 2"),
        ({"points": [{"x": "1", "label": None}]}, "$.points[0].x", "a number"),
        ({"points": [{"x": True, "label": None}]}, "$.points[0].x", "a number"),
        ({"counts": {"x y": 1.5}}, '$.counts["x y"]', "an integer"),
        ({"leakage": "high"}, "$.leakage", "a number or null"),
        ({"note": 3}, "$.note", "a string"),
    ],
)
def test_the_first_mismatch_is_named_by_its_path(edit: dict, path: str, expected: str) -> None:
    with pytest.raises(ShapeError) as exc:
        Row.from_json({**GOOD, **edit})
    assert (exc.value.path, exc.value.expected) == (path, expected)
    assert str(exc.value).startswith(f"{path}: expected {expected}, got ")
    # the schema made from the same types refuses the same document
    assert list(Draft202012Validator(_schema(Row)).iter_errors({**GOOD, **edit}))


def test_missing_keys_and_strict_mode() -> None:
    with pytest.raises(ShapeError, match=r"^\$\.name: expected a string, missing$"):
        Row.from_json({k: v for k, v in GOOD.items() if k != "name"})
    with pytest.raises(ShapeError, match=r"^\$\.points\[1\]\.extra: expected no key 'extra'"):
        from_json(
            Row,
            {**GOOD, "points": [GOOD["points"][0], {"x": 1, "label": None, "extra": 1}]},
            strict=True,
        )
    Point.from_json({"x": 1, "label": None, "extra": 1})  # not strict: a newer key is ignored
    assert list(Draft202012Validator(_schema(Row)).iter_errors(GOOD)) == []


def test_schema_of_the_types() -> None:
    schema = _schema(Row)
    row = schema["$defs"]["Row"]
    assert row["required"] == ["name", "kind", "ci", "points", "counts"]
    assert row["properties"]["note"] == {"type": "string"}  # optional, not a union with null
    assert row["additionalProperties"] == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert (
        row["properties"]["ci"]["prefixItems"]
        == [{"anyOf": [{"type": "number"}, {"type": "null"}]}] * 2
    )
    Draft202012Validator.check_schema(schema)
    with pytest.raises(TypeError, match="two result types are named 'Point'"):
        json_schema(Both)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from([*GOOD, "new"]), json_values, max_size=3))
def test_types_and_schema_agree_on_any_edit(edit: dict) -> None:
    """Whatever is put in place of some keys, both validators accept or refuse it together."""
    document = {**GOOD, **edit}
    schema_ok = not list(Draft202012Validator(_schema(Row)).iter_errors(document))
    try:
        Row.from_json(document)
        types_ok = True
    except ShapeError:
        types_ok = False
    assert schema_ok == types_ok, document
