"""Diagnostic evaluation: ``diagnose``, ``artifacts``, ``human``, ``check-suite``.

Each run reads the suite and its companion files (through :mod:`benchcheck.io`) and returns
the typed result of :mod:`benchcheck.diagnostics`, whose ``to_json()`` is the command's JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck._progress import step
from benchcheck.errors import BenchcheckError, UsageError
from benchcheck.runs.judging import JudgeSetup, Progress

if TYPE_CHECKING:
    from benchcheck.data.taxonomy import Taxonomy
    from benchcheck.diagnostics.artifacts import ArtifactAudit
    from benchcheck.diagnostics.checks import SuiteChecks
    from benchcheck.diagnostics.human import HumanBaseline
    from benchcheck.diagnostics.score import DiagnosisResult
    from benchcheck.diagnostics.suite import DiagnosticSuite

__all__ = [
    "SIDES",
    "CheckSuiteRun",
    "SuiteWarned",
    "load_suite",
    "run_artifacts",
    "run_check_suite",
    "run_diagnose",
    "run_human",
]

#: Which text the partial-input baseline sees.
SIDES = ("hypothesis", "premise")


def load_suite(
    path: str | Path, *, taxonomy: Taxonomy | str | Path | None = None
) -> DiagnosticSuite:
    """Read a suite (GLUE TSV or JSONL) and resolve its tags (default: the GLUE taxonomy).

    ``taxonomy`` is a :class:`~benchcheck.data.taxonomy.Taxonomy` or a TOML/JSON file.
    """
    from benchcheck.diagnostics.suite import suite_from_dataset
    from benchcheck.io.diagnostic import load_taxonomy, read_diagnostic

    tax = load_taxonomy(taxonomy) if isinstance(taxonomy, (str, Path)) else taxonomy
    return suite_from_dataset(read_diagnostic(path), taxonomy=tax)


def run_diagnose(
    suite: str | Path,
    predictions: Mapping[str, str] | None = None,
    *,
    taxonomy: str | None = None,
    label_map: Mapping[str, str] | None = None,
    label_column: str | None = None,
    seed: int = 0,
    resamples: int = 1000,
    judges: JudgeSetup | None = None,
    progress: Progress | None = None,
) -> DiagnosisResult:
    """R_K per phenomenon for every model's predictions (and every judge, asked directly).

    ``predictions`` are model name → predictions file; ``judges`` answer the three-way NLI
    question (prompt ``nli3``) on every example and are scored like a predictions file.
    ``progress`` is told the steps (reading, judging, scoring) and counts the judging.
    """
    from benchcheck.diagnostics.score import diagnose_suite
    from benchcheck.io.diagnostic import read_model_predictions

    files = dict(predictions or {})
    if not files and judges is None:
        raise UsageError("give at least one {predictions} NAME=FILE or {judge} BACKEND:MODEL")
    step(progress, f"reading {suite}")
    loaded = load_suite(suite, taxonomy=taxonomy)
    if files:
        step(progress, "reading the models' predictions")
    preds, notes = read_model_predictions(
        files,
        ids=loaded.ids,
        label_names=loaded.label_names,
        label_map=dict(label_map) if label_map else None,
        column=label_column,
    )
    if judges is not None:
        from benchcheck.diagnostics.judged import judge_predictions

        step(progress, "judging")
        with judges.open() as (built, store):
            judged = judge_predictions(loaded, built, cache=store, progress=progress)
        for name, labels in judged.items():
            if name in preds:
                raise UsageError(f"model name {name!r} given twice")
            preds[name] = labels
            notes[name] = ["three-way NLI prompt 'nli3', most probable label"]
    step(progress, f"R_K per phenomenon: {resamples} bootstrap resamples")
    return diagnose_suite(loaded, preds, seed=seed, n_resamples=resamples, prediction_notes=notes)


def run_artifacts(
    data: str | Path | None = None,
    *,
    train: str | Path | None = None,
    eval_path: str | Path | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    side: str = "hypothesis",
    seed: int = 0,
    top: int = 10,
    resamples: int = 1000,
    max_train: int | None = None,
    label_map: Mapping[str, str] | None = None,
    progress: Progress | None = None,
) -> ArtifactAudit:
    """Partial-input baseline: train on one side of the pairs, score the other split.

    ``data`` is a folder with a train and an evaluation split, or give ``train`` and
    ``eval_path`` (a pair file or a diagnostic suite). ``label_map`` renames labels in both.
    ``progress`` is told the steps (reading each split, the baseline).
    """
    from benchcheck.diagnostics.artifacts import partial_input_audit
    from benchcheck.io.diagnostic import find_pair_splits, looks_like_suite, read_pairs

    if side not in SIDES:
        raise UsageError(f"{{input}} must be 'hypothesis' or 'premise', got {side!r}")
    if data is not None:
        if train or eval_path:
            raise UsageError("give a data folder or {train}/{eval}, not both")
        train_file, eval_file = find_pair_splits(data)
    else:
        if not train or not eval_path:
            raise UsageError("give a data folder, or both {train} and {eval}")
        train_file, eval_file = Path(train), Path(eval_path)
    step(progress, f"reading {train_file}")
    tr = read_pairs(train_file, text_a=text_a, text_b=text_b, label=label)
    step(progress, f"reading {eval_file}")
    if looks_like_suite(eval_file):  # a diagnostic suite keeps its own columns
        ev = read_pairs(eval_file)
    else:
        ev = read_pairs(eval_file, text_a=text_a, text_b=text_b, label=label)
    mapping = dict(label_map or {})
    tr_labels = [mapping.get(x, x) for x in tr.labels]
    ev_labels = [mapping.get(x, x) for x in ev.labels]
    pick: Any = (lambda p: p.hypotheses) if side == "hypothesis" else (lambda p: p.premises)
    step(progress, f"{side}-only baseline: training, then {resamples} bootstrap resamples")
    return partial_input_audit(
        pick(tr),
        tr_labels,
        pick(ev),
        ev_labels,
        seed=seed,
        top_k=top,
        n_resamples=resamples,
        input_name=side,
        max_train=max_train,
        meta={
            "train": str(train_file),
            "eval": str(eval_file),
            "train_skipped_rows": tr.n_skipped,
            "eval_skipped_rows": ev.n_skipped,
            "eval_kind": ev.kind,
        },
    )


def run_human(
    suite: str | Path,
    annotations: str | Path,
    *,
    taxonomy: str | None = None,
    label_map: Mapping[str, str] | None = None,
    seed: int = 0,
    resamples: int = 1000,
    progress: Progress | None = None,
) -> HumanBaseline:
    """Human baseline: Fleiss' kappa over annotators and each annotator's R_K against gold.

    ``progress`` is told the steps (reading each file, scoring).
    """
    from benchcheck.diagnostics.human import human_baseline
    from benchcheck.io.diagnostic import read_annotations

    step(progress, f"reading {suite}")
    loaded = load_suite(suite, taxonomy=taxonomy)
    step(progress, f"reading {annotations}")
    ann = read_annotations(
        annotations,
        ids=loaded.ids,
        label_names=loaded.label_names,
        label_map=dict(label_map) if label_map else None,
    )
    step(progress, f"agreement and R_K per annotator: {resamples} bootstrap resamples")
    return human_baseline(loaded, ann, seed=seed, n_resamples=resamples)


class SuiteWarned(BenchcheckError):
    """``check-suite --strict`` found warnings (exit code 1)."""

    exit_code = 1


@dataclass(frozen=True)
class CheckSuiteRun:
    """The suite's construction checks, and whether a warning fails the run (``strict``)."""

    checks: SuiteChecks
    strict: bool = False

    def to_json(self) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck check-suite --json``."""
        return self.checks.to_json()

    @property
    def failure(self) -> SuiteWarned | None:
        """With ``strict``, the error of a check that warned (``None`` when none did)."""
        warned = self.checks.warnings
        if not (self.strict and warned):
            return None
        return SuiteWarned(f"{{strict}}: {len(warned)} check(s) warned")


def run_check_suite(
    suite: str | Path,
    *,
    taxonomy: str | None = None,
    strict: bool = False,
    progress: Progress | None = None,
) -> CheckSuiteRun:
    """Run the suite's construction checks: categories, directions, tags, minimal sets.

    ``progress`` is told the steps (reading, checking).
    """
    from benchcheck.diagnostics.checks import check_suite

    step(progress, f"reading {suite}")
    loaded = load_suite(suite, taxonomy=taxonomy)
    step(progress, "checking the suite's construction")
    return CheckSuiteRun(check_suite(loaded), strict)
