"""Progress of long work on a console (the CLI's standard error): a bar, or a line per step.

The command line hands a :class:`Reporter` to a run (:mod:`benchcheck._progress` says what
runs call). On a terminal it draws a rich bar: the current step's name, and for counted
work the count, share, rate and ETA; it appears at the first report (work that never
reports draws nothing). Elsewhere (a pipe, a log file, CI) it writes one plain line per
step and, for counted work, a line at each tenth done (at most one per
:data:`LINE_SECONDS`), each with the seconds since the run started; work done within
:data:`QUIET_SECONDS` writes nothing (a quick command, or a bad input's one error line,
stays as it is), and the step under way then is written when that time has passed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from benchcheck.report.numbers import num, pct, thousands

__all__ = ["LINE_SECONDS", "Reporter", "progress_bar"]

#: Without a terminal, counted work writes a line at most this often (and at each tenth).
LINE_SECONDS = 10.0
#: Without a terminal, nothing is written before the run has lasted this long.
QUIET_SECONDS = 2.0


class _Rate(TextColumn):
    def __init__(self) -> None:
        super().__init__("")

    def render(self, task):  # type: ignore[no-untyped-def]
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{num(speed, 2)}/s")


class Reporter:
    """Steps and counts of a run, shown on ``console``: a bar on a terminal, else lines.

    ``what`` names the work until the run names its first step (``judging``). A
    transient bar disappears when the work ends (the result is printed after it).
    """

    def __init__(self, console: Console, what: str = "working", *, transient: bool = False):
        self.console = console
        self.what = what
        self.live = console.is_terminal
        self._start = time.monotonic()
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._transient = transient
        self._shown: tuple[int, int] = (-1, -1)  # (tenth, done) of the last count line
        self._last_line = 0.0
        self._lock = threading.Lock()
        self._pending: str | None = None  # the step under way, not yet written
        self._speaking = QUIET_SECONDS <= 0
        self._timer: threading.Timer | None = None

    # -- what runs call -------------------------------------------------------------------

    def step(self, what: str) -> None:
        """Start the named step ``what``: a new bar description, or a line."""
        self.what = what
        self._shown = (-1, -1)
        if self.live:
            bar, task = self._open()
            bar.reset(task, total=None, description=what)
        else:
            self._line(what)

    def __call__(self, done: int, total: int) -> None:
        """Count ``done`` of ``total`` units of the current step as done."""
        if self.live:
            bar, task = self._open()
            if bar.tasks[0].total is None:  # the step's first count: cache hits, no rate yet
                bar.reset(task, total=total, completed=done)
            else:
                bar.update(task, completed=done, total=total)
            return
        tenth = 10 * done // total if total > 0 else 10
        last_tenth, last_done = self._shown
        soon = time.monotonic() - self._last_line < LINE_SECONDS
        if done == last_done or (tenth == last_tenth and soon):
            return
        self._shown = (tenth, done)
        share = f" ({pct(done / total)})" if total > 0 else ""
        self._line(f"{self.what}: {thousands(done)}/{thousands(total)}{share}")

    # -- drawing --------------------------------------------------------------------------

    def _line(self, text: str) -> None:
        with self._lock:
            if not self._speaking:  # still quiet: the latest line waits for the timer
                self._pending = text
                if self._timer is None:
                    self._timer = threading.Timer(self._quiet_left(), self._speak)
                    self._timer.daemon = True
                    self._timer.start()
                return
            self._write(text)

    def _quiet_left(self) -> float:
        return max(0.0, QUIET_SECONDS - (time.monotonic() - self._start))

    def _speak(self) -> None:
        """End the quiet time: write the step under way, and every line from now on."""
        with self._lock:
            self._speaking = True
            if self._pending is not None:
                self._write(self._pending)
                self._pending = None

    def _write(self, text: str) -> None:
        self._last_line = time.monotonic()
        elapsed = self._last_line - self._start
        stamp = f"[{num(elapsed, 1).rjust(6)}s]"
        self.console.print(f"{stamp} {text}", markup=False, highlight=False, soft_wrap=True)

    def _open(self) -> tuple[Progress, TaskID]:
        if self._bar is None or self._task is None:
            self._bar = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                _Rate(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
                transient=self._transient,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.what, total=None)
        return self._bar, self._task

    def close(self) -> None:
        """Stop the bar (if one was drawn) and the quiet time's timer."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._speaking = False  # nothing more after the run: its output follows
        if self._bar is not None:
            self._bar.stop()


@contextmanager
def progress_bar(
    console: Console, what: str = "judging", *, transient: bool = False
) -> Iterator[Reporter]:
    """Yield a :class:`Reporter` drawing on ``console``; the bar stops when the block ends."""
    reporter = Reporter(console, what, transient=transient)
    try:
        yield reporter
    finally:
        reporter.close()
