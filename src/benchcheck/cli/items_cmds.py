"""Commands of test theory for benchmarks (methods.md section 4): items, rank, diff.

Thin: parse the options, call :mod:`benchcheck.runs` (``items``, ``rank``, ``diff``),
write through :class:`benchcheck.io.output.Outputs`, render with
:mod:`benchcheck.report.terminal.items`.
"""

from __future__ import annotations

from typing import Annotated

from benchcheck.cli._common import (
    claim,
    claim_json,
    command,
    emit,
    exit_with,
    output_claims,
    parse_assignments,
    reporting,
)
from benchcheck.cli._options import Arg
from benchcheck.data.mcq import McqColumns
from benchcheck.errors import UsageError


@command("items", guard=True)
def items_cmd(
    data: Annotated[str | None, Arg("The dataset (id and label); omit with --matrix.")] = None,
    matrix: Annotated[
        str | None, "Score matrix: id + one column per model, 1/0 or partial credit."
    ] = None,
    predictions: list[str] | None = None,
    scores: Annotated[str | None, "Partial credits per item (id + one column per model)."] = None,
    label: Annotated[str, "Label column of the data."] = "label",
    id_col: str | None = None,
    positive: str | None = None,
    intersect: bool = False,
    min_discrimination: float = 0.1,
    irt: str = "2pl",
    confidence: float = 0.95,
    bootstrap: int = 1000,
    seed: int = 0,
    output: Annotated[str | None, "Folder for items.json and items.csv."] = None,
    to_review: str | None = None,
    experts: Annotated[int, "Expert files for --to-review."] = 2,
    top: int = 15,
    task: Annotated[
        str | None, "mcq: DATA is multiple-choice questions and --answers the models' answers."
    ] = None,
    answers: list[str] | None = None,
    mcq: McqColumns = McqColumns(),
    force: bool = False,
) -> None:
    """Item analysis of a benchmark: difficulty, discrimination, reliability, IRT abilities.

    Each model is an examinee; an item with negative or near-zero discrimination (strong
    models wrong, weak ones right) is a prime label-error suspect: --to-review writes them
    in the blind review format that `benchcheck review import` reads.

    With --task mcq the data are multiple-choice questions and --answers the evaluated
    models' answers (long, wide or lm-eval samples): a model is right where its answer is
    the key.

    Example: benchcheck items test.jsonl --predictions a=a.jsonl --predictions b=b.jsonl -o out/

    Example: benchcheck items mmlu_test.csv --task mcq --answers answers.csv
    """
    from benchcheck.report.terminal.items import items_renderables
    from benchcheck.runs.items import ItemsOptions, run_items

    named = parse_assignments(predictions, "--predictions")
    if task not in (None, "mcq"):
        raise UsageError("{task} of items: mcq (other data are read from their label column)")
    if (task == "mcq") != bool(answers):
        raise UsageError("{task} mcq and the models' {answers} go together")
    outputs = output_claims([data, matrix, scores, *named.values(), *(answers or [])])
    names = ("items.json", "items.csv")
    folder = outputs.folder(output, param="output", names=names) if output else None
    if to_review:  # checked before the work; the review writer applies its own rule again
        outputs.folder(to_review, param="to_review", names=None)
    claim_json(outputs)
    options = ItemsOptions(
        min_discrimination=min_discrimination,
        n_resamples=bootstrap,
        confidence=confidence,
        seed=seed,
        irt=None if irt == "none" else irt,
        intersect=intersect,
    )
    with reporting("items") as bar:
        run = run_items(
            matrix=matrix,
            data=data,
            label=label,
            id_col=id_col,
            predictions=named,
            scores=scores,
            positive=positive,
            options=options,
            folder=folder,
            to_review=to_review,
            experts=experts,
            force=force,
            answers=answers or (),
            mcq=mcq,
            progress=bar,
        )
    reviewed = None if run.review is None else (run.review.package.n_items, run.review.out_dir)
    emit(run.to_json(), lambda p: items_renderables(p, top=top, review=reviewed))


@command("rank", guard=True)
def rank_cmd(
    data: Annotated[str, Arg("The dataset (id and label).")],
    predictions: list[str] | None = None,
    flags: str | None = None,
    gold: Annotated[str | None, "Gold labels from `benchcheck review import -o`."] = None,
    precision: str | None = None,
    error_rate: str | None = None,
    label: Annotated[str, "Label column of the data."] = "label",
    id_col: str | None = None,
    metric: str = "accuracy",
    positive: str | None = None,
    resample_items: bool = False,
    draws: int = 2000,
    confidence: float = 0.95,
    swap_threshold: float = 0.05,
    seed: int = 0,
) -> None:
    """Leaderboard under label uncertainty: score intervals and pairwise flip probabilities.

    Plausible true labelings are drawn from the flags (their confidence bins and the per-bin
    precision the review measured, or --precision), the gold labels, and --error-rate;
    with gold labels only, this is `rerank`'s ranking on gold.

    Example: benchcheck rank test.jsonl --predictions a=a.jsonl --predictions b=b.csv --gold g.csv
    """
    from benchcheck.report.terminal.items import rank_renderables
    from benchcheck.runs.rank import RankOptions, run_rank

    named = parse_assignments(predictions, "--predictions")
    claim([data, flags, gold, *named.values()])
    options = RankOptions(
        metric=metric,
        positive=positive,
        n_resamples=draws,
        confidence=confidence,
        seed=seed,
        resample_items=resample_items,
        swap_threshold=swap_threshold,
        precision=precision,
        error_rate=error_rate,
    )
    with reporting("rank") as bar:
        run = run_rank(
            data,
            named,
            label=label,
            id_col=id_col,
            flags=flags,
            gold=gold,
            options=options,
            progress=bar,
        )
    emit(run.to_json(), rank_renderables)


@command("diff", guard=True)
def diff_cmd(
    old: Annotated[str, Arg()],
    new: Annotated[str | None, Arg()] = None,
    fail_on: str | None = None,
    all_values: bool = False,
) -> int:
    """Compare two audits of one dataset; --fail-on turns them into a CI exit code.

    Every value's change, with Fisher's exact test on shares of instances and McNemar's on
    flags fixed/new where results.json holds the counts. Exit codes: 0 every gate passes,
    1 a gate failed, 2 bad input.

    Example: benchcheck diff old/results.json new/results.json --fail-on 'leakage_ratio>0.01'
    """
    from benchcheck.report.terminal.items import diff_renderables
    from benchcheck.runs.diff import run_diff

    claim([old, new])
    before, after = (None, old) if new is None else (old, new)
    run = run_diff(before, after, fail_on=fail_on, changed_only=not all_values)
    emit(run.to_json(), diff_renderables)
    exit_with(run)
    return 0
