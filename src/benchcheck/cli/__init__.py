"""The ``benchcheck`` command line: thin wrappers that parse, call the library, render.

Each command group lives in its own module and registers itself on the typer app when
imported. A run imports only the module of the command it names (:data:`COMMAND_MODULES`);
``benchcheck --help`` and anything else import them all, as does ``benchcheck.cli.app``.
Library errors become one message and an exit code here, in :func:`main`.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Annotated, Any

import typer
from rich.markup import escape

from benchcheck.cli import _app
from benchcheck.cli._app import console_err
from benchcheck.cli._options import flag_for
from benchcheck.errors import BenchcheckError, Interrupted, hold

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
    **dict.fromkeys(("report", "glossary"), "report_cmds"),
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


def _print_version(value: bool) -> None:
    if value:
        version()
        raise typer.Exit()


@_app.app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", is_eager=True, callback=_print_version
        ),
    ] = False,
) -> None:
    # typer takes the application's help, not this docstring's (there is none)
    pass


#: The signals a run turns into :class:`~benchcheck.errors.Interrupted`, with exit codes.
_SIGNALS = {signal.SIGINT: 130, signal.SIGTERM: 143}


@contextlib.contextmanager
def _signals() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`~benchcheck.errors.Interrupted` while a run lasts.

    So an interrupted or terminated run cleans up (staging folders, temporaries, locks) and
    exits 130 or 143 with one line, instead of dying mid-write (SIGTERM's default) or being
    turned into a silent exit code by typer (KeyboardInterrupt). A second signal during the
    cleanup is ignored.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        for sig in _SIGNALS:  # the cleanup on the way out must not be interrupted again
            signal.signal(sig, signal.SIG_IGN)
        if isinstance(sys.exc_info()[1], KeyboardInterrupt):
            return  # polars turned this SIGINT into a KeyboardInterrupt already: unwinding
        exc = Interrupted(signal.Signals(signum).name, _SIGNALS[signal.Signals(signum)])
        if not hold(exc):  # inside a polars write: raised when the write has finished
            raise exc

    previous = {sig: signal.signal(sig, stop) for sig in _SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _fail(message: str, code: int) -> int:
    """Print one ``error:`` line on standard error; return ``code``."""
    # One line, verbatim: no wrapping at the console width, and no markup read into a
    # message that quotes user text (a path like data[train]/ would lose "[train]").
    one_line = " ".join(message.split()) if "\n" in message or "\r" in message else message
    console_err.print(f"[bold red]error:[/] {escape(one_line)}", highlight=False, soft_wrap=True)
    return code


def _stdout_gone() -> None:
    """Point standard output at /dev/null, so exiting does not fail on a closed pipe again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno() if sys.stdout is not None else 1)


def _usage_error(exc: Exception) -> int:
    """Show a click usage error as one line, in the house style, with where to read help.

    click writes "No such option: --x." and "Missing argument 'FLAGS'."; the line reads
    as every other error: lower case first, no full stop before the pointer to the help.
    A group run without a command has shown its help already: nothing more is printed.
    """
    code = int(getattr(exc, "exit_code", 2))
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    message = " ".join(message.split()).rstrip(".")
    if not message:  # click's NoArgsIsHelpError: the help is the answer
        return code
    ctx = getattr(exc, "ctx", None)
    where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
    if message[:1].isupper() and not message[1:2].isupper():  # not an acronym: "NER ..."
        message = message[0].lower() + message[1:]
    return _fail(message + where, code)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    Every error a user can cause ends as one ``error:`` line on standard error and an exit
    code, never a traceback: 2 for bad input or options, 74 where the system failed a write
    (full disk, closed standard output), 130 on SIGINT (Ctrl-C) and 143 on SIGTERM, after
    the run removed what it was staging.
    """
    try:
        with _signals():
            # Without standalone mode, click returns a command's typer.Exit code instead of
            # exiting.
            args = sys.argv[1:] if argv is None else argv
            _register(args)
            result = _app.app(args=args, prog_name="benchcheck", standalone_mode=False)
    except BenchcheckError as exc:
        # Parameters named by the library are shown as the flags a user types.
        return _fail(exc.render(flag_for), exc.exit_code)
    except SystemExit as exc:  # typer/click exits on --help and usage errors
        return int(exc.code or 0)
    except Interrupted as exc:
        return _fail(
            f"interrupted ({exc.signal_name}); what it was writing was removed", exc.exit_code
        )
    except KeyboardInterrupt:
        return _fail("interrupted (SIGINT); what it was writing was removed", 130)
    except BrokenPipeError:
        _stdout_gone()
        return _fail("standard output was closed before the output was written", 74)
    except MemoryError:
        return _fail("out of memory: the input is too large for this machine", 74)
    except RecursionError:
        return _fail("an input is nested too deeply to read (thousands of levels)", 2)
    except OSError as exc:  # an OS error no reader or writer turned into its own message
        where = exc.filename or "a file"
        code = 2 if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT) else 74
        return _fail(f"{where}: {(exc.strerror or str(exc)).lower()}", code)
    except Exception as exc:  # click usage errors arrive here in non-standalone mode
        # By class name: recent typer vendors its own copy of click (typer._click), whose
        # exceptions are not click's, and a usage error must not end in a traceback.
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "ClickException" in names:
            return _usage_error(exc)
        if "Abort" in names:
            return 1
        raise
    return result if isinstance(result, int) else 0


def _entry() -> None:  # pragma: no cover - console script shim
    from benchcheck._memory import keep_freed_memory

    keep_freed_memory()  # chunked reads reuse their pages (benchcheck._memory)
    sys.exit(main())
