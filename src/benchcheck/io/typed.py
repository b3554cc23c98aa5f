"""Typed JSON: frozen dataclasses read from and written as canonical JSON, and their schema.

A result type is a frozen dataclass whose annotations say what each key holds; the same
annotations give :func:`from_json` (check and build, naming the first mismatch by its JSON
path), :func:`to_json` (the JSON value, keys in field order) and :func:`json_schema` (JSON
Schema, draft 2020-12). Supported annotations: ``str``, ``int`` (not ``bool``), ``float``
(any JSON number, kept as read: ``1`` stays ``1``), ``bool``, ``None``, ``Any``,
``Literal[...]``, unions (``X | None``), ``tuple[T, ...]`` and ``tuple[A, B]``,
``dict[str, T]`` and nested dataclasses. A field whose default is :data:`ABSENT` is an
optional key, left out of the JSON when absent; a field annotated
``Annotated[dict[str, T], REST]`` holds the object's other keys (each a ``T``), written in
its place among the fields, as the statistics' split objects hold their counts beside every
metric by name. Keys no field names are ignored when reading (a newer minor version may add
some) unless ``strict``.

Written by hand because msgspec, already a dependency, names a dict's keys ``[...]`` in its
error paths and cannot hold open-ended keys beside fixed ones; pydantic can, but its models
are not the frozen dataclasses every result here is, and this package keeps pydantic off
its start path (see the typer pin in pyproject.toml).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Row:
...     split: str
...     values: Annotated[dict[str, float | None], REST]
...     note: str | AbsentType = ABSENT
>>> row = from_json(Row, {"split": "dev", "leakage_ratio": 0.25})
>>> row.values, to_json(row)
({'leakage_ratio': 0.25}, {'split': 'dev', 'leakage_ratio': 0.25})
>>> from_json(Row, {"split": "dev", "leakage_ratio": "high"}, path="$.rows[0]")
Traceback (most recent call last):
...
benchcheck.io.typed.ShapeError: $.rows[0].leakage_ratio: expected a number or null, got 'high'
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, TypeVar, get_args, get_origin

__all__ = [
    "ABSENT",
    "REST",
    "AbsentType",
    "JsonResult",
    "ShapeError",
    "from_json",
    "json_schema",
    "short_repr",
    "to_json",
]

T = TypeVar("T")


class AbsentType(enum.Enum):
    """The type of :data:`ABSENT`: an optional key that is not there."""

    ABSENT = "absent"

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        """Return False, as an empty value does: ``if result.model_scores:`` reads well."""
        return False


#: The default of an optional key: absent from the JSON, left out when written.
ABSENT: Final = AbsentType.ABSENT
#: Marks a ``dict[str, T]`` field as the holder of the object's other keys.
REST = "benchcheck.io.typed.REST"


class ShapeError(ValueError):
    """A JSON value does not have the shape its type declares.

    ``path`` is where (``$.stats.metrics.leakage_ratio``), ``expected`` what the type
    declares there, ``got`` the value found (or ``None`` for a missing key).
    """

    def __init__(self, path: str, expected: str, got: object = None, *, missing: bool = False):
        self.path, self.expected, self.got, self.missing = path, expected, got, missing
        found = "missing" if missing else f"got {short_repr(got)}"
        super().__init__(f"{path}: expected {expected}, {found}")


def short_repr(value: object) -> str:
    """Return a repr of at most 60 characters (what an error shows of a value)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _key_path(path: str, key: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}"
    return f"{path}[{_json_string(key)}]"


def _json_string(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


# ----------------------------------------------------------------------------- type analysis


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    tp: Any
    required: bool
    absent_ok: bool
    rest: bool


@functools.cache
def _fields(cls: type) -> tuple[_Field, ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        rest = False
        if get_origin(tp) is Annotated:
            tp, *marks = get_args(tp)
            rest = REST in marks
        has_default = (
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
        absent_ok = f.default is ABSENT
        out.append(_Field(f.name, tp, not has_default and not rest, absent_ok, rest))
    if sum(f.rest for f in out) > 1:
        raise TypeError(f"{cls.__name__}: one field at most holds the other keys")
    return tuple(out)


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (typing.Union, types.UnionType)


def _members(tp: Any) -> tuple[Any, ...]:
    """Return the union's members without :class:`AbsentType` (the default says it)."""
    return tuple(a for a in get_args(tp) if a is not AbsentType)


def describe(tp: Any) -> str:
    """Say in words what a type accepts (for messages).

    >>> describe(float | None), describe(tuple[str, ...]), describe(Literal["a", "b"])
    ('a number or null', 'an array of strings', "one of 'a', 'b'")
    """
    if tp is Any:
        return "any value"
    if tp is type(None) or tp is None:
        return "null"
    if tp is str:
        return "a string"
    if tp is bool:
        return "true or false"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if _is_union(tp):
        return " or ".join(describe(a) for a in _members(tp))
    origin = get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(v) for v in get_args(tp))
    if origin in (tuple, list):
        args = get_args(tp)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return f"an array of {len(args)}"
        inner = describe(args[0]) if args else "values"
        return "an array of " + _plural(inner)
    if origin in (dict, Mapping) or tp is dict:
        return "an object"
    if dataclasses.is_dataclass(tp):
        return f"an object ({typing.cast(type, tp).__name__})"
    raise TypeError(f"unsupported annotation {tp!r}")


def _plural(words: str) -> str:
    for one, many in (
        ("a string", "strings"),
        ("an integer", "integers"),
        ("a number", "numbers"),
        ("an object", "objects"),
        ("an array", "arrays"),
    ):
        words = words.replace(one, many)
    return words


# ----------------------------------------------------------------------------- reading


def from_json(cls: type[T], data: Any, *, path: str = "$", strict: bool = False) -> T:
    """Check ``data`` (parsed JSON) against ``cls`` and build it; raise :class:`ShapeError`.

    The error names the first mismatch in document order by its JSON path. ``strict``
    refuses keys no field names (the tests hold every golden to it).
    """
    return typing.cast(T, _read(cls, data, path, strict))


def _read(tp: Any, value: Any, path: str, strict: bool) -> Any:
    if tp is Any:
        return value
    if tp is type(None) or tp is None:
        if value is None:
            return None
        raise ShapeError(path, "null", value)
    if tp is str:
        if isinstance(value, str):
            return value
        raise ShapeError(path, "a string", value)
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise ShapeError(path, "true or false", value)
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ShapeError(path, "an integer", value)
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
        raise ShapeError(path, "a number", value)
    if _is_union(tp):
        members = _members(tp)
        for member in members:  # a value of the member's JSON kind decides which one
            if _kind_fits(member, value):
                return _read(member, value, path, strict)
        raise ShapeError(path, describe(tp), value)
    origin = get_origin(tp)
    if origin is Literal:
        if value in get_args(tp) and type(value) in {type(v) for v in get_args(tp)}:
            return value
        raise ShapeError(path, describe(tp), value)
    if origin in (tuple, list):
        if not isinstance(value, list | tuple):
            raise ShapeError(path, describe(tp), value)
        args = get_args(tp)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                raise ShapeError(path, describe(tp), value)
            return tuple(
                _read(a, v, f"{path}[{k}]", strict)
                for k, (a, v) in enumerate(zip(args, value, strict=True))
            )
        item = args[0] if args else Any
        read = [_read(item, v, f"{path}[{k}]", strict) for k, v in enumerate(value)]
        return tuple(read) if origin is tuple else read
    if origin in (dict, Mapping):
        if not isinstance(value, dict):
            raise ShapeError(path, "an object", value)
        item = get_args(tp)[1] if get_args(tp) else Any
        return {k: _read(item, v, _key_path(path, k), strict) for k, v in value.items()}
    if dataclasses.is_dataclass(tp):
        return _read_object(typing.cast(type, tp), value, path, strict)
    raise TypeError(f"unsupported annotation {tp!r}")


def _kind_fits(tp: Any, value: Any) -> bool:
    """Whether ``value`` is of the JSON kind ``tp`` reads (its contents are checked after)."""
    if tp is Any:
        return True
    if tp is type(None) or tp is None:
        return value is None
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    if _is_union(tp):
        return any(_kind_fits(m, value) for m in _members(tp))
    origin = get_origin(tp)
    if origin is Literal:
        return value in get_args(tp)
    if origin in (tuple, list):
        return isinstance(value, list | tuple)
    return isinstance(value, dict)


def _read_object(cls: type, value: Any, path: str, strict: bool) -> Any:
    if not isinstance(value, dict):
        raise ShapeError(path, describe(cls), value)
    fields = _fields(cls)
    named = {f.name for f in fields if not f.rest}
    kwargs: dict[str, Any] = {}
    for f in fields:
        if f.rest:
            continue
        if f.name in value:
            kwargs[f.name] = _read(f.tp, value[f.name], _key_path(path, f.name), strict)
        elif f.required:
            raise ShapeError(_key_path(path, f.name), describe(f.tp), missing=True)
    rest = next((f for f in fields if f.rest), None)
    others = {k: v for k, v in value.items() if k not in named}
    if rest is not None:
        kwargs[rest.name] = _read(rest.tp, others, path, strict)
    elif strict and others:
        key = next(iter(others))
        raise ShapeError(_key_path(path, key), f"no key {key!r} in {cls.__name__}", others[key])
    return cls(**kwargs)


# ----------------------------------------------------------------------------- writing


def to_json(value: Any) -> Any:
    """Return the JSON value of a typed value: objects in field order, :data:`ABSENT` left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in _fields(type(value)):
            item = getattr(value, f.name)
            if f.rest:
                out.update({k: to_json(v) for k, v in item.items()})
            elif item is not ABSENT:
                out[f.name] = to_json(item)
        return out
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value


class JsonResult:
    """Mixin of a frozen dataclass read from and written as JSON (:mod:`benchcheck.io.typed`)."""

    def to_json(self) -> Any:
        """Return the JSON value (keys in field order; absent optional keys left out)."""
        return to_json(self)

    @classmethod
    def from_json(cls: type[T], data: Any, *, path: str = "$", strict: bool = False) -> T:
        """Check ``data`` and build the result; :class:`ShapeError` names the first mismatch."""
        return from_json(cls, data, path=path, strict=strict)


# ----------------------------------------------------------------------------- schema


def json_schema(*roots: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Return the schema of each root type and the ``$defs`` they refer to (by class name)."""
    defs: dict[str, Any] = {}
    roots_out = [_schema(r, defs) for r in roots]
    defs.pop(_CLASSES, None)
    return roots_out, dict(sorted(defs.items()))


_CLASSES = "\x00classes"  # in ``defs`` while building: name → class, to refuse a clash


def _schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    if tp is Any:
        return {}
    if tp is type(None) or tp is None:
        return {"type": "null"}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if tp in simple:
        return {"type": simple[tp]}
    if _is_union(tp):
        members = _members(tp)
        if len(members) == 1:  # X | AbsentType: the key is optional, not a union
            return _schema(members[0], defs)
        return {"anyOf": [_schema(a, defs) for a in members]}
    origin = get_origin(tp)
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if origin in (tuple, list):
        args = get_args(tp)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return {
                "type": "array",
                "prefixItems": [_schema(a, defs) for a in args],
                "minItems": len(args),
                "maxItems": len(args),
            }
        return {"type": "array", "items": _schema(args[0] if args else Any, defs)}
    if origin in (dict, Mapping):
        args = get_args(tp)
        return {"type": "object", "additionalProperties": _schema(args[1] if args else Any, defs)}
    if dataclasses.is_dataclass(tp):
        cls = typing.cast(type, tp)
        name = cls.__name__
        seen = defs.setdefault(_CLASSES, {})
        if seen.setdefault(name, tp) is not tp:
            raise TypeError(f"two result types are named {name!r}: rename one")
        if name not in defs:
            defs[name] = {}  # reserved: a type that refers to itself
            defs[name] = _object_schema(typing.cast(type, tp), defs)
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"unsupported annotation {tp!r}")


def _object_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    fields = _fields(cls)
    out: dict[str, Any] = {"type": "object", "title": cls.__name__}
    doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    if doc and not doc.startswith(cls.__name__ + "("):
        out["description"] = doc
    out["properties"] = {f.name: _schema(f.tp, defs) for f in fields if not f.rest}
    required = [f.name for f in fields if f.required]
    if required:
        out["required"] = required
    rest = next((f for f in fields if f.rest), None)
    if rest is not None:
        out["additionalProperties"] = _schema(get_args(rest.tp)[1], defs)
    return out
