"""The metric registry: name → spec (function, dimension, task kinds, better, scope).

Every metric is one pure function registered here; the command line, the terminal table,
the JSON ``dimensions`` block and the report all read this table, so a metric exists in
exactly one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Dimension = Literal["reliability", "difficulty", "validity"]
Better = Literal["higher", "lower"]
Scope = Literal["split", "cross", "scores"]
DIMENSIONS: tuple[Dimension, ...] = ("reliability", "difficulty", "validity")


@dataclass(frozen=True)
class MetricSpec:
    """How to compute and read one metric.

    ``scope`` says what the function takes: ``split`` (one split → a value, averaged over
    splits in ``metrics``), ``cross`` (the dataset → a value over named splits), ``scores``
    (a list of model scores).
    """

    name: str
    function: Callable[..., float | None]
    dimension: Dimension
    better: Better
    tasks: tuple[str, ...]
    scope: Scope
    title: str
    definition: str


REGISTRY: dict[str, MetricSpec] = {}


def register(
    *,
    dimension: Dimension,
    better: Better,
    tasks: tuple[str, ...],
    scope: Scope,
    title: str,
    definition: str,
    name: str | None = None,
) -> Callable[[Callable[..., float | None]], Callable[..., float | None]]:
    """Register a metric function under its name (the function's name by default)."""

    def wrap(function: Callable[..., float | None]) -> Callable[..., float | None]:
        key = name or function.__name__
        if key in REGISTRY:
            raise ValueError(f"metric {key!r} registered twice")
        REGISTRY[key] = MetricSpec(
            key, function, dimension, better, tasks, scope, title, definition
        )
        return function

    return wrap


def specs_for(task: str, scope: Scope | None = None) -> list[MetricSpec]:
    """List the registered metrics that apply to a task kind (optionally of one scope), in order."""
    _load()
    return [s for s in REGISTRY.values() if task in s.tasks and (scope is None or s.scope == scope)]


#: The metric modules, in the order the table lists their metrics.
_MODULES = ("difficulty", "reliability", "text", "validity")


def _load() -> None:
    """Import the metric modules so that their ``@register`` lines have run; order the table.

    The table lists the metrics module by module in :data:`_MODULES` order (each module's
    in definition order) whichever module was imported first, so that results list the
    metrics in one order, byte for byte.
    """
    from benchcheck.metrics import difficulty, reliability, text, validity  # noqa: F401

    rank = {f"benchcheck.metrics.{m}": i for i, m in enumerate(_MODULES)}
    ordered = sorted(REGISTRY.values(), key=lambda s: rank.get(s.function.__module__, len(rank)))
    if [s.name for s in ordered] != list(REGISTRY):
        REGISTRY.clear()
        REGISTRY.update((s.name, s) for s in ordered)
