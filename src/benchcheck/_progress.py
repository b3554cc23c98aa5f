"""Progress of long work: named steps, and counts within a step, told to whoever asked.

Library code stays quiet unless it is handed a reporter (the command line hands one in;
:mod:`benchcheck.report.terminal.progress` draws it). A reporter is any callable
``progress(done, total)``, called as counted work advances (judgements, folds, corpus
units); one that also has a ``step(what)`` method is told when each named step of a run
starts. Runs call the two through :func:`step` and :func:`count`, which accept a plain
callable, a reporter, or None.

>>> seen = []
>>> class Log:
...     def __call__(self, done, total):
...         seen.append(f"{done}/{total}")
...     def step(self, what):
...         seen.append(what)
>>> step(Log(), "reading"); count(Log(), 1, 2); step(print, "ignored"); count(None, 1, 2)
>>> seen
['reading', '1/2']
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Progress", "count", "step"]

#: Called with (done, total) as counted work advances; may also have ``step(what)``.
Progress = Callable[[int, int], None]


def step(progress: Progress | None, what: str) -> None:
    """Tell ``progress`` that the step ``what`` starts (if it takes steps)."""
    announce = getattr(progress, "step", None)
    if callable(announce):
        announce(what)


def count(progress: Progress | None, done: int, total: int) -> None:
    """Tell ``progress`` that ``done`` of ``total`` units of the current step are done."""
    if progress is not None:
        progress(done, total)
