"""The typer application and the consoles every command module shares."""

from __future__ import annotations

import typer
from rich.console import Console

app = typer.Typer(
    name="benchcheck",
    help="Audit NLP datasets and benchmarks before you trust them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
console_err = Console(stderr=True)
