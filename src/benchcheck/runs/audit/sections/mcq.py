"""Section ``mcq``: a multiple-choice benchmark's structure, near-duplicates and answer keys.

Key in ``results.json``: ``mcq`` (:func:`benchcheck.runs.mcq_audit.run_mcq_audit`): the
structural checks, the near-duplicate questions and, with the models' answers, the expected
wrong keys overall and per group with their interval and every flag (the first
:data:`~benchcheck.runs.mcq_audit.MAX_FLAGS_IN_JSON` in ``results.json``, all in
``mcq_flags.jsonl`` beside the report). What it could not do is listed in ``not_run``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchcheck.io.typed import JsonResult
from benchcheck.report.html import card, cards, esc, long_text, num_cell, show_text
from benchcheck.report.markdown import md_table, md_text
from benchcheck.report.numbers import num, pct
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section

__all__ = ["McqAudit", "McqResult", "McqSection"]

#: Rows of each list the HTML and Markdown show (results.json holds more).
MAX_SHOWN = 50


@dataclass(frozen=True)
class CheckRow(JsonResult):
    """One question a structural check found, and the options involved (letters)."""

    split: str
    id: str
    line: int
    check: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Structure(JsonResult):
    """Questions per check (every check, 0 included) and the questions found."""

    n_questions: int
    counts: dict[str, int]
    n_rows: int
    rows: tuple[CheckRow, ...]


@dataclass(frozen=True)
class Cluster(JsonResult):
    """Near-duplicate questions, their keys' option texts, and whether those agree."""

    split: str
    size: int
    ids: tuple[str, ...]
    key_texts: tuple[str, ...]
    same_key: bool


@dataclass(frozen=True)
class NearDuplicateQuestions(JsonResult):
    """Clusters of near-duplicate questions (question and options compared)."""

    threshold: float
    compared: str
    n_clusters: int
    n_questions_in_clusters: int
    n_clusters_keys_differ: int
    near_duplicate_ratio: float | None
    clusters: tuple[Cluster, ...]


@dataclass(frozen=True)
class Expected(JsonResult):
    """Expected wrong keys of a group ("" overall), the rate's interval, the flags."""

    group: str
    n: int
    expected_wrong_keys: float
    rate: float
    ci: tuple[float, float]
    flagged: int


@dataclass(frozen=True)
class McqFlag(JsonResult):
    """A flagged question: its key, the proposed key and its support, the models' vote."""

    rank: int
    id: str
    group: str | None
    question: str
    options: tuple[str, ...]
    key: str
    proposed_answer: str
    support: float
    error_score: float
    kind: str
    votes: dict[str, float]


@dataclass(frozen=True)
class AnswerKeys(JsonResult):
    """The answers detector's fit, the expected wrong keys and the flags."""

    files: tuple[str, ...]
    models: tuple[str, ...]
    soft: bool
    missing_answers: int
    detector: str
    threshold: float
    effective_models: float
    confidence: float
    counts: dict[str, int]
    overall: Expected
    by_group: tuple[Expected, ...]
    n_flags: int
    flags: tuple[McqFlag, ...]
    n_disputed_not_flagged: int
    disputed_not_flagged: tuple[McqFlag, ...]
    flags_file: str


@dataclass(frozen=True)
class McqAudit(JsonResult):
    """The ``mcq`` object of ``results.json``."""

    data: str
    n_questions: int
    n_groups: int
    structure: Structure
    near_duplicates: NearDuplicateQuestions
    answers: AnswerKeys | None
    not_run: tuple[str, ...]


@dataclass(frozen=True)
class McqResult(JsonResult):
    """The ``mcq`` section."""

    mcq: McqAudit


class McqSection(Section[McqResult]):
    """Structure, near-duplicates and answer keys of a multiple-choice benchmark."""

    #: 1.1: the questions most models dispute whose P(key wrong) stays under the threshold
    version = "1.1"
    name = "mcq"
    title = "Multiple-choice questions"
    anchor = "mcq"
    result = McqResult
    card = Card(
        measures="Structural checks of each question's options; near-duplicate questions "
        "(question and options, MinHash-LSH verified by exact Jaccard); with the evaluated "
        "models' answers, each key's probability of being wrong (Dawid–Skene with the key "
        "as one more annotator, per-subject key accuracy, models' votes tempered by their "
        "correlation), the expected wrong keys per subject and the flags.",
        reading="A flag is a key the models dispute: review it (benchcheck review export "
        "mcq_flags.jsonl). Expected wrong keys are the sum of calibrated probabilities, "
        "before review; near-duplicates whose keys differ are one wrong key or one changed "
        "question.",
        references=(
            "Gema et al. 2024, Are We Done with MMLU? (MMLU-Redux)",
            "Dawid & Skene 1979",
            "Kish 1965 (design effect)",
        ),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a multiple-choice benchmark (``--task mcq``)."""
        return None if inputs.mcq is not None else "no multiple-choice data (--task mcq)"

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[McqResult]:
        """:func:`benchcheck.runs.mcq_audit.run_mcq_audit`."""
        from benchcheck.io.canonical import jsonable
        from benchcheck.runs.audit._paths import shown
        from benchcheck.runs.mcq_audit import MCQ_FLAGS_FILE, run_mcq_audit

        mcq = inputs.mcq
        assert mcq is not None
        run = run_mcq_audit(
            mcq.path, mcq.answers, columns=mcq.columns, threshold=mcq.threshold, seed=1
        )
        payload = run.to_json()
        payload["data"] = shown(payload["data"])
        if payload["answers"] is not None:
            payload["answers"]["files"] = [shown(f) for f in payload["answers"]["files"]]
        result = McqResult.from_json(jsonable({"mcq": payload}))
        audit = result.mcq
        structural = sum(1 for c in audit.structure.counts.values() if c)
        detail = (
            f"{audit.n_questions} questions, {structural} structural check(s) hit, "
            f"{audit.near_duplicates.n_clusters} near-duplicate cluster(s)"
        )
        files = {}
        if audit.answers is not None:
            a = audit.answers
            detail += (
                f", {a.n_flags} key(s) flagged by {len(a.models)} models (expected wrong keys "
                f"{num(a.overall.expected_wrong_keys, 1)})"
            )
            flags = run.flags()
            if flags is not None and flags.height:
                files[MCQ_FLAGS_FILE] = flags
        else:
            detail += ", keys not checked (no --answers)"
        return Ran(result, detail, files=files)

    def html(self, result: McqResult) -> str:
        """Cards, the checks, near-duplicates, expected wrong keys by group, the flags."""
        m = result.mcq
        s, nd = m.structure, m.near_duplicates
        head = [
            card("questions", m.n_questions, "questions read"),
            card("groups", m.n_groups, "subjects (group column)"),
            card("structural hits", s.n_rows, "questions × checks found"),
            card("near-duplicate clusters", nd.n_clusters, "question and options compared"),
        ]
        if m.answers is not None:
            a = m.answers
            head += [
                card("models", len(a.models), "evaluated models whose answers were read"),
                card("flagged keys", a.n_flags, f"P(key wrong) ≥ {num(a.threshold)}"),
                card(
                    "expected wrong keys",
                    a.overall.expected_wrong_keys,
                    "sum of the calibrated P(key wrong), before review",
                    digits=1,
                ),
            ]
        parts = [cards(head)]
        for note in m.not_run:
            parts.append(f'<p class="note">{esc(note)}</p>')
        parts.append(_structure_html(s))
        parts.append(_near_html(nd))
        if m.answers is not None:
            parts.append(_answers_html(m.answers))
        return "".join(parts)

    def markdown(self, result: McqResult) -> list[str]:
        """Render the counts, the expected wrong keys by group and the first flags."""
        m = result.mcq
        s, nd = m.structure, m.near_duplicates
        out = [f"## {self.title}", "", f"{m.n_questions} questions, {m.n_groups} group(s).", ""]
        out += [*(f"> {md_text(n)}" for n in m.not_run), ""] if m.not_run else []
        out.append(
            md_table(["check", "questions"], [[c, num(n)] for c, n in s.counts.items()], (1,))
        )
        out += [
            "",
            f"Near-duplicate questions: {nd.n_clusters} cluster(s), "
            f"{nd.n_questions_in_clusters} questions, {nd.n_clusters_keys_differ} whose keys "
            "differ.",
            "",
        ]
        if m.answers is None:
            return out
        a = m.answers
        level = pct(a.confidence)
        out.append(
            md_table(
                ["group", "questions", "flagged", "expected wrong keys", f"rate ({level} CI)"],
                [
                    [
                        md_text(g.group or "all"),
                        num(g.n),
                        num(g.flagged),
                        num(g.expected_wrong_keys, 1),
                        f"{pct(g.rate, 1)} ({pct(g.ci[0], 1)}–{pct(g.ci[1], 1)})",
                    ]
                    for g in (a.overall, *a.by_group)
                ],
                right=(1, 2, 3),
            )
        )
        out.append("")
        if a.flags:
            out += [_flags_md(a.flags[:MAX_SHOWN]), ""]
        else:
            out += [f"No key reaches P(key wrong) ≥ {num(a.threshold)}.", ""]
        if a.disputed_not_flagged:
            out += [
                f"Disputed by most models, not flagged: {num(a.n_disputed_not_flagged)} "
                "(another option has more of the models' answers than the key, but its "
                "P(key wrong) stays under the threshold; highest first).",
                "",
                _flags_md(a.disputed_not_flagged[:MAX_SHOWN]),
                "",
            ]
        return out

    def terminal(self, result: McqResult) -> list[Any]:
        """Render the checks, expected wrong keys by group and the first flags."""
        from benchcheck.report.terminal.mcq import mcq_audit_renderables

        return mcq_audit_renderables(result.mcq.to_json())

    def notes(self, result: McqResult) -> list[str]:
        """Return what the section could not do, and how to enable it."""
        return list(result.mcq.not_run)


def _flags_md(flags: tuple[McqFlag, ...]) -> str:
    """Render flag rows (flags, or disputed questions not flagged) as a Markdown table."""
    return md_table(
        ["rank", "id", "group", "key", "proposed", "support", "P(key wrong)", "kind", "votes"],
        [
            [
                str(f.rank), md_text(f.id), md_text(f.group), f.key, f.proposed_answer,
                num(f.support), num(f.error_score), f.kind, _votes(f.votes),
            ]
            for f in flags
        ],
        right=(0, 5, 6),
    )  # fmt: skip


def _votes(votes: Mapping[str, float]) -> str:
    """Render the models' vote as ``A 1 · C 13`` (options nobody chose left out)."""
    return " · ".join(f"{k} {vote_count(v)}" for k, v in votes.items() if v > 0) or "—"


def vote_count(value: float) -> str:
    """Render a vote count: whole numbers as such, soft (lm-eval) sums to two decimals.

    >>> vote_count(13.0), vote_count(2.456)
    ('13', '2.46')
    """
    return num(int(value) if float(value).is_integer() else value, 2)


def _structure_html(s: Structure) -> str:
    counts = "".join(
        f"<tr><td>{esc(c.replace('_', ' '))}</td>{num_cell(n, 'questions')}</tr>"
        for c, n in s.counts.items()
    )
    out = (
        "<h3>Structural checks</h3>"
        '<table><thead><tr><th>check</th><th class="n">questions</th></tr></thead>'
        f"<tbody>{counts}</tbody></table>"
    )
    if s.rows:
        rows = "".join(
            f"<tr><td>{show_text(r.id)}</td><td>{esc(r.split)}</td>"
            f'<td class="n">{r.line}</td><td>{esc(r.check.replace("_", " "))}</td>'
            f"<td>{esc(', '.join(r.options))}</td></tr>"
            for r in s.rows[:MAX_SHOWN]
        )
        out += (
            f"<h4>Questions found ({s.n_rows}; the first {min(s.n_rows, MAX_SHOWN)})</h4>"
            '<div class="tablewrap"><table id="mcq-checks" class="sortable"><thead><tr>'
            '<th>id</th><th>split</th><th class="n">line</th><th>check</th><th>options</th>'
            f"</tr></thead><tbody>{rows}</tbody></table></div>"
        )
    return out


def _near_html(nd: NearDuplicateQuestions) -> str:
    out = (
        "<h3>Near-duplicate questions</h3>"
        f'<p class="sub">{nd.n_clusters} cluster(s) of {nd.n_questions_in_clusters} questions '
        f"(Jaccard ≥ {num(nd.threshold)} on the words of the {esc(nd.compared)}); "
        f"{nd.n_clusters_keys_differ} whose keys name different option texts.</p>"
    )
    if nd.clusters:
        rows = "".join(
            f"<tr><td>{esc(c.split)}</td>{num_cell(c.size, 'questions')}"
            f"<td>{show_text(', '.join(c.ids))}</td>"
            f"<td>{show_text(' | '.join(c.key_texts))}</td>"
            f"<td>{'same' if c.same_key else '<strong>differ</strong>'}</td></tr>"
            for c in sorted(nd.clusters, key=lambda c: (c.same_key, -c.size))[:MAX_SHOWN]
        )
        out += (
            '<div class="tablewrap"><table id="mcq-near" class="sortable"><thead><tr>'
            '<th>split</th><th class="n">size</th><th>ids</th><th>keys (option text)</th>'
            f"<th>keys</th></tr></thead><tbody>{rows}</tbody></table></div>"
        )
    return out


def _answers_html(a: AnswerKeys) -> str:
    level = pct(a.confidence)
    groups = "".join(
        f"<tr><td>{show_text(g.group or 'all questions')}</td>{num_cell(g.n, 'questions')}"
        f"{num_cell(g.flagged, 'flagged')}"
        f"{num_cell(g.expected_wrong_keys, 'sum of P(key wrong)', 1)}"
        f'<td class="n" data-sort="{g.rate}">{esc(pct(g.rate, 1))}</td>'
        f'<td class="n">{esc(pct(g.ci[0], 1))}–{esc(pct(g.ci[1], 1))}</td></tr>'
        for g in (a.overall, *a.by_group)
    )
    kinds = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in a.counts.items())
    out = (
        "<h3>Answer keys the models dispute</h3>"
        f'<p class="sub">{len(a.models)} models ({num(a.effective_models, 2)} effective '
        f"independent ones), {a.missing_answers} missing answers; flags: {esc(kinds)}. "
        f"Every flag is in {esc(a.flags_file)}.</p>"
        '<div class="tablewrap"><table id="mcq-groups" class="sortable"><thead><tr>'
        '<th>group</th><th class="n">questions</th><th class="n">flagged</th>'
        '<th class="n">expected wrong keys</th><th class="n">rate</th>'
        f'<th class="n">{esc(level)} CI</th></tr></thead><tbody>{groups}</tbody></table></div>'
    )
    if a.flags:
        out += f"<h4>Flags ({a.n_flags}; the first {min(a.n_flags, MAX_SHOWN)})</h4>" + _flags_html(
            "mcq-flags", a.flags[:MAX_SHOWN]
        )
    else:
        out += f'<p class="note">No key reaches P(key wrong) ≥ {esc(num(a.threshold))}.</p>'
    if a.disputed_not_flagged:
        shown = a.disputed_not_flagged[:MAX_SHOWN]
        out += (
            f"<details><summary>Disputed by most models, not flagged: "
            f"{esc(num(a.n_disputed_not_flagged))} (another option has more of the models' "
            "answers than the key, but P(key wrong) stays under the threshold; highest "
            f"first{'' if len(shown) == a.n_disputed_not_flagged else f', the first {len(shown)}'})"
            "</summary>" + _flags_html("mcq-disputed", shown) + "</details>"
        )
    return out


def _flags_html(table_id: str, flags: tuple[McqFlag, ...]) -> str:
    rows = "".join(
        f'<tr><td class="n">{f.rank}</td><td>{show_text(f.id)}</td>'
        f'<td class="text">{long_text(_lettered(f))}</td><td>{esc(f.key)}</td>'
        f"<td><strong>{esc(f.proposed_answer)}</strong></td>"
        f"<td>{esc(_votes(f.votes))}</td>"
        f"{num_cell(f.error_score, 'P(key wrong)')}<td>{esc(f.kind)}</td>"
        f"{num_cell(f.support, 'P(proposed option right)')}"
        f"<td>{show_text(f.group)}</td></tr>"
        for f in flags
    )
    return (
        f'<div class="tablewrap"><table id="{table_id}" class="sortable"><thead><tr>'
        '<th class="n">rank</th><th>id</th><th>question</th><th>key</th>'
        '<th>proposed</th><th>models\' vote</th><th class="n">P(key wrong)</th>'
        '<th>kind</th><th class="n">support</th><th>group</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )


def _lettered(f: McqFlag) -> str:
    from benchcheck.data.mcq import lettered

    return lettered(f.question, f.options)
