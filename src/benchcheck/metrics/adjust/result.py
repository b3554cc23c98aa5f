"""The result of an adjustment: one subset per target, all of one size."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Subset:
    """One adjusted subset: the chosen rows (0-based, ascending) and how it came out."""

    target: float
    achieved: float
    rows: tuple[int, ...]
    shift: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object (without the row list)."""
        return {
            "target": self.target,
            "achieved": self.achieved,
            "difference": self.achieved - self.target,
            "n": len(self.rows),
            "shift": dict(self.shift),
        }


@dataclass(frozen=True)
class Adjustment:
    """The result of :func:`adjust`: one subset per target, all of one size."""

    metric: str
    split: str
    size: int
    seed: int
    source_value: float | None
    subsets: tuple[Subset, ...]
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON object (``schema_version`` is added by the writer)."""
        return {
            "metric": self.metric,
            "split": self.split,
            "size": self.size,
            "seed": self.seed,
            "source_value": self.source_value,
            "subsets": [s.to_json() for s in self.subsets],
            "notes": list(self.notes),
        }
