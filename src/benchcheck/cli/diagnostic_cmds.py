"""Commands of diagnostic evaluation: diagnose, artifacts, human, check-suite."""

from __future__ import annotations

from typing import Annotated

from benchcheck.cli._common import claim, command, emit, exit_with, parse_assignments, reporting
from benchcheck.cli._options import Arg
from benchcheck.runs.judging import JudgeSetup


def _label_map(value: str | None) -> dict[str, str] | None:
    if not value:
        return None
    return parse_assignments([v.strip() for v in value.split(",") if v.strip()], "--label-map")


@command("diagnose")
def diagnose(
    suite: str,
    predictions: Annotated[list[str] | None, "NAME=FILE (TSV/CSV/JSONL); repeat per model."] = None,
    taxonomy: str | None = None,
    label_map: str | None = None,
    label_column: str | None = None,
    seed: int = 0,
    resamples: int = 1000,
    fine: bool = True,
    judge: Annotated[
        list[str] | None,
        "Diagnose an LLM directly: BACKEND:MODEL (as in 'benchcheck judge'); repeatable.",
    ] = None,
    base_url: str | None = JudgeSetup.base_url,
    cache: str | None = None,
    no_cache: bool = False,
) -> None:
    """R_K per phenomenon (overall, coarse, fine) with intervals and paired tests; see docs.

    Ids: GLUE TSV row index, or '<id>:forward'/'<id>:backward' for JSONL suites, or row order.
    Compare models within a category, never categories with each other.

    Example: benchcheck diagnose --suite diagnostic-full.tsv --predictions bert=bert.tsv
    Example: benchcheck diagnose --suite suite.jsonl --judge llama-cpp:qwen2.5-coder-1.5b-instruct
    """
    from benchcheck.report.terminal.diagnostics import diagnose_renderables
    from benchcheck.runs.diagnose import run_diagnose

    files = parse_assignments(predictions, "--predictions")
    claim([suite, *files.values(), cache])
    setup = None
    if judge:
        setup = JudgeSetup(tuple(judge), base_url=base_url, cache=cache, use_cache=not no_cache)
    with reporting("diagnose") as bar:
        result = run_diagnose(
            suite,
            files,
            taxonomy=taxonomy,
            label_map=_label_map(label_map),
            label_column=label_column,
            seed=seed,
            resamples=resamples,
            judges=setup,
            progress=bar,
        )
    emit(result.to_json(), lambda p: diagnose_renderables(p, fine=fine), highlight=False)


@command("artifacts")
def artifacts(
    data: Annotated[str | None, Arg("Folder of a pair dataset (train → test/dev files).")] = None,
    train: str | None = None,
    eval_path: str | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: str | None = None,
    side: str = "hypothesis",
    seed: int = 0,
    top: Annotated[int, "Cue n-grams listed per label."] = 10,
    resamples: int = 1000,
    max_train: int | None = None,
    label_map: Annotated[
        str | None,
        "Rename labels in both splits, e.g. '0=entailment,1=neutral,2=contradiction' "
        "(HF MNLI/SNLI).",
    ] = None,
) -> None:
    """Hypothesis-only (partial-input) baseline: how much of the task needs no premise.

    Columns default to premise/hypothesis or sentence1/sentence2 and label or gold_label.
    No universal threshold: read the numbers against datasets you trust.

    Example: benchcheck artifacts --train snli_train.jsonl --eval diagnostic-full.tsv
    Example: benchcheck artifacts data/nli/ --json artifacts.json
    """
    from benchcheck.report.terminal.diagnostics import artifacts_renderables
    from benchcheck.runs.diagnose import run_artifacts

    claim([data, train, eval_path])
    with reporting("artifacts") as bar:
        run = run_artifacts(
            data,
            train=train,
            eval_path=eval_path,
            text_a=text_a,
            text_b=text_b,
            label=label,
            side=side,
            seed=seed,
            top=top,
            resamples=resamples,
            max_train=max_train,
            label_map=_label_map(label_map),
            progress=bar,
        )
    emit(run.to_json(), artifacts_renderables, highlight=False)


@command("human")
def human(
    suite: str,
    annotations: str,
    taxonomy: str | None = None,
    label_map: str | None = None,
    seed: int = 0,
    resamples: int = 1000,
) -> None:
    """Human baseline: Fleiss' kappa over annotators and each annotator's R_K against gold.

    Example: benchcheck human --suite suite.jsonl --annotations ann.csv
    """
    from benchcheck.report.terminal.diagnostics import human_renderables
    from benchcheck.runs.diagnose import run_human

    claim([suite, annotations])
    label_pairs = _label_map(label_map)
    with reporting("human") as bar:
        run = run_human(
            suite,
            annotations,
            taxonomy=taxonomy,
            label_map=label_pairs,
            seed=seed,
            resamples=resamples,
            progress=bar,
        )
    emit(run.to_json(), human_renderables, highlight=False)


@command("check-suite")
def check_suite_cmd(
    suite: Annotated[str, Arg()],
    taxonomy: str | None = None,
    strict: Annotated[bool, "Exit with code 1 when a check warns."] = False,
) -> None:
    """Check how a diagnostic suite is built: categories, directions, tags, duplicates.

    Example: benchcheck check-suite suite.jsonl --json checks.json
    """
    from benchcheck.report.terminal.diagnostics import check_suite_renderables
    from benchcheck.runs.diagnose import run_check_suite

    claim([suite, taxonomy])
    with reporting("check-suite") as bar:
        run = run_check_suite(suite, taxonomy=taxonomy, strict=strict, progress=bar)
    emit(run.to_json(), check_suite_renderables, highlight=False)
    exit_with(run)
