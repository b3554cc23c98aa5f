"""Section ``items``: item analysis (CTT) and IRT of the models' score matrix (methods.md §4).

Key in ``results.json``: ``items`` (``benchcheck items --json``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchcheck.io.typed import ABSENT, AbsentType, JsonResult
from benchcheck.report.html import esc, show_text
from benchcheck.report.markdown import md_table, md_text
from benchcheck.report.numbers import num, pct
from benchcheck.report.svg import line_plot, scatter_plot
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section

__all__ = ["ItemAnalysis", "ItemsResult", "ItemsSection"]

Interval = tuple[float | None, float | None]
#: Suspect items listed in the HTML and Markdown tables (all are in results.json).
MAX_ITEMS = 50
#: Suspects whose item–total curve the page draws.
MAX_CURVES = 6
#: Suspects first by why they are suspect, then by discrimination.
WHY = {"every model wrong": 0, "negative discrimination": 1, "low discrimination": 2}


@dataclass(frozen=True)
class Reliability(JsonResult):
    """KR-20, Cronbach's alpha with its bootstrap interval over items, and the SEM."""

    kr20: float | None
    cronbach_alpha: float | None
    ci: Interval
    sem: float | None
    confidence: float
    n_resamples: int
    n_resamples_undefined: int
    seed: int
    note: str | None


@dataclass(frozen=True)
class CurvePoint(JsonResult):
    """Share of models right on the item, among models with this score on the other items."""

    rest_score: float
    p: float | None


@dataclass(frozen=True, kw_only=True)
class Item(JsonResult):
    """One item: difficulty, discrimination, upper-lower index, why it is suspect."""

    id: str
    difficulty: float | None
    discrimination: float | None
    upper_lower_index: float | None
    point_biserial: float | None
    alpha_if_deleted: float | None
    flag: str | None
    note: str | None
    curve: tuple[CurvePoint, ...] | AbsentType = ABSENT


@dataclass(frozen=True)
class Ability(JsonResult):
    """A model's IRT ability and its standard error."""

    theta: float | None
    se: float | None


@dataclass(frozen=True)
class Irt(JsonResult):
    """The IRT fit: abilities, item parameters, separating items, test information."""

    model: str
    library: str
    converged: bool
    n_iterations: int
    log_likelihood: float | None
    excluded: dict[str, int]
    abilities: dict[str, Ability]
    items: tuple[dict[str, Any], ...]
    separating_items: dict[str, Any]
    items_needed: dict[str, Any]
    test_information: tuple[dict[str, Any], ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ModelScore(JsonResult):
    """A model's total over the items and its mean score."""

    name: str
    total: float
    score: float | None


@dataclass(frozen=True)
class ItemAnalysis(JsonResult):
    """The item analysis of the score matrix (``benchcheck items --json``)."""

    n_items: int
    n_models: int
    reliability: Reliability
    items: tuple[Item, ...]
    irt: Irt | None
    irt_skipped: str | None
    scoring: str
    models: tuple[ModelScore, ...]
    min_discrimination: float
    counts: dict[str, int]
    notes: tuple[str, ...]
    sources: dict[str, str]
    dropped: dict[str, int]

    def suspects(self) -> list[Item]:
        """Return the flagged items, worst first."""
        flagged = [i for i in self.items if i.flag]
        return sorted(
            flagged,
            key=lambda i: (
                WHY.get(str(i.flag), 3),
                i.discrimination if i.discrimination is not None else -2.0,
            ),
        )


@dataclass(frozen=True)
class ItemsResult(JsonResult):
    """The ``items`` section."""

    items: ItemAnalysis


class ItemsSection(Section[ItemsResult]):
    """Each model an examinee, each example an item: which items do not measure the ability."""

    name = "items"
    title = "Item analysis"
    anchor = "items"
    result = ItemsResult
    card = Card(
        measures="Classical test theory over the models' 0/1 scores: each item's difficulty "
        "and discrimination (corrected item–total correlation), the benchmark's reliability "
        "(KR-20, Cronbach's alpha, SEM) and a 2PL IRT fit.",
        reading="An item with negative or near-zero discrimination (strong models wrong, "
        "weak ones right) is a prime label-error suspect; items every model gets wrong are "
        "listed too.",
        references=(
            "Lord & Novick 1968",
            "Rodriguez et al. 2021, Evaluation Examples Are Not Equally Informative",
        ),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a score matrix, or a table with two or more models' predictions.

        Item analysis needs examinees to compare (discrimination correlates an item with the
        models' totals): one model's predictions leave it undefined, so the section skips,
        as ranking does, rather than failing the audit.
        """
        if inputs.mcq is not None and len(inputs.mcq.answers) and inputs.matrix is None:
            return None  # the models' answers to the questions (at least two models checked)
        if inputs.matrix is None and not (inputs.table and inputs.table.predictions):
            return "no --matrix, nor a classification/pair file with --predictions"
        if inputs.matrix is None and inputs.table and len(inputs.table.predictions) < 2:
            return "needs two or more models' --predictions (got one)"
        return None

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[ItemsResult]:
        """:func:`benchcheck.runs.items.run_items`."""
        from benchcheck.io.canonical import jsonable
        from benchcheck.runs.audit._paths import shown
        from benchcheck.runs.items import ItemsOptions, run_items

        options = ItemsOptions(n_resamples=inputs.resamples, seed=inputs.seed)
        if inputs.matrix is not None:
            run = run_items(matrix=inputs.matrix, options=options)
        elif inputs.mcq is not None:  # the questions every model answered
            from benchcheck.errors import InputError
            from benchcheck.runs.audit._section import Skip

            options = ItemsOptions(n_resamples=inputs.resamples, seed=inputs.seed, intersect=True)
            try:
                run = run_items(
                    data=inputs.mcq.path,
                    answers=inputs.mcq.answers,
                    mcq=inputs.mcq.columns,
                    options=options,
                )
            except InputError as exc:
                if "at least two models" not in exc.message:
                    raise
                raise Skip("needs the answers of two or more models (got one)") from None
        else:
            table = inputs.table
            assert table is not None
            run = run_items(
                data=table.evaluated()[0],
                label=table.label,
                id_col=table.columns.id,
                predictions=table.predictions,
                options=options,
            )
        payload = run.to_json()
        payload["sources"] = {k: shown(v) for k, v in payload["sources"].items()}
        rel = run.analysis.reliability.cronbach_alpha
        detail = (
            f"{run.analysis.n_items} items × {run.analysis.n_models} models, alpha "
            f"{'undefined' if rel is None else num(rel, 3)}, "
            f"{len(run.analysis.suspects())} suspect items"
        )
        return Ran(ItemsResult.from_json(jsonable({"items": payload})), detail)

    def html(self, result: ItemsResult) -> str:
        """Reliability cards, the item–total scatter, suspects, their curves, IRT abilities."""
        items = result.items
        rel = items.reliability
        level = pct(rel.confidence)
        cards = "".join(
            f'<div class="card" title="{esc(tip)}"><div class="k">{esc(k)}</div>'
            f'<div class="v">{esc(v)}</div></div>'
            for k, v, tip in (
                ("KR-20", num(rel.kr20), "Kuder–Richardson 20 over the models (↑ better)"),
                ("Cronbach's α", num(rel.cronbach_alpha), "internal consistency (↑ better)"),
                (
                    f"α {level} CI",
                    f"{num(rel.ci[0])}–{num(rel.ci[1])}",
                    "percentile bootstrap over items",
                ),
                ("SEM", num(rel.sem), "standard error of measurement, in items (↓ better)"),
                ("items", num(items.n_items), "items analysed"),
                ("models", num(items.n_models), "examinees"),
            )
        )
        parts = [f'<div class="cards">{cards}</div>']
        if rel.note:
            parts.append(f'<p class="note">{esc(rel.note)}</p>')
        points = [
            (
                float(i.difficulty),
                float(i.discrimination),
                f"{i.id}: difficulty {num(i.difficulty)}, discrimination "
                f"{num(i.discrimination)}" + (f" ({i.flag})" if i.flag else ""),
                bool(i.flag),
            )
            for i in items.items
            if i.discrimination is not None and i.difficulty is not None
        ]
        parts.append(
            "<figure>"
            + scatter_plot(
                points,
                label="item–total scatter",
                x_label="difficulty (share of models right)",
                y_label="discrimination",
                ref=float(items.min_discrimination),
            )
            + "<figcaption>Each dot an item: its difficulty against its corrected item–total "
            "correlation. Marked: suspects (at or below the dashed line, or every model "
            "wrong) — the prime label-error candidates.</figcaption></figure>"
        )
        suspects = items.suspects()
        if suspects:
            rows = "".join(
                f"<tr><td>{show_text(i.id)}</td>"
                f'<td class="n">{esc(num(i.difficulty))}</td>'
                f'<td class="n">{esc(num(i.discrimination))}</td>'
                f'<td class="n">{esc(num(i.upper_lower_index))}</td>'
                f"<td>{esc(i.flag)}</td></tr>"
                for i in suspects[:MAX_ITEMS]
            )
            parts.append(
                f"<h3>Suspect items ({len(suspects)}; the first "
                f"{min(len(suspects), MAX_ITEMS)})</h3>"
                '<div class="tablewrap"><table id="items-table" class="sortable"><thead><tr>'
                '<th>id</th><th class="n">difficulty</th><th class="n">discrimination</th>'
                '<th class="n">upper–lower</th><th>why</th></tr></thead>'
                f"<tbody>{rows}</tbody></table></div>"
            )
        curves = [i for i in suspects if i.curve][:MAX_CURVES]
        if curves:
            series = [
                (i.id, [(c.rest_score, c.p, None, None) for c in i.curve])  # type: ignore[union-attr]
                for i in curves
            ]
            parts.append(
                "<figure>"
                + line_plot(
                    series,
                    label="item–total curves",
                    x_label="models' score on the other items",
                    y_label="share right",
                )
                + "<figcaption>Item–total curves of the worst suspects: models grouped by "
                "their score on the other items. A working item rises to the right; a falling "
                "one is answered right by the weaker models.</figcaption></figure>"
            )
        if items.irt is not None:
            parts.append(_abilities_html(items.irt))
        for note in items.notes:
            parts.append(f'<p class="sub">{esc(note)}</p>')
        return "".join(parts)

    def markdown(self, result: ItemsResult) -> list[str]:
        """Reliability and the suspect items."""
        items = result.items
        rel = items.reliability
        out = [
            f"## {self.title}",
            "",
            f"{items.n_items} items × {items.n_models} models. KR-20 {num(rel.kr20)}, "
            f"Cronbach's α {num(rel.cronbach_alpha)} (bootstrap CI {num(rel.ci[0])}–"
            f"{num(rel.ci[1])}), SEM {num(rel.sem)}.",
            "",
        ]
        suspects = items.suspects()
        if suspects:
            out.append(
                md_table(
                    ["id", "difficulty", "discrimination", "upper–lower", "why"],
                    [
                        [
                            md_text(i.id),
                            num(i.difficulty),
                            num(i.discrimination),
                            num(i.upper_lower_index),
                            md_text(i.flag),
                        ]
                        for i in suspects[:MAX_ITEMS]
                    ],
                    right=(1, 2, 3),
                )
            )
        return out


def _abilities_html(irt: Irt) -> str:
    def theta(kv: tuple[str, Ability]) -> float:
        value = kv[1].theta
        return -(value if value is not None and math.isfinite(value) else -99)

    rows: Sequence[str] = [
        f'<tr><td>{show_text(n)}</td><td class="n">{esc(num(a.theta))}</td>'
        f'<td class="n">{esc(num(a.se))}</td></tr>'
        for n, a in sorted(irt.abilities.items(), key=theta)
    ]
    return (
        f"<h3>IRT {esc(irt.model.upper())} abilities ({esc(irt.library)})</h3>"
        '<table><thead><tr><th>model</th><th class="n">θ</th><th class="n">SE</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )
