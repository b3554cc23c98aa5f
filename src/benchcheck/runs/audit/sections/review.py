"""Section ``review``: what the experts' gold labels say about the flags (methods.md §2).

Keys in ``results.json``: ``error_rate`` (``benchcheck error-rate --json`` of the gold
file), ``bin_agreement`` (``benchcheck bins --json``: per confidence bin, how often the
experts sided with the LLM and with the original label) and, when this audit judged the
examples, ``ensemble_curve`` (``benchcheck ensemble-curve --json``: ROC AUC against gold
and error-detection F1 as the ensemble grows) and ``before_review`` (the label-errors
section's ``expected_errors``: the error rate the calibrated error scores expected before
any review, shown beside the reviewed estimates).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchcheck.io.typed import ABSENT, AbsentType, JsonResult
from benchcheck.report.html import card, cards, esc, figure
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.report.numbers import num
from benchcheck.report.svg import interval_plot, line_plot
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section
from benchcheck.runs.audit.sections.label_errors import ExpectedErrors

__all__ = ["Review", "ReviewResult"]

Interval = tuple[float | None, float | None]


@dataclass(frozen=True, kw_only=True)
class ErrorRate(JsonResult):
    """The paper's error rate of the reviewed sample: a lower bound, with its intervals."""

    errors: int
    sample: int
    population: int | None
    error_rate: float | None
    ci: Interval
    ci_fpc: Interval | None
    confidence: float
    fpc: float | None
    lower_bound: float | None
    population_errors_lower: int | None
    sample_parts: dict[str, int] | AbsentType = ABSENT
    excluded: dict[str, int] | AbsentType = ABSENT
    stratified: dict[str, Any] | None | AbsentType = ABSENT
    stratified_note: str | AbsentType = ABSENT
    plan: dict[str, Any] | AbsentType = ABSENT


@dataclass(frozen=True)
class BinAgreement(JsonResult):
    """One bin of reviewed flags: how often the experts sided with the LLM, the original."""

    bin: str
    n: int
    with_llm: float | None
    with_llm_ci: Interval
    with_original: float | None
    with_original_ci: Interval
    warning: str | None


@dataclass(frozen=True)
class Bins(JsonResult):
    """Expert agreement per bin, with bootstrap intervals (``benchcheck bins --json``)."""

    bootstrap: int
    seed: int
    bins: tuple[BinAgreement, ...]


@dataclass(frozen=True)
class EnsemblePoint(JsonResult):
    """One ensemble size: ROC AUC against gold and error-detection F1 over random subsets."""

    size: int
    n_subsets: int
    roc_auc_mean: float | None
    roc_auc_ci: Interval
    f1_mean: float | None
    f1_ci: Interval


@dataclass(frozen=True)
class EnsembleCurve(JsonResult):
    """Scores as the ensemble grows (``benchcheck ensemble-curve --json``)."""

    unit: str
    repeats: int
    seed: int
    members: tuple[str, ...]
    points: tuple[EnsemblePoint, ...]


@dataclass(frozen=True)
class ReviewResult(JsonResult):
    """The ``review`` section."""

    error_rate: ErrorRate
    bin_agreement: Bins
    ensemble_curve: EnsembleCurve | AbsentType = ABSENT
    before_review: ExpectedErrors | AbsentType = ABSENT


class Review(Section[ReviewResult]):
    """The reviewed flags: the dataset's error rate, the flags' precision per bin, the curve."""

    name = "review"
    title = "Expert review"
    anchor = "review"
    result = ReviewResult
    needs = ("label errors",)
    #: 1.1: before_review, the detector's expected error rate beside the reviewed one (issue 24)
    #: 1.2: error_rate.sample_parts, what the sample is made of (issue 33)
    version = "1.2"
    card = Card(
        measures="From the gold labels of a blind expert review (benchcheck review import): "
        "the error rate of the reviewed sample (exact Clopper–Pearson interval, a lower bound "
        "for the dataset), how often the experts sided with the LLM per confidence bin (the "
        "flags' precision), and how detection improves as the judge ensemble grows.",
        reading="The error rate counts reviewed flags whose gold label differs and the "
        "examples the LLM agrees with; bins with few reviews have wide intervals. A curve "
        "that has flattened says more judges or prompts would not help.",
        references=("Are LLMs Better than Reported? Detecting Label Errors (2024)",),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without reviewed gold labels for the table."""
        if inputs.table is None or inputs.table.gold is None:
            return "no --gold labels given (benchcheck review import -o)"
        return None

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[ReviewResult]:
        """Run ``run_error_rate`` and ``run_bins`` on the gold file, and the curve.

        ``run_ensemble_curve`` runs when this audit judged the examples (label errors).
        """
        from benchcheck.io.canonical import jsonable
        from benchcheck.labels.flags import DEFAULT_BINS
        from benchcheck.runs.error_rate import run_error_rate
        from benchcheck.runs.labels import run_bins, run_ensemble_curve

        assert inputs.table is not None and inputs.table.gold is not None
        gold = inputs.table.gold
        part: dict[str, Any] = {
            "error_rate": run_error_rate(gold).to_json(),
            "bin_agreement": run_bins(
                gold, bins=DEFAULT_BINS, bootstrap=inputs.resamples, seed=inputs.seed
            ).to_json(),
        }
        judged = needs.get("label errors")
        if judged is not None and "judgments" in judged.frames:
            curve = run_ensemble_curve(judged.frames["judgments"], gold, seed=inputs.seed)
            part["ensemble_curve"] = curve.to_json()
        expected = None if judged is None else judged.result.label_errors.expected_errors
        if expected is not None and expected is not ABSENT:
            part["before_review"] = expected.to_json()
        result = ReviewResult.from_json(jsonable(part))
        rate = result.error_rate
        detail = (
            f"error rate {num(rate.error_rate)} ({rate.errors}/{rate.sample} reviewed); "
            f"{len(result.bin_agreement.bins)} bins"
            + ("" if result.ensemble_curve is ABSENT else "; ensemble curve")
        )
        return Ran(result, detail)

    def html(self, result: ReviewResult) -> str:
        """Render the error rate, the agreement per bin and the ensemble curve."""
        err = result.error_rate
        ci = err.ci_fpc or err.ci
        tip = (
            "errors / reviewed sample; 95% Clopper–Pearson interval"
            + (" with the finite population correction" if err.ci_fpc else "")
            + "; ↓ better"
        )
        parts = [
            "<h3>Error rate (reviewed sample)</h3>",
            cards(
                [
                    card("error rate", err.error_rate, tip, 4),
                    card("interval low", ci[0], tip, 4),
                    card("interval high", ci[1], tip, 4),
                    card("errors / sample", f"{err.errors} / {err.sample}", tip),
                ]
            ),
        ]
        estimates = _estimates(result)
        if len(estimates) > 1:
            parts.append("<h3>Error rate: before and after review</h3>")
            parts.append(
                '<div class="tablewrap"><table id="review-estimates"><thead><tr>'
                + "".join(f"<th>{esc(h)}</th>" for h in _ESTIMATE_HEAD)
                + "</tr></thead><tbody>"
                + "".join(
                    "<tr>"
                    + f"<td>{esc(what)}</td><td>{esc(num(rate))}</td>"
                    + f"<td>{esc(num(lo))}–{esc(num(hi))}</td><td>{esc(basis)}</td>"
                    + "</tr>"
                    for what, rate, lo, hi, basis in estimates
                )
                + "</tbody></table></div>"
            )
        bins = [b for b in result.bin_agreement.bins if b.n]
        if bins:
            sides = (("with_llm", "the LLM"), ("with_original", "the original label"))
            rows = [
                (
                    f"{b.bin} (n={b.n})",
                    [(b.with_llm, *b.with_llm_ci), (b.with_original, *b.with_original_ci)],
                )
                for b in bins
            ]
            tips = [
                [
                    f"bin {b.bin}: experts agree with {who} in {num(v)} "
                    f"(95% bootstrap {num(lo)}–{num(hi)}), n={b.n}"
                    for (v, lo, hi), (_, who) in zip(points, sides, strict=True)
                ]
                for b, (_, points) in zip(bins, rows, strict=True)
            ]
            parts.append("<h3>Expert agreement per confidence bin</h3>")
            parts.append(
                figure(
                    interval_plot(
                        rows,
                        series=["agrees with LLM", "agrees with original"],
                        label="agreement per bin",
                        lo=0.0,
                        hi=1.0,
                        tips=tips,
                        label_width=170,
                        ref=0.5,
                    ),
                    "Share of reviewed flags where the experts' label equals the LLM's vs the "
                    "original label, with bootstrap 95% intervals. Bins with few examples have "
                    "wide intervals.",
                )
            )
            warns = [b.warning for b in result.bin_agreement.bins if b.warning]
            if warns:
                parts.append("<ul>" + "".join(f"<li>{esc(w)}</li>" for w in warns) + "</ul>")
        curve = result.ensemble_curve
        if curve is not ABSENT and curve.points:
            series = [
                (
                    "ROC AUC vs gold ↑",
                    [(p.size, p.roc_auc_mean, *p.roc_auc_ci) for p in curve.points],
                ),
                ("error-detection F1 ↑", [(p.size, p.f1_mean, *p.f1_ci) for p in curve.points]),
            ]
            parts.append("<h3>Ensemble-size curves</h3>")
            parts.append(
                figure(
                    line_plot(
                        series,
                        label="ensemble size curves",
                        x_label=f"ensemble size ({curve.unit}s)",
                        y_label="score",
                    ),
                    "Mean over random subsets of each size, band: spread over subsets. Both ↑ "
                    "better.",
                )
            )
        return "".join(parts)

    def markdown(self, result: ReviewResult) -> list[str]:
        """Render the error rate, the agreement per bin and the ensemble curve."""
        err = result.error_rate
        lo, hi = err.ci_fpc or err.ci
        out = [
            f"## {self.title}\n",
            f"Error rate {md_num(err.error_rate)} ↓ ({md_num(err.errors)}/{md_num(err.sample)}; "
            f"95% Clopper–Pearson {md_num(lo)}–{md_num(hi)}).\n",
            *_estimates_markdown(result),
            "### Expert agreement per confidence bin (bootstrap 95% intervals)\n",
            md_table(
                ["bin", "n", "with LLM", "interval", "with original", "interval"],
                [
                    [
                        md_text(b.bin),
                        md_num(b.n),
                        md_num(b.with_llm, 3),
                        "–".join(md_num(v, 3) for v in b.with_llm_ci),
                        md_num(b.with_original, 3),
                        "–".join(md_num(v, 3) for v in b.with_original_ci),
                    ]
                    for b in result.bin_agreement.bins
                ],
                right=[1, 2, 4],
            ),
        ]
        curve = result.ensemble_curve
        if curve is not ABSENT and curve.points:
            out.append("### Ensemble-size curve\n")
            out.append(
                md_table(
                    ["size", "ROC AUC ↑", "F1 ↑", "subsets"],
                    [
                        [
                            md_num(p.size),
                            md_num(p.roc_auc_mean, 3),
                            md_num(p.f1_mean, 3),
                            md_num(p.n_subsets),
                        ]
                        for p in curve.points
                    ],
                    right=[0, 1, 2, 3],
                )
            )
        return out


_ESTIMATE_HEAD = ["estimate", "error rate", "interval", "from"]


def _estimates(result: ReviewResult) -> list[tuple[str, float | None, Any, Any, str]]:
    """Return the error rates to compare: expected before review, reviewed, whole dataset.

    Rows are (what, rate, low, high, basis); the expected rate is the calibrated error
    scores' sum over the judged examples (its Poisson-binomial interval divided by ``n``).
    """
    out: list[tuple[str, float | None, Any, Any, str]] = []
    before = result.before_review
    if before is not ABSENT and before.n:
        out.append(
            (
                "expected before review",
                before.rate,
                before.low / before.n,
                before.high / before.n,
                f"sum of the error scores over {num(before.n)} judged examples ({before.interval})",
            )
        )
    err = result.error_rate
    lo, hi = err.ci_fpc or err.ci
    out.append(
        (
            "reviewed sample",
            err.error_rate,
            lo,
            hi,
            f"{num(err.errors)} of {num(err.sample)} reviewed (a lower bound for the dataset)",
        )
    )
    strat = err.stratified
    if strat is not ABSENT and strat is not None:
        ci = strat.get("ci") or (None, None)
        out.append(
            (
                "whole dataset (stratified)",
                strat.get("error_rate"),
                ci[0],
                ci[1],
                "flags and the audit sample, weighted by stratum size",
            )
        )
    return out


def _estimates_markdown(result: ReviewResult) -> list[str]:
    """Return the before/after table in Markdown, when there is something to compare."""
    rows = _estimates(result)
    if len(rows) < 2:
        return []
    return [
        "### Error rate: before and after review\n",
        md_table(
            _ESTIMATE_HEAD,
            [
                [md_text(w), md_num(r), f"{md_num(lo)}–{md_num(hi)}", md_text(b)]
                for w, r, lo, hi, b in rows
            ],
            right=[1],
        ),
    ]
