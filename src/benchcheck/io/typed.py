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
    try:
        return typing.cast(T, _reader(typing.cast(Any, cls), strict)(data))
    except _Mismatch as exc:
        where = path + "".join(reversed(exc.parts))
        raise ShapeError(where, exc.expected, exc.got, missing=exc.missing) from None


class _Mismatch(Exception):
    """A mismatch on its way up: each container adds its step to ``parts`` (innermost first)."""

    def __init__(self, expected: str, got: object = None, *, missing: bool = False) -> None:
        self.expected, self.got, self.missing = expected, got, missing
        self.parts: list[str] = []


def _step(key: str) -> str:
    """Return the path step of an object key: ``.key``, or ``["a key"]``."""
    return _key_path("", key)


Reader = typing.Callable[[Any], Any]


@functools.cache
def _reader(tp: Any, strict: bool) -> Reader:
    """Return the function that checks and builds a value of ``tp`` (made once per type)."""
    if tp is Any:
        return _same
    kind = _KINDS.get(tp)
    if kind is not None:
        fits, expected = kind

        def read_scalar(value: Any) -> Any:
            if fits(value):
                return value
            raise _Mismatch(expected, value)

        return read_scalar
    if _is_union(tp):
        return _union_reader(tp, strict)
    origin = get_origin(tp)
    if origin is Literal:
        allowed = {(type(v), v) for v in get_args(tp)}
        expected_literal = describe(tp)

        def read_literal(value: Any) -> Any:
            if (
                isinstance(value, str | int | float | bool | None)
                and (type(value), value) in allowed
            ):
                return value
            raise _Mismatch(expected_literal, value)

        return read_literal
    if origin in (tuple, list):
        return _array_reader(tp, origin, strict)
    if origin in (dict, Mapping):
        args = get_args(tp)
        item = _reader(args[1] if args else Any, strict)

        def read_object(value: Any) -> Any:
            if type(value) is not dict:
                raise _Mismatch("an object", value)
            out = {}
            for k, v in value.items():
                try:
                    out[k] = item(v)
                except _Mismatch as exc:
                    exc.parts.append(_step(k))
                    raise
            return out

        return read_object
    if dataclasses.is_dataclass(tp):
        return _dataclass_reader(typing.cast(type, tp), strict)
    raise TypeError(f"unsupported annotation {tp!r}")


def _same(value: Any) -> Any:
    return value


_KINDS: dict[Any, tuple[typing.Callable[[Any], bool], str]] = {
    type(None): (lambda v: v is None, "null"),
    None: (lambda v: v is None, "null"),
    str: (lambda v: type(v) is str, "a string"),
    bool: (lambda v: type(v) is bool, "true or false"),
    int: (lambda v: type(v) is int, "an integer"),
    float: (lambda v: type(v) is float or type(v) is int, "a number"),
}


def _fits(tp: Any) -> typing.Callable[[Any], bool]:
    """Whether a value is of the JSON kind ``tp`` reads (its contents are checked after)."""
    if tp is Any:
        return lambda v: True
    if tp in _KINDS:
        return _KINDS[tp][0]
    if _is_union(tp):
        checks = [_fits(m) for m in _members(tp)]
        return lambda v: any(c(v) for c in checks)
    origin = get_origin(tp)
    if origin is Literal:
        values = get_args(tp)
        return lambda v: v in values
    if origin in (tuple, list):
        return lambda v: type(v) is list or type(v) is tuple
    return lambda v: type(v) is dict


def _union_reader(tp: Any, strict: bool) -> Reader:
    choices = [(_fits(m), _reader(m, strict)) for m in _members(tp)]
    expected = describe(tp)

    def read_union(value: Any) -> Any:
        for fits, read in choices:  # a value of the member's JSON kind decides which one
            if fits(value):
                return read(value)
        raise _Mismatch(expected, value)

    return read_union


def _array_reader(tp: Any, origin: Any, strict: bool) -> Reader:
    args = get_args(tp)
    expected = describe(tp)
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        readers = [_reader(a, strict) for a in args]

        def read_fixed(value: Any) -> Any:
            if not (type(value) is list or type(value) is tuple) or len(value) != len(readers):
                raise _Mismatch(expected, value)
            out = []
            for k, (read, v) in enumerate(zip(readers, value, strict=True)):
                try:
                    out.append(read(v))
                except _Mismatch as exc:
                    exc.parts.append(f"[{k}]")
                    raise
            return tuple(out)

        return read_fixed
    item = _reader(args[0] if args else Any, strict)
    as_tuple = origin is tuple

    def read_array(value: Any) -> Any:
        if not (type(value) is list or type(value) is tuple):
            raise _Mismatch(expected, value)
        out = []
        for k, v in enumerate(value):
            try:
                out.append(item(v))
            except _Mismatch as exc:
                exc.parts.append(f"[{k}]")
                raise
        return tuple(out) if as_tuple else out

    return read_array


def _dataclass_reader(cls: type, strict: bool) -> Reader:
    fields = _fields(cls)
    named = [(f.name, _reader(f.tp, strict), f.required, f.tp) for f in fields if not f.rest]
    names = {name for name, *_ in named}
    rest = next((f for f in fields if f.rest), None)
    rest_read = None if rest is None else _reader(rest.tp, strict)
    expected = describe(cls)

    def read_dataclass(value: Any) -> Any:
        if type(value) is not dict:
            raise _Mismatch(expected, value)
        kwargs: dict[str, Any] = {}
        for name, read, required, tp in named:
            if name in value:
                try:
                    kwargs[name] = read(value[name])
                except _Mismatch as exc:
                    exc.parts.append(_step(name))
                    raise
            elif required:
                missing = _Mismatch(describe(tp), missing=True)
                missing.parts.append(_step(name))
                raise missing
        if rest is not None or strict:
            others = {k: v for k, v in value.items() if k not in names}
            if rest is not None and rest_read is not None:
                kwargs[rest.name] = rest_read(others)
            elif others:
                key = next(iter(others))
                extra = _Mismatch(f"no key {key!r} in {cls.__name__}", others[key])
                extra.parts.append(_step(key))
                raise extra
        return cls(**kwargs)

    return read_dataclass


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
