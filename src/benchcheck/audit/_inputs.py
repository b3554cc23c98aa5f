"""What an audit takes (:class:`AuditInputs`) and gives back (:class:`AuditReport`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchcheck.runs.judging import JudgeSetup

if TYPE_CHECKING:
    import polars as pl


class Skip(Exception):
    """An analysis does not apply (or cannot run here); the message says why."""


@dataclass(frozen=True)
class AuditInputs:
    """What to audit: the files and the options of each analysis, resolved once.

    An analysis runs when its inputs are given and is skipped otherwise (see
    :func:`benchcheck.audit.run_audit`). Paths are shown in ``results.json`` as given,
    bundled sample files as ``benchcheck:sample_data/...``.

    Attributes
    ----------
    ner, ner_splits
        A NER dataset (folder or file), or its splits by name (``{"train": "a.conll"}``).
    scheme, strict
        Tagging scheme to force (``IOB1``, ``IOB2`` or ``BIOES``); reject invalid tag
        transitions instead of repairing them.
    scores, ner_predictions
        Published model scores by model name (Model Differentiation, Eq. 7), or CoNLL
        prediction files on the test split by model name, scored with seqeval micro F1
        (they replace ``scores``).
    compare
        Other NER datasets by name, shown side by side with ``ner``.
    table, text, text_a, text_b, label, id
        A classification (``text``) or pair (``text_a`` and ``text_b``) file and its
        columns; ``label`` defaults to ``"label"``, ``id`` to the row number.
    judge, prompts, threshold
        The judge of label-error flags (``backend[:model]``; ``None`` skips them), the
        prompt framings (``"all"`` or names; default: the judges' audit set), and the
        minimum confidence of a flag.
    base_url, api_key_env, timeout
        An ``openai`` judge's server (``None``: ``OPENAI_BASE_URL``, else the OpenAI API),
        the environment variable holding its API key (sent only when set), and the seconds
        each request may take (connect, reads and the whole answer); other judges ignore
        them. Defaults and meaning are those of ``benchcheck judge``
        (:class:`benchcheck.runs.judging.JudgeSetup`).
    suite, suite_predictions
        A diagnostic suite and model predictions on it by model name.
    seed, resamples
        Seed and number of resamples of every bootstrap.
    item_predictions, item_matrix
        Models' predictions on ``table`` by model name (``id`` and ``pred``), or a score
        matrix (items × models): the item analysis and, with two or more models and an
        uncertainty source, the leaderboard under label noise (methods.md section 4).
    gold, precision, error_rate
        Reviewed gold labels, a per-bin precision of flags (number or ``bins --json``) and
        the residual error rate, for the leaderboard under label noise.
    baseline
        An earlier ``results.json`` of the same dataset: the audit adds its diff.

    """

    ner: str | None = None
    ner_splits: Mapping[str, str] = field(default_factory=dict)
    scheme: str | None = None
    strict: bool = False
    scores: Mapping[str, float] = field(default_factory=dict)
    ner_predictions: Mapping[str, str] = field(default_factory=dict)
    compare: Mapping[str, str] = field(default_factory=dict)
    table: str | None = None
    text: str | None = None
    text_a: str | None = None
    text_b: str | None = None
    label: str | None = None
    id: str | None = None
    judge: str | None = "llama-cpp"
    prompts: str | None = None
    threshold: float = 0.5
    base_url: str | None = JudgeSetup.base_url
    api_key_env: str = JudgeSetup.api_key_env
    timeout: float = JudgeSetup.timeout
    suite: str | None = None
    suite_predictions: Mapping[str, str] = field(default_factory=dict)
    seed: int = 0
    resamples: int = 1000
    item_predictions: Mapping[str, str] = field(default_factory=dict)
    item_matrix: str | None = None
    gold: str | None = None
    precision: str | None = None
    error_rate: str | None = None
    baseline: str | None = None

    def paths(self) -> tuple[str, ...]:
        """Every file or folder the audit reads (never an output)."""
        out = [self.ner, self.table, self.suite, *self.ner_splits.values()]
        out += [*self.ner_predictions.values(), *self.compare.values()]
        out += list(self.suite_predictions.values())
        out += [*self.item_predictions.values(), self.item_matrix, self.gold, self.baseline]
        return tuple(p for p in out if p is not None)


@dataclass(frozen=True)
class AuditReport:
    """The outcome of an audit.

    Attributes
    ----------
    results
        The ``results.json`` object (without ``schema_version``, added by the writer):
        ``title``, ``inputs``, ``analyses`` (name, status ``ok``/``skipped``, detail), then
        the section of each analysis that ran.
    flagged
        Every flagged example, most confident first (``results`` keeps the first
        :data:`benchcheck.audit.MAX_FLAGS_IN_JSON`); ``None`` when label errors did not run.
    judge_seconds
        Wall time of loading the judge and scoring (cached judgements are free), or ``None``.
    sources
        The paths the audit read (:meth:`AuditInputs.paths`): a report never overwrites them.

    """

    results: dict[str, Any]
    flagged: pl.DataFrame | None = None
    judge_seconds: float | None = None
    sources: tuple[str, ...] = ()


#: Called with (done, total) while the judge scores (the only long step of an audit).
Progress = Callable[[int, int], None]

#: An analysis: adds its section(s) to the results object and returns a one-line detail,
#: or raises :class:`Skip` saying why it does not apply.
Analysis = Callable[[AuditInputs, dict[str, Any], Progress | None], str]
