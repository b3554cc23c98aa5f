"""``benchcheck flag --task mcq --answers FILE``: wrong answer keys from models' answers.

Reads the questions (:mod:`benchcheck.io.mcq`), the models' answers
(:mod:`benchcheck.io.mcq_answers`), runs the structural checks
(:mod:`benchcheck.labels.mcq_checks`) and the answers detector
(:func:`benchcheck.labels.mcq_answers.answer_flags`), and writes the flags table: one row per
question with ``id``, ``split``, ``group``, ``line``, ``question``, ``options``, ``label``
(the key's letter), ``proposed_answer``, ``support``, ``key_share`` (the share of the
answering models that chose the key), ``n_answers``, ``error_score``, ``kind``, ``flagged``,
``disputed`` (the annotators' most common answer — their summed votes — is another option
than the key: the disagreement baseline's flag, listed so that a question it disputes is
never hidden when the calibrated score stays under the threshold) and ``rank`` (by
``error_score``); then, for ``review export``, ``text`` (the question with
lettered options), ``llm_label`` (the proposed answer where flagged, else the key) and
``confidence`` (its probability). In a CSV or TSV, ``options`` is written as a JSON list.

The JSON adds, per group (subject), the questions, the flags and the expected wrong keys
(the sum of the calibrated ``error_score``: an estimate from the models' answers, not a
reviewed rate); and the models re-scored on the keys the detector proposes
(:func:`benchcheck.labels.mcq_rerank.rerank_models`: a ``wrong_key`` flag takes its
proposed answer, an ``ambiguous`` or ``no_correct`` flag is removed) — before review.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.ids import refuse_duplicates
from benchcheck.data.mcq import McqColumns, letter, lettered
from benchcheck.data.model import Dataset
from benchcheck.errors import UsageError
from benchcheck.io.mcq_answers import McqAnswers, read_mcq_answers
from benchcheck.labels.mcq_answers import DEFAULT_THRESHOLD, McqAnswerFlags, answer_flags
from benchcheck.labels.mcq_checks import McqChecks, check_mcq
from benchcheck.labels.mcq_rerank import McqRerank, rerank_models

__all__ = ["McqFlagRun", "disputed_keys", "load_mcq", "run_mcq_flag"]

#: What flags the keys: the models' answers, the judges (``judge --task mcq``), or both.
DETECTORS = ("answers", "llm", "both")

#: Columns of the most confident flags shown in the JSON and the terminal.
MCQ_TOP_COLUMNS = (
    "rank",
    "id",
    "group",
    "label",
    "proposed_answer",
    "support",
    "key_share",
    "error_score",
    "kind",
)


@dataclass(frozen=True)
class McqFlagRun:
    """The flags of one multiple-choice dataset, the checks and the detector's fit."""

    data: str
    flags: pl.DataFrame
    checks: McqChecks
    detection: McqAnswerFlags
    answers: McqAnswers
    ranking: McqRerank
    output: str | None = None

    def by_group(self) -> dict[str, dict[str, float | int]]:
        """Per group: questions, flags, expected wrong keys and their share."""
        grouped = (
            self.flags.with_columns(pl.col("group").fill_null(""))
            .group_by("group")
            .agg(
                pl.len().alias("n"),
                pl.col("flagged").sum().alias("flagged"),
                pl.col("error_score").sum().alias("expected_wrong_keys"),
            )
            .sort("group")
        )
        return {
            r["group"]: {
                "n": r["n"],
                "flagged": r["flagged"],
                "expected_wrong_keys": r["expected_wrong_keys"],
                "expected_rate": r["expected_wrong_keys"] / r["n"],
            }
            for r in grouped.iter_rows(named=True)
        }

    def to_json(self, *, top: int = 10) -> dict[str, Any]:
        """Return the JSON of ``benchcheck flag --task mcq --json`` (``top`` flags listed)."""
        fit = self.detection.to_json()
        fit.pop("items")
        out: dict[str, Any] = {
            "task": "mcq",
            "data": self.data,
            "answers": self.answers.to_json(),
            "summary": {
                "n_questions": self.flags.height,
                "flagged": int(self.flags.get_column("flagged").sum()),
                "disputed_not_flagged": self.disputed_not_flagged().height,
                "expected_wrong_keys": fit["expected_wrong_keys"],
            },
            "detector": fit,
            "checks": self.checks.to_json(),
            "by_group": self.by_group(),
            "ranking_with_proposed_keys": self.ranking.to_json(),
        }
        if self.output is not None:
            out["output"] = self.output
        top_rows = self.flags.filter(pl.col("flagged")).sort("rank").head(top)
        out["top"] = top_rows.select(MCQ_TOP_COLUMNS).to_dicts()
        out["top_disputed_not_flagged"] = (
            self.disputed_not_flagged().head(top).select(MCQ_TOP_COLUMNS).to_dicts()
        )
        return out

    def disputed_not_flagged(self) -> pl.DataFrame:
        """Questions whose key most annotators dispute but the score left out, by rank."""
        return self.flags.filter(pl.col("disputed") & ~pl.col("flagged")).sort("rank")


def disputed_keys(probs: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Where another option has more votes than the key (votes: answers summed per option).

    ``probs`` is (n × J × K), each annotator's distribution over the options (zeros where
    it gave none); a tie with the key is not a dispute.

    >>> p = np.zeros((3, 3, 2)); p[:, :, 0] = 1; p[1, :2] = [0, 1]; p[2, :1] = [0, 1]
    >>> disputed_keys(p, np.array([0, 0, 0])).tolist()
    [False, True, False]
    """
    votes = probs.sum(1)
    rows = np.arange(len(keys))
    on_key = votes[rows, keys]
    votes[rows, keys] = -np.inf
    return np.asarray(votes.max(1) > on_key, dtype=bool)


def _write(flags: pl.DataFrame, output: str) -> None:
    from benchcheck.io.tables import write_rows

    frame = flags
    if Path(output).suffix.lower() in (".csv", ".tsv"):
        frame = flags.with_columns(
            pl.col("options").map_elements(
                lambda o: json.dumps(list(o), ensure_ascii=False), return_dtype=pl.String
            )
        )
    write_rows(frame, output)


def load_mcq(data: str, columns: McqColumns | None = None) -> tuple[Dataset, pl.DataFrame]:
    """Read ``data`` as multiple-choice questions: the dataset and its splits as one table.

    The table has the split tables' columns plus ``split``; question ids must be unique
    across splits (answers join on them).
    """
    from benchcheck.io.load import load

    dataset = load(data, task="mcq", mcq=columns)
    parts = [s.table.with_columns(pl.lit(s.name).alias("split")) for s in dataset]
    table = pl.concat(parts, how="vertical")
    ids = table.get_column("id").to_list()
    refuse_duplicates(ids, path=data, lines=table.get_column("line").to_list())
    return dataset, table


def run_mcq_flag(
    data: str,
    answers: Sequence[str],
    *,
    columns: McqColumns | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    output: str | None = None,
    judgments: str | None = None,
    detector: str | None = None,
) -> McqFlagRun:
    """Flag the questions of ``data`` whose key the models' ``answers`` dispute.

    ``judgments`` (``benchcheck judge --task mcq``) adds each judge's P(option) as one more
    soft annotator of the same Dawid–Skene model (its own accuracy, its share of the design
    effect). ``detector``: ``answers`` (the models alone), ``llm`` (the judges alone) or
    ``both``; by default what is given.
    """
    if detector is None:
        detector = "both" if answers and judgments else ("llm" if judgments else "answers")
    if detector not in DETECTORS:
        raise UsageError(f"{{detector}} of mcq: answers, llm or both, got {detector!r}")
    if detector in ("answers", "both") and not answers:
        raise UsageError(f"the {detector} detector needs the models' {{answers}}")
    if detector in ("llm", "both") and judgments is None:
        raise UsageError(
            f"the {detector} detector needs the judges' judgments (benchcheck judge of the "
            "questions)"
        )
    if detector == "llm" and answers:
        raise UsageError("the llm detector reads the judges' judgments alone; give no {answers}")
    dataset, table = load_mcq(data, columns)
    ids = table.get_column("id").to_list()
    options = table.get_column("options").to_list()
    keys = table.get_column("key").to_numpy()
    read = read_mcq_answers(answers, ids, options, keys, data_file=data)
    annotators, probs = read.models, read.probs
    if judgments is not None:
        from benchcheck.io.mcq_judgments import read_mcq_judgments

        judges, judged = read_mcq_judgments(judgments, ids, options, data_file=data)
        if detector == "llm":
            read = replace(read, models=judges, probs=judged, files=(judgments,))
            annotators, probs = judges, judged
        else:
            annotators = (*read.models, *judges)
            probs = np.concatenate([read.probs, judged], axis=1)
    n_options = np.array([len(o) for o in options])
    disputed = disputed_keys(probs, keys)
    found = answer_flags(
        ids, keys, n_options, probs, annotators,
        groups=table.get_column("group").to_list(), threshold=threshold,
    )  # fmt: skip
    valid = read.probs.sum(2) > 0
    on_key = read.probs[np.arange(len(ids)), :, keys]
    n_answers = valid.sum(1)
    key_share = np.where(n_answers > 0, on_key.sum(1) / np.maximum(n_answers, 1), np.nan)
    order = np.argsort(-found.error_score, kind="stable")
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(1, len(ids) + 1)
    flags = pl.DataFrame(
        {
            "id": ids,
            "split": table.get_column("split"),
            "group": table.get_column("group"),
            "line": table.get_column("line"),
            "question": table.get_column("text"),
            "options": table.get_column("options"),
            "label": table.get_column("label"),
            "proposed_answer": [letter(int(p)) for p in found.proposed],
            "support": found.support,
            "key_share": key_share,
            "n_answers": n_answers.astype(np.int64),
            "error_score": found.error_score,
            "kind": list(found.kind),
            "flagged": found.flagged,
            "disputed": disputed,
            "rank": rank,
            "text": [lettered(q, o) for q, o in zip(table["text"], options, strict=True)],
            "llm_label": [
                letter(int(p if f else k))
                for p, f, k in zip(found.proposed, found.flagged, keys, strict=True)
            ],
            "confidence": np.where(found.flagged, found.support, 1.0 - found.error_score),
        }
    )
    corrected = np.where(
        np.array([k in ("ambiguous", "no_correct") for k in found.kind]),
        -1,
        np.where(np.array([k == "wrong_key" for k in found.kind]), found.proposed, keys),
    )
    ranking = rerank_models(read.probs, keys, corrected, read.models)
    checks = check_mcq({s.name: s.table for s in dataset})
    if output is not None:
        _write(flags, output)
    return McqFlagRun(
        data=data,
        flags=flags,
        checks=checks,
        detection=found,
        answers=read,
        ranking=ranking,
        output=output,
    )
