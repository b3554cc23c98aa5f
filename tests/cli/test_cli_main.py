"""cli.main: exit codes reach the caller; a command's run imports only its own module."""

import subprocess
import sys

import typer

import benchcheck.cli as cli
from benchcheck.cli import _app


def test_typer_exit_code_is_returned(monkeypatch):
    probe = typer.Typer()

    @probe.command()
    def finish(code: int) -> None:
        raise typer.Exit(code)

    assert cli.app is _app.app  # every command module imported (and bound to the real app)
    monkeypatch.setattr(_app, "app", probe)
    assert cli.main(["3"]) == 3
    assert cli.main(["0"]) == 0


def test_command_modules_name_what_each_module_registers():
    app = cli.app  # every module imported
    found = {info.name: info.callback.__module__ for info in app.registered_commands}
    found |= {
        info.name: info.typer_instance.registered_commands[0].callback.__module__
        for info in app.registered_groups
    }
    del found["version"]  # defined in benchcheck.cli itself
    assert {k: f"benchcheck.cli.{m}" for k, m in cli.COMMAND_MODULES.items()} == found


RUN = """
import sys
from benchcheck.cli import main
code = main(sys.argv[1:])
loaded = sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("benchcheck.cli."))
print(code, " ".join(m for m in loaded if m.endswith("_cmds")))
"""


def loaded_after(*argv: str) -> tuple[str, list[str]]:
    out = subprocess.run(
        [sys.executable, "-c", RUN, *argv], capture_output=True, text=True, check=True
    ).stdout.splitlines()[-1]
    code, *modules = out.split()
    return code, modules


def test_a_command_imports_only_its_own_module():
    assert loaded_after("stats", "--help") == ("0", ["stats_cmds"])
    assert loaded_after("review", "--help") == ("0", ["label_cmds"])


def test_help_and_unknown_commands_import_every_module():
    every = sorted(cli.MODULES)
    assert loaded_after("--help") == ("0", every)
    assert loaded_after("no-such-command")[1] == every


def test_help_lists_commands_in_module_order_whatever_ran_before(capsys):
    cli.main(["judge", "--help"])
    cli.main(["stats", "--help"])
    capsys.readouterr()
    cli.main(["--help"])
    listed = capsys.readouterr().out
    names = ("stats", "adjust", "judge", "flag", "items", "version")  # version last, as before
    order = [listed.index(f"│ {name} ") for name in names]  # (the commands panel)
    assert order == sorted(order)
