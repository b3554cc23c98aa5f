"""Every command that writes a file takes ``--force`` (one rule: never overwrite without it)."""

from __future__ import annotations

import typer

from benchcheck.cli import app

#: Options that name a file or folder the command writes.
WRITES = {"--json", "-o", "--output", "--to-review", "--report"}


def _commands(group, prefix=()):
    for name, cmd in getattr(group, "commands", {}).items():
        path = (*prefix, name)
        if getattr(cmd, "commands", None):
            yield from _commands(cmd, path)
        else:
            yield " ".join(path), cmd


def test_every_writing_command_takes_force():
    root = typer.main.get_command(app)
    missing, writers = [], 0
    for name, cmd in _commands(root):
        flags = {opt for p in cmd.params for opt in getattr(p, "opts", [])}
        if flags & WRITES:
            writers += 1
            if "--force" not in flags:
                missing.append(name)
    assert writers >= 27 and missing == []  # every command but `version`


def test_every_command_that_emits_json_claims_it():
    """A command body that writes its ``--json`` (``emit``) claims it first (``claim`` or
    ``output_claims``), so an existing file is kept without ``--force``; ``glossary`` did not.
    """
    import ast
    from pathlib import Path

    cli = Path(__file__).parents[2] / "src" / "benchcheck" / "cli"
    unclaimed, emitting = [], 0
    for path in sorted(cli.glob("*_cmds.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef) or not any(
                isinstance(d, ast.Call) and getattr(d.func, "id", None) == "command"
                for d in node.decorator_list
            ):
                continue
            called = {
                c.func.id if isinstance(c.func, ast.Name) else getattr(c.func, "attr", "")
                for c in ast.walk(node)
                if isinstance(c, ast.Call)
            }
            if "emit" in called:
                emitting += 1
                if not called & {"claim", "output_claims", "claim_json"}:
                    unclaimed.append(f"{path.name}:{node.name}")
    assert emitting >= 20 and unclaimed == []
