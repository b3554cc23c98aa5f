"""Section ``ner label errors``: spans an out-of-fold CRF disputes, in every NER split.

Key in ``results.json``: ``ner_label_errors``. Each split (its first :data:`MAX_SENTENCES`
sentences, so that an audit stays fast) goes through ``benchcheck flag-spans`` without a
model (:func:`benchcheck.labels.ner_detect.tagger_flags`): a CRF trained on the other folds
tags every sentence, and each disagreement with the gold gets ``error_score = 1 − min_t
p_t(gold_t)`` over its region. A split with too few sentences holding entities, or a single
entity type, is listed with the reason it was not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchcheck.io.typed import JsonResult
from benchcheck.report.html import esc, num_cell
from benchcheck.report.markdown import md_num, md_table, md_text
from benchcheck.report.numbers import num
from benchcheck.runs.audit._inputs import AuditInputs
from benchcheck.runs.audit._section import Card, Progress, Ran, Section, Skip

__all__ = ["MAX_SENTENCES", "NerLabelErrors", "NerLabelErrorsResult", "NerLabelErrorsSection"]

#: Sentences of each split checked by the audit (file order); `flag-spans` checks them all.
MAX_SENTENCES = 5000
_KINDS = ("type", "boundary", "spurious", "missing")
#: Flags shown in the report (highest error score first, over all splits).
MAX_ROWS = 50


@dataclass(frozen=True)
class NerSplitFlags(JsonResult):
    """One split: sentences checked, spans, disagreements and flags, or why it was skipped."""

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


@dataclass(frozen=True)
class NerLabelErrors(JsonResult):
    """The tagger's settings, each split's counts, and the flags with the highest scores."""

    folds: int
    seed: int
    min_error_score: float
    max_sentences: int
    splits: tuple[NerSplitFlags, ...]
    examples: tuple[NerFlag, ...]
    examples_total: int


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
    card = Card(
        measures="Entity spans where a CRF tagger trained on the other folds (never on the "
        "sentence itself) disagrees with the gold annotation: a different type, boundary, an "
        "entity the gold lacks (spurious tagger span) or a gold entity the tagger does not "
        "find (missing).",
        reading="error_score = 1 − the smallest held-out probability of a gold label in the "
        "span's region; a flag reaches the threshold. Flags are candidates for expert review "
        "(benchcheck flag-spans -o, then review export), not verdicts; a weak tagger (few "
        "sentences, many types) disagrees often for its own reasons.",
        references=(
            "CrossWeigh (Wang et al., EMNLP 2019)",
            "Detecting Label Errors in Token Classification Data (Wang & Mueller, 2022)",
        ),
    )

    def skip(self, inputs: AuditInputs) -> str | None:
        """Skipped without a NER dataset."""
        return None if inputs.ner is not None and inputs.ner.given else "no NER dataset given"

    def run(
        self, inputs: AuditInputs, needs: Mapping[str, Ran[Any]], progress: Progress | None
    ) -> Ran[NerLabelErrorsResult]:
        """:func:`benchcheck.labels.ner_detect.tagger_flags` on each split."""
        import polars as pl

        from benchcheck.errors import MissingExtraError, UsageError
        from benchcheck.io.canonical import jsonable
        from benchcheck.labels.ner_detect import MIN_ERROR_SCORE, tagger_flags
        from benchcheck.labels.ner_flags import KINDS, span_review_frame, spans_from_split
        from benchcheck.labels.ner_tagger import TaggerOptions
        from benchcheck.runs.audit.sections.statistics import ner_source

        ner = inputs.ner
        assert ner is not None
        dataset = ner_source(ner).load()
        opts = TaggerOptions()
        rows: list[dict[str, Any]] = []
        frames = []
        for split in dataset:
            if split.tokens is None or split.spans is None:
                continue
            n = min(split.n, MAX_SENTENCES)
            tokens = split.tokens.filter(pl.col("sentence") < n)
            spans = spans_from_split(split).filter(pl.col("sentence") < n)
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
            }
            try:
                found = tagger_flags(tokens, spans, n, options=opts)
            except MissingExtraError as exc:
                raise Skip(f"tagger unavailable: {exc}", unavailable=True) from None
            except UsageError as exc:
                row["skipped"] = exc.message.replace("{folds}", "--folds")
                rows.append(row)
                continue
            flags = found.flags
            row.update(
                checked=n,
                tagger_spans=found.pred.height,
                disagreements=flags.height,
                flagged=int(flags["flagged"].sum()),
                by_kind={k: int((flags["kind"] == k).sum()) for k in KINDS},
                token_issues=found.n_token_issues,
            )
            rows.append(row)
            shown = flags.filter(pl.col("flagged"))
            if shown.height:
                review = span_review_frame(tokens, shown)
                frames.append(
                    review.select(
                        pl.lit(split.name).alias("split"),
                        "sentence",
                        "start",
                        "end",
                        "kind",
                        "gold_type",
                        "pred_type",
                        "error_score",
                        "text",
                    )
                )
        if not rows:
            raise Skip("no NER split with tokens")
        every = (
            pl.concat(frames).sort("error_score", descending=True, maintain_order=True)
            if frames
            else None
        )
        examples = [] if every is None else every.head(MAX_ROWS).to_dicts()
        for i, e in enumerate(examples, 1):
            e["rank"] = i
        payload = {
            "ner_label_errors": {
                "folds": opts.folds,
                "seed": opts.seed,
                "min_error_score": MIN_ERROR_SCORE,
                "max_sentences": MAX_SENTENCES,
                "splits": rows,
                "examples": examples,
                "examples_total": 0 if every is None else every.height,
            }
        }
        result = NerLabelErrorsResult.from_json(jsonable(payload))
        flagged = sum(r["flagged"] for r in rows)
        checked = sum(r["checked"] for r in rows)
        detail = f"{flagged} spans flagged in {checked} sentences by an out-of-fold CRF"
        return Ran(result, detail)

    def html(self, result: NerLabelErrorsResult) -> str:
        """Render the rule, the counts per split and the flags with the highest scores."""
        le = result.ner_label_errors
        parts = [
            "<p>A CRF tagger trained on the other "
            f"{le.folds - 1} of {le.folds} folds tags each sentence; every span where it "
            "disagrees with the gold gets <b>error score</b> = 1 − the smallest held-out "
            "probability of a gold label in the span's region, and is <b>flagged</b> from "
            f"{num(le.min_error_score)}. Up to {le.max_sentences} sentences per split. Flags are "
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
            cells.append(f"<td>{esc(s.skipped or '')}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        th = "".join(f"<th>{esc(h)}</th>" for h in head)
        parts.append(f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(body)}</tbody></table>")
        if le.examples:
            eh = ("rank", "split", "sentence", "kind", "gold", "tagger", "error score", "text")
            th = "".join(f"<th>{esc(h)}</th>" for h in eh)
            trs = []
            for e in le.examples:
                text = (e.split, str(e.sentence), e.kind, e.gold_type or "O", e.pred_type or "O")
                cells = [num_cell(e.rank, "rank")]
                cells += [f"<td>{esc(v)}</td>" for v in text]
                cells.append(num_cell(e.error_score, "error score"))
                cells.append(f"<td>{esc(e.text)}</td>")
                trs.append("<tr>" + "".join(cells) + "</tr>")
            parts.append(
                f"<h3>Flagged spans ({len(le.examples)} of {le.examples_total})</h3>"
                f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(trs)}</tbody></table>"
            )
        return "".join(parts)

    def markdown(self, result: NerLabelErrorsResult) -> list[str]:
        """Render the counts per split and the flags with the highest scores."""
        le = result.ner_label_errors
        lines = [
            f"## {self.title}",
            "",
            f"Out-of-fold CRF ({le.folds} folds, seed {le.seed}); flagged from error score "
            f"{num(le.min_error_score)}; up to {le.max_sentences} sentences per split.",
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
                        md_text(s.skipped or ""),
                    ]
                    for s in le.splits
                ],
                right=(1, 2, 3, 4),
            )
        )
        if le.examples:
            lines += ["", f"Flagged spans ({len(le.examples)} of {le.examples_total}):", ""]
            lines.append(
                md_table(
                    ["rank", "split", "sentence", "kind", "gold", "tagger", "error score", "text"],
                    [
                        [
                            md_num(e.rank),
                            md_text(e.split),
                            md_num(e.sentence),
                            md_text(e.kind),
                            md_text(e.gold_type or "O"),
                            md_text(e.pred_type or "O"),
                            md_num(e.error_score),
                            md_text(e.text),
                        ]
                        for e in le.examples
                    ],
                    right=(0, 2, 6),
                )
            )
        return lines
