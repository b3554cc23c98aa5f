"""What a run with ``--fail-on`` gates gives the command line: whether one failed, the code.

``benchcheck diff`` and ``benchcheck audit`` evaluate their gates in the run
(:func:`benchcheck.items.diff.evaluate_gates`); their results are :class:`Gated`, and the
command line turns ``exit_code`` into the process's (``cli._common.exit_with``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchcheck.items.diff import GateResult

__all__ = ["GATE_FAILED", "Gated"]

#: Exit code of a failed gate (``--fail-on``); bad input exits 2, as everywhere.
GATE_FAILED = 1


class Gated:
    """A run's result that carries ``--fail-on`` gates: whether one failed, the exit code."""

    gates: tuple[GateResult, ...]

    @property
    def failed(self) -> bool:
        """Whether a gate failed."""
        return any(g.failed for g in self.gates)

    @property
    def exit_code(self) -> int:
        """0 when every gate passes (or none is given), :data:`GATE_FAILED` otherwise."""
        return GATE_FAILED if self.failed else 0
