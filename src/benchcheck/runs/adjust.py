"""``benchcheck adjust``: subsets of a split whose metric hits a target (Sec. 6.4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.io.source import DataSource

if TYPE_CHECKING:
    from benchcheck.data.model import Split
    from benchcheck.io.output import OutputFolder
    from benchcheck.metrics.adjust import Adjustment

__all__ = ["AdjustRun", "run_adjust"]


@dataclass(frozen=True)
class AdjustRun:
    """The adjustment and the split it draws from (whose lines the subsets copy)."""

    adjustment: Adjustment
    split: Split

    def file_names(self) -> list[str]:
        """Each subset's file in the output folder: one target at the top, else per target."""
        source = Path(self.split.source)
        name = source.name if source.is_file() else f"{self.split.name}.jsonl"
        subsets = self.adjustment.subsets
        if len(subsets) == 1:
            return [name]
        return [f"target_{s.target:g}/{name}" for s in subsets]

    def write(self, folder: OutputFolder) -> dict[str, Any]:
        """Stage every subset and ``adjustment.json`` in ``folder``; return the JSON."""
        from benchcheck.io.subset import write_subset
        from benchcheck.report.canonical import dumps

        payload = self.adjustment.to_json()
        for k, (sub, name) in enumerate(
            zip(self.adjustment.subsets, self.file_names(), strict=True)
        ):
            write_subset(self.split, sub.rows, folder.stage(name))
            payload["subsets"][k]["file"] = str(folder.path / name)
        folder.write("adjustment.json", dumps(payload))
        return payload


def run_adjust(
    source: DataSource,
    *,
    split: str,
    metric: str,
    targets: Sequence[float],
    size: int | None = None,
    seed: int = 0,
    tolerance: float = 0.02,
) -> AdjustRun:
    """Load ``source`` and build one subset of ``split`` per target metric value."""
    from benchcheck.metrics.adjust import adjust

    dataset = source.load()
    result = adjust(
        dataset,
        split=split,
        metric=metric,
        targets=targets,
        size=size,
        seed=seed,
        tolerance=tolerance,
    )
    return AdjustRun(result, dataset[split])
