"""Dump what a user sees of the command line: the click tree and every ``--help`` page.

``python tests/cli/_click_tree.py OUT.json`` writes, for every command and subcommand, its
name, help and epilog and each parameter in order (name, flags, secondary flags, type,
default, required, multiple, is_flag, nargs, help), plus the rendered ``--help`` text at a
fixed width. Dump before and after a refactor of ``benchcheck.cli`` and diff the two: the
declarations may move, what the user sees may not.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def _param(p: Any) -> dict[str, Any]:
    default = p.default
    if callable(default):
        default = f"<callable {getattr(default, '__name__', '?')}>"
    return {
        "name": p.name,
        "kind": type(p).__name__,
        "opts": list(p.opts),
        "secondary_opts": list(getattr(p, "secondary_opts", [])),
        "type": repr(getattr(getattr(p, "type_descriptor", None), "annotation", None)),
        "default": repr(default),
        "required": p.required,
        "multiple": p.multiple,
        "is_flag": getattr(p, "is_flag", False),
        "nargs": p.nargs,
        "help": getattr(p, "help", None),
        "hidden": getattr(p, "hidden", False),
        "min": repr(getattr(p, "min", None)),
        "max": repr(getattr(p, "max", None)),
        "metavar": getattr(p, "metavar", None),
        "show_default": repr(getattr(p, "show_default", None)),
    }


def tree() -> dict[str, Any]:
    """{command path: {help, epilog, params, page}} for the whole ``benchcheck`` app."""
    import typer
    from typer.testing import CliRunner

    from benchcheck.cli import app

    root = typer.main.get_command(app)
    out: dict[str, Any] = {}
    runner = CliRunner()

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        page = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "120", "NO_COLOR": "1"})
        out[" ".join(path) or "benchcheck"] = {
            "help": cmd.help,
            "epilog": getattr(cmd, "epilog", None),
            "params": [_param(p) for p in cmd.params],
            "page": page.output.splitlines(),
        }
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            walk(sub, (*path, name))

    walk(root, ())
    return out


if __name__ == "__main__":
    os.environ["COLUMNS"] = "120"
    text = json.dumps(tree(), indent=1, ensure_ascii=False, sort_keys=True)
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write(text + "\n")
