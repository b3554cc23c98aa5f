"""``benchcheck diff``: two audits of one dataset compared, with ``--fail-on`` gates.

:func:`run_diff` reads two ``results.json`` files (:func:`benchcheck.io.canonical.read_results`)
and compares them (:func:`benchcheck.items.diff.diff_results`); :func:`run_gates` evaluates
gate expressions on one audit (or a diff). Exit code of the command line: 0 when every gate
passes, 1 when one fails, 2 for a bad input or expression.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchcheck.items.diff import DiffResult, GateResult
from benchcheck.runs.gates import GATE_FAILED, Gated

__all__ = ["GATE_FAILED", "DiffRun", "run_diff", "run_gates"]


@dataclass(frozen=True)
class DiffRun(Gated):
    """A diff of two audits (``None`` for a single audit) and its gates."""

    old: str | None
    new: str
    diff: DiffResult | None
    gates: tuple[GateResult, ...]
    changed_only: bool = False

    def to_json(self) -> dict[str, Any]:
        """``diff --json``: the audits, the values compared, flags fixed/new, gates."""
        out: dict[str, Any] = {"old": self.old, "new": self.new}
        if self.diff is not None:
            out.update(self.diff.to_json(changed_only=self.changed_only))
        out["gates"] = [g.to_json() for g in self.gates]
        out["failed"] = self.failed
        return out


def run_diff(
    old: str | None, new: str, *, fail_on: str | None = None, changed_only: bool = False
) -> DiffRun:
    """Compare ``old`` with ``new`` (``old=None``: gate a single audit) and evaluate gates."""
    from benchcheck.io.canonical import read_results
    from benchcheck.items.diff import diff_results

    after = read_results(new)
    diff = diff_results(read_results(old), after) if old is not None else None
    return DiffRun(old, new, diff, run_gates(fail_on, after, diff), changed_only)


def run_gates(
    fail_on: str | None, results: dict[str, Any], diff: DiffResult | None = None
) -> tuple[GateResult, ...]:
    """Parse and evaluate ``fail_on`` (none: no gate)."""
    from benchcheck.items.diff import evaluate_gates, parse_gates

    if not fail_on:
        return ()
    return evaluate_gates(parse_gates(fail_on), results, diff)
