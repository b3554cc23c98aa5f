"""What every command does the same way: register, claim outputs, write JSON, print, warn."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import polars as pl
import typer
from rich.markup import escape

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._options import ForceOpt, JsonOpt
from benchcheck.errors import BenchcheckError, InputError, UsageError
from benchcheck.io.output import Outputs, atomic_write
from benchcheck.report.canonical import dumps

__all__ = [
    "ForceOpt",
    "JsonOpt",
    "claim",
    "command",
    "csv",
    "emit",
    "names",
    "parse_assignments",
    "parse_scores",
    "show",
    "stderr",
    "warn",
    "write_json",
]


def command(
    name: str, *, group: typer.Typer = app, guard: bool = False, **kw: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command on ``group``; ``guard`` turns stray errors of bad values into exit 2.

    A ValueError that is no :class:`BenchcheckError` (a bad option value reaching the
    statistics) becomes a :class:`UsageError`, a polars error an :class:`InputError`.
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if not guard:
            return group.command(name, **kw)(fn)

        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except ValueError as exc:
                if isinstance(exc, BenchcheckError):
                    raise
                raise UsageError(str(exc)) from None
            except pl.exceptions.PolarsError as exc:
                raise InputError(f"cannot process the input: {exc}") from None

        return group.command(name, **kw)(guarded)

    return register


def claim(
    inputs: Iterable[str | Path | None], force: bool, json_out: str | None = None, **files: Any
) -> Outputs:
    """Claim each output file (``param=path``), then ``--json``, before any work is done."""
    outputs = Outputs(list(inputs), force=force)
    for param, path in files.items():
        outputs.file(path, param=param)
    outputs.file(json_out, param="json")
    return outputs


def write_json(payload: dict[str, Any], path: str | Path | None) -> None:
    """Write canonical JSON to ``path`` (``-`` is standard output); no-op when ``path`` is None.

    The file is written atomically; claim it first with :class:`benchcheck.io.output.Outputs`.
    """
    if path is None:
        return
    text = dumps(payload)
    if str(path) == "-":
        console.out(text, end="", highlight=False)
        return
    atomic_write(Path(path), text)


def emit(
    payload: dict[str, Any],
    json_out: str | None,
    render: Callable[[Any], Iterable[Any]] | None = None,
    *,
    highlight: bool | None = None,
) -> bool:
    """Write the JSON; unless it went to standard output, print ``render(payload)``.

    Returns whether the terminal is free for more output (the JSON did not go to stdout).
    """
    write_json(payload, json_out)
    if json_out == "-":
        return False
    show(render(payload) if render is not None else (), highlight=highlight)
    return True


def show(renderables: Iterable[Any], *, highlight: bool | None = None) -> None:
    """Print each renderable on standard output."""
    for renderable in renderables:
        console.print(renderable, highlight=highlight)


def stderr(lines: Iterable[str], **kw: Any) -> None:
    """Print each line (rich markup) on standard error."""
    for line in lines:
        console_err.print(line, **kw)


def warn(messages: Iterable[str], **kw: Any) -> None:
    """Print each message as a warning on standard error."""
    for message in messages:
        console_err.print(f"[yellow]warning:[/] {escape(message)}", **kw)


def parse_assignments(values: list[str] | None, option: str) -> dict[str, str]:
    """Parse repeated ``NAME=VALUE`` options into an ordered dict; errors name the option."""
    out: dict[str, str] = {}
    for item in values or []:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise UsageError(f"{option} expects NAME=VALUE, got {item!r}")
        if name in out:
            raise UsageError(f"{option}: name {name!r} given twice")
        out[name] = value
    return out


def csv(value: str | None) -> list[str] | None:
    """Split a comma-separated option; None when it names nothing."""
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def names(value: str | None) -> tuple[str, ...] | None:
    """Split a comma-separated option into a tuple; None when it names nothing."""
    found = csv(value)
    return tuple(found) if found else None


def parse_scores(scores: str | None) -> dict[str, float]:
    """Parse ``--scores 93.1,92.8`` into finite numbers named model_1, model_2 and so on."""
    out = {}
    for k, item in enumerate(scores.split(",") if scores else []):
        try:
            value = float(item)
        except ValueError:
            raise UsageError(f"--scores expects comma-separated numbers, got {item!r}") from None
        if not math.isfinite(value):
            raise UsageError(f"--scores expects finite numbers, got {item.strip()!r}")
        out[f"model_{k + 1}"] = value
    return out
