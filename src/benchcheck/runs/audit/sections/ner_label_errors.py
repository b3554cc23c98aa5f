"""Section ``ner label errors``: spans an out-of-fold CRF disputes, in every NER split.

Key in ``results.json``: ``ner_label_errors``. Each split goes through ``benchcheck
flag-spans`` without a model (:func:`benchcheck.labels.ner_detect.tagger_flags`): a CRF
trained on the other folds tags every sentence, and each disagreement with the gold gets
``error_score`` = the noisy-or of ``1 − min_t p_t(gold_t)`` over its region and its
surface's inconsistency (:mod:`benchcheck.labels.ner_consistency`). A split with too few sentences
holding entities, or a single entity type, is listed with the reason it was not checked.

**Time budget** (``benchcheck audit --label-error-seconds S``, default
:data:`LABEL_ERROR_SECONDS` per split; ``0`` skips the section). The budget becomes a token
budget at the tagger's measured throughput, ``tokens = S × TAGGER_TOKENS_PER_SECOND``
(:func:`token_budget`), and each split is checked on its first sentences (file order) up to
that many tokens, extended to hold at least ``folds`` sentences with entities when the split
has them (:func:`sentences_within`). ``results.json`` records the budget and, per split, the
sentences and tokens checked and the tagger's measured wall seconds.

**How good is this detector?** Below the flags, the section shows the detector's quality
measured by ``benchmarks/ner_detect_bench.py`` on real corpora with planted errors (package
data, :func:`benchcheck.io.ner_detector_quality.ner_detector_note`), carried in
``results.json`` as ``detector_quality`` since version 1.2 — as the pair section carries its
default judge's (:mod:`benchcheck.report.ner_quality_note` builds the words and the table).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchcheck._progress import step
from benchcheck.io.typed import ABSENT, AbsentType, JsonResult
from benchcheck.report.html import esc, num_cell
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.report.ner_quality_note import (
    QUALITY_TITLE,
    quality_head,
    quality_rows,
    threshold_note,
    verdict,
)
from benchcheck.report.numbers import num, pct, score_text, short, thousands
from benchcheck.runs.audit._inputs import LABEL_ERROR_SECONDS, AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section, Skip

__all__ = [
    "LABEL_ERROR_SECONDS",
    "TAGGER_TOKENS_PER_SECOND",
    "NerCorpusQuality",
    "NerDetectorQuality",
    "NerExpectedErrors",
    "NerLabelErrors",
    "NerLabelErrorsResult",
    "NerLabelErrorsSection",
    "sentences_within",
    "token_budget",
]

#: Tokens per second of wall time of the tagger path (:func:`~benchcheck.labels.ner_detect.
#: tagger_flags` with the default :class:`~benchcheck.labels.ner_tagger.TaggerOptions`: 5
#: folds, 30 epochs, ``n_jobs=2``), measured once on this project's machine (2 cores shared
#: with another engineer's runs, which were paused then): the MSRA 10k-sentence train subset
#: of ``benchmarks/ner_detect_bench.py`` (seed 0; 426,052 tokens) in 83.9 s, i.e. 5,077
#: tokens/s (8.4 s per 1k sentences), rounded down to 5,000; load average 0.9 at the start,
#: 2.6 at the end (its own two workers). Command: ``tagger_flags(split.tokens,
#: spans_from_split(split), split.n, options=TaggerOptions())`` timed with
#: ``time.perf_counter`` on that file (``read_conll``). Slower under load: the benchmark's
#: 10.6 s per 1k sentences at load 3–5 is about 4,000 tokens/s. Below
#: :data:`~benchcheck.labels.ner_tagger.PARALLEL_TOKENS` (100,000 tokens, a budget under 20 s)
#: the folds train one after another, not two at a time: up to about 5/3 of the budget.
TAGGER_TOKENS_PER_SECOND = 5000.0
_KINDS = ("wrong_type", "wrong_boundary", "missing_annotation", "spurious_annotation")
#: Flags shown in the report (highest error score first, over all splits).
MAX_ROWS = 50
#: The report folder's file of every NER flag (the review format of ``flag-spans -o``).
FLAGS_FILE = "ner_flags.jsonl"
#: The fields of a flag shown in ``results.json`` (:class:`NerFlag`).
EXAMPLE_COLUMNS = (
    "rank",
    "split",
    "sentence",
    "start",
    "end",
    "kind",
    "gold_type",
    "pred_type",
    "error_score",
    "text",
    "error_logit",
    "line",
    "document",
)


def _logit(flag: NerFlag) -> float | None:
    """Return the flag's log-odds, ``None`` in a file from before version 1.3."""
    return None if isinstance(flag.error_logit, AbsentType) else flag.error_logit


def _glossary() -> str:
    """Return the kinds' glossary line (imported late: the section module stays light)."""
    from benchcheck.labels.ner_flags import GLOSSARY

    return GLOSSARY


def _documents(split: Any) -> Any:
    """Document of each sentence where the split's file has ``-DOCSTART-`` lines, else None."""
    from pathlib import Path

    from benchcheck.io.conll import sentence_documents

    source = Path(str(split.source))
    if not source.is_file():
        return None
    return sentence_documents(source, split.table["line"].to_numpy())


def token_budget(seconds: float, tokens_per_second: float = TAGGER_TOKENS_PER_SECOND) -> int:
    """Tokens the tagger gets through in ``seconds``: ``⌊seconds × tokens_per_second⌋``.

    >>> token_budget(60, 2000.0), token_budget(0.5, 2000.0), token_budget(0)
    (120000, 1000, 0)
    """
    return int(math.floor(seconds * tokens_per_second))


def sentences_within(
    lengths: Sequence[int], has_entity: Sequence[bool], tokens: int, folds: int
) -> int:
    """How many first sentences the audit checks: those within ``tokens``, or more for folds.

    The longest prefix of sentences whose tokens sum to at most ``tokens``; when that prefix
    holds fewer than ``folds`` sentences with entities, it is extended to the sentence that
    makes ``folds`` of them (or to the whole split, which then has too few: the tagger says
    so).

    >>> sentences_within([3, 4, 5, 2], [True, True, True, True], 7, 2)
    2
    >>> sentences_within([3, 4, 5, 2], [True, False, False, True], 7, 2)
    4
    >>> sentences_within([3, 4, 5, 2], [True] * 4, 1, 1)
    1
    >>> sentences_within([3, 4], [False, False], 99, 5)
    2
    """
    total, n = 0, 0
    for length in lengths:
        if total + length > tokens:
            break
        total += length
        n += 1
    seen = sum(1 for e in has_entity[:n] if e)
    while seen < folds and n < len(lengths):
        seen += bool(has_entity[n])
        n += 1
    return n


@dataclass(frozen=True)
class NerExpectedErrors(JsonResult):
    """Expected wrong sentences and their interval (:mod:`benchcheck.labels.ner_expected`)."""

    expected: float
    low: float
    high: float
    level: float
    sentences: int
    unit: str
    rule: str
    reason: str
    method: str


@dataclass(frozen=True)
class NerSplitFlags(JsonResult):
    """One split: what was checked, its spans, disagreements and flags, or why it was skipped.

    ``checked``: the sentences checked (the first ones); since version 1.1 (absent from older
    files) ``tokens``/``tokens_checked``: the split's tokens and those of its checked
    sentences, ``seconds``: the tagger's measured wall time on it (``None`` where it did not
    run).
    """

    split: str
    sentences: int
    checked: int
    gold_spans: int
    tagger_spans: int
    disagreements: int
    flagged: int
    by_kind: dict[str, int]
    token_issues: int
    skipped: str | None
    tokens: int | AbsentType = ABSENT
    tokens_checked: int | AbsentType = ABSENT
    seconds: float | None | AbsentType = ABSENT
    #: Since version 1.4: the expected wrong sentences among those checked (None: skipped).
    expected_errors: NerExpectedErrors | None | AbsentType = ABSENT


@dataclass(frozen=True)
class NerFlag(JsonResult):
    """One flag: split, sentence (0-based in the split), region, types, error score, text."""

    rank: int
    split: str
    sentence: int
    start: int
    end: int
    kind: str
    gold_type: str | None
    pred_type: str | None
    error_score: float
    text: str
    #: Since version 1.3: the log-odds of ``error_score`` (the ranking key; it does not
    #: round to 1.0 as the score does).
    error_logit: float | AbsentType = ABSENT
    #: Since version 1.4: the 1-based line of the sentence's first token in its file, and
    #: its document (the ``-DOCSTART-`` count before it; null without those lines).
    line: int | AbsentType = ABSENT
    document: int | None | AbsentType = ABSENT


@dataclass(frozen=True)
class NerCorpusQuality(JsonResult):
    """The default detector on one benchmark corpus (means over the planted kinds and draws).

    ``ap``/``ap_random``: sentence-level average precision of the detector / of a random
    ranking, mean over the kinds; ``ap_by_kind``: the detector's per kind;
    ``flag_precision``/``flag_recall``: of the flags at the benchmark's ``min_error_score``
    against the planted errors (precision a lower bound); ``None`` where not defined.
    """

    sentences: int
    entity_types: int
    draws: int
    ap: float | None
    ap_random: float | None
    ap_by_kind: dict[str, float | None]
    flag_precision: float | None
    flag_recall: float | None
    seconds_per_1k_sentences: float | None


@dataclass(frozen=True)
class NerDetectorQuality(JsonResult):
    """The detector's measured quality (package data, the committed benchmark's numbers).

    ``settings``: the tagger's settings the benchmark ran with, incl. ``min_error_score``.
    """

    source: str
    detector: str
    planted_rate: float
    kinds: tuple[str, ...]
    settings: dict[str, Any]
    corpora: dict[str, NerCorpusQuality]


@dataclass(frozen=True)
class NerLabelErrors(JsonResult):
    """The tagger's settings, each split's counts, and the flags with the highest scores.

    ``max_sentences``: the most sentences checked in one split (every split was checked on
    at most that many; version 1.0 held a fixed cap here). Since version 1.1 (absent from
    older files): ``budget_seconds``, ``--label-error-seconds`` (per split), and
    ``budget_tokens``, the tokens it allows at ``tokens_per_second``, the tagger's measured
    throughput (:func:`token_budget`). Since version 1.2: ``detector_quality``, the
    detector's benchmark numbers (:class:`NerDetectorQuality`).
    """

    folds: int
    seed: int
    min_error_score: float
    max_sentences: int
    splits: tuple[NerSplitFlags, ...]
    examples: tuple[NerFlag, ...]
    examples_total: int
    budget_seconds: float | AbsentType = ABSENT
    tokens_per_second: float | AbsentType = ABSENT
    budget_tokens: int | AbsentType = ABSENT
    detector_quality: NerDetectorQuality | AbsentType = ABSENT
    #: Since version 1.4: the report folder's file holding every flag (all
    #: ``examples_total`` of them, in ``flag-spans -o``'s review format), null without flags.
    flags_file: str | None | AbsentType = ABSENT
    #: Since version 1.4: the expected wrong sentences over every checked sentence of the
    #: splits (None: no split checked).
    expected_errors: NerExpectedErrors | None | AbsentType = ABSENT


@dataclass(frozen=True)
class NerLabelErrorsResult(JsonResult):
    """The ``ner label errors`` section."""

    ner_label_errors: NerLabelErrors


class NerLabelErrorsSection(Section[NerLabelErrorsResult]):
    """Label errors of a NER dataset found by an out-of-fold CRF (CrossWeigh, cleanlab)."""

    name = "ner label errors"
    title = "NER label errors"
    anchor = "ner-label-errors"
    result = NerLabelErrorsResult
    # 1.1: the time budget (--label-error-seconds), tokens and seconds per split;
    # 1.2: detector_quality, the benchmark's numbers shown below the flags;
    # 1.3: kinds named from the annotation's side, both spans marked, error_logit per flag;
    # 1.4: every flag in ner_flags.jsonl (flags_file), each flag's line and document
    version = "1.4"
    card = Card(
        measures="Entity spans where a CRF tagger trained on the other folds (never on the "
        "sentence itself) disagrees with the gold annotation: a different type, boundary, an "
        "entity the gold lacks (spurious tagger span) or a gold entity the tagger does not "
        "find (missing).",
        reading="error_score = noisy-or of the tagger's score (1 − the smallest held-out "
        "probability of a gold label in the span's region) and the span surface's "
        "inconsistency (share of its other occurrences annotated otherwise); a flag reaches "
        "the threshold. Flags are candidates for expert review "
        "(benchcheck flag-spans -o, then review export), not verdicts; a weak tagger (few "
        "sentences, many types) disagrees often for its own reasons.",
        references=(
            "CrossWeigh (Wang et al., EMNLP 2019)",
            "Detecting Label Errors in Token Classification Data (Wang & Mueller, 2022)",
            "Detecting Inconsistencies in Treebanks (Dickinson & Meurers, TLT 2003)",
        ),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a NER dataset, or with no time for the tagger."""
        if inputs.ner is None or not inputs.ner.given:
            return "no NER dataset given"
        if inputs.ner.label_error_seconds == 0:
            return "--label-error-seconds 0"
        return None

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[NerLabelErrorsResult]:
        """:func:`benchcheck.labels.ner_detect.tagger_flags` on each split, within the budget."""
        import time

        import numpy as np
        import polars as pl

        from benchcheck.errors import MissingExtraError, UsageError
        from benchcheck.io.canonical import jsonable
        from benchcheck.io.ner_detector_quality import ner_detector_note
        from benchcheck.labels.ner_detect import MIN_ERROR_SCORE, tagger_flags
        from benchcheck.labels.ner_expected import expected_errors, sentence_logits
        from benchcheck.labels.ner_flags import KINDS, span_review_frame, spans_from_split
        from benchcheck.labels.ner_tagger import TaggerOptions
        from benchcheck.runs.audit._paths import shown as shown_path
        from benchcheck.runs.audit.sections.statistics import ner_source

        ner = inputs.ner
        assert ner is not None
        dataset = ner_source(ner).load()
        opts = TaggerOptions()
        budget = ner.label_error_seconds
        allowed = token_budget(budget)
        rows: list[dict[str, Any]] = []
        frames = []
        logits: list[Any] = []
        for split in dataset:
            if split.tokens is None or split.spans is None:
                continue
            all_spans = spans_from_split(split)
            lengths = (
                split.tokens.group_by(pl.col("sentence").cast(pl.Int64)).len().sort("sentence")
            )
            per = [0] * split.n
            for s, k in lengths.iter_rows():
                per[s] = int(k)
            holds = [False] * split.n
            for s in all_spans["sentence"].unique().to_list():
                holds[s] = True
            n = sentences_within(per, holds, allowed, opts.folds)
            tokens = split.tokens.filter(pl.col("sentence") < n)
            spans = all_spans.filter(pl.col("sentence") < n)
            row: dict[str, Any] = {
                "split": split.name,
                "sentences": split.n,
                "checked": 0,
                "gold_spans": spans.height,
                "tagger_spans": 0,
                "disagreements": 0,
                "flagged": 0,
                "by_kind": {k: 0 for k in KINDS},
                "token_issues": 0,
                "skipped": None,
                "tokens": split.tokens.height,
                "tokens_checked": 0,
                "seconds": None,
                "expected_errors": None,
            }
            step(progress, f"out-of-fold tagger on {split.name} ({thousands(n)} sentences)")
            start = time.perf_counter()
            documents = _documents(split)
            try:
                found = tagger_flags(
                    tokens,
                    spans,
                    n,
                    options=opts,
                    documents=None if documents is None else documents[:n],
                    progress=progress,
                )
            except MissingExtraError as exc:
                raise Skip(f"no tagger installed: {exc.install}", unavailable=True) from None
            except UsageError as exc:
                row["skipped"] = exc.message.replace("{folds}", "--folds")
                rows.append(row)
                continue
            flags = found.flags
            z = sentence_logits(flags, n)
            logits.append(z)
            row.update(
                expected_errors=expected_errors(z).to_json(),
                checked=n,
                tokens_checked=tokens.height,
                seconds=time.perf_counter() - start,
                tagger_spans=found.pred.height,
                disagreements=flags.height,
                flagged=int(flags["flagged"].sum()),
                by_kind={k: int((flags["kind"] == k).sum()) for k in KINDS},
                token_issues=found.n_token_issues,
            )
            rows.append(row)
            shown = flags.filter(pl.col("flagged"))
            if shown.height:
                at = shown["sentence"].cast(pl.Int64)
                where = [
                    pl.lit(split.name).alias("split"),
                    pl.lit(shown_path(str(split.source))).alias("file"),
                    split.table["line"].cast(pl.Int64).gather(at).alias("line"),
                    (
                        pl.lit(None, dtype=pl.Int64)
                        if documents is None
                        else pl.Series(documents, dtype=pl.Int64).gather(at)
                    ).alias("document"),
                ]
                shown = shown.with_columns(where)
                frames.append(span_review_frame(tokens, shown, gold=spans, proposed=found.pred))
        if not rows:
            raise Skip("no NER split with tokens")
        every = (
            pl.concat(frames, how="diagonal_relaxed")
            .sort("error_logit", descending=True, maintain_order=True)
            .with_columns(pl.int_range(1, pl.len() + 1).alias("rank"))
            if frames
            else None
        )
        examples = [] if every is None else every.head(MAX_ROWS).select(EXAMPLE_COLUMNS).to_dicts()
        payload = {
            "ner_label_errors": {
                "folds": opts.folds,
                "seed": opts.seed,
                "min_error_score": MIN_ERROR_SCORE,
                "max_sentences": max(r["checked"] for r in rows),
                "splits": rows,
                "examples": examples,
                "examples_total": 0 if every is None else every.height,
                "budget_seconds": float(budget),
                "tokens_per_second": TAGGER_TOKENS_PER_SECOND,
                "budget_tokens": allowed,
                "detector_quality": ner_detector_note(),
                "flags_file": None if every is None else FLAGS_FILE,
                "expected_errors": (
                    expected_errors(np.concatenate(logits)).to_json() if logits else None
                ),
            }
        }
        result = NerLabelErrorsResult.from_json(jsonable(payload))
        flagged = sum(r["flagged"] for r in rows)
        checked = sum(r["checked"] for r in rows)
        detail = f"{flagged} spans flagged in {checked} sentences by an out-of-fold CRF"
        parts = [(s.split, _partial(s, budget)) for s in result.ner_label_errors.splits]
        partial = [f"{name}: {part}" for name, part in parts if part]
        if partial:
            detail += " (" + "; ".join(partial) + ")"
        frames_out = {} if every is None else {"ner_flags": every}
        return Ran(result, detail, frames=frames_out)

    def html(self, result: NerLabelErrorsResult) -> str:
        """Render the rule, the counts per split and the flags with the highest scores."""
        le = result.ner_label_errors
        parts = [
            "<p>A CRF tagger trained on the other "
            f"{le.folds - 1} of {le.folds} folds tags each sentence; every span where it "
            "disagrees with the gold, and every surface annotated unlike its other "
            "occurrences, gets an <b>error score</b>: the noisy-or of 1 − the smallest "
            "held-out probability of a gold label in the span's region and the share of the "
            "surface's other occurrences annotated otherwise; it is <b>flagged</b> from "
            f"{num(le.min_error_score)}. {_budget_text(le)} Flags are "
            "candidates for review (<code>benchcheck flag-spans DATA -o flags.jsonl</code>, "
            "then <code>benchcheck review export</code>), not verdicts.</p>"
        ]
        head = ("split", "sentences", "checked", "disagreements", "flagged", *_KINDS, "note")
        body = []
        for s in le.splits:
            counts = (s.sentences, s.checked, s.disagreements, s.flagged)
            cells = [f"<td>{esc(s.split)}</td>"]
            cells += [num_cell(v, h) for v, h in zip(counts, head[1:5], strict=True)]
            cells += [num_cell(s.by_kind.get(k, 0), k) for k in _KINDS]
            cells.append(f"<td>{esc(_note(s, le.budget_seconds))}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        th = "".join(f"<th>{esc(h)}</th>" for h in head)
        parts.append(f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(body)}</tbody></table>")
        if le.examples:
            eh = ("rank", "split", "line", "kind", "gold_type", "pred_type", "error_score", "text")
            th = "".join(f"<th>{esc(h)}</th>" for h in eh)
            trs = []
            for e in le.examples:
                text = (e.split, _where(e), e.kind, e.gold_type or "O", e.pred_type or "O")
                cells = [num_cell(e.rank, "rank")]
                cells += [f"<td>{esc(v)}</td>" for v in text]
                cells.append(f'<td class="num">{esc(score_text(e.error_score, _logit(e)))}</td>')
                cells.append(f"<td>{esc(e.text)}</td>")
                trs.append("<tr>" + "".join(cells) + "</tr>")
            parts.append(
                f"<h3>Flagged spans ({esc(_shown_of(le))})</h3>"
                f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(trs)}</tbody></table>"
                f"<p>{esc(_glossary())}</p>"
            )
        if _expected_line(le):
            parts.append(f"<p>{esc(_expected_line(le))}</p>")
        parts.append(_quality_html(le))
        return "".join(parts)

    def markdown(self, result: NerLabelErrorsResult) -> list[str]:
        """Render the counts per split and the flags with the highest scores."""
        le = result.ner_label_errors
        lines = [
            f"## {self.title}",
            "",
            f"Out-of-fold CRF ({le.folds} folds, seed {le.seed}); flagged from error score "
            f"{num(le.min_error_score)}. {_budget_text(le)}",
            "",
        ]
        lines.append(
            md_table(
                ["split", "sentences", "checked", "disagreements", "flagged", "note"],
                [
                    [
                        md_text(s.split),
                        md_num(s.sentences),
                        md_num(s.checked),
                        md_num(s.disagreements),
                        md_num(s.flagged),
                        md_text(_note(s, le.budget_seconds)),
                    ]
                    for s in le.splits
                ],
                right=(1, 2, 3, 4),
            )
        )
        if le.examples:
            lines += ["", f"Flagged spans ({md_text(_shown_of(le))}):", ""]
            lines.append(
                md_table(
                    [
                        "rank",
                        "split",
                        "line",
                        "kind",
                        "gold_type",
                        "pred_type",
                        "error_score",
                        "text",
                    ],
                    [
                        [
                            md_num(e.rank),
                            md_text(e.split),
                            md_text(_where(e)),
                            md_text(e.kind),
                            md_text(e.gold_type or "O"),
                            md_text(e.pred_type or "O"),
                            md_text(score_text(e.error_score, _logit(e))),
                            md_text(e.text),
                        ]
                        for e in le.examples
                    ],
                    right=(0, 2, 6),
                )
            )
            lines += ["", md_text(_glossary())]
        if _expected_line(le):
            lines += ["", md_text(_expected_line(le))]
        lines += _quality_markdown(le)
        return lines

    def terminal(self, result: NerLabelErrorsResult) -> list[Any]:
        """How good the detector measured (the benchmark's table), below the summary line."""
        le = result.ner_label_errors
        out: list[Any] = []
        if _expected_line(le):
            out.append(_expected_line(le))
        if le.examples and isinstance(le.flags_file, str):  # 1.4: where every flag is
            out.append(f"NER flags: {_shown_of(le)}")
        if isinstance(le.detector_quality, AbsentType):
            return out
        from benchcheck.report.terminal.labels import ner_detector_quality_renderables

        return out + ner_detector_quality_renderables(
            le.detector_quality.to_json(), le.min_error_score
        )


# -------------------------------------------------------------- how good is this detector?


def _quality_html(le: NerLabelErrors) -> str:
    """Render the benchmark's table and how to read it (``""`` for a file before version 1.2)."""
    if isinstance(le.detector_quality, AbsentType):
        return ""
    note = le.detector_quality.to_json()
    head = "".join(f"<th>{esc(h)}</th>" for h in quality_head(note))
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in quality_rows(note)
    )
    extra = threshold_note(note, le.min_error_score)
    return (
        f'<div class="detector-quality"><h3>{esc(QUALITY_TITLE)}</h3>'
        f'<div class="tablewrap"><table id="ner-detector-quality"><thead><tr>{head}</tr>'
        f"</thead><tbody>{body}</tbody></table></div><p>{esc(verdict(note))}"
        + (f" {esc(extra)}" if extra else "")
        + "</p></div>"
    )


def _quality_markdown(le: NerLabelErrors) -> list[str]:
    """Render the benchmark's table and how to read it (nothing for a file before version 1.2)."""
    if isinstance(le.detector_quality, AbsentType):
        return []
    note = le.detector_quality.to_json()
    extra = threshold_note(note, le.min_error_score)
    rows = [[md_text(c) for c in r] for r in quality_rows(note)]
    return [
        "",
        f"### {QUALITY_TITLE}",
        "",
        md_table(quality_head(note), rows, right=(1, 2, 3, 4)),
        "",
        md_text(verdict(note) + (f" {extra}" if extra else "")),
    ]


def _expected_line(le: NerLabelErrors) -> str:
    """Return the expected wrong sentences of the whole and each split (``""``: none, or old).

    >>> e = NerExpectedErrors(8.2, 5.0, 12.0, 0.95, 300, "sentences", "r", "why", "normal")
    >>> le = NerLabelErrors(5, 0, 0.995, 300, (), (), 0, expected_errors=e)
    >>> _expected_line(le)
    'Expected wrong sentences (95% interval): 8 [5, 12] of 300 checked. Rule: r; why.'
    """
    from benchcheck.report.terminal.labels import expected_text

    whole = le.expected_errors
    if whole is None or isinstance(whole, AbsentType):
        return ""
    per = [
        f"{s.split} {expected_text(s.expected_errors.to_json())}"
        for s in le.splits
        if isinstance(s.expected_errors, NerExpectedErrors)
    ]
    split_text = f" ({'; '.join(per)})" if len(per) > 1 else ""
    return (
        f"Expected wrong sentences ({pct(whole.level)} interval): "
        f"{expected_text(whole.to_json())} checked{split_text}. "
        f"Rule: {whole.rule}; {whole.reason}."
    )


def _shown_of(le: NerLabelErrors) -> str:
    """Return ``top 50 of 397; all 397 in ner_flags.jsonl beside this report`` (or less)."""
    head = f"top {len(le.examples)} of {thousands(le.examples_total)}"
    if isinstance(le.flags_file, AbsentType) or le.flags_file is None:
        return head
    return f"{head}; all {thousands(le.examples_total)} in {le.flags_file} beside this report"


def _where(e: NerFlag) -> str:
    """Return the flag's line (and document), or ``sentence N`` in a file before version 1.4.

    >>> _where(NerFlag(1, "test", 4, 0, 1, "wrong_type", "LOC", "ORG", 0.9, "x", 2.2, 27, 3))
    '27 (doc 3)'
    >>> _where(NerFlag(1, "test", 4, 0, 1, "wrong_type", "LOC", "ORG", 0.9, "x"))
    'sentence 4'
    """
    if isinstance(e.line, AbsentType):
        return f"sentence {e.sentence}"
    doc = e.document
    return str(e.line) if doc is None or isinstance(doc, AbsentType) else f"{e.line} (doc {doc})"


def _budget_text(le: NerLabelErrors) -> str:
    """Return the budget sentence of the report (a version 1.0 file: its fixed cap)."""
    seconds, tokens, rate = le.budget_seconds, le.budget_tokens, le.tokens_per_second
    if (
        isinstance(seconds, AbsentType)
        or isinstance(tokens, AbsentType)
        or isinstance(rate, AbsentType)
    ):
        return f"Up to {le.max_sentences} sentences per split."
    return (
        f"Time budget {short(seconds)} s per split (--label-error-seconds): the first "
        f"sentences up to {thousands(tokens)} tokens at the tagger's measured "
        f"{thousands(round(rate))} tokens/s."
    )


def _partial(s: NerSplitFlags, budget: float | AbsentType) -> str:
    """Return ``checked N of M sentences (budget S s)`` for a split checked in part, or ``""``."""
    if s.skipped is not None or s.checked >= s.sentences or isinstance(budget, AbsentType):
        return ""
    return f"checked {s.checked} of {s.sentences} sentences (budget {short(budget)} s)"


def _note(s: NerSplitFlags, budget: float | AbsentType) -> str:
    """Return a split's note: why it was skipped, or that it was checked in part."""
    return s.skipped or _partial(s, budget)
