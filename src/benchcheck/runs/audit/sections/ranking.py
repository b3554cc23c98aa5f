"""Section ``ranking``: the leaderboard under label noise (methods.md §4).

Key in ``results.json``: ``rank`` (``benchcheck rank --json``). The labels' uncertainty
comes from this audit's flags (the ``label errors`` section), reviewed gold labels and a
residual error rate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchcheck.io.typed import JsonResult
from benchcheck.report.html import esc, show_text
from benchcheck.report.markdown import md_table, md_text
from benchcheck.report.numbers import num, pct
from benchcheck.report.svg import interval_plot
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section, Skip

__all__ = ["Ranking", "RankingResult", "RankingSection"]

Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class RankedModel(JsonResult):
    """A model's score on the reference labels, its interval, rank range and near rivals."""

    name: str
    score: float | None
    interval: Interval
    rank: int
    expected_score: float | None
    rank_interval: tuple[int, int]
    could_swap_with: tuple[str, ...]


@dataclass(frozen=True)
class Ranking(JsonResult):
    """The leaderboard with intervals over plausible true labelings (``rank --json``)."""

    metric: str
    positive: str | None
    n_items: int
    models: tuple[RankedModel, ...]
    flip_probability: dict[str, float | None]
    n_resamples: int
    confidence: float
    seed: int
    resample_items: bool
    swap_threshold: float
    uncertainty: dict[str, Any]
    notes: tuple[str, ...]
    gold_rerank: dict[str, Any] | None
    sources: dict[str, str]


@dataclass(frozen=True)
class RankingResult(JsonResult):
    """The ``ranking`` section."""

    rank: Ranking


class RankingSection(Section[RankingResult]):
    """Models ranked with intervals that carry the labels' own uncertainty."""

    name = "ranking"
    title = "Leaderboard under label noise"
    anchor = "leaderboard"
    result = RankingResult
    needs = ("label errors",)
    card = Card(
        measures="Each model's score on plausible true labelings drawn from the flags (at the "
        "precision the review measured per bin), the gold labels and the residual error "
        "rate: score intervals, rank ranges and pairwise flip probabilities.",
        reading="Two models whose intervals overlap, or that 'could swap', are not ranked by "
        "this benchmark; a rank range wider than one says the order is not settled.",
        references=("methods.md §4 (leaderboard under label noise)",),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a table and two or more models' predictions on it."""
        if not (inputs.table and len(inputs.table.predictions) >= 2):
            return "needs a classification/pair file and two or more --predictions"
        return None

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[RankingResult]:
        """:func:`benchcheck.runs.rank.run_rank`, with this audit's flags."""
        from benchcheck.io.canonical import jsonable
        from benchcheck.runs.audit._paths import shown
        from benchcheck.runs.rank import RankOptions, missing_uncertainty, run_rank

        table = inputs.table
        assert table is not None
        data, split = table.evaluated()
        flagged = needs.get("label errors")
        frame = None if flagged is None else flagged.flagged
        flagged_ids = None
        if frame is not None and frame.height:
            # a folder's flags are named split/id: those of the evaluated split, by their id
            prefix = "" if split is None else f"{split}/"
            flagged_ids = {
                str(i).removeprefix(prefix): (str(lab), b)
                for i, lab, b in frame.select("id", "llm_label", "bin").iter_rows()
                if str(i).startswith(prefix)
            }
        problem = missing_uncertainty(
            flagged=bool(flagged_ids),
            precision=table.precision is not None,
            gold=table.gold is not None,
            gold_labels=table.gold is not None,
            residual=table.error_rate is not None,
        )
        if problem is not None:
            raise Skip(problem)
        options = RankOptions(
            n_resamples=inputs.resamples,
            seed=inputs.seed,
            precision=table.precision,
            error_rate=table.error_rate,
        )
        run = run_rank(
            data,
            table.predictions,
            label=table.label,
            id_col=table.columns.id,
            gold=table.gold,
            options=options,
            flagged_ids=flagged_ids,
        )
        payload = run.to_json()
        payload["sources"] = {k: shown(v) for k, v in payload["sources"].items()}
        result = RankingResult.from_json(jsonable({"rank": payload}))
        best = result.rank.models[0]
        detail = f"{len(result.rank.models)} models; best {best.name} ({num(best.score, 3)})"
        return Ran(result, detail)

    def html(self, result: RankingResult) -> str:
        """Render the leaderboard's intervals (chart) and table."""
        rank = result.rank
        level = pct(rank.confidence)
        rows_plot = [
            (f"{m.rank}. {m.name}", [(m.score, m.interval[0], m.interval[1])]) for m in rank.models
        ]
        tips = [
            [
                f"{m.name}: {rank.metric} {num(m.score)}, {level} interval "
                f"{num(m.interval[0])}–{num(m.interval[1])}"
            ]
            for m in rank.models
        ]
        parts = [
            "<figure>"
            + interval_plot(
                rows_plot, series=[rank.metric], label="leaderboard", lo=0.0, hi=1.0, tips=tips
            )
            + f"<figcaption>Score on the reference labels with its {level} interval over "
            f"{esc(num(rank.n_resamples))} plausible true labelings.</figcaption></figure>"
        ]
        rows = "".join(
            f'<tr><td class="n">{esc(num(m.rank))}</td><td>{show_text(m.name)}</td>'
            f'<td class="n">{esc(num(m.score))}</td>'
            f'<td class="n">{esc(num(m.interval[0]))} – {esc(num(m.interval[1]))}</td>'
            f'<td class="n">{esc(num(m.rank_interval[0]))}–{esc(num(m.rank_interval[1]))}</td>'
            f"<td>{show_text(', '.join(m.could_swap_with) or '—')}</td></tr>"
            for m in rank.models
        )
        parts.append(
            '<table id="rank-table"><thead><tr><th class="n">rank</th><th>model</th>'
            f'<th class="n">score</th><th class="n">{level} interval</th>'
            '<th class="n">rank range</th>'
            f"<th>could swap with</th></tr></thead><tbody>{rows}</tbody></table>"
        )
        for note in rank.notes:
            parts.append(f'<p class="sub">{esc(note)}</p>')
        return "".join(parts)

    def markdown(self, result: RankingResult) -> list[str]:
        """Render the leaderboard table."""
        return [
            f"## {self.title}",
            "",
            md_table(
                ["rank", "model", "score", "interval", "rank range", "could swap with"],
                [
                    [
                        num(m.rank),
                        md_text(m.name),
                        num(m.score),
                        f"{num(m.interval[0])}–{num(m.interval[1])}",
                        f"{num(m.rank_interval[0])}–{num(m.rank_interval[1])}",
                        md_text(", ".join(m.could_swap_with) or "—"),
                    ]
                    for m in result.rank.models
                ],
                right=(0, 2, 3, 4),
            ),
        ]
