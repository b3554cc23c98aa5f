"""Every parameter a library message names ({param}) is shown as a real command-line flag."""

from __future__ import annotations

import ast
from pathlib import Path

import typer

import benchcheck
from benchcheck.cli import app, main
from benchcheck.cli._options import OPTIONS, RANGES, flag_for
from benchcheck.errors import PARAMETER

SRC = Path(benchcheck.__file__).parent


def _all_flags() -> set[str]:
    root = typer.main.get_command(app)
    flags: set[str] = set()

    def walk(cmd) -> None:  # type: ignore[no-untyped-def]
        for param in getattr(cmd, "params", []):
            flags.update([*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])])
        for sub in getattr(cmd, "commands", {}).values():
            walk(sub)

    walk(root)
    return flags


def _named_parameters() -> dict[str, str]:
    """{parameter: where} for every '{name}' in a string literal passed to an *Error(...)."""
    found: dict[str, str] = {}
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
            if not str(name).endswith("Error"):
                continue
            first = node.args[0]
            parts = [first] if isinstance(first, ast.Constant) else getattr(first, "values", [])
            for part in parts:
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    for m in PARAMETER.finditer(part.value):
                        found.setdefault(m.group(1), f"{path.relative_to(SRC)}:{node.lineno}")
    return found


def test_every_named_parameter_is_a_flag():
    flags = _all_flags()
    named = _named_parameters()
    assert named, "no library message names a parameter"
    missing = {
        p: where
        for p, where in named.items()
        if not all(f in flags for f in flag_for(p).split("/"))
    }
    assert not missing, f"parameters without a flag (add them to cli._options.OPTIONS): {missing}"


def _all_params() -> list:  # type: ignore[type-arg]
    params = []

    def walk(cmd) -> None:  # type: ignore[no-untyped-def]
        params.extend(getattr(cmd, "params", []))
        for sub in getattr(cmd, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(app))
    return params


def test_table_entries_are_parameters_and_their_help_is_shown():
    flags = _all_flags()
    params = _all_params()
    for param, entry in OPTIONS.items():
        kinds = {type(p).__name__ for p in params if p.name == param}
        assert kinds, f"{param} is no command's parameter"
        if "TyperOption" in kinds:
            assert all(f in flags for f in flag_for(param).split("/")), param
        shown = entry if isinstance(entry, str) else entry.help
        # An entry's help is what some command shows (else each command has its own: ""),
        # followed by the values it accepts where the option has a range (RANGES).
        rule = f" [{RANGES[param].text()}]" if param in RANGES else ""
        assert not shown or any(p.name == param and p.help == shown + rule for p in params), param


def test_every_parameter_has_help():
    assert all(p.help for p in _all_params())


def test_cli_shows_flags_library_shows_parameters(tmp_path, capsys):
    out = tmp_path / "o.json"
    out.write_text("{}")
    from benchcheck.sample_data import NER_SAMPLE

    assert main(["stats", str(NER_SAMPLE), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--json:" in err and "pass --force to overwrite it" in err
