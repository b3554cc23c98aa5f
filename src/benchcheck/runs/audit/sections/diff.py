"""Section ``diff``: this audit against an earlier ``results.json`` of the same dataset.

Key in ``results.json``: ``diff`` (``benchcheck diff --json``'s comparison, changed values
only, and the baseline's path). It reads every section run before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchcheck.io.typed import JsonResult
from benchcheck.report.html import esc
from benchcheck.report.markdown import md_table, md_text
from benchcheck.report.numbers import num
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import EVERY_EARLIER, Card, Progress, Ran, Section

__all__ = ["Diff", "DiffResult", "DiffSection"]

#: Changed values listed in the diff table.
MAX_CHANGES = 200
#: The title the audit's results carry (what the diff compares besides the sections).
TITLE = "benchcheck audit report"


@dataclass(frozen=True)
class Change(JsonResult):
    """One value of both audits: old, new, change, and the test of the change where known."""

    path: str
    old: float | None
    new: float | None
    change: float | None
    relative_change: float | None
    better: str | None
    worse: bool | None
    test: str | None
    p_value: float | None
    why_no_test: str | None
    intervals_overlap: bool | None


@dataclass(frozen=True)
class Diff(JsonResult):
    """The values of two audits compared, the flags fixed and new, and the baseline."""

    same_dataset: bool | None
    n_values: int
    n_changed: int
    metrics: tuple[Change, ...]
    flags: dict[str, Any] | None
    notes: tuple[str, ...]
    baseline: str


@dataclass(frozen=True)
class DiffResult(JsonResult):
    """The ``diff`` section."""

    diff: Diff


class DiffSection(Section[DiffResult]):
    """What changed since an earlier audit, with a test where the counts allow one."""

    name = "diff"
    title = "Changes since the baseline"
    anchor = "diff"
    result = DiffResult
    needs = EVERY_EARLIER
    card = Card(
        measures="Every value both audits hold: old, new and the change; Fisher's exact test "
        "on shares of instances and McNemar's on flags fixed and new where results.json "
        "holds the counts.",
        reading="A change without a test is a difference of numbers, not evidence; "
        "benchcheck diff --fail-on turns changes into a CI gate.",
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a baseline."""
        return None if inputs.baseline is not None else "no --baseline results.json given"

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[DiffResult]:
        """:func:`benchcheck.items.diff.diff_results` of the baseline and the sections so far."""
        from benchcheck.io.canonical import jsonable, read_results
        from benchcheck.items.diff import diff_results
        from benchcheck.runs.audit._paths import shown

        assert inputs.baseline is not None
        now: dict[str, Any] = {"title": TITLE}
        for ran in needs.values():
            now.update(ran.result.to_json())
        diff = diff_results(read_results(inputs.baseline), now)
        payload = diff.to_json(changed_only=True)
        payload["baseline"] = shown(inputs.baseline)
        result = DiffResult.from_json(jsonable({"diff": payload}))
        return Ran(result, f"{result.diff.n_changed} of {result.diff.n_values} values changed")

    def html(self, result: DiffResult) -> str:
        """Render the changed values and the flags fixed and new."""
        diff = result.diff
        body = "".join(
            f'<tr><td>{esc(m.path)}</td><td class="n">{esc(num(m.old, 4))}</td>'
            f'<td class="n">{esc(num(m.new, 4))}</td>'
            f'<td class="n{" neg" if m.worse else ""}">{esc(num(m.change, 4))}</td>'
            f"<td>{esc(m.test or '—')}</td>"
            f'<td class="n">{esc(num(m.p_value, 4))}</td></tr>'
            for m in _changed(diff)
        )
        parts = [
            f"<p>Against <code>{esc(diff.baseline)}</code>: {esc(num(diff.n_changed))} "
            f"of {esc(num(diff.n_values))} values changed. Tests run on counts only "
            "(results.json holds aggregates): Fisher's exact test on shares of instances, "
            "McNemar's on flags fixed/new.</p>",
            '<div class="tablewrap"><table id="diff-table" class="sortable"><thead><tr>'
            '<th>value</th><th class="n">old</th><th class="n">new</th>'
            '<th class="n">change</th><th>test</th>'
            f'<th class="n">p</th></tr></thead><tbody>{body}</tbody></table></div>',
        ]
        if diff.flags:
            counts = {k: diff.flags.get(k) for k in ("n_fixed", "n_new", "n_still_flagged")}
            parts.append(
                f"<p>Flags fixed: {esc(num(counts['n_fixed']))}, new: "
                f"{esc(num(counts['n_new']))}, still flagged: "
                f"{esc(num(counts['n_still_flagged']))}.</p>"
            )
        return "".join(parts)

    def markdown(self, result: DiffResult) -> list[str]:
        """Render the changed values."""
        return [
            f"## {self.title}",
            "",
            md_table(
                ["value", "old", "new", "change", "test", "p"],
                [
                    [
                        md_text(m.path),
                        num(m.old, 4),
                        num(m.new, 4),
                        num(m.change, 4),
                        md_text(m.test or "—"),
                        num(m.p_value, 4),
                    ]
                    for m in _changed(result.diff)
                ],
                right=(1, 2, 3, 5),
            ),
        ]


def _changed(diff: Diff) -> list[Change]:
    """Return the values that changed (one that appeared or vanished counts), the first ones."""
    return [m for m in diff.metrics if m.change not in (0, 0.0)][:MAX_CHANGES]
