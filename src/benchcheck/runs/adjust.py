"""``benchcheck adjust``: subsets of a split whose metric hits a target (Sec. 6.4)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.errors import InputError
from benchcheck.io.source import DataSource

if TYPE_CHECKING:
    from benchcheck.data.model import Split
    from benchcheck.io.output import OutputFolder
    from benchcheck.metrics.adjust import Adjustment

__all__ = ["AdjustRun", "AdjustTarget", "run_adjust"]


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


@dataclass(frozen=True)
class AdjustTarget:
    """What to build: subsets of ``split`` whose ``metric`` hits each of ``targets``.

    ``size`` instances each (default: :func:`benchcheck.metrics.adjust.default_size`),
    drawn with ``seed``; a target missed by more than ``tolerance`` is refused.
    """

    split: str
    metric: str
    targets: tuple[float, ...]
    size: int | None = None
    seed: int = 0
    tolerance: float = 0.02


def run_adjust(source: DataSource, target: AdjustTarget) -> AdjustRun:
    """Load ``source`` and build one subset of the split per target metric value."""
    from dataclasses import asdict

    from benchcheck.metrics.adjust import adjust

    dataset = source.load()
    if target.split not in dataset.split_names:  # say which dataset lacks it
        where = source.path or ", ".join(source.splits.values())
        raise InputError(
            f"no split {target.split!r}; the dataset has {dataset.split_names}", path=where
        )
    return AdjustRun(adjust(dataset, **asdict(target)), dataset[target.split])
