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
