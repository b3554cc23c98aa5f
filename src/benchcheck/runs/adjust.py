"""``benchcheck adjust``: subsets of a split whose metric hits a target (Sec. 6.4)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck._progress import Progress, step
from benchcheck.errors import InputError
from benchcheck.io.source import DataSource

if TYPE_CHECKING:
    from benchcheck.data.model import Split
    from benchcheck.io.output import OutputFolder
    from benchcheck.metrics.adjust import Adjustment

__all__ = ["AdjustRun", "AdjustTarget", "run_adjust"]


@dataclass(frozen=True)
class AdjustRun:
    """The adjustment, the split it draws from (whose lines the subsets copy), the files."""

    adjustment: Adjustment
    split: Split
    files: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return ``adjustment.json``: targets, achieved values, and each subset's file."""
        payload = self.adjustment.to_json()
        for sub, name in zip(payload["subsets"], self.files, strict=False):
            sub["file"] = name
        return payload

    def file_names(self) -> list[str]:
        """Each subset's file in the output folder: one target at the top, else per target."""
        source = Path(self.split.source)
        name = source.name if source.is_file() else f"{self.split.name}.jsonl"
        subsets = self.adjustment.subsets
        if len(subsets) == 1:
            return [name]
        return [f"target_{s.target:g}/{name}" for s in subsets]

    def write(self, folder: OutputFolder) -> AdjustRun:
        """Write every subset and ``adjustment.json`` into ``folder``; the run with its files."""
        from dataclasses import replace

        from benchcheck.io.canonical import dumps
        from benchcheck.io.subset import write_subset

        files = []
        with folder:
            for sub, name in zip(self.adjustment.subsets, self.file_names(), strict=True):
                write_subset(self.split, sub.rows, folder.stage(name))
                files.append(str(folder.path / name))
            done = replace(self, files=tuple(files))
            folder.write("adjustment.json", dumps(done.to_json()))
        return done


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


def run_adjust(
    source: DataSource,
    target: AdjustTarget,
    *,
    folder: OutputFolder | None = None,
    progress: Progress | None = None,
) -> AdjustRun:
    """Load ``source`` and build one subset of the split per target metric value.

    With ``folder`` (claimed: :meth:`benchcheck.io.output.Outputs.folder`) the subsets and
    ``adjustment.json`` are written there. ``progress`` is told the steps (reading,
    building, writing).
    """
    from dataclasses import asdict

    from benchcheck.metrics.adjust import adjust

    step(progress, f"reading {source.path or ', '.join(source.splits.values())}")
    dataset = source.load()
    if target.split not in dataset.split_names:  # say which dataset lacks it
        where = source.path or ", ".join(source.splits.values())
        raise InputError(
            f"no split {target.split!r}; the dataset has {dataset.split_names}", path=where
        )
    step(progress, f"building subsets of {target.split} for {target.metric}")
    run = AdjustRun(adjust(dataset, **asdict(target)), dataset[target.split])
    if folder is None:
        return run
    step(progress, f"writing {folder.path}")
    return run.write(folder)
