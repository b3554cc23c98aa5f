"""What every command does the same way: register, claim outputs, write JSON, print, warn."""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, NamedTuple

import typer
from rich.markup import escape

from benchcheck._progress import Progress
from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._options import (
    _KIND,
    check_ranges,
    declared_globs,
    declared_inputs,
    typer_signature,
)
from benchcheck.errors import (
    BenchcheckError,
    DataWarning,
    InputError,
    Interrupted,
    UsageError,
    WriteError,
)
from benchcheck.io.canonical import dumps
from benchcheck.io.formats import parse_pairs
from benchcheck.io.output import Outputs, atomic_write, output_session


class Invocation(NamedTuple):
    """The running command's ``--json`` and ``--force``: what :func:`claim` and :func:`emit` use."""

    json_out: str | None = None
    force: bool = False


_OUTSIDE = Invocation()  # a command function called directly, not from the command line
_CURRENT: ContextVar[Invocation] = ContextVar("invocation", default=_OUTSIDE)
#: The glossary words (:mod:`benchcheck.report.glossary`) the running command printed.
_TERMS: ContextVar[dict[str, None] | None] = ContextVar("terms", default=None)
_JSON = inspect.Parameter("json_out", _KIND, default=None, annotation=str | None)
_FORCE = inspect.Parameter("force", _KIND, default=False, annotation=bool)


def command(
    name: str,
    *,
    group: typer.Typer = app,
    guard: bool = False,
    json: bool = True,
    panels: Mapping[str, Sequence[str]] | None = None,
    terms: bool = True,
    **kw: Any,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command on ``group``: plain parameters become options from the table.

    Flags and help come from :data:`benchcheck.cli._options.OPTIONS`. Every command takes
    ``--force`` and (unless ``json`` is false) ``--json``, last unless it declares them
    where it wants them; it receives them only if it declares them. Before the command
    body runs, every option value is checked against its declared range
    (:data:`~benchcheck.cli._options.RANGES`), every file an option names is claimed as an
    input of the run (:data:`~benchcheck.cli._options.READS`: a FIFO, a device or a link
    loop is refused there) and ``--json -`` needs a standard output to write to; the run's
    claims and locks live in one :func:`~benchcheck.io.output.output_session`. ``guard`` turns stray
    errors of bad values into exit 2: a ValueError that is no :class:`BenchcheckError` (a bad
    option value reaching the statistics) becomes a :class:`UsageError`, a polars error an
    :class:`InputError`. ``panels`` groups a long command's options into help panels
    (:func:`~benchcheck.cli._options.typer_signature`). Unless ``terms`` is false, output
    that used glossary words ends with a line naming them (:func:`terms_footer`).
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        own = inspect.signature(fn).parameters
        shared = (_JSON, _FORCE) if json else (_FORCE,)
        signature, groups = typer_signature(
            fn, tuple(p for p in shared if p.name not in own), panels
        )

        @functools.wraps(fn)
        def invoke(**kwargs: Any) -> Any:
            check_ranges(kwargs)
            if kwargs.get("json_out") == "-" and not stdout_open():
                raise WriteError("cannot write the JSON to standard output: it is closed")
            inputs, deep = declared_inputs(kwargs)
            try:
                with output_session(inputs, deep=deep, globs=declared_globs(kwargs)):
                    return run(kwargs)
            except BrokenPipeError:  # typer would turn it into a silent exit code 1
                raise WriteError("cannot write to standard output: it was closed") from None
            except KeyboardInterrupt:  # (polars raises it on SIGINT): typer would exit silently
                raise Interrupted("SIGINT", 130) from None

        def run(kwargs: dict[str, Any]) -> Any:
            for param, (build, members) in groups.items():
                kwargs[param] = build(**{m: kwargs.pop(m) for m in members})
            token = _CURRENT.set(Invocation(kwargs.get("json_out"), kwargs["force"]))
            seen = _TERMS.set({} if terms else None)
            try:
                with data_warnings():
                    result = fn(**{k: v for k, v in kwargs.items() if k in own})
                terms_footer()
                return result
            except ValueError as exc:
                if not guard or isinstance(exc, BenchcheckError):
                    raise
                raise UsageError(str(exc)) from None
            except Exception as exc:
                polars = sys.modules.get("polars")  # never imported: never raised
                if guard and polars and isinstance(exc, polars.exceptions.PolarsError):
                    raise InputError(f"cannot process the input: {exc}") from None
                raise
            finally:
                _TERMS.reset(seen)
                _CURRENT.reset(token)

        invoke.__signature__ = signature  # type: ignore[attr-defined]
        invoke.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
        kw.setdefault("help", help_text(fn.__doc__ or ""))
        return group.command(name, **kw)(invoke)

    return register


#: A line of a docstring that starts a new line of the help (an example, an item).
_LINE_STARTS = ("Example:", "- ", "* ")


def help_text(doc: str) -> str:
    r"""Turn a command's docstring into its help: a line per paragraph and per example.

    Docstrings are wrapped by hand at the source's width; the help renderer wraps again at
    the terminal's, so a hand break left in would end a line early (an orphan). Lines
    that start an example or a list item stay lines of their own.

    >>> help_text("Do it.\n\n    Reads a\n    file.\n\n    Example: do x\n    -o y\n    Example: z")
    'Do it.\n\nReads a file.\n\nExample: do x -o y\nExample: z'
    """
    paragraphs = []
    for paragraph in inspect.cleandoc(doc).split("\n\n"):
        lines: list[str] = []
        for raw in paragraph.splitlines():
            line = raw.strip()
            if lines and not line.startswith(_LINE_STARTS):
                lines[-1] = f"{lines[-1]} {line}"
            elif line:
                lines.append(line)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(p for p in paragraphs if p)


@contextlib.contextmanager
def data_warnings() -> Iterator[None]:
    """Print each :class:`~benchcheck.errors.DataWarning` the run raised as a warning line.

    They are printed once the command succeeded (after its output); other warnings pass
    through as Python shows them.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        yield
    seen: list[str] = []
    for w in caught:
        if issubclass(w.category, DataWarning):
            if str(w.message) not in seen:
                seen.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)
    warn(seen, soft_wrap=True)


def claim(inputs: Iterable[str | Path | None], **files: str | Path | None) -> Outputs:
    """Claim each output file (``param=path``), then ``--json``, before any work is done."""
    outputs = output_claims(inputs)
    for param, path in files.items():
        outputs.file(path, param=param)
    return claim_json(outputs)


def output_claims(inputs: Iterable[str | Path | None]) -> Outputs:
    """Return the claims of a run's outputs (never over ``inputs``), under its ``--force``.

    For commands that claim folders too (``Outputs.folder``); end with :func:`claim_json`.
    """
    return Outputs(list(inputs), force=_CURRENT.get().force)


def claim_json(outputs: Outputs) -> Outputs:
    """Claim the run's ``--json`` file on ``outputs`` (after its other outputs)."""
    outputs.file(_CURRENT.get().json_out, param="json")
    return outputs


def write_json(payload: dict[str, Any], path: str | Path | None) -> None:
    """Write canonical JSON to ``path`` (``-`` is standard output); no-op when ``path`` is None.

    The file is written atomically; claim it first with :class:`benchcheck.io.output.Outputs`.
    """
    if path is None:
        return
    text = dumps(payload)
    if str(path) == "-":
        try:
            console.out(text, end="", highlight=False)
            if sys.stdout is not None:
                sys.stdout.flush()
        except (BrokenPipeError, ValueError) as exc:  # ValueError: a closed file object
            raise WriteError(f"cannot write the JSON to standard output: {exc}") from None
        return
    atomic_write(Path(path), text)


def stdout_open() -> bool:
    """Whether standard output can be written (a process may start with it closed)."""
    out = sys.stdout
    if out is None or getattr(out, "closed", False):
        return False
    try:
        fd = out.fileno()
    except (OSError, ValueError, AttributeError):
        return True  # an in-memory stream (tests)
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def emit(
    payload: dict[str, Any],
    render: Callable[[Any], Iterable[Any]] | None = None,
    *,
    highlight: bool | None = None,
) -> bool:
    """Write the JSON to ``--json``; unless it went to standard output, print ``render(payload)``.

    Returns whether the terminal is free for more output (the JSON did not go to stdout).
    """
    json_out = _CURRENT.get().json_out
    write_json(payload, json_out)
    if json_out == "-":
        return False
    show(render(payload) if render is not None else (), highlight=highlight)
    return True


def show(renderables: Iterable[Any], *, highlight: bool | None = None) -> None:
    """Print each renderable on standard output, noting the glossary words it shows."""
    seen = _TERMS.get()
    for renderable in renderables:
        console.print(uncut(renderable), highlight=highlight)
        if seen is not None:
            from benchcheck.report.glossary import terms_in

            seen.update(dict.fromkeys(e.term for e in terms_in(_plain(renderable))))


def uncut(renderable: Any) -> Any:
    """Return ``renderable`` with its tables folding what does not fit, never cutting it.

    rich ends a word wider than its column with "…" (ids, model names, group names, file
    names cut at 80 columns); a folded word keeps every character, on two lines. Tables
    inside ``Group`` and :class:`~benchcheck.report.terminal.labels.ByWidth` too.
    """
    from rich.console import Group
    from rich.table import Table

    from benchcheck.report.terminal.labels import ByWidth

    if isinstance(renderable, Table):
        for column in renderable.columns:
            if column.overflow == "ellipsis":
                column.overflow = "fold"
    elif isinstance(renderable, Group):
        for inner in renderable.renderables:
            uncut(inner)
    elif isinstance(renderable, ByWidth):
        uncut(renderable.wide)
        uncut(renderable.narrow)
    return renderable


def _plain(renderable: Any) -> str:
    """Return the text ``renderable`` shows, unwrapped (wide), without styles."""
    import io

    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=400, color_system=None, highlight=False).print(renderable)
    return out.getvalue()


def terms_footer() -> None:
    """End the output with the glossary words it used, where ``benchcheck glossary`` explains them.

    One dim line on standard output (``terms: MOVER, mid-p — benchcheck glossary TERM``),
    only when the command printed a table or line that used one.
    """
    seen = _TERMS.get()
    if seen:
        words = ", ".join(seen)
        console.print(
            f"[dim]terms: {escape(words)} — benchcheck glossary TERM explains each[/]",
            highlight=False,
        )
        seen.clear()


def exit_with(run: Any) -> None:
    """End the command as its run says: its ``failure`` raised, or its nonzero ``exit_code``.

    Gates (``--fail-on``, ``check-suite --strict``) are a run's result; the command line
    only turns them into the exit, after the output is written.
    """
    failure = getattr(run, "failure", None)
    if isinstance(failure, BenchcheckError):
        raise failure
    code = getattr(run, "exit_code", 0)
    if code:
        raise typer.Exit(code=code)


def show_gates(gates: Iterable[Any]) -> None:
    """Print each ``--fail-on`` gate's verdict on standard error (``pass`` or ``FAIL``)."""
    for g in gates:
        mark = "[red]FAIL[/]" if g.failed else "[green]pass[/]"
        line = f"{mark} {escape(g.gate.text)} ({escape(str(g.path))}): {escape(g.reason)}"
        console_err.print(line, highlight=False)


def stderr(lines: Iterable[str], **kw: Any) -> None:
    """Print each line (rich markup) on standard error."""
    for line in lines:
        console_err.print(line, **kw)


def warn(messages: Iterable[str], **kw: Any) -> None:
    """Print each message as one ``warning:`` line on standard error (never wrapped)."""
    kw.setdefault("soft_wrap", True)
    for message in messages:
        console_err.print(f"[yellow]warning:[/] {escape(message)}", **kw)


def parse_assignments(values: list[str] | None, option: str) -> dict[str, str]:
    """Parse repeated ``NAME=VALUE`` options into an ordered dict; errors name the option."""
    return parse_pairs(values or [], option)


def csv(value: str | None) -> list[str] | None:
    """Split a comma-separated option; None when it names nothing."""
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def names(value: str | None) -> tuple[str, ...] | None:
    """Split a comma-separated option into a tuple; None when it names nothing."""
    found = csv(value)
    return tuple(found) if found else None


def parse_scores(scores: str | None) -> dict[str, float]:
    """Parse ``--scores 93.1,92.8`` into finite numbers named model_1, model_2 and so on."""
    out = {}
    for k, item in enumerate(scores.split(",") if scores else []):
        try:
            value = float(item)
        except ValueError:
            raise UsageError(f"--scores expects comma-separated numbers, got {item!r}") from None
        if not math.isfinite(value):
            raise UsageError(f"--scores expects finite numbers, got {item.strip()!r}")
        out[f"model_{k + 1}"] = value
    return out


@contextlib.contextmanager
def reporting(what: str) -> Iterator[Progress]:
    """Yield a reporter of a run's steps on standard error (a transient bar, or lines).

    The bar is closed when the block ends, before the command prints its result.
    """
    from benchcheck.report.terminal.progress import progress_bar

    with progress_bar(console_err, what, transient=True) as bar:
        yield bar
