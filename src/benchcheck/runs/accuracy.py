"""``benchcheck sample`` and ``benchcheck accuracy``: the human accuracy sample (Eq. 2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck._progress import Progress, step
from benchcheck.io.source import DataSource

if TYPE_CHECKING:
    from benchcheck.metrics.accuracy import SplitAccuracy

__all__ = ["AccuracyRun", "SampleRun", "run_accuracy", "run_sample"]


@dataclass(frozen=True)
class SampleRun:
    """The rows drawn for the annotators, and the file they went to."""

    rows: tuple[dict[str, Any], ...]
    per_split: int
    seed: int
    output: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return what ``benchcheck sample`` did: the file, the rows per split, the seed."""
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[str(row.get("split"))] = counts.get(str(row.get("split")), 0) + 1
        return {
            "output": self.output,
            "n_rows": len(self.rows),
            "splits": counts,
            "per_split": self.per_split,
            "seed": self.seed,
        }


def run_sample(
    source: DataSource,
    *,
    per_split: int = 100,
    seed: int = 13,
    output: str | Path | None = None,
    progress: Progress | None = None,
) -> SampleRun:
    """Draw a seeded per-split sample for annotators: one JSON-ready row per instance.

    With ``output`` the rows are written there as JSON lines, atomically
    (:func:`benchcheck.io.output.atomic_write`); claim it first. ``progress`` is told the
    steps (reading, drawing, writing).
    """
    import json

    from benchcheck.metrics.accuracy import draw_sample

    step(progress, f"reading {source.path or ', '.join(source.splits.values())}")
    dataset = source.load()
    step(progress, f"drawing {per_split} instances per split")
    rows = draw_sample(dataset, per_split=per_split, seed=seed)
    if output is not None:
        from benchcheck.io.output import atomic_write

        step(progress, f"writing {output}")
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        atomic_write(Path(output), text)
    return SampleRun(tuple(rows), per_split, seed, None if output is None else str(output))


@dataclass(frozen=True)
class AccuracyRun:
    """Accuracy per split and mean pairwise Cohen's kappa, with the paper's trust rule."""

    splits: Mapping[str, SplitAccuracy]
    kappa_threshold: float
    #: Krippendorff's alpha of every judged instance of every split, and its interval.
    alpha: tuple[float | None, Any] = (None, None)

    @property
    def warnings(self) -> list[str]:
        """Splits whose agreement is below the threshold, or undefined."""
        out = [
            f"{name}: mean pairwise Cohen's kappa {s.kappa_mean:.3f} is below "
            f"{self.kappa_threshold}: do not trust this accuracy"
            for name, s in self.splits.items()
            if s.kappa_mean is not None and s.kappa_mean < self.kappa_threshold
        ]
        out += [
            f"{name}: no annotator pair with a defined kappa"
            for name, s in self.splits.items()
            if s.kappa_mean is None
        ]
        return out

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck accuracy --json``."""
        import numpy as np

        accs = [s.accuracy for s in self.splits.values() if s.accuracy is not None]
        kappas = [s.kappa_mean for s in self.splits.values() if s.kappa_mean is not None]
        return {
            "metrics": {
                "accuracy": float(np.mean(accs)) if accs else None,
                "kappa_mean": float(np.mean(kappas)) if kappas else None,
                "krippendorff_alpha": self.alpha[0],
                "krippendorff_alpha_ci": _ci(self.alpha[1]),
            },
            "splits": {
                name: {
                    "n": s.n,
                    "accuracy": s.accuracy,
                    "kappa_mean": s.kappa_mean,
                    "kappa_pairs": s.kappa_pairs,
                    "krippendorff_alpha": s.krippendorff_alpha,
                    "krippendorff_alpha_ci": _ci(s.krippendorff_alpha_ci),
                    "annotators": list(s.annotators),
                }
                for name, s in self.splits.items()
            },
            "kappa_threshold": self.kappa_threshold,
            "warnings": self.warnings,
        }


def _ci(interval: Any) -> list[float] | None:
    return None if interval is None else [float(interval[0]), float(interval[1])]


def run_accuracy(annotated: str | Path, *, progress: Progress | None = None) -> AccuracyRun:
    """Score a sample file whose ``annotations`` the annotators filled.

    ``progress`` is told the steps (reading, scoring).
    """
    from benchcheck.io.accuracy import read_accuracy_sample
    from benchcheck.metrics.accuracy import KAPPA_THRESHOLD, alpha_of, score_annotations

    step(progress, f"reading {annotated}")
    rows = read_accuracy_sample(annotated)
    step(progress, "accuracy per split and agreement")
    pooled = alpha_of(judged for _, judged in rows)
    return AccuracyRun(score_annotations(rows), KAPPA_THRESHOLD, pooled)
