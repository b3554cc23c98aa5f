"""The ``benchcheck`` command line: thin wrappers that parse, call the library, render.

Each command group lives in its own module and registers itself on :data:`app`.
Library errors become one message and an exit code here, in :func:`main`.
"""

from __future__ import annotations

import sys

from rich.markup import escape

from benchcheck.cli._app import app, console_err
from benchcheck.cli._options import flag_for
from benchcheck.errors import BenchcheckError

# Command modules register their commands on ``app`` when imported.
from benchcheck.cli import stats_cmds  # noqa: E402,F401  isort: skip
from benchcheck.cli import adjust_cmds  # noqa: E402,F401  isort: skip
from benchcheck.cli import judge_cmds  # noqa: E402,F401  isort: skip
from benchcheck.cli import diagnostic_cmds  # noqa: E402,F401  isort: skip
from benchcheck.cli import label_cmds  # noqa: E402,F401  isort: skip
from benchcheck.cli import audit_cmds  # noqa: E402,F401  isort: skip
from benchcheck.cli import report_cmds  # noqa: E402,F401  isort: skip
from benchcheck.cli import scale_cmds  # noqa: E402,F401  isort: skip
from benchcheck.cli import items_cmds  # noqa: E402,F401  isort: skip

__all__ = ["app", "main"]


@app.command("version")
def version() -> None:
    """Print the benchcheck version.

    Example: benchcheck version
    """
    from benchcheck import __version__
    from benchcheck.cli._app import console

    console.print(__version__)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        # Without standalone mode, click returns a command's typer.Exit code instead of exiting.
        result = app(args=argv, standalone_mode=False)
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
    sys.exit(main())
