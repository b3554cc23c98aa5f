"""The runs contract, for every command the command line has.

- ``benchcheck X`` has ``run_X`` in :mod:`benchcheck.runs` (``review export`` →
  ``run_review_export``; dashes become underscores), whose result has ``to_json()``;
- a command's body calls exactly one ``run_*`` and writes no file itself (the run writes
  the outputs it is given, through :mod:`benchcheck.io`); gates are the run's result.

``version`` is the one command without a run: it prints the package's version.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import typing
from pathlib import Path

import pytest
import typer

import benchcheck.runs
from benchcheck.cli import app

CLI = Path(benchcheck.runs.__file__).parents[1] / "cli"
#: What a command body must not call: the file writers (the run writes through io).
WRITERS = {"write_rows", "atomic_write", "atomic_file", "write_json", "write_parquet", "write"}


def _commands() -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []

    def walk(cmd, path: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, (*path, name))
        else:
            out.append(path)

    walk(typer.main.get_command(app), ())
    return [c for c in out if c != ("version",)]


def _runs() -> dict[str, object]:
    found: dict[str, object] = {}
    for info in pkgutil.walk_packages(benchcheck.runs.__path__, "benchcheck.runs."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("run_") and inspect.isfunction(value):
                found.setdefault(name, value)
    return found


def _return_type(fn: typing.Any) -> typing.Any:
    """The run's return type, names its module imports for type checkers included."""
    module = importlib.import_module(fn.__module__)
    names = dict(vars(module))
    for node in ast.walk(ast.parse(Path(module.__file__).read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("benchcheck")
        ):
            imported = importlib.import_module(node.module)
            for alias in node.names:
                if hasattr(imported, alias.name):
                    names.setdefault(alias.asname or alias.name, getattr(imported, alias.name))
    annotation = fn.__annotations__["return"]
    return eval(annotation, names) if isinstance(annotation, str) else annotation


def test_the_cli_has_commands() -> None:
    assert len(_commands()) >= 27 and ("review", "export") in _commands()


@pytest.mark.parametrize("path", _commands(), ids=" ".join)
def test_every_command_has_its_run(path: tuple[str, ...]) -> None:
    name = "run_" + "_".join(path).replace("-", "_")
    runs = _runs()
    assert name in runs, f"benchcheck {' '.join(path)}: no {name} in benchcheck.runs"
    result = _return_type(runs[name])
    assert callable(getattr(result, "to_json", None)), f"{name} returns {result}: no to_json()"


def _command_bodies() -> list[tuple[str, ast.FunctionDef]]:
    out = []
    for path in sorted(CLI.glob("*_cmds.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", "") == "command"
                for d in node.decorator_list
            ):
                out.append((f"{path.name}:{node.name}", node))
    return out


def _called(node: ast.AST) -> list[str]:
    return [
        getattr(n.func, "id", None) or getattr(n.func, "attr", "")
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
    ]


@pytest.mark.parametrize(
    ("where", "body"), _command_bodies(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_a_command_is_parse_one_run_emit(where: str, body: ast.FunctionDef) -> None:
    calls = _called(body)
    runs = [c for c in calls if c.startswith("run_")]
    assert len(runs) == 1, f"{where} calls {runs}: one run per command"
    written = sorted(set(calls) & WRITERS)
    assert not written, f"{where} writes files itself ({written}): the run writes its outputs"
    assert "emit" in calls, f"{where} does not emit its run's JSON"


def test_every_command_body_is_checked() -> None:
    assert len(_command_bodies()) == len(_commands())
