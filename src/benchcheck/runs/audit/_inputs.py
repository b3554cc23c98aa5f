"""What an audit takes: :class:`AuditInputs`, one typed group per kind of data.

A section reads the groups it needs (statistics the NER dataset, label errors the table and
the judge, ...) and is skipped when they are not given. :func:`audit_inputs` decides what
the data of ``benchcheck audit DATA`` is: nothing (the bundled samples), a table with text
columns, a diagnostic suite, or a NER dataset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from benchcheck.data.columns import Columns
from benchcheck.data.mcq import McqColumns
from benchcheck.errors import UsageError
from benchcheck.io.formats import NerOptions
from benchcheck.runs.judging import JudgeSetup
from benchcheck.runs.leakage import LeakageOptions

__all__ = [
    "LABEL_ERROR_SECONDS",
    "AuditInputs",
    "ContaminationInput",
    "JudgeInput",
    "McqInput",
    "NerInput",
    "SuiteInput",
    "TableInput",
    "audit_inputs",
]


#: Default ``--label-error-seconds``: the NER label-error section's tagger time per split.
LABEL_ERROR_SECONDS = 60.0


@dataclass(frozen=True)
class NerInput:
    """A NER dataset and what goes with it.

    Attributes
    ----------
    path, splits
        The dataset (folder or file), or its splits by name (``{"train": "a.conll"}``).
    scheme, strict
        Tagging scheme to force (``IOB1``, ``IOB2``, ``BIOES``, ...); reject invalid tag
        transitions instead of repairing them.
    scores, predictions
        Published model scores by model name (Model Differentiation, Eq. 7), or CoNLL
        prediction files on the test split by model name, scored with seqeval micro F1
        (they replace ``scores``).
    compare
        Other NER datasets by name, shown side by side with this one.
    reading
        How the files are read (``benchcheck stats``' reading options: the format, the
        offset formats' span policies, sentence splitting, split lists, ...); the
        ``compare`` datasets are read the same way.
    label_error_seconds
        Time budget of the NER label-error section's tagger per split, in seconds
        (``--label-error-seconds``; ``0`` skips the section): each split is checked on its
        first sentences up to the tokens the tagger gets through in that time
        (:mod:`benchcheck.runs.audit.sections.ner_label_errors`).

    """

    path: str | None = None
    splits: Mapping[str, str] = field(default_factory=dict)
    scheme: str | None = None
    strict: bool = False
    scores: Mapping[str, float] = field(default_factory=dict)
    predictions: Mapping[str, str] = field(default_factory=dict)
    compare: Mapping[str, str] = field(default_factory=dict)
    reading: NerOptions = field(default_factory=NerOptions)
    label_error_seconds: float = LABEL_ERROR_SECONDS

    @property
    def given(self) -> bool:
        """Whether a dataset is given (a path or splits)."""
        return self.path is not None or bool(self.splits)


@dataclass(frozen=True)
class TableInput:
    """A classification (``text``) or pair (``text_a``, ``text_b``) file, and its models.

    Attributes
    ----------
    path, columns
        The file and its columns (``label`` defaults to ``"label"``, ``id`` to the row).
    predictions
        Models' predictions on it by model name (``id`` and ``pred``): the item analysis
        and, with two or more models and an uncertainty source, the leaderboard under
        label noise (methods.md section 4).
    gold, precision, error_rate
        Reviewed gold labels (``benchcheck review import -o``), a per-bin precision of
        flags (a number or a ``bins --json`` file) and the residual error rate, for the
        leaderboard under label noise.

    """

    path: str
    columns: Columns = field(default_factory=Columns)
    predictions: Mapping[str, str] = field(default_factory=dict)
    gold: str | None = None
    precision: str | None = None
    error_rate: str | None = None

    @property
    def kind(self) -> str:
        """``pair`` when the columns name two texts, else ``classification``."""
        return "pair" if self.columns.text_a else "classification"

    @property
    def label(self) -> str:
        """The label column (``label`` unless named)."""
        return self.columns.label or "label"

    @property
    def read_columns(self) -> Columns:
        """The columns as the readers take them (the label column named)."""
        return replace(self.columns, label=self.label)

    def evaluated(self) -> tuple[str, str | None]:
        """Return the file models are evaluated on, and its split name (None: ``path`` itself).

        A file is itself. In a folder of split files it is the ``test`` split, else the last
        one (train, dev, test order), as the contamination section takes a NER dataset's test
        split: the items, ranking and contamination sections read the models' predictions on
        it and check its texts. A folder read as a whole (a saved HuggingFace dataset) has no
        such file: :class:`UsageError`.
        """
        from pathlib import Path

        if not Path(self.path).is_dir():
            return self.path, None
        from benchcheck.io.load import split_files

        files = split_files(self.path)
        name = "test" if "test" in files else list(files)[-1]
        return str(files[name]), name


@dataclass(frozen=True)
class McqInput:
    """A multiple-choice benchmark (``task="mcq"``) and the models' answers to it.

    Attributes
    ----------
    path, columns
        The questions and their columns (:class:`~benchcheck.data.mcq.McqColumns`).
    answers
        Files of the evaluated models' answers (long, wide or lm-eval samples; see
        :func:`benchcheck.io.mcq_answers.read_mcq_answers`): the answer-based flags.
    threshold
        P(key wrong) from which a question is flagged (None: the detector's default).

    """

    path: str
    columns: McqColumns = field(default_factory=McqColumns)
    answers: tuple[str, ...] = ()
    threshold: float | None = None


@dataclass(frozen=True)
class JudgeInput:
    """The judge of the label-error section, its prompt framings and its flag rule.

    ``setup`` builds the judges as ``benchcheck judge`` does (by default the embedded
    llama.cpp model; an ``openai`` judge with its server's address, key variable and
    timeout); ``prompts`` are ``"all"`` or names (default: the judges' audit set);
    ``min_error_score`` is the threshold rule's minimum error score (``benchcheck flag``'s;
    None: the default rule, :func:`benchcheck.runs.flag.flag_rule_for`).
    """

    setup: JudgeSetup = field(default_factory=JudgeSetup)
    prompts: str | None = None
    min_error_score: float | None = None


@dataclass(frozen=True)
class ContaminationInput:
    """A corpus to check the audited items against (``benchcheck leakage``'s run).

    The items are the table's (a classification or pair file), else the NER dataset's test
    split.

    Attributes
    ----------
    corpus
        Corpus shards: globs, files or folders (Parquet, JSON lines, ``.gz``/``.zst``).
    options
        The contamination definition and its overrides (``seed`` and ``resamples`` are the
        audit's own).
    text_column, corpus_id_column
        The corpus' text column and its id column (shown with each match).
    test_column
        The table's column whose texts are checked (default: ``text`` of a classification
        file, ``text_a`` — the premise, the grounding document — of a pair file). A NER
        dataset's test split is checked by its tokens.
    batch_mb
        Megabytes of corpus text held at once.

    """

    corpus: tuple[str, ...]
    options: LeakageOptions = field(default_factory=LeakageOptions)
    text_column: str = "text"
    test_column: str | None = None
    corpus_id_column: str | None = None
    batch_mb: int = 32

    def paths(self) -> list[str]:
        """Return the corpus paths the patterns name now (globs expanded as the reader does)."""
        import glob
        import os

        out: list[str] = []
        for pattern in self.corpus:
            if os.path.lexists(pattern):
                out.append(pattern)
            else:
                out += sorted(glob.glob(pattern, recursive=True))
        return out


@dataclass(frozen=True)
class SuiteInput:
    """A diagnostic suite and model predictions on it by model name."""

    path: str
    predictions: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AuditInputs:
    """What to audit: each kind of data in its own group, and the options every section shares.

    A section runs when its groups are given and is skipped otherwise. Paths are shown in
    ``results.json`` as given, bundled sample files as ``benchcheck:sample_data/...``.

    Attributes
    ----------
    ner, table, suite, mcq
        A NER dataset (:class:`NerInput`), a classification or pair file with its models
        (:class:`TableInput`), a diagnostic suite (:class:`SuiteInput`), a multiple-choice
        benchmark with the models' answers (:class:`McqInput`).
    judge
        The judge of label-error flags (:class:`JudgeInput`; ``None`` skips them).
    matrix
        A score matrix (items × models): the item analysis without a table.
    baseline
        An earlier ``results.json`` of the same dataset: the audit adds its diff.
    contamination
        A corpus to check the table's items, or the NER test split, against
        (:class:`ContaminationInput`).
    seed, resamples
        Seed and number of resamples of every bootstrap.

    """

    ner: NerInput | None = None
    table: TableInput | None = None
    judge: JudgeInput | None = field(default_factory=JudgeInput)
    suite: SuiteInput | None = None
    matrix: str | None = None
    baseline: str | None = None
    contamination: ContaminationInput | None = None
    seed: int = 0
    resamples: int = 1000
    mcq: McqInput | None = None

    def paths(self) -> tuple[str, ...]:
        """Every file or folder the audit reads (never an output)."""
        out: list[str | None] = []
        if self.ner is not None:
            out += [self.ner.path, *self.ner.splits.values(), *self.ner.predictions.values()]
            out += [*self.ner.compare.values(), *self.ner.reading.split_lists.values()]
        if self.table is not None:
            out += [self.table.path, *self.table.predictions.values(), self.table.gold]
        if self.suite is not None:
            out += [self.suite.path, *self.suite.predictions.values()]
        if self.mcq is not None:
            out += [self.mcq.path, *self.mcq.answers]
        out += [self.matrix, self.baseline]
        if self.contamination is not None:
            out += self.contamination.paths()
        return tuple(p for p in out if p is not None)


def audit_inputs(
    data: str | None,
    *,
    splits: Mapping[str, str],
    predictions: Mapping[str, str],
    scores: Mapping[str, float],
    columns: Columns | None = None,
    scheme: str | None = None,
    strict: bool = False,
    compare: Mapping[str, str] | None = None,
    judge: JudgeInput | None = None,
    matrix: str | None = None,
    gold: str | None = None,
    precision: str | None = None,
    error_rate: str | None = None,
    baseline: str | None = None,
    seed: int = 0,
    reading: NerOptions | None = None,
    contamination: ContaminationInput | None = None,
    label_error_seconds: float = LABEL_ERROR_SECONDS,
    task: str | None = None,
    answers: tuple[str, ...] = (),
    mcq_columns: McqColumns | None = None,
) -> AuditInputs:
    """Return the inputs of ``benchcheck audit DATA``: what ``data`` is decides the groups.

    Nothing (and no split): the bundled samples (NER statistics, the pair sample's label
    errors, the diagnostic suite with a baseline's predictions). A text column: ``data`` is
    a table and ``predictions`` its models. A diagnostic suite: ``predictions`` are models'
    answers on it. Otherwise a NER dataset, ``predictions`` its test predictions.
    ``label_error_seconds`` is the NER label-error section's time budget per split (a
    finite number >= 0, else :class:`UsageError`). ``task="mcq"``: ``data`` is a
    multiple-choice benchmark read with ``mcq_columns`` (its id column ``columns.id``) and
    ``answers`` the models' answers to it.
    """
    import math

    from benchcheck.io.diagnostic import looks_like_suite

    if not (math.isfinite(label_error_seconds) and label_error_seconds >= 0):
        raise UsageError(
            "{label_error_seconds} must be a number of seconds >= 0 (0 skips the NER "
            f"label-error section), got {label_error_seconds}"
        )

    cols = columns or Columns()
    ner_reading = reading or NerOptions()

    def inputs(
        ner: NerInput | None = None,
        table: TableInput | None = None,
        suite: SuiteInput | None = None,
        mcq: McqInput | None = None,
    ) -> AuditInputs:
        return AuditInputs(
            mcq=mcq,
            ner=ner
            or NerInput(
                scheme=scheme,
                strict=strict,
                compare=dict(compare or {}),
                reading=ner_reading,
                label_error_seconds=label_error_seconds,
            ),
            table=table,
            suite=suite,
            judge=judge,
            matrix=matrix,
            baseline=baseline,
            contamination=contamination,
            seed=seed,
        )

    def ner(
        path: str | None,
        given_splits: Mapping[str, str] | None = None,
        given_scores: Mapping[str, float] | None = None,
        given_predictions: Mapping[str, str] | None = None,
    ) -> NerInput:
        return NerInput(
            path,
            dict(given_splits or {}),
            scheme,
            strict,
            dict(given_scores or {}),
            dict(given_predictions or {}),
            dict(compare or {}),
            ner_reading,
            label_error_seconds,
        )

    def table(path: str, table_columns: Columns, models: Mapping[str, str]) -> TableInput:
        return TableInput(path, table_columns, dict(models), gold, precision, error_rate)

    if task not in (None, "mcq"):
        raise UsageError(
            f"{{task}} of audit: mcq (other kinds are recognised from the data), got {task!r}"
        )
    if task == "mcq":
        if data is None or splits:
            raise UsageError("{task} mcq audits one DATA file of questions")
        if cols.text or cols.text_a or cols.text_b or cols.label or predictions:
            raise UsageError(
                "{task} mcq reads its own columns ({question}, {choices}, {answer_key}) and "
                "the models' {answers}"
            )
        mcq_cols = replace(mcq_columns or McqColumns(), id=cols.id)
        threshold = judge.min_error_score if judge is not None else None
        return inputs(mcq=McqInput(data, mcq_cols, tuple(answers), threshold))
    if answers or (mcq_columns is not None and mcq_columns != McqColumns()):
        raise UsageError("{answers} and the multiple-choice columns need {task} mcq")
    if data is None and not splits:
        from benchcheck.diagnostics import sample_predictions_path
        from benchcheck.sample_data import DIAGNOSTIC_SAMPLE, NER_SAMPLE, PAIR_SAMPLE

        if cols.text or cols.text_a or cols.text_b or predictions:
            raise UsageError("name the data file these options apply to (DATA)")
        pair = Columns(text_a="grounding", text_b="generated_text")
        sample = {"overlap-baseline": str(sample_predictions_path())}
        return inputs(
            ner(str(NER_SAMPLE)),
            table(str(PAIR_SAMPLE), pair, {}),
            SuiteInput(str(DIAGNOSTIC_SAMPLE), sample),
        )
    if cols.text or cols.text_a or cols.text_b:
        if data is None:
            raise UsageError("{text} or {text_a} and {text_b} need a DATA file")
        return inputs(table=table(data, cols, predictions))
    if data is not None and looks_like_suite(data):
        if contamination is not None:
            raise UsageError(
                "{corpus} needs a table or a NER dataset to check, not a diagnostic suite; "
                "run benchcheck leakage on a table of its texts"
            )
        return inputs(suite=SuiteInput(data, dict(predictions)))
    return inputs(ner(data, splits, scores, predictions))
