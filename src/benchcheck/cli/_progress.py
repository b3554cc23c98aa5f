"""Progress bars of long work (judging), on standard error."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from benchcheck.cli._app import console_err


class _Rate(TextColumn):
    def __init__(self) -> None:
        super().__init__("")

    def render(self, task):  # type: ignore[no-untyped-def]
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.2f}/s")


@contextmanager
def progress_bar(what: str = "judging", *, transient: bool = False) -> Iterator[
    Callable[[int, int], None]
]:
    """Yield a ``(done, total)`` callback drawing a bar with rate and ETA.

    Cache hits arrive first: the first call counts them as done without a rate.
    """
    columns = (
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        _Rate(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console_err, transient=transient) as bar:
        task = bar.add_task(what, total=None)
        started = False

        def update(done: int, total: int) -> None:
            nonlocal started
            if not started:
                bar.reset(task, total=total, completed=done)
                started = True
            bar.update(task, completed=done, total=total)

        yield update
