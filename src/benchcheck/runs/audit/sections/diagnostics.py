"""Section ``diagnostics``: R_K per phenomenon for each model, and the suite's own checks.

Key in ``results.json``: ``diagnostics`` (``benchcheck diagnose --json`` with the suite's
``check-suite`` result under ``checks``; without predictions, the checks alone).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from benchcheck.io.typed import ABSENT, AbsentType, JsonResult
from benchcheck.report.html import esc, figure, num_cell, show_text
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.report.numbers import num, pct
from benchcheck.report.svg import grouped_hbars, heatmap, interval_plot
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section

__all__ = ["Diagnostics", "DiagnosticsResult", "DiagnosticsSection"]

Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class SuiteInfo(JsonResult):
    """The suite: file, format, examples, pairs, labels, taxonomy and its tag groups."""

    source: str
    format: str
    n_examples: int
    n_pairs: int
    labels: tuple[str, ...]
    taxonomy: str
    tag_groups: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Cell(JsonResult):
    """R_K of one group with its bootstrap interval, confusion matrix and accuracy.

    The JSON of :class:`benchcheck.diagnostics.score.Cell` (not reused: importing it
    imports numpy, and reading a results.json stays light).
    """

    r_k: float | None
    n: int
    ci: Interval
    confusion: tuple[tuple[int, ...], ...]
    accuracy: float | None


@dataclass(frozen=True)
class ModelDiagnosis(JsonResult):
    """One model: overall, per coarse category, per fine tag, direction and monotonicity."""

    overall: Cell
    coarse: dict[str, Cell]
    fine: dict[str, Cell]
    directions: dict[str, Any]
    monotonicity: dict[str, Any]


@dataclass(frozen=True)
class Shares(JsonResult):
    """Gold labels of a group: counts and shares (and the GLUE diagnostic's, for the whole)."""

    n: int
    counts: dict[str, int]
    shares: dict[str, float | None]
    glue_reference_shares: dict[str, float] | AbsentType = ABSENT


@dataclass(frozen=True)
class Finding(JsonResult):
    """One finding of the suite checks."""

    level: str
    check: str
    message: str


@dataclass(frozen=True)
class SuiteChecks(JsonResult):
    """How the suite is built: label shares, directions, tags, minimal sets, duplicates."""

    kind: Literal["check-suite"]
    suite: SuiteInfo
    label_distribution: Shares
    categories: dict[str, Shares]
    fine: dict[str, Shares]
    directions: dict[str, Any]
    unknown_tags: dict[str, Any]
    untagged: dict[str, Any]
    minimal_sets: dict[str, Any]
    duplicates: dict[str, Any]
    findings: tuple[Finding, ...]


@dataclass(frozen=True, kw_only=True)
class Diagnostics(JsonResult):
    """R_K of each model on the suite (none without predictions) and the suite checks."""

    kind: Literal["diagnose"] | AbsentType = ABSENT
    suite: SuiteInfo
    labels: tuple[str, ...]
    note: str | AbsentType = ABSENT
    seed: int | AbsentType = ABSENT
    n_resamples: int | AbsentType = ABSENT
    confidence: float | AbsentType = ABSENT
    models: dict[str, ModelDiagnosis]
    rankings: dict[str, dict[str, Any]] | AbsentType = ABSENT
    prediction_notes: dict[str, tuple[str, ...]] | AbsentType = ABSENT
    checks: SuiteChecks


@dataclass(frozen=True)
class DiagnosticsResult(JsonResult):
    """The ``diagnostics`` section."""

    diagnostics: Diagnostics


class DiagnosticsSection(Section[DiagnosticsResult]):
    """Diagnostic evaluation: Gorodkin's R_K per phenomenon, models compared within a row."""

    name = "diagnostics"
    title = "Diagnostic evaluation"
    anchor = "diagnostics"
    result = DiagnosticsResult
    card = Card(
        measures="Each model's R_K (the K-class Matthews correlation) per coarse category and "
        "fine tag of a GLUE-style diagnostic suite, with percentile-bootstrap intervals; and "
        "how the suite itself is built.",
        reading="Compare models within a category, never categories with each other "
        "(different sizes and label mixes). 1 is perfect, 0 chance.",
        references=("GLUE diagnostic dataset (Wang et al. 2019)", "Gorodkin 2004 (R_K)"),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a diagnostic suite."""
        return None if inputs.suite is not None else "no diagnostic suite given"

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[DiagnosticsResult]:
        """:func:`benchcheck.runs.diagnose.run_diagnose` and ``run_check_suite``."""
        from benchcheck.io.canonical import jsonable
        from benchcheck.runs.audit._paths import shown
        from benchcheck.runs.diagnose import run_check_suite, run_diagnose

        suite = inputs.suite
        assert suite is not None
        checks = run_check_suite(suite.path).checks
        if suite.predictions:
            diagnosis = run_diagnose(
                suite.path, dict(suite.predictions), seed=inputs.seed, resamples=inputs.resamples
            )
            payload = diagnosis.to_json()
            detail = f"{len(diagnosis.models)} model(s) on {checks.suite['n_examples']} examples"
        else:
            labels = list(checks.suite["labels"])
            payload = {"suite": dict(checks.suite), "labels": labels, "models": {}}
            detail = "suite checks only (no --predictions)"
        payload["checks"] = checks.to_json()
        for block in (payload, payload["checks"]):
            block["suite"] = {**block["suite"], "source": shown(suite.path)}
        return Ran(DiagnosticsResult.from_json(jsonable({"diagnostics": payload})), detail)

    def html(self, result: DiagnosticsResult) -> str:
        """R_K per category (chart) and per tag (table), confusion matrices, label shares."""
        diag = result.diagnostics
        suite = diag.suite
        resamples = None if diag.n_resamples is ABSENT else diag.n_resamples
        seed = None if diag.seed is ABSENT else diag.seed
        parts = [
            f"<p>Diagnostic suite <code>{show_text(suite.source)}</code>: "
            f"{esc(num(suite.n_examples))} examples ({esc(num(suite.n_pairs))} pairs, "
            f"both directions), taxonomy {show_text(suite.taxonomy)}. Score: Gorodkin's "
            "R<sub>K</sub>, the K-class Matthews correlation (1 perfect, 0 chance; ↑ better), "
            f"with {esc(pct(None if diag.confidence is ABSENT else diag.confidence))} "
            f"percentile-bootstrap intervals ({esc(num(resamples))} resamples, seed "
            f"{esc(num(seed))}).</p>",
            f'<p class="note" id="not-comparable"><b>Categories are not comparable with each '
            f"other.</b> {esc('' if diag.note is ABSENT else diag.note)}</p>",
        ]
        if diag.models:
            parts += _models_html(diag)
        dist = diag.checks.label_distribution
        if dist.shares:
            names = list(dist.shares)
            series = [("this suite", [dist.shares[k] for k in names])]
            if dist.glue_reference_shares is not ABSENT and dist.glue_reference_shares:
                ref = dist.glue_reference_shares
                series.append(("GLUE diagnostic", [ref.get(k) for k in names]))
            parts.append("<h3>Suite label distribution</h3>")
            parts.append(
                figure(
                    grouped_hbars(names, series, label="label distribution", vmax=1.0),
                    "Share of each gold label, beside the original GLUE diagnostic's distribution.",
                )
            )
        notes = {} if diag.prediction_notes is ABSENT else diag.prediction_notes
        for model, lines in notes.items():
            for line in lines:
                parts.append(f'<p class="sub">{show_text(model)}: {esc(line)}</p>')
        return "".join(parts)

    def markdown(self, result: DiagnosticsResult) -> list[str]:
        """R_K per category and per fine tag, with intervals."""
        diag = result.diagnostics
        out = [
            f"## {self.title}\n",
            f"Suite {md_text(diag.suite.source)}: {md_num(diag.suite.n_examples)} examples. "
            "Score: Gorodkin's R_K (↑ better; 1 perfect, 0 chance) with bootstrap intervals.\n",
            "> **Categories are not comparable with each other.** "
            f"{md_text('' if diag.note is ABSENT else diag.note)}\n",
        ]
        if not diag.models:
            return out
        names = list(diag.models)
        first = diag.models[names[0]]
        groups = [("overall", first.overall), *first.coarse.items()]
        rows = []
        for group, cell in groups:
            row = [md_text(group), md_num(cell.n)]
            for m in names:
                c = _group(diag.models[m], group)
                lo, hi = c.ci if c is not None else (None, None)
                r_k = c.r_k if c is not None else None
                row.append(f"{md_num(r_k, 3)} [{md_num(lo, 2)}, {md_num(hi, 2)}]")
            rows.append(row)
        out.append(
            md_table(
                ["category", "n", *[f"{md_text(m)} R_K ↑" for m in names]],
                rows,
                right=range(1, 2 + len(names)),
            )
        )
        out.append("### Per fine tag\n")
        fine = _fine_tags(diag)
        out.append(
            md_table(
                ["tag", "n", *[f"{md_text(m)} R_K ↑" for m in names]],
                [
                    [
                        md_text(t),
                        md_num(_fine_n(diag, t)),
                        *[md_num(_r_k(diag.models[m].fine.get(t)), 3) for m in names],
                    ]
                    for t in fine
                ],
                right=range(1, 2 + len(names)),
            )
        )
        return out


def _group(model: ModelDiagnosis, group: str) -> Cell | None:
    return model.overall if group == "overall" else model.coarse.get(group)


def _r_k(cell: Cell | None) -> float | None:
    return None if cell is None else cell.r_k


def _fine_tags(diag: Diagnostics) -> list[str]:
    return list(dict.fromkeys(t for m in diag.models.values() for t in m.fine))


def _fine_n(diag: Diagnostics, tag: str) -> int | None:
    return next((m.fine[tag].n for m in diag.models.values() if tag in m.fine), None)


def _models_html(diag: Diagnostics) -> list[str]:
    names = list(diag.models)
    coarse = list(next(iter(diag.models.values())).coarse)
    rows: list[tuple[str, list[tuple[Any, Any, Any]]]] = []
    tips = []
    for group in ["overall", *coarse]:
        found = [_group(diag.models[m], group) for m in names]
        points = [(_r_k(c), *(c.ci if c else (None, None))) for c in found]
        tips.append(
            [
                f"{m} · {group}: R_K {num(_r_k(c))} (interval {num(lo)}–{num(hi)}), "
                f"n={c.n if c else None}; ↑ better"
                for m, c, (_, lo, hi) in zip(names, found, points, strict=True)
            ]
        )
        first = found[0]
        rows.append((f"{group} (n={first.n if first else None})", points))
    parts = ["<h3>R<sub>K</sub> per coarse category</h3>"]
    parts.append(
        figure(
            interval_plot(
                rows,
                series=names,
                label="R_K per category",
                lo=-1.0,
                hi=1.0,
                tips=tips,
                ref=0.0,
                label_width=250,
                width=620,
            ),
            "Compare models within a row, never rows with each other. Dashed line: chance (0).",
        )
    )
    head = "".join(
        f'<th class="n">{show_text(m)} R_K</th><th class="n">interval</th>' for m in names
    )
    body = []
    for tag in _fine_tags(diag):
        cells = ""
        for m in names:
            c = diag.models[m].fine.get(tag)
            lo, hi = c.ci if c is not None else (None, None)
            tip = f"{m} · {tag}: R_K (Gorodkin), ↑ better; n={c.n if c else None}"
            cells += num_cell(_r_k(c), tip)
            cells += f'<td class="n muted">{esc(num(lo))} – {esc(num(hi))}</td>'
        n = _fine_n(diag, tag)
        body.append(f"<tr><td>{show_text(tag)}</td>{num_cell(n, 'examples')}{cells}</tr>")
    parts.append(
        "<h3>R<sub>K</sub> per fine tag</h3>"
        '<div class="tablewrap"><table id="fine-table" class="sortable"><thead><tr>'
        f'<th>tag</th><th class="n">n</th>{head}</tr></thead><tbody>{"".join(body)}'
        "</tbody></table></div>"
    )
    parts.append("<h3>Confusion matrices (overall)</h3>")
    figs = [
        figure(
            heatmap(
                [list(r) for r in diag.models[m].overall.confusion],
                list(diag.labels),
                label=f"confusion {m}",
            ),
            f"{m}: rows gold, columns predicted; shade = share of row.",
        )
        for m in names
        if diag.models[m].overall.confusion
    ]
    parts.append(f'<div class="charts">{"".join(figs)}</div>')
    return parts
