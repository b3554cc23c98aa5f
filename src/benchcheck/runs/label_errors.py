"""The audit's label-error section: judge every example, then flag (methods.md section 2).

:func:`run_label_errors` is ``benchcheck judge`` followed by ``benchcheck flag`` on one
table, without the judgments file in between: the same :func:`benchcheck.runs.flag.flag_frames`
decides the flags.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.data.columns import Columns
from benchcheck.errors import UsageError
from benchcheck.runs.judging import JudgeSetup, Progress

if TYPE_CHECKING:
    import polars as pl

    from benchcheck.judges.base import JudgeIdentity
    from benchcheck.runs.flag import FlagOptions, FlagRun

__all__ = ["LabelErrorsRun", "NotApplicable", "read_examples", "run_label_errors"]

#: Rows of flagged examples kept inside the JSON (the report's flagged files hold all).
MAX_FLAGS_IN_JSON = 1000


class NotApplicable(UsageError):
    """The examples cannot be judged with these prompts (fields or labels do not fit)."""


@dataclass(frozen=True)
class LabelErrorsRun:
    """Judgments and flags of one table, with the judge that made them."""

    flag: FlagRun
    examples: pl.DataFrame
    judgments: pl.DataFrame
    identity: JudgeIdentity
    prompts: tuple[str, ...]
    seconds: float
    #: Examples per split judged, in split order, when the data is a folder (else empty).
    splits: Mapping[str, int] = field(default_factory=dict)

    @property
    def text_columns(self) -> list[str]:
        """The normalised text columns of the examples."""
        return [c for c in ("text", "text_a", "text_b") if c in self.examples.columns]

    def flagged(self) -> pl.DataFrame:
        """Return the flagged examples, highest error score first.

        Columns: rank, id, texts, labels, confidence, error score, bin, ``p_*``.
        """
        keep = ["rank", "id", *self.text_columns, "label", "llm_label", "confidence"]
        keep += ["error_score", "bin"]
        keep += [c for c in self.flag.flags.columns if c.startswith("p_")]
        return self.flag.flagged().select(keep)

    def to_json(self, *, source: str, columns: Mapping[str, str]) -> dict[str, Any]:
        """Return the ``label_errors`` section of ``results.json``.

        With the embedded default judge it holds ``default_judge``: what that judge is,
        its measured detection quality (the committed benchmark) and the commands for a
        strong judge (:func:`benchcheck.io.judge_quality.default_judge_note`).
        """
        from benchcheck.io.judge_quality import default_judge_note

        flagged = self.flagged()
        left = self.flag.unflagged_disagreements().select(flagged.columns)
        note = default_judge_note(self.identity.backend, self.identity.model)
        extra: dict[str, Any] = {} if note is None else {"default_judge": note}
        found = self.flag.detection
        if found is not None and found.expected is not None:
            extra["expected_errors"] = found.expected.to_json()
        if found is not None and found.operating_point is not None:
            extra["operating_point"] = dict(found.operating_point)
        dataset: dict[str, Any] = {
            "source": source,
            "n": self.examples.height,
            "columns": dict(columns),
        }
        if self.splits:
            dataset["splits"] = dict(self.splits)
        return {
            **extra,
            "dataset": dataset,
            "judge": {
                "judge": self.identity.label,
                "weights_sha256": self.identity.weights_hash,
                "prompts": list(self.prompts),
                "members": int(self.judgments.select("judge", "prompt").unique().height),
            },
            "text_columns": self.text_columns,
            "summary": self.flag.summary.to_dict(),
            "bins": list(self.flag.options.bins),
            "examples": flagged.head(MAX_FLAGS_IN_JSON).to_dicts(),
            "examples_total": flagged.height,
            "files": ["flagged.csv", "flagged.jsonl"] if flagged.height else [],
            "disagreements_not_flagged": left.head(MAX_FLAGS_IN_JSON).to_dicts(),
            "disagreements_not_flagged_total": left.height,
        }


def read_examples(data: str | Path, columns: Columns) -> tuple[pl.DataFrame, dict[str, int]]:
    """Read the examples to judge: one table, or every split of a dataset folder.

    A file is read by :func:`benchcheck.io.tables.read_table`. A folder is read as
    ``benchcheck stats`` and the audit's table statistics read it
    (:func:`benchcheck.io.load.load`: split files by name, or a saved HuggingFace
    dataset), and **every split** is judged, as the NER label-error section checks every
    split: a wrong label misleads training as it misleads evaluation. Each example's id
    becomes ``split/id`` (``test/p08``), unique across splits whose ids are row numbers.
    Returns the examples (``id``, the text columns, ``label``, ``line``) and the examples
    per split, in split order (empty for a file).
    """
    import polars as pl

    from benchcheck.io.tables import read_table

    if not Path(data).is_dir():
        return read_table(data, **columns.given()), {}
    from benchcheck.io.load import load

    task = columns.task or "classification"
    dataset = load(data, task=task, columns=columns.given())
    keep = ["id", *(("text_a", "text_b") if task == "pair" else ("text",)), "label", "line"]
    parts = [
        dataset[name]
        .table.select(keep)
        .with_columns((pl.lit(f"{name}/") + pl.col("id")).alias("id"))
        for name in dataset.split_names
    ]
    counts = {name: dataset[name].table.height for name in dataset.split_names}
    return pl.concat(parts, how="vertical_relaxed"), counts


def run_label_errors(
    data: str | Path,
    *,
    columns: Columns,
    judges: JudgeSetup | None = None,
    prompts: str | None = None,
    options: FlagOptions | None = None,
    progress: Progress | None = None,
) -> LabelErrorsRun:
    """Judge every example of ``data`` with ``judges`` × ``prompts``, then flag.

    ``data`` is a table, or a dataset folder whose splits are all judged and flagged
    together (:func:`read_examples`; the ids become ``split/id``).

    ``judges`` is built as ``benchcheck judge`` builds its judges (:class:`JudgeSetup`; by
    default the embedded judge, or e.g. an ``openai`` judge with its server's address, key
    variable and timeout); ``prompts`` default to the judges' audit set.
    Raises :class:`NotApplicable` when a prompt needs a field the examples lack or a label
    is not among the prompts' labels, and :class:`benchcheck.errors.JudgeUnavailable` when
    the judge cannot be built here.
    """
    import polars as pl

    from benchcheck.judges.prompts import select_prompts
    from benchcheck.judges.run import AUDIT_PROMPTS, CONTENT_FREE_INPUTS, judge_frame
    from benchcheck.runs.flag import FlagOptions, flag_frames

    frame, splits = read_examples(data, columns)
    templates = select_prompts(prompts or AUDIT_PROMPTS)
    unusable = [p.name for p in templates if not p.fields <= set(frame.columns)]
    if unusable:
        have = [c for c in ("text", "text_a", "text_b") if c in frame.columns]
        raise NotApplicable(
            f"prompt(s) {unusable} need fields the examples lack (they have {have}); run "
            "`benchcheck judge` with a prompt file, then `benchcheck flag`"
        )
    labels = sorted({lab for p in templates for lab in p.labels})
    bad = sorted(set(frame["label"].cast(pl.String).to_list()) - set(labels))
    if bad:
        raise NotApplicable(f"labels {bad[:5]} are not among the prompts' labels {labels}")
    started = time.perf_counter()
    with (judges or JudgeSetup()).open() as (built, store):
        judgments = judge_frame(
            frame,
            built,
            templates,
            cache=store,
            progress=progress,
            content_free=CONTENT_FREE_INPUTS,
        )
        identity = built[0].identity
    seconds = time.perf_counter() - started
    flag = flag_frames(judgments, frame, options=options or FlagOptions(), source=str(data))
    return LabelErrorsRun(
        flag=flag,
        examples=frame,
        judgments=judgments,
        identity=identity,
        prompts=tuple(p.name for p in templates),
        seconds=seconds,
        splits=splits,
    )
