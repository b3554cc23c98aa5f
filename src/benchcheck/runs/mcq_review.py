"""After the review of multiple-choice flags: ``error-rate``, ``remedy`` and ``rerank``.

Each reads the gold table of ``review import`` of a ``flag --task mcq`` review (every
question of the benchmark, its ``options``, key ``label``, ``gold`` letter or verdict,
``group``):

* :func:`run_mcq_error_rate` — any-error and wrong-key rates, overall and per group
  (:func:`benchcheck.labels.mcq_review.mcq_error_rates`);
* :func:`run_mcq_remedy` — the benchmark rewritten in its own format with the reviewed keys
  (:func:`benchcheck.io.mcq_write.write_corrected_mcq`), questions the experts found
  unanswerable kept (``correct``) or removed (``filter``), and a ``changes.jsonl`` with the
  reason per changed question;
* :func:`run_mcq_rerank` — every model of the answers files re-scored on the original and
  the reviewed keys (:func:`benchcheck.labels.mcq_rerank.rerank_models`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from benchcheck._progress import Progress, step
from benchcheck.data.mcq import LETTERS, McqColumns
from benchcheck.errors import InputError, UsageError
from benchcheck.labels.mcq_rerank import McqRerank
from benchcheck.labels.mcq_review import VERDICTS, McqErrorRates

__all__ = [
    "MCQ_REMEDY_MODES",
    "McqErrorRateRun",
    "McqRemedyRun",
    "McqRerankRun",
    "read_mcq_gold",
    "run_mcq_error_rate",
    "run_mcq_remedy",
    "run_mcq_rerank",
]

#: What ``remedy --task mcq`` does to the questions the experts found unanswerable.
MCQ_REMEDY_MODES = ("correct", "filter")
#: The name of the per-question record of a remedy.
CHANGES_NAME = "changes.jsonl"


def read_mcq_gold(path: str | Path) -> pl.DataFrame:
    """Read the gold table of a multiple-choice review (options as lists, labels as text)."""
    from benchcheck.io.label_files import read_gold

    frame = read_gold(path, need=("id", "label", "gold", "options"), filled=("id", "label"))
    if frame.schema["options"] == pl.String:  # a CSV gold table: the options as JSON
        try:
            opts = [json.loads(o) for o in frame["options"].to_list()]
        except (TypeError, json.JSONDecodeError):
            raise InputError(
                "the options column holds no JSON lists: is this the gold of a "
                "multiple-choice review (the flags of a multiple-choice benchmark)?",
                path=path,
            ) from None
        frame = frame.with_columns(pl.Series("options", opts, dtype=pl.List(pl.String)))
    if not isinstance(frame.schema["options"], pl.List):
        raise InputError("the options column holds no lists", path=path)
    missing = frame.filter(pl.col("options").is_null())
    if missing.height:
        line = int(missing["__line__"][0]) if "__line__" in missing.columns else None
        raise InputError("a question without its options", path=path, line=line)
    allowed = {"label": list(LETTERS), "gold": [*LETTERS, *VERDICTS]}
    for col, known in allowed.items():
        bad = frame.filter(pl.col(col).is_not_null() & ~pl.col(col).is_in(known))
        if bad.height:
            line = int(bad["__line__"][0]) if "__line__" in bad.columns else None
            what = (
                "an option letter"
                if col == "label"
                else "an option letter or none, several, unclear"
            )
            raise InputError(f"{col} must be {what}", path=path, line=line, got=bad[col][0])
    return frame


# ----------------------------------------------------------------------------- error-rate


@dataclass(frozen=True)
class McqErrorRateRun:
    """The error rates of one multiple-choice gold file."""

    gold: str
    rates: McqErrorRates
    confidence: float

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON of ``error-rate --task mcq``."""
        return {"gold": self.gold, "confidence": self.confidence, **self.rates.to_json()}


def run_mcq_error_rate(
    gold: str | Path,
    *,
    population: int | None = None,
    confidence: float = 0.95,
    method: str = "midp",
    progress: Progress | None = None,
) -> McqErrorRateRun:
    """Any-error and wrong-key rates of a multiple-choice gold file, overall and per group.

    ``progress`` is told the steps (reading, the rates).
    """
    from benchcheck.labels.mcq_review import mcq_error_rates
    from benchcheck.stats.stratified import METHODS

    if not 0 < confidence < 1:
        raise UsageError(f"{{confidence}} must be in (0, 1), got {confidence}")
    if method not in METHODS:
        raise UsageError(f"{{method}} must be one of {list(METHODS)}, got {method!r}")
    step(progress, f"reading {gold}")
    frame = read_mcq_gold(gold)
    step(progress, "error rates, overall and per group")
    try:
        rates = mcq_error_rates(frame, population=population, confidence=confidence, method=method)
    except InputError as exc:
        if exc.path is None:
            raise InputError(exc.message, path=gold, line=exc.line, got=exc.got) from None
        raise
    return McqErrorRateRun(str(gold), rates, confidence)


# ----------------------------------------------------------------------------- remedy


@dataclass(frozen=True)
class McqRemedyRun:
    """What ``remedy --task mcq`` changed, per question and per group, and where it wrote."""

    source: str
    gold: str
    mode: str
    n_questions: int
    n_written: int
    counts: dict[str, int]
    by_group: dict[str, dict[str, int]]
    file: str
    changes_file: str

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON of ``remedy --task mcq``."""
        return {
            "task": "mcq",
            "source": self.source,
            "gold": self.gold,
            "mode": self.mode,
            "n_questions": self.n_questions,
            "n_written": self.n_written,
            "counts": self.counts,
            "by_group": self.by_group,
            "file": self.file,
            "changes": self.changes_file,
        }


def _action(label: str, gold: str | None, mode: str) -> tuple[str, str | None]:
    """Return the remedy of one question: (action, reason)."""
    if gold is None:
        return "kept_unresolved", None
    if gold == label:
        return "unchanged", None
    if gold in VERDICTS:
        reason = VERDICTS[gold]
        return ("removed" if mode == "filter" else "kept_unanswerable"), reason
    return "key_fixed", "wrong_key"


def run_mcq_remedy(
    data: str | Path,
    gold: str | Path,
    output: str | Path,
    *,
    mode: str = "correct",
    columns: McqColumns | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> McqRemedyRun:
    """Write ``data`` with the reviewed keys of ``gold`` into the folder ``output``.

    A wrong key takes the experts' option; a question they found unanswerable (no correct
    option, several, unclear) is kept as it was (``mode="correct"``, listed) or removed
    (``"filter"``); a question without gold (unresolved) is kept. The gold must belong to
    ``data``: every gold id a question of it with the same question text and key.
    Writes ``output/<data's name>`` and ``output/changes.jsonl`` (one row per question not
    left unchanged: ``id``, ``line``, ``group``, ``key``, ``corrected``, ``action``,
    ``reason``, ``status``); nothing is written when anything is refused. ``progress`` is
    told the steps (reading each file, writing).
    """
    from benchcheck.io.mcq import read_mcq_split
    from benchcheck.io.mcq_write import WRITABLE, write_corrected_mcq
    from benchcheck.io.output import Outputs

    if mode not in MCQ_REMEDY_MODES:
        raise UsageError(f"{{mode}} of a multiple-choice remedy: one of {list(MCQ_REMEDY_MODES)}")
    src = Path(data)
    if src.suffix.lower() not in WRITABLE:
        raise InputError(
            "a corrected benchmark is written as CSV, TSV, JSONL or Parquet; save this one "
            "in one of those first",
            path=src,
        )
    step(progress, f"reading {src}")
    split = read_mcq_split(src, columns=columns)
    table = split.table
    step(progress, f"reading {gold}")
    g = read_mcq_gold(gold)
    lines = g["__line__"].to_list() if "__line__" in g.columns else [None] * g.height
    by_id = {
        i: (t, lab, line)
        for i, t, lab, line in zip(
            table["id"].to_list(), table["text"].to_list(), table["label"].to_list(),
            table["line"].to_list(), strict=True,
        )
    }  # fmt: skip
    question = g["question"].to_list() if "question" in g.columns else [None] * g.height
    changes: dict[int, int | None] = {}
    records: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    groups: dict[str, Counter[str]] = {}
    status = g["status"].to_list() if "status" in g.columns else [None] * g.height
    group = g["group"].to_list() if "group" in g.columns else [None] * g.height
    for k, (qid, label, verdict) in enumerate(
        zip(g["id"].to_list(), g["label"].to_list(), g["gold"].to_list(), strict=True)
    ):
        found = by_id.get(qid)
        if found is None or found[1] != label or (question[k] not in (None, found[0])):
            raise InputError(
                f"the gold file does not belong to {src}: question {qid!r} is not there "
                "with this key and text (review the flags of this file)",
                path=gold,
                line=lines[k],
            )
        action, reason = _action(label, verdict, mode)
        counts[action] += 1
        groups.setdefault(group[k] or "", Counter())[action] += 1
        if action == "unchanged":
            continue
        line = found[2]
        if action == "key_fixed":
            changes[line] = LETTERS.index(verdict)
        elif action == "removed":
            changes[line] = None
        records.append(
            {
                "id": qid,
                "line": line,
                "group": group[k],
                "key": label,
                "corrected": verdict if action == "key_fixed" else None,
                "action": action,
                "reason": reason,
                "status": status[k],
            }
        )
    out = Path(output)
    folder = Outputs([data, gold], force=force).folder(
        out, param="output", names=[src.name, CHANGES_NAME]
    )
    with folder:
        step(progress, f"writing {out}")
        written = write_corrected_mcq(src, folder.stage(src.name), changes, columns=columns)
        folder.stage(CHANGES_NAME).write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
    order = ("key_fixed", "removed", "kept_unanswerable", "kept_unresolved", "unchanged")
    return McqRemedyRun(
        str(data),
        str(gold),
        mode,
        table.height,
        written,
        {a: counts.get(a, 0) for a in order},
        {name: {a: c.get(a, 0) for a in order} for name, c in sorted(groups.items())},
        str(out / src.name),
        str(out / CHANGES_NAME),
    )


# ----------------------------------------------------------------------------- rerank


@dataclass(frozen=True)
class McqRerankRun:
    """Every model on the original and the reviewed keys."""

    gold: str
    answers: tuple[str, ...]
    ranking: McqRerank
    unresolved: int
    neighbours: tuple[dict[str, object], ...] = ()
    bootstrap: int = 1000
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON of ``rerank --task mcq``."""
        return {
            "task": "mcq",
            "gold": self.gold,
            "answers": list(self.answers),
            "unresolved_kept_key": self.unresolved,
            **self.ranking.to_json(),
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "neighbours": list(self.neighbours),
        }


def run_mcq_rerank(
    gold: str | Path,
    answers: Sequence[str | Path],
    *,
    bootstrap: int = 1000,
    seed: int = 0,
    progress: Progress | None = None,
) -> McqRerankRun:
    """Score the models of ``answers`` on the original keys and on the reviewed ones.

    The corrected key of a question is the gold option; a verdict (no correct option,
    several, unclear) removes it; a question without gold keeps its key (counted). Models
    next to each other in the reviewed ranking get a paired bootstrap of their accuracy
    gap (``bootstrap`` resamples, ``seed``;
    :func:`benchcheck.labels.mcq_rerank.neighbour_differences`). ``progress`` is told the
    steps (reading, scoring, the bootstrap).
    """
    import numpy as np

    from benchcheck.io.mcq_answers import read_mcq_answers
    from benchcheck.labels.mcq_rerank import neighbour_differences, rerank_models
    from benchcheck.labels.mcq_review import corrected_keys

    if not answers:
        raise UsageError("re-ranking multiple-choice models needs their {answers}")
    step(progress, f"reading {gold}")
    g = read_mcq_gold(gold)
    ids = g["id"].to_list()
    options = g["options"].to_list()
    labels = g["label"].to_list()
    keys = np.array([LETTERS.index(k) for k in labels], dtype=np.int64)
    lines = g["__line__"].to_list() if "__line__" in g.columns else [None] * g.height
    for k, (opts, key) in enumerate(zip(options, keys, strict=True)):
        if key >= len(opts):
            raise InputError("the key names no option", path=gold, line=lines[k], got=labels[k])
    verdicts = g["gold"].to_list()
    for k, (opts, v) in enumerate(zip(options, verdicts, strict=True)):
        if v is not None and v not in VERDICTS and LETTERS.index(v) >= len(opts):
            raise InputError("the gold names no option", path=gold, line=lines[k], got=v)
    step(progress, "reading the models' answers")
    read = read_mcq_answers([str(a) for a in answers], ids, options, keys, data_file=str(gold))
    step(progress, "scoring the models on the original and reviewed keys")
    corrected = corrected_keys(labels, verdicts)
    ranking = rerank_models(read.probs, keys, corrected, read.models)
    if bootstrap < 1:
        raise UsageError(f"{{bootstrap}} must be at least 1, got {bootstrap}")
    step(progress, f"paired bootstrap of neighbours' gaps: {bootstrap} resamples")
    pairs = neighbour_differences(read.probs, corrected, ranking, n_resamples=bootstrap, seed=seed)
    return McqRerankRun(
        str(gold),
        tuple(str(a) for a in answers),
        ranking,
        sum(v is None for v in verdicts),
        tuple(pairs),
        bootstrap,
        seed,
    )
