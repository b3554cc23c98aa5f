"""Section ``label errors``: judge every example with the ensemble, flag the likely errors.

Key in ``results.json``: ``label_errors``. The flag rule is ``benchcheck flag``'s
(:func:`benchcheck.labels.detectors.detect`): a flag is an example whose label the detector
disputes with an error score (the probability that the original label is wrong) of at
least ``min_error_score``; flags are ranked and binned by error score (methods.md §2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from benchcheck.io.typed import ABSENT, REST, AbsentType, JsonResult
from benchcheck.report.html import card, cards, esc, figure, long_text, num_cell, show_text
from benchcheck.report.judge_note import (
    QUALITY_HEAD,
    intro,
    quality_rows,
    strong_judge_lines,
    verdict,
)
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.report.numbers import num, pct, short
from benchcheck.report.svg import hbars
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section, Skip

__all__ = ["FlaggedExample", "LabelErrors", "LabelErrorsResult", "LabelErrorsSection"]

#: Flagged examples shown in the HTML table (all of them are in the CSV/JSONL files).
MAX_ROWS = 500
#: Flagged examples shown in report.md.
MAX_MD_ROWS = 50


@dataclass(frozen=True)
class DefaultJudgeNote(JsonResult):
    """What the embedded default judge is, how well it measured, how to use a strong one."""

    judge: dict[str, str]
    source: str
    planted_rate: float
    draws: int
    defaults: dict[str, Any]
    datasets: dict[str, dict[str, Any]]
    strong_judge: dict[str, str]
    #: benchmark datasets measured with other defaults only, so not in ``datasets``
    not_quoted: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DatasetInfo(JsonResult):
    """The judged file or folder: its path as given, its examples, the columns named.

    ``splits``: a folder's examples per split, all judged (their ids are ``split/id``).
    """

    source: str
    n: int
    columns: dict[str, str]
    splits: dict[str, int] | AbsentType = ABSENT


@dataclass(frozen=True)
class JudgeInfo(JsonResult):
    """The judge, its weights' hash, the prompt framings, and judge × prompt members."""

    judge: str
    weights_sha256: str | None
    prompts: tuple[str, ...]
    members: int


@dataclass(frozen=True)
class FlagCounts(JsonResult):
    """Examples, judged, disagreements, flags (rate, threshold, per error-score bin)."""

    n: int
    judged: int
    disagreements: int
    flagged: int
    flag_rate: float | None
    threshold: float
    flagged_by_bin: dict[str, int]
    labels: tuple[str, ...]


@dataclass(frozen=True)
class ExpectedErrors(JsonResult):
    """Sum of the error scores over the judged examples, with its interval.

    The number of wrong labels the calibrated error scores expect before any review
    (:func:`benchcheck.labels.posterior.expected_errors`); ``interval`` says how it was
    computed, ``rule`` (``fitted`` or ``fallback``) and ``reason`` which model gave it.
    """

    n: int
    expected: float
    rate: float | None
    low: float
    high: float
    level: float
    interval: str
    rate_low: float | None | AbsentType = ABSENT
    rate_high: float | None | AbsentType = ABSENT
    rule: str | AbsentType = ABSENT
    reason: str | AbsentType = ABSENT


@dataclass(frozen=True)
class OperatingPoint(JsonResult):
    """How the flags were chosen, and their expected precision and true errors."""

    rule: str
    flags: int
    expected_true_errors: float
    expected_precision: float | None
    min_error_score: float | None | AbsentType = ABSENT
    budget: int | None | AbsentType = ABSENT
    target_precision: float | None | AbsentType = ABSENT
    why: str | AbsentType = ABSENT
    expected_errors: float | None | AbsentType = ABSENT
    disagreements_not_flagged: int | AbsentType = ABSENT


@dataclass(frozen=True)
class ReliabilityBin(JsonResult):
    """One bin of error scores: its edges, examples, mean score and share wrong by gold."""

    low: float
    high: float
    n: int
    mean_score: float
    frequency: float


@dataclass(frozen=True)
class GoldCalibration(JsonResult):
    """``error_score`` against the reviewed gold (``--gold``): ECE and the reliability bins.

    The event is "original label ≠ gold" (:func:`benchcheck.runs.flag.gold_calibration`).
    """

    n: int
    ece: float | None
    ece_band: tuple[float, float] | None
    level: float | None
    bins: tuple[ReliabilityBin, ...]


#: The text columns a flagged example can hold (the data's columns, named as the reader names them).
TextColumn = Literal["text", "text_a", "text_b"]


@dataclass(frozen=True, kw_only=True)
class FlaggedExample(JsonResult):
    """One flag: rank (by error score), id, texts, both labels, scores, bin, ``p_<label>``."""

    rank: int | None
    id: str
    text: str | None | AbsentType = ABSENT
    text_a: str | None | AbsentType = ABSENT
    text_b: str | None | AbsentType = ABSENT
    label: str | None
    llm_label: str | None
    confidence: float | None
    error_score: float | None | AbsentType = ABSENT
    bin: str | None
    probabilities: Annotated[dict[str, float | None], REST] = field(default_factory=dict)

    def texts(self, columns: tuple[str, ...]) -> list[str | None]:
        """Return the example's text in each column."""
        found = {"text": self.text, "text_a": self.text_a, "text_b": self.text_b}
        return [None if found[c] is ABSENT else found[c] for c in columns]  # type: ignore[misc]


@dataclass(frozen=True, kw_only=True)
class LabelErrors(JsonResult):
    """The flags of one file: the judge, the counts, the first flagged examples."""

    default_judge: DefaultJudgeNote | AbsentType = ABSENT
    dataset: DatasetInfo
    judge: JudgeInfo
    text_columns: tuple[TextColumn, ...]
    summary: FlagCounts
    bins: tuple[float, ...]
    examples: tuple[FlaggedExample, ...]
    examples_total: int
    files: tuple[str, ...]
    expected_errors: ExpectedErrors | AbsentType = ABSENT
    operating_point: OperatingPoint | AbsentType = ABSENT
    calibration_vs_gold: GoldCalibration | AbsentType = ABSENT
    disagreements_not_flagged: tuple[FlaggedExample, ...] | AbsentType = ABSENT
    disagreements_not_flagged_total: int | AbsentType = ABSENT

    def shown_columns(self) -> tuple[str, ...]:
        """Return the text columns some example has."""
        return tuple(
            c for c in self.text_columns if any(e.texts((c,))[0] is not None for e in self.examples)
        )


@dataclass(frozen=True)
class LabelErrorsResult(JsonResult):
    """The ``label errors`` section."""

    label_errors: LabelErrors


class LabelErrorsSection(Section[LabelErrorsResult]):
    """Label-error detection with an LLM ensemble ("Are LLMs Better than Reported?")."""

    name = "label errors"
    title = "Label errors"
    #: 1.1: expected_errors, operating_point and calibration_vs_gold (issue 24)
    #: 1.2: the interval's rule and reason, the disagreements the flags leave out (issue 34)
    #: 1.3: a folder's splits, all judged (``dataset.splits``; ids ``split/id``; issue 33)
    version = "1.3"
    anchor = "label-errors"
    result = LabelErrorsResult
    card = Card(
        measures="Which examples' labels a judge ensemble disputes: the ensemble's probability "
        "of each label is the mean over judges × prompts (calibrated), and an example's error "
        "score is the posterior probability that its original label is wrong, given the "
        "ensemble and the estimated base rate of errors; their sum is the expected number of "
        "wrong labels.",
        reading="A flag is a disagreement whose error score reaches the threshold; higher "
        "error scores hold a larger share of true errors. Flags are candidates for expert "
        "review (benchcheck review export), not verdicts.",
        references=("Are LLMs Better than Reported? Detecting Label Errors (2024)",),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a classification or pair file, or without a judge."""
        if inputs.table is None:
            return "no classification or pair file given"
        if inputs.judge is None:
            return "--no-judge given"
        return None

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[LabelErrorsResult]:
        """:func:`benchcheck.runs.label_errors.run_label_errors` (judge, then flag)."""
        import polars as pl

        from benchcheck.errors import JudgeUnavailable, MissingExtraError
        from benchcheck.io.canonical import jsonable
        from benchcheck.report.judge_note import detail as default_judge_detail
        from benchcheck.runs.audit._paths import shown
        from benchcheck.runs.flag import FlagOptions, flag_rule_for
        from benchcheck.runs.label_errors import NotApplicable, run_label_errors

        table, judge = inputs.table, inputs.judge
        assert table is not None and judge is not None
        columns = table.read_columns
        threshold, rule = flag_rule_for(judge.min_error_score, None)
        try:
            run = run_label_errors(
                table.path,
                columns=columns,
                judges=judge.setup,
                prompts=judge.prompts,
                options=FlagOptions(threshold=threshold, flag_rule=rule),
                progress=progress,
            )
        except NotApplicable as exc:
            raise Skip(str(exc)) from None
        except MissingExtraError as exc:  # one short line: what to install
            raise Skip(f"no judge installed: {exc.install}", unavailable=True) from None
        except JudgeUnavailable as exc:
            raise Skip(f"judge unavailable: {exc}", unavailable=True) from None
        named = {k: v for k, v in columns.given().items() if k != "id"}
        payload = run.to_json(source=shown(table.path), columns=named)
        if table.gold is not None:
            payload.update(_gold_check(run.flag.flags, table.gold))
        result = LabelErrorsResult.from_json(jsonable({"label_errors": payload}))
        s = run.flag.summary
        detail = (
            f"{s.flagged} of {s.n} examples flagged by {run.identity.label} × "
            f"{len(run.prompts)} prompts"
        )
        if run.splits:
            detail += " (every split: " + ", ".join(f"{k} {v}" for k, v in run.splits.items())
            detail += ")"
        left = s.disagreements - int(
            run.flag.flags.filter(pl.col("flagged") & pl.col("disagree")).height
        )
        if left:
            detail += f"; {left} more disagreement{'s' if left > 1 else ''} not flagged"
        note = result.label_errors.default_judge
        if note is not ABSENT:
            detail += "; " + default_judge_detail(note.to_json())
        frames = {"judgments": run.judgments}
        return Ran(result, detail, flagged=run.flagged(), seconds=run.seconds, frames=frames)

    # ------------------------------------------------------------------ HTML

    def html(self, result: LabelErrorsResult) -> str:
        """Render the rule, the judge, the counts, flags per bin, the flagged examples."""
        le = result.label_errors
        s = le.summary
        parts = [
            "<p>Label-error detection with an LLM ensemble (“Are LLMs Better than Reported?”): "
            "the ensemble's probability of each label is the mean over judges × prompts, "
            "calibrated; an example's error score is the probability that its original label "
            "is wrong, and the <b>flags</b> are chosen by the rule below. Higher error score, "
            "larger share of true errors; "
            "flags are candidates for expert review, not verdicts.</p>"
        ]
        j = le.judge
        judge_rows = [
            ("judge", j.judge),
            ("weights_sha256", j.weights_sha256),
            ("prompts", ", ".join(j.prompts)),
            ("members", str(j.members)),
        ]
        items = "".join(f"<li><b>{esc(k)}</b>: {show_text(v)}</li>" for k, v in judge_rows)
        parts.append(f"<h3>Judge</h3><ul>{items}</ul>")
        if le.default_judge is not ABSENT:
            parts.append(_default_judge_html(le.default_judge.to_json()))
        parts.append(
            cards(
                [
                    card("examples", s.n, "examples in the dataset"),
                    card("judged", s.judged, "examples with an ensemble probability"),
                    card(
                        "disagreements",
                        s.disagreements,
                        "ensemble label ≠ original label (any error score)",
                    ),
                    card("flagged", s.flagged, _rule_text(le)),
                    card("flag rate", s.flag_rate, "flagged / examples; ↓ better"),
                    *_expected_cards(le),
                ]
            )
        )
        if s.flagged_by_bin:
            bars = [
                (b, c, f"{c} flagged examples with error score in {b}")
                for b, c in s.flagged_by_bin.items()
            ]
            parts.append(
                figure(
                    hbars(
                        bars,
                        label="flags per error-score bin",
                        vmax=max([1, *s.flagged_by_bin.values()]),
                        label_width=110,
                        width=460,
                    ),
                    "Flagged examples per error-score bin ([a, b), the last closed). In the "
                    "paper, over two thirds of the flags above 0.95 were true label errors.",
                )
            )
        if le.calibration_vs_gold is not ABSENT:
            head = "".join(f"<th>{esc(h)}</th>" for h in _GOLD_COLUMNS)
            body = "".join(
                "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>"
                for row in _gold_rows(le)
            )
            parts.append(
                f"<h3>Calibration against gold</h3><p>{esc(_gold_head(le))}</p>"
                f'<div class="tablewrap"><table><thead><tr>{head}</tr></thead>'
                f"<tbody>{body}</tbody></table></div>"
            )
        parts.append(_flag_table(le))
        parts.append(_left_out_html(le))
        if le.files:
            parts.append(
                "<p>All flagged examples: "
                + ", ".join(f"<code>{esc(f)}</code>" for f in le.files)
                + " (beside this report).</p>"
            )
        return "".join(parts)

    # ------------------------------------------------------------------ Markdown

    def markdown(self, result: LabelErrorsResult) -> list[str]:
        """Render the rule and counts, the judge's quality, flags per bin, the first flags."""
        le = result.label_errors
        s = le.summary
        out = [
            f"## {self.title}\n",
            f"Judge {md_text(le.judge.judge)} × prompts {md_text(', '.join(le.judge.prompts))}."
            f" Flagged: **{md_num(s.flagged)}** of {md_num(s.n)} examples "
            f"(flag rate {md_num(s.flag_rate)} ↓; {md_num(s.disagreements)} "
            f"disagreements). Flags: {md_text(_rule_text(le))}. The error score is the "
            "probability that the original label is wrong; confidence = the ensemble's "
            "probability of its own label. Flags are candidates for expert review.\n",
        ]
        out += _expected_markdown(le)
        if le.calibration_vs_gold is not ABSENT:
            out.append(f"{md_text(_gold_head(le))}\n")
            out.append(md_table(_GOLD_COLUMNS, _gold_rows(le), right=[1, 2, 3]))
        if le.default_judge is not ABSENT:
            out += _default_judge_markdown(le.default_judge.to_json())
        if s.flagged_by_bin:
            out.append(
                md_table(
                    ["error-score bin", "flagged"],
                    [[md_text(b), md_num(c)] for b, c in s.flagged_by_bin.items()],
                    right=[1],
                )
            )
        if le.examples:
            cols = list(le.text_columns)
            ex = le.examples[:MAX_MD_ROWS]
            out.append(
                f"### Flagged examples (top {len(ex)} of {le.examples_total}; all in "
                f"{md_text(', '.join(le.files))})\n"
            )
            rows = [
                [
                    md_num(e.rank),
                    md_text(e.id),
                    *[md_text(t, limit=120) for t in e.texts(tuple(cols))],
                    md_text(e.label),
                    md_text(e.llm_label),
                    md_num(e.confidence, 3),
                    md_num(None if e.error_score is ABSENT else e.error_score, 3),
                ]
                for e in ex
            ]
            head = ["rank", "id", *[md_text(c) for c in cols], "original", "LLM", "confidence"]
            head.append("error score ↑")
            out.append(md_table(head, rows, right=[0, 4 + len(cols), 5 + len(cols)]))
        left = _left_out(le)
        if left:
            total = le.disagreements_not_flagged_total
            out.append(
                f"### Disagreements not flagged ({md_num(total)}; the first "
                f"{min(len(left), MAX_MD_ROWS)}, highest error score first)\n"
            )
            out.append(
                md_table(
                    ["id", "original", "LLM", "confidence", "error score"],
                    [
                        [
                            md_text(e.id),
                            md_text(e.label),
                            md_text(e.llm_label),
                            md_num(e.confidence, 3),
                            md_num(None if e.error_score is ABSENT else e.error_score, 3),
                        ]
                        for e in left[:MAX_MD_ROWS]
                    ],
                    right=[3, 4],
                )
            )
        return out

    # ------------------------------------------------------------------ terminal

    def terminal(self, result: LabelErrorsResult) -> list[Any]:
        """Where the flags come from the embedded default judge: how good it measured."""
        note = result.label_errors.default_judge
        if note is ABSENT:
            return []
        from benchcheck.report.terminal.labels import default_judge_renderables

        return default_judge_renderables(note.to_json())


def _gold_check(flags: Any, gold: str) -> dict[str, Any]:
    """``calibration_vs_gold`` where the reviewed gold shares ids with the judged data."""
    from benchcheck.errors import InputError
    from benchcheck.runs.flag import gold_calibration, read_gold_map

    try:
        return {"calibration_vs_gold": gold_calibration(flags, read_gold_map(gold)).to_json()}
    except InputError:
        return {}  # no gold label for a judged example: nothing to check


def _gold_rows(le: LabelErrors) -> list[list[str]]:
    cal = le.calibration_vs_gold
    assert cal is not ABSENT
    return [
        [f"({short(b.low)}, {short(b.high)}]", num(b.n), num(b.mean_score), num(b.frequency)]
        for b in cal.bins
    ]


def _gold_head(le: LabelErrors) -> str:
    cal = le.calibration_vs_gold
    assert cal is not ABSENT
    band = "" if cal.ece_band is None else f" [{num(cal.ece_band[0])}, {num(cal.ece_band[1])}]"
    return (
        f"Calibration of the error score against the reviewed gold ({num(cal.n)} examples; "
        f"event: original label ≠ gold): ECE {num(cal.ece)}{band} ({pct(cal.level)} bootstrap). "
        "A review of the flags alone covers high scores only."
    )


_GOLD_COLUMNS = ["error score", "n", "mean score", "share wrong by gold"]


def _rule_text(le: LabelErrors) -> str:
    """Say which rule chose the flags (and, for the fallback, why)."""
    op = le.operating_point
    if op is ABSENT or op.rule == "threshold":
        return f"disagreements with error score ≥ {short(le.summary.threshold)}"
    if op.rule == "cleanlab":
        return f"confident learning's issues with error score ≥ {short(le.summary.threshold)}"
    if op.rule == "budget":
        return f"the {num(op.budget)} highest error scores"
    if op.rule == "disagreements":
        why = "" if op.why is ABSENT else f" ({op.why})"
        return f"every disagreement{why}"
    target = short(op.target_precision) if op.target_precision is not ABSENT else "?"
    return f"the largest top set whose expected precision (mean error score) is ≥ {target}"


def _catch(le: LabelErrors) -> str | None:
    """Return 'these 14 flags are expected to hold 9.2 of the ~17.4 errors' (None: no counts)."""
    ex, op = le.expected_errors, le.operating_point
    if ex is ABSENT or op is ABSENT:
        return None
    from benchcheck.report.terminal.labels import catch_line

    return catch_line(op.to_json(), ex.to_json())


def _interval_text(ex: ExpectedErrors) -> str:
    rule = "" if ex.rule is ABSENT else f"; {ex.rule}"
    why = "" if ex.reason is ABSENT else f": {ex.reason}"
    return (
        f"{pct(ex.level)} interval [{short(ex.low)}, {short(ex.high)}] ({ex.interval}{rule}{why})"
    )


def _expected_cards(le: LabelErrors) -> list[str]:
    """Cards of the expected errors in the data and the flags' expected precision."""
    out = []
    ex = le.expected_errors
    if ex is not ABSENT:
        out.append(
            card(
                "expected errors",
                ex.expected,
                f"sum of the error scores over {ex.n} judged examples: {_interval_text(ex)}; "
                "an estimate before any review",
                1,
            )
        )
    op = le.operating_point
    if op is not ABSENT and op.expected_precision is not None:
        from benchcheck.report.terminal.labels import PRECISION_CAVEAT

        catch = _catch(le)
        out.append(
            card(
                "expected precision",
                op.expected_precision,
                f"mean error score of the {op.flags} flags"
                + (f": {catch}" if catch else "")
                + f"; {PRECISION_CAVEAT}",
            )
        )
    return out


def _expected_markdown(le: LabelErrors) -> list[str]:
    """One line: the expected errors in the data and the flags' expected precision."""
    ex, op = le.expected_errors, le.operating_point
    if ex is ABSENT:
        return []
    line = (
        f"Expected wrong labels (sum of error scores, before review): **{md_num(ex.expected)}** "
        f"of {md_num(ex.n)} ({md_text(_interval_text(ex))})."
    )
    if op is not ABSENT and op.expected_precision is not None:
        from benchcheck.report.terminal.labels import PRECISION_CAVEAT

        line += (
            f" Expected precision of the {md_num(op.flags)} flags: "
            f"{md_num(op.expected_precision, 3)}; {md_text(_catch(le) or '')}. "
            f"Note: {md_text(PRECISION_CAVEAT)}."
        )
    return [line + "\n"]


def _left_out(le: LabelErrors) -> tuple[FlaggedExample, ...]:
    """Return the disagreements the flags leave out (as stored in the JSON)."""
    left = le.disagreements_not_flagged
    return () if left is ABSENT else left


def _left_out_html(le: LabelErrors) -> str:
    """Render the disagreements the flags leave out, collapsed, with their scores."""
    left = _left_out(le)
    if not left:
        return ""
    total = le.disagreements_not_flagged_total
    shown = left[:MAX_ROWS]
    rows = "".join(
        "<tr>"
        + f"<td>{show_text(e.id)}</td><td>{show_text(e.label)}</td>"
        + f"<td>{show_text(e.llm_label)}</td>"
        + num_cell(e.confidence, "ensemble probability of the LLM label", 3)
        + num_cell(
            None if e.error_score is ABSENT else e.error_score,
            "probability that the original label is wrong",
            3,
        )
        + "</tr>"
        for e in shown
    )
    return (
        f"<details><summary>Disagreements not flagged: {esc(num(total))} (the ensemble's "
        "label differs from the original, but the flag rule left them out; highest error "
        "score first)</summary>"
        '<div class="tablewrap"><table><thead><tr><th>id</th><th>original</th><th>LLM</th>'
        '<th class="n">confidence</th><th class="n">error score</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div></details>"
    )


def _default_judge_html(note: Mapping[str, Any]) -> str:
    """Show what the default judge is, how well it measured, how to use a strong one."""
    head = "".join(f"<th>{esc(h)}</th>" for h in QUALITY_HEAD)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in quality_rows(note)
    )
    advice, commands = strong_judge_lines(note)
    # One block per command; it wraps only between words (never after an option's "-").
    code = "".join(
        "<code>"
        + " ".join(f'<span class="w">{esc(w)}</span>' if w else "" for w in c.split(" "))
        + "</code>"
        for c in commands
    )
    return (
        '<div class="judge-quality"><h3>How good is this judge?</h3>'
        f"<p>{esc(intro(note))}</p><p>{esc(verdict(note))}</p>"
        f'<div class="tablewrap"><table id="judge-quality"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
        f'<p>{esc(advice)}</p><pre class="commands">{code}</pre></div>'
    )


def _default_judge_markdown(note: Mapping[str, Any]) -> list[str]:
    """Show what the default judge is, how well it measured, how to use a strong one."""
    advice, commands = strong_judge_lines(note)
    return [
        "### How good is this judge?\n",
        f"{md_text(intro(note))}\n",
        f"{md_text(verdict(note))}\n",
        md_table(QUALITY_HEAD, [[md_text(c) for c in r] for r in quality_rows(note)], [1, 2, 4]),
        f"{md_text(advice)}\n",
        "```sh\n" + "\n".join(commands) + "\n```\n",
    ]


def _flag_table(le: LabelErrors) -> str:
    """Render the flagged examples, sortable and filterable (the first :data:`MAX_ROWS`)."""
    if not le.examples:
        left = le.disagreements_not_flagged_total
        if left is not ABSENT and left:
            return (
                f"<p>No example reached the flag rule; {esc(num(left))} disagreement"
                f"{'s' if left != 1 else ''} with the original label are listed below.</p>"
            )
        return "<p>No example was flagged, and the ensemble agrees with every label.</p>"
    text_cols = le.shown_columns()
    labels = list(le.summary.labels)
    named = le.dataset.columns
    shown = le.examples[:MAX_ROWS]
    head = (
        '<th class="n" title="1 = highest error score">rank</th><th>id</th>'
        + "".join(f'<th title="{esc(c)}">{esc(named.get(c, c))}</th>' for c in text_cols)
        + '<th title="label in the dataset">original</th><th title="ensemble label">LLM</th>'
        + '<th class="n" title="ensemble probability of the LLM label">confidence</th>'
        + '<th class="n" title="probability that the original label is wrong; ↑ more likely '
        'an error">error score</th><th>bin</th>'
        + "".join(
            f'<th class="n" title="ensemble P(label = {esc(lab)})">p_{esc(lab)}</th>'
            for lab in labels
        )
    )
    rows = []
    for e in shown:
        error = None if e.error_score is ABSENT else e.error_score
        cells = [
            num_cell(e.rank, "rank by error score; 1 = highest"),
            f"<td>{show_text(e.id)}</td>",
            *[f'<td class="text">{long_text(t)}</td>' for t in e.texts(text_cols)],
            f"<td>{show_text(e.label)}</td>",
            f"<td>{show_text(e.llm_label)}</td>",
            num_cell(e.confidence, "ensemble probability of the LLM label", 3),
            num_cell(error, "probability that the original label is wrong", 3),
            f'<td class="nw">{show_text(e.bin)}</td>',
            *[
                num_cell(e.probabilities.get(f"p_{lab}"), f"ensemble P(label = {lab})")
                for lab in labels
            ],
        ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    more = (
        f" The table shows the first {len(shown)} of {le.examples_total}; the files hold all."
        if le.examples_total > len(shown)
        else ""
    )
    return (
        "<h3>Flagged examples</h3>"
        f'<p class="sub">Click a column to sort; type to filter. Showing '
        f'<span id="flag-count">{len(shown)}</span> rows.{esc(more)}</p>'
        '<input class="filter" type="search" placeholder="filter flagged examples" '
        'aria-label="filter flagged examples" data-table="flag-table" data-count="flag-count">'
        f'<div class="tablewrap"><table id="flag-table" class="sortable"><thead><tr>{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
