r"""The multiple-choice part of ``benchcheck audit --task mcq``: structure, near-duplicates, keys.

:func:`run_mcq_audit` reads the questions once and runs

* the structural checks (:func:`benchcheck.labels.mcq_checks.check_mcq`), each counted and
  each question listed;
* near-duplicate questions: the near-duplicate analysis of ``stats``
  (:func:`benchcheck.metrics.neardup.near_duplicates`: normalised matching and MinHash-LSH
  verified by exact Jaccard) over each question *with its options* (one stem, "Which of
  the following is true?", carries many different questions), within each split; each
  cluster lists its ids and whether their keys name the same option text (near-copies
  whose keys differ are one wrong key or one changed question);
* with the models' answers, the answers detector of ``flag --task mcq``
  (:func:`benchcheck.runs.mcq_flag.run_mcq_flag`): the expected wrong keys overall and per
  group (subject), :math:`E = \sum_i e_i` with ``e_i`` the calibrated P(key wrong) and the
  rate's interval of :func:`benchcheck.stats.intervals.posterior_error_rate` (the
  Clopper–Pearson interval mixed over the Poisson-binomial law of the count: the rate of the
  process that wrote these keys), and every flag with its proposed key and the models' vote
  (the answers per option; a soft lm-eval answer counts its probability).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from benchcheck.data.mcq import McqColumns, letter
from benchcheck.labels.mcq_checks import McqChecks
from benchcheck.metrics.neardup import NearDuplicates
from benchcheck.runs.mcq_flag import McqFlagRun

__all__ = ["MAX_FLAGS_IN_JSON", "MCQ_FLAGS_FILE", "McqAuditRun", "run_mcq_audit"]

#: The flags ``results.json`` lists (the most probable first); the flags file has all.
MAX_FLAGS_IN_JSON = 200
#: Check rows and near-duplicate clusters ``results.json`` lists (all are counted).
MAX_LISTED = 500
#: The file of every flag written beside the audit report.
MCQ_FLAGS_FILE = "mcq_flags.jsonl"
#: Near-duplicate threshold on the Jaccard similarity of the word sets.
NEAR_THRESHOLD = 0.8


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def expected_wrong(error_score: np.ndarray, *, confidence: float = 0.95) -> dict[str, Any]:
    r"""Return the expected wrong keys :math:`\sum_i e_i`, the rate and its interval.

    >>> out = expected_wrong(np.array([1.0, 0.0, 0.0, 0.0]))
    >>> out["expected_wrong_keys"], out["rate"], [round(x, 4) for x in out["ci"]]
    (1.0, 0.25, [0.0063, 0.8059])
    """
    from benchcheck.stats.intervals import posterior_error_rate

    r = posterior_error_rate(error_score.tolist(), confidence=confidence)
    return {
        "n": len(error_score),
        "expected_wrong_keys": r.expected_errors,
        "rate": r.error_rate,
        "ci": [r.ci[0], r.ci[1]],
    }


@dataclass(frozen=True)
class McqAuditRun:
    """What :func:`run_mcq_audit` found; :meth:`to_json` is the section's ``mcq`` object."""

    data: str
    table: pl.DataFrame
    checks: McqChecks
    near: NearDuplicates
    flag_run: McqFlagRun | None
    confidence: float = 0.95

    def flags(self) -> pl.DataFrame | None:
        """Every flagged question, most probable first, with the models' vote (or ``None``)."""
        if self.flag_run is None:
            return None
        frame = self.flag_run.flags.join(self._votes(), on="id", how="left")
        return frame.filter(pl.col("flagged")).sort("rank")

    def _votes(self) -> pl.DataFrame:
        """``id`` and ``votes``: the models' answers per option (a soft answer its share)."""
        assert self.flag_run is not None
        run = self.flag_run
        votes = run.answers.probs.sum(1)  # (n, K): answers per option
        n_opt = [len(o) for o in run.flags.get_column("options").to_list()]
        return pl.DataFrame(
            {
                "id": run.flags.get_column("id"),
                "votes": [votes[i, : n_opt[i]].tolist() for i in range(len(n_opt))],
            }
        )

    def _near_json(self) -> dict[str, Any]:
        at = {q: i for i, q in enumerate(self.table.get_column("id").to_list())}
        options = self.table.get_column("options").to_list()
        keys = self.table.get_column("key").to_list()
        clusters = []
        for cl in self.near.clusters:
            key_texts = [options[at[q]][keys[at[q]]] for q in cl["ids"]]
            clusters.append(
                {
                    "split": cl["split"],
                    "size": cl["size"],
                    "ids": list(cl["ids"]),
                    "key_texts": key_texts,
                    "same_key": len({_fold(t) for t in key_texts}) == 1,
                }
            )
        n_clusters = self.near.truncated.get("clusters", len(clusters))
        return {
            "threshold": self.near.threshold,
            "compared": "question and options, normalised (NFKC, casefold, whitespace)",
            "n_clusters": n_clusters,
            "n_questions_in_clusters": sum(c["size"] for c in clusters),
            "n_clusters_keys_differ": sum(not c["same_key"] for c in clusters),
            "near_duplicate_ratio": self.near.metrics.get("near_duplicate_ratio"),
            "clusters": clusters[:MAX_LISTED],
        }

    def _answers_json(self) -> dict[str, Any] | None:
        if self.flag_run is None:
            return None
        run = self.flag_run
        fit = run.detection
        score = fit.error_score
        groups = run.flags.get_column("group").fill_null("").to_list()
        flagged = fit.flagged
        by_group = []
        for g in sorted(set(groups)):
            mask = np.array([x == g for x in groups])
            row = {"group": g, **expected_wrong(score[mask], confidence=self.confidence)}
            row["flagged"] = int(flagged[mask].sum())
            by_group.append(row)
        overall = {"group": "", **expected_wrong(score, confidence=self.confidence)}
        overall["flagged"] = int(flagged.sum())
        voted = run.flags.join(self._votes(), on="id", how="left")
        frame = voted.filter(pl.col("flagged")).sort("rank")
        left = voted.filter(pl.col("disputed") & ~pl.col("flagged")).sort("rank")
        return {
            "files": list(run.answers.files),
            "models": list(run.answers.models),
            "soft": run.answers.soft,
            "missing_answers": run.answers.missing,
            "detector": "dawid_skene_one_coin_key_annotator_tempered",
            "threshold": fit.threshold,
            "effective_models": fit.temper * len(fit.models),
            "confidence": self.confidence,
            "counts": {k: fit.kind.count(k) for k in ("wrong_key", "ambiguous", "no_correct")},
            "overall": overall,
            "by_group": by_group,
            "n_flags": int(flagged.sum()),
            "flags": _rows(frame),
            "n_disputed_not_flagged": left.height,
            "disputed_not_flagged": _rows(left),
            "flags_file": MCQ_FLAGS_FILE,
        }

    def not_run(self) -> list[str]:
        """Return what the section could not do with these inputs, and how to enable it."""
        if self.flag_run is not None:
            return []
        return [
            "answer keys not checked: no models' answers given. Give the answers of the "
            "models evaluated on the benchmark with --answers FILE (a long table id,model,"
            "answer; a wide table id + one column per model; or lm-evaluation-harness "
            "samples_*.jsonl): each question then gets P(key wrong), a proposed key and the "
            "models' vote. Without models' answers, a judge can stand in: benchcheck judge "
            "DATA --task mcq -o judgments.parquet, then benchcheck flag judgments.parquet "
            "--data DATA --task mcq.",
        ]

    def to_json(self) -> dict[str, Any]:
        """Return the ``mcq`` object of ``results.json``."""
        checks = self.checks.to_json()
        groups = self.table.get_column("group").drop_nulls().unique().to_list()
        return {
            "data": self.data,
            "n_questions": self.table.height,
            "n_groups": len(groups),
            "structure": {
                "n_questions": checks["n_questions"],
                "counts": checks["counts"],
                "n_rows": len(self.checks.rows),
                "rows": [r.to_json() for r in self.checks.rows[:MAX_LISTED]],
            },
            "near_duplicates": self._near_json(),
            "answers": self._answers_json(),
            "not_run": self.not_run(),
        }


def _rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Return the first :data:`MAX_FLAGS_IN_JSON` questions of ``frame`` as flag rows."""
    head = frame.head(MAX_FLAGS_IN_JSON)
    return [
        {
            "rank": r["rank"],
            "id": r["id"],
            "group": r["group"],
            "question": r["question"],
            "options": list(r["options"]),
            "key": r["label"],
            "proposed_answer": r["proposed_answer"],
            "support": r["support"],
            "error_score": r["error_score"],
            "kind": r["kind"],
            "votes": {letter(k): v for k, v in enumerate(r["votes"])},
        }
        for r in head.iter_rows(named=True)
    ]


def run_mcq_audit(
    data: str,
    answers: Sequence[str] = (),
    *,
    columns: McqColumns | None = None,
    threshold: float | None = None,
    seed: int = 1,
) -> McqAuditRun:
    """Audit the multiple-choice benchmark ``data`` (see the module), with ``answers`` if any."""
    from benchcheck.labels.mcq_checks import check_mcq
    from benchcheck.metrics.neardup import near_duplicates
    from benchcheck.runs.mcq_flag import load_mcq, run_mcq_flag

    flag_run = None
    if answers:
        if threshold is None:
            flag_run = run_mcq_flag(data, answers, columns=columns)
        else:
            flag_run = run_mcq_flag(data, answers, columns=columns, threshold=threshold)
    dataset, table = load_mcq(data, columns)
    checks = (
        flag_run.checks if flag_run is not None else check_mcq({s.name: s.table for s in dataset})
    )
    near = near_duplicates(dataset, threshold=NEAR_THRESHOLD, seed=seed, max_clusters=10**9)
    return McqAuditRun(data, table, checks, near, flag_run)
