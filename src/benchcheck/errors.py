"""The exception family of benchcheck.

Every error a user can cause is a :class:`BenchcheckError`; the command line turns it
into one message and an exit code (see :mod:`benchcheck.cli`), never a traceback.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

#: A parameter named in a message: ``{threshold}`` (see :class:`UsageError`).
PARAMETER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class BenchcheckError(Exception):
    """Base class of every error benchcheck raises on purpose.

    The library names parameters, not command-line flags: ``{threshold}`` in a message is
    a parameter, rendered by ``str()`` as its name and by the command line as its flag
    (:meth:`render` with the CLI's table), so one message serves both.

    >>> err = UsageError("{threshold} must be in [0, 1], got 2")
    >>> str(err)
    'threshold must be in [0, 1], got 2'
    >>> err.render(lambda name: "--" + name)
    '--threshold must be in [0, 1], got 2'
    """

    exit_code = 1

    def __init__(self, message: str = "") -> None:
        self.message = message
        super().__init__(self.render())

    def render(self, name: Callable[[str], str] = str) -> str:
        """Return the message with each ``{parameter}`` replaced by ``name(parameter)``."""
        return PARAMETER.sub(lambda m: name(m.group(1)), self.message)


class InputError(BenchcheckError):
    """Bad input: names the file, the line (1-based, when known) and what was expected.

    >>> str(InputError("expected a token and a tag", path="a.txt", line=3, got="B-PER"))
    "a.txt:3: expected a token and a tag (got 'B-PER')"
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        got: object = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.got = got
        super().__init__(message)

    def render(self, name: Callable[[str], str] = str) -> str:
        """Return ``path:line: message (got 'x')``, parameters rendered by ``name``."""
        where = ""
        if self.path is not None:
            where = self.path + (f":{self.line}" if self.line is not None else "") + ": "
        tail = f" (got {self.got!r})" if self.got is not None else ""
        return f"{where}{super().render(name)}{tail}"


class UsageError(BenchcheckError):
    """A valid file but an impossible request (option values, missing splits, ...)."""

    exit_code = 2


class WriteError(BenchcheckError):
    """The system refused a write: a full disk, a read-only file system, a size limit.

    Exit code 2 where the chosen place cannot be written (read-only, permissions), 74
    (``EX_IOERR``, sysexits.h) where the system failed the write (no space, quota, size
    limit, I/O error, a closed standard output).
    """

    exit_code = 74

    def __init__(self, message: str, *, exit_code: int = 74) -> None:
        self.exit_code = exit_code
        super().__init__(message)


class Interrupted(BaseException):  # noqa: N818 - a signal, like KeyboardInterrupt
    """SIGINT (Ctrl-C, exit code 130) or SIGTERM (143) during a run.

    A :class:`BaseException`, as KeyboardInterrupt is, so that no ``except Exception``
    swallows it and every ``finally`` and ``__exit__`` on the way cleans up (staging folders,
    temporaries, locks); the command line turns it into one line and the exit code.
    """

    def __init__(self, signal_name: str, exit_code: int) -> None:
        self.signal_name = signal_name
        self.exit_code = exit_code
        super().__init__(signal_name)


#: Signals held while a native write runs (:func:`uninterrupted`); ``None`` when none is.
_held: list[Interrupted] | None = None


@contextlib.contextmanager
def uninterrupted() -> Iterator[None]:
    """Hold a run's SIGINT/SIGTERM until a native (polars) write has finished, then raise it.

    Raising :class:`Interrupted` from the signal handler while polars writes makes its Rust
    worker threads panic (``__POLARS_ABORT_KEYBOARD_INTERRUPT``) and print a backtrace on
    standard error beside our one error line. Inside this block the command line's handler
    records the signal (:func:`hold`) instead; the write finishes (one file or shard, into a
    staging place) and the signal is raised on leaving the block, so the cleanup removes
    what was written. Outside the main thread, or nested, the block changes nothing.

    >>> with uninterrupted():  # doctest: +IGNORE_EXCEPTION_DETAIL
    ...     _ = hold(Interrupted("SIGINT", 130))  # the handler keeps it; the block raises it
    Traceback (most recent call last):
    benchcheck.errors.Interrupted: SIGINT
    >>> hold(Interrupted("SIGINT", 130))  # no block open: the handler raises at once
    False
    """
    global _held
    if _held is not None or threading.current_thread() is not threading.main_thread():
        yield
        return
    _held = []
    try:
        yield
    finally:
        held, _held = _held, None
    if held:
        raise held[0]


def hold(exc: Interrupted) -> bool:
    """Keep ``exc`` for the end of the open :func:`uninterrupted` block; False if none is open."""
    if _held is None:
        return False
    _held.append(exc)
    return True


class DataWarning(UserWarning):
    """Something in the data was dropped or left unmatched, under the error threshold.

    Raised with :func:`warnings.warn`; the command line prints each as one ``warning:``
    line after the command's output, so nothing is dropped without a word.
    """


class MissingExtraError(BenchcheckError):
    """An optional dependency is not installed; names the extra that provides it."""

    exit_code = 2

    def __init__(self, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        #: The one command that adds it, e.g. ``pip install 'benchcheck[judge]'``.
        self.install = f"pip install 'benchcheck[{extra}]'"
        super().__init__(f"this feature needs {package!r}; install it with: {self.install}")


class JudgeError(BenchcheckError):
    """A judge failed to score (after retries, for remote judges)."""

    exit_code = 3


class JudgeUnavailable(JudgeError):
    """A judge cannot be built here (missing weights, unreachable server, missing extra)."""


def require(module: str, extra: str):  # type: ignore[no-untyped-def]
    """Import an optional dependency or raise :class:`MissingExtraError` naming its extra.

    >>> require("json", "dev").__name__
    'json'
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(module.split(".")[0], extra) from exc
