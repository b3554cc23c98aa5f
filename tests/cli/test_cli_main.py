"""cli.main: the exit code of a command that ends with typer.Exit reaches the caller."""

import typer

import benchcheck.cli as cli


def test_typer_exit_code_is_returned(monkeypatch):
    probe = typer.Typer()

    @probe.command()
    def finish(code: int) -> None:
        raise typer.Exit(code)

    monkeypatch.setattr(cli, "app", probe)
    assert cli.main(["3"]) == 3
    assert cli.main(["0"]) == 0
