"""The ``benchcheck`` command line: thin wrappers that parse, call the library, render.

Each command group lives in its own module and registers itself on the typer app when
imported. A run imports only the module of the command it names (:data:`COMMAND_MODULES`);
``benchcheck --help`` and anything else import them all, as does ``benchcheck.cli.app``.
Library errors become one message and an exit code here, in :func:`main`.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from rich.markup import escape

from benchcheck.cli import _app
from benchcheck.cli._app import console_err
from benchcheck.cli._options import flag_for
from benchcheck.errors import BenchcheckError

__all__ = ["COMMAND_MODULES", "app", "main"]

#: The module of each command and command group, in help order (a test holds it equal to
#: what the modules register).
COMMAND_MODULES = {
    **dict.fromkeys(("stats", "compare", "sample", "accuracy"), "stats_cmds"),
    "adjust": "adjust_cmds",
    "judge": "judge_cmds",
    **dict.fromkeys(("diagnose", "artifacts", "human", "check-suite"), "diagnostic_cmds"),
    **dict.fromkeys(
        ("flag", "review", "error-rate", "bins", "remedy", "rerank", "agreement")
        + ("ensemble-curve", "flag-spans"),
        "label_cmds",
    ),
    "audit": "audit_cmds",
    "report": "report_cmds",
    **dict.fromkeys(("convert", "leakage"), "scale_cmds"),
    **dict.fromkeys(("items", "rank", "diff"), "items_cmds"),
}
#: The modules that register commands, in the order ``benchcheck --help`` lists them.
MODULES = tuple(dict.fromkeys(COMMAND_MODULES.values()))


def _register(argv: list[str]) -> None:
    """Import the command modules ``argv`` needs: its command's, or all of them.

    Commands are then kept in :data:`MODULES` order however the imports came, so that
    ``--help`` lists them the same way in a process that ran other commands before.
    """
    named = COMMAND_MODULES.get(argv[0]) if argv else None
    for module in (named,) if named else MODULES:
        importlib.import_module(f"benchcheck.cli.{module}")
    rank = {f"benchcheck.cli.{m}": k for k, m in enumerate(MODULES)}
    _app.app.registered_commands.sort(
        # (``version``, defined here, after them all)
        key=lambda info: rank.get(getattr(info.callback, "__module__", ""), len(MODULES))
    )


def __getattr__(name: str) -> Any:
    """``app``: the typer application with every command registered."""
    if name == "app":
        _register([])
        return _app.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@_app.app.command("version")
def version() -> None:
    """Print the benchcheck version.

    Example: benchcheck version
    """
    from benchcheck._version import __version__
    from benchcheck.cli._app import console

    console.print(__version__)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        # Without standalone mode, click returns a command's typer.Exit code instead of exiting.
        args = sys.argv[1:] if argv is None else argv
        _register(args)
        result = _app.app(args=args, standalone_mode=False)
    except BenchcheckError as exc:
        # One line, verbatim: no wrapping at the console width, and no markup read into a
        # message that quotes user text (a path like data[train]/ would lose "[train]").
        # Parameters named by the library are shown as the flags a user types.
        message = escape(exc.render(flag_for))
        console_err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
        return exc.exit_code
    except SystemExit as exc:  # typer/click exits on --help and usage errors
        return int(exc.code or 0)
    except KeyboardInterrupt:
        console_err.print("interrupted")
        return 130
    except Exception as exc:  # click usage errors arrive here in non-standalone mode
        # By class name: recent typer vendors its own copy of click (typer._click), whose
        # exceptions are not click's, and a usage error must not end in a traceback.
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "ClickException" in names:
            exc.show()  # type: ignore[attr-defined]
            return int(exc.exit_code)  # type: ignore[attr-defined]
        if "Abort" in names:
            return 1
        raise
    return result if isinstance(result, int) else 0


def _entry() -> None:  # pragma: no cover - console script shim
    from benchcheck._memory import keep_freed_memory

    keep_freed_memory()  # chunked reads reuse their pages (benchcheck._memory)
    sys.exit(main())
