"""Progress bars of long work (judging), drawn on a console (the CLI's standard error)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
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

from benchcheck.report.numbers import num


class _Rate(TextColumn):
    def __init__(self) -> None:
        super().__init__("")

    def render(self, task):  # type: ignore[no-untyped-def]
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{num(speed, 2)}/s")


@contextmanager
def progress_bar(
    console: Console, what: str = "judging", *, transient: bool = False
) -> Iterator[Callable[[int, int], None]]:
    """Yield a ``(done, total)`` callback drawing a bar with rate and ETA.

    The bar appears at the first call (work that never reports draws nothing); cache hits
    arrive first, so the first call counts them as done without a rate.
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
    bar = Progress(*columns, console=console, transient=transient)
    task = None

    def update(done: int, total: int) -> None:
        nonlocal task
        if task is None:
            bar.start()
            task = bar.add_task(what, total=total, completed=done)
            return
        bar.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if task is not None:
            bar.stop()
