"""Commands of label-error detection (methods.md section 2).

flag, review export|import, error-rate, bins, remedy, rerank, agreement, ensemble-curve,
flag-spans: each parses its options, calls one :mod:`benchcheck.runs` function and renders
with :mod:`benchcheck.report.terminal`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli._app import app
from benchcheck.cli._common import (
    claim,
    claim_json,
    command,
    csv,
    emit,
    names,
    output_claims,
    parse_assignments,
    reporting,
    stderr,
    warn,
)
from benchcheck.cli._options import Arg
from benchcheck.errors import UsageError
from benchcheck.runs.judging import JudgeSetup

#: flag's defaults (threshold, detector, ..., bins) are benchcheck.runs.flag.FlagOptions'
#: (a test holds them equal), written out so that the command line starts without importing
#: the detectors (numpy, polars); this is FlagOptions' bins as the option's text.
BINS = "0.5,0.6,0.7,0.8,0.9,0.95,1"

review_app = typer.Typer(
    help="Blind expert review of flagged examples.\n\nExample: benchcheck review export "
    "flags.jsonl --experts 2 --seed 1 -o review/",
    no_args_is_help=True,
)
app.add_typer(review_app, name="review")


@command("flag", guard=True)
def flag(
    data: Annotated[str, "The dataset: id, text(s) and label."],
    judgments: Annotated[
        str | None, Arg("Judgments file (Parquet, JSONL or CSV); not needed by --detector trained.")
    ] = None,
    output: Annotated[str | None, "Write the flags table here."] = None,
    min_error_score: float | None = None,
    detector: str = "llm",
    calibration: str = "prior",
    features: str = "tfidf",
    combination: str = "mean",
    flag_rule: str | None = None,
    posterior: str = "bayes-platt",
    budget: int | None = None,
    target_precision: float | None = None,
    judge_error: str | None = None,
    gold: Annotated[
        str | None,
        "Reviewed gold file (review import -o): fits platt/isotonic, and checks the calibration "
        "of error_score against it (ECE, reliability bins).",
    ] = None,
    seed: int = 0,
    judges: str | None = None,
    prompts: str | None = None,
    bins: Annotated[str, "Error-score bin edges of the flags."] = BINS,
    text: str | None = None,
    text_a: str | None = None,
    text_b: str | None = None,
    label: Annotated[
        str | None, "Label column (default: the judgments' label column, else label)."
    ] = None,
    id_col: str | None = None,
    pred_probs: str | None = None,
    top: int = 10,
    task: Annotated[
        str | None, "mcq: multiple-choice questions, their keys flagged from --answers."
    ] = None,
    answers: list[str] | None = None,
    question: str | None = None,
    choices: str | None = None,
    option_columns: str | None = None,
    answer_key: str | None = None,
    group_col: str | None = None,
) -> None:
    """Flag examples whose label the detector disputes, ranked by error score.

    The LLM detector averages judges × prompts and calibrates the mean (--calibration);
    every example gets error_score, the posterior probability that its label is wrong given
    the detector and the estimated base rate of errors (--posterior; the detector's own
    probability of another label is kept as detector_error_score). By default the flags are
    the largest top set whose expected precision (mean error score) is at least 0.5 (on
    fewer than 100 judged examples: every disagreement, and the output says why); or a
    disagreement whose error score is at least --min-error-score, or one of the --budget
    highest, or the largest top set of expected precision >= --target-precision.
    The JSON gives expected_errors (the sum of error scores, with an interval that carries
    the uncertainty of the estimated error rate). The flags table keeps the data's own
    columns. The data is read with the columns it was judged with (recorded in the
    judgments) unless --text, --text-a/--text-b, --label or --id say otherwise.

    With --task mcq the data are multiple-choice questions and the models' --answers are the
    detector: each question gets error_score (the probability that its key is wrong), a
    proposed_answer with its support, and a kind (wrong_key, ambiguous, no_correct, ok),
    with the structural checks of the options.

    Example: benchcheck flag judgments.parquet --data data.jsonl -o flags.jsonl

    Example: benchcheck flag mmlu_test.csv --task mcq --answers answers.csv -o flags.jsonl
    """
    if task not in (None, "classification", "pair", "mcq"):
        raise UsageError("{task} of flag: classification, pair or mcq")
    if task == "mcq" or answers:
        _flag_mcq(
            data,
            judgments,
            answers or [],
            output,
            min_error_score,
            question=question,
            choices=choices,
            option_columns=option_columns,
            answer_key=answer_key,
            group_col=group_col,
            id_col=id_col,
            top=top,
            task=task,
            detector=detector,
        )
        return
    from benchcheck.data.columns import Columns
    from benchcheck.labels.flags import parse_bins
    from benchcheck.report.terminal.labels import flag_renderables
    from benchcheck.runs.flag import FlagOptions, flag_rule_for, parse_judge_error, run_flag

    claim([judgments, data, pred_probs, gold], output=output)
    threshold, rule = flag_rule_for(min_error_score, flag_rule)
    options = FlagOptions(
        threshold,
        parse_bins(bins),
        names(judges),
        names(prompts),
        detector=detector,
        calibration=calibration,
        features=features,
        combination=combination,
        flag_rule=rule,
        seed=seed,
        posterior=posterior,
        budget=budget,
        target_precision=target_precision,
        judge_error=parse_judge_error(judge_error),
    )
    columns = Columns(text=text, text_a=text_a, text_b=text_b, label=label, id=id_col)

    with reporting("flag") as bar:
        run = run_flag(
            judgments,
            data,
            columns=columns,
            options=options,
            pred_probs=pred_probs,
            gold=gold,
            output=output,
            progress=bar,
        )
    emit(run.to_json(top=top), flag_renderables)


def _flag_mcq(
    data: str,
    judgments: str | None,
    answers: list[str],
    output: str | None,
    threshold: float | None,
    *,
    question: str | None,
    choices: str | None,
    option_columns: str | None,
    answer_key: str | None,
    group_col: str | None,
    id_col: str | None,
    top: int,
    task: str | None,
    detector: str = "llm",
) -> None:
    """``flag --task mcq``: the models' answers and/or the judges over multiple-choice questions.

    The detector defaults to what is given (answers, judgments or both): flag's default
    ``llm`` stands for that unless the judgments come alone.
    """
    from benchcheck.data.mcq import McqColumns
    from benchcheck.report.terminal.mcq import mcq_flag_renderables
    from benchcheck.runs.mcq_flag import run_mcq_flag

    if task != "mcq":
        raise UsageError("{answers} are read with {task} mcq")
    chosen = None if detector == "llm" and answers else detector
    cols = McqColumns(
        question=question,
        options=choices,
        option_columns=names(option_columns),
        key=answer_key,
        group=group_col,
        id=id_col,
    )
    claim([data, judgments, *answers], output=output)
    more = {} if threshold is None else {"threshold": threshold}
    run = run_mcq_flag(
        data,
        answers,
        columns=cols,
        output=output,
        judgments=judgments,
        detector=chosen if judgments is not None else (None if chosen == "llm" else chosen),
        **more,
    )
    emit(run.to_json(top=top), mcq_flag_renderables)


@command("export", group=review_app, guard=True)
def review_export(
    flags: Annotated[str, Arg("Flags file written by `benchcheck flag -o`.")],
    output: Annotated[str, "Folder for the review package."],
    experts: int = 2,
    seed: int = 1,
    sample: Annotated[int | None, "Review a seeded random subset of the flags."] = None,
    audit_sample: int = 0,
    labels: str | None = None,
    force: bool = False,
    ner: str | None = None,
    scheme: Annotated[str | None, "Force IOB1, IOB2 or BIOES when reading --ner."] = None,
    guidelines: str | None = None,
) -> None:
    """Export flagged examples for blind expert review: shuffled, no original or LLM label.

    Writes expert_a.csv, expert_b.csv, … (formula-like cells prefixed with '), Label Studio
    tasks.json + label_config.xml, Argilla 2.x argilla/settings.json + records.json, and the
    private key.jsonl (never give it to the experts). Every format shows the texts under
    the dataset's own column names with the task and what each label means, also written
    as guidelines.md (--guidelines, else a default per task). A folder that already holds
    a review (a key, expert files) is refused unless --force.

    With --ner (the CoNLL file they were flagged on), span flags (`benchcheck flag-spans
    -o`) become a Label Studio NER review instead: one task per flagged sentence, its gold
    spans pre-annotated for the reviewer to correct (tasks.json, label_config.xml,
    key.jsonl); without it each flag is reviewed as an item (the marked region's type).

    Example: benchcheck review export flags.jsonl --experts 2 --audit-sample 100 --seed 1 -o review/

    Example: benchcheck review export span_flags.jsonl --ner test.conll --seed 1 -o span_review/
    """
    from benchcheck.report.terminal.review import review_export_renderables
    from benchcheck.runs.review import run_review_export

    outputs = output_claims([flags, ner, guidelines])
    outputs.reserve(output, param="output")  # locked now; the package's own rule when written
    claim_json(outputs)
    with reporting("review export") as bar:
        res = run_review_export(
            flags,
            output,
            experts=experts,
            seed=seed,
            sample=sample,
            audit_sample=audit_sample,
            labels=csv(labels),
            force=force,
            ner=ner,
            scheme=scheme,
            guidelines=guidelines,
            progress=bar,
        )
    warn(f"replaced {what} in {res.out_dir}" for what in res.replaced)
    emit(res.to_json(), review_export_renderables)


@command("import", group=review_app, guard=True)
def review_import(
    experts: Annotated[list[str], Arg("Expert answer files (CSV, Label Studio or Argilla JSON).")],
    output: Annotated[str, "Write the gold table here."],
    reconciled: str | None = None,
    key: str | None = None,
    consensus: str = "unanimous",
    adjudicator: str | None = None,
    seed: int = 0,
) -> None:
    """Import expert labels, reconcile, and write gold labels.

    Gold = original where the LLM agrees; else the reconciled label; else the experts'
    label where they agree; else --consensus decides (default unanimous: the disagreement
    is reported as unresolved, never guessed). Any number of experts: CSV files, or Label
    Studio (JSON, JSON-MIN, CSV) and Argilla exports holding one expert per annotator.
    Each answer file must belong to the key (its review ids and content hashes); a file
    given twice, or an expert who answered nothing, is refused. With the key of a span
    review (review export --ner) the Label Studio exports give corrected spans:
    -o holds the gold span table (split, sentence, start, end exclusive, type) of every
    settled sentence; the JSON adds each span's agreement and each flag's verdict.

    Example: benchcheck review import r/expert_a.csv r/expert_b.csv --reconciled r/r.csv -o g.jsonl

    Example: benchcheck review import ls.json --key r/key.jsonl --consensus dawid-skene -o g.jsonl
    """
    from benchcheck.labels.review import KEY_NAME
    from benchcheck.report.terminal.review import review_import_notes, review_import_renderables
    from benchcheck.runs.review import run_review_import

    key_file = key if key is not None else str(Path(experts[0]).parent / KEY_NAME)
    claim([*experts, key_file, reconciled], output=output)
    with reporting("review import") as bar:
        run = run_review_import(
            experts,
            key_path=key,
            reconciled=reconciled,
            consensus=consensus,
            adjudicator=adjudicator,
            seed=seed,
            output=output,
            progress=bar,
        )
    payload = run.to_json()
    if payload.get("review") == "spans":
        from benchcheck.report.terminal.review import span_review_import_renderables

        if emit(payload, span_review_import_renderables):
            stderr(review_import_notes(payload))
    elif emit(payload, review_import_renderables):
        stderr(review_import_notes(payload))


def _rates(value: str | None) -> dict[str, float] | None:
    """Parse ``disputed=0.3,undisputed=0.02``."""
    if not value:
        return None
    rates: dict[str, float] = {}
    for item in value.split(","):
        name, sep, rate = item.partition("=")
        try:
            rates[name.strip()] = float(rate)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise UsageError(f"--anticipated expects STRATUM=RATE,…, got {value!r}")
    return rates


@command("error-rate", guard=True)
def error_rate(
    gold: Annotated[str | None, Arg("Gold file from `review import` (or give counts).")] = None,
    errors: int | None = None,
    sample: int | None = None,
    population: int | None = None,
    confidence: float = 0.95,
    method: str = "midp",
    plan: float | None = None,
    anticipated: str | None = None,
    task: Annotated[str | None, "mcq: wrong-key and any-error rates, also per group."] = None,
) -> None:
    """Error rate: the paper's lower bound and, with an audit sample, the whole dataset's.

    Lower bound: exact Clopper–Pearson interval with the finite population correction over
    the reviewed flags and the examples the LLM agrees with. With an audit sample
    (review export --audit-sample), a stratified estimate of the whole dataset's error rate
    (exact per-stratum intervals, MOVER combination) and the flags' recall.

    With --task mcq (the gold of a flag --task mcq review) the rates are of wrong keys and
    of any error (no correct option, several, unclear too), overall and per group.

    Example: benchcheck error-rate gold.jsonl --population 2500 --plan 0.02
    """
    from benchcheck.report.terminal.review import error_rate_notes, error_rate_renderables
    from benchcheck.runs.error_rate import run_error_rate

    claim([gold])
    if task not in (None, "classification", "pair", "mcq"):
        raise UsageError("{task} of error-rate: classification, pair or mcq")
    if task == "mcq":
        _error_rate_mcq(gold, errors, sample, population, confidence, method, plan)
        return
    with reporting("error-rate") as bar:
        run = run_error_rate(
            gold,
            errors=errors,
            sample=sample,
            population=population,
            confidence=confidence,
            method=method,
            plan=plan,
            anticipated=_rates(anticipated),
            progress=bar,
        )
    payload = run.to_json()
    if emit(payload, lambda p: error_rate_renderables(p, confidence)):
        stderr(error_rate_notes(payload))


def _error_rate_mcq(
    gold: str | None,
    errors: int | None,
    sample: int | None,
    population: int | None,
    confidence: float,
    method: str,
    plan: float | None,
) -> None:
    """``error-rate --task mcq``: wrong-key and any-error rates of a multiple-choice review."""
    from benchcheck.report.terminal.mcq_review import mcq_error_rate_renderables
    from benchcheck.runs.mcq_review import run_mcq_error_rate

    if gold is None or errors is not None or sample is not None or plan is not None:
        raise UsageError("{task} mcq reads a gold file (no {errors}, {sample} or {plan})")
    with reporting("error-rate") as bar:
        run = run_mcq_error_rate(
            gold, population=population, confidence=confidence, method=method, progress=bar
        )
    emit(run.to_json(), mcq_error_rate_renderables)


@command("bins", guard=True)
def bins_cmd(
    gold: Annotated[str, Arg()],
    bins: str = BINS,
    bootstrap: int = 1000,
    seed: int = 0,
    min_bin: int = 35,
) -> None:
    """Per confidence bin: share of reviewed flags where experts sided with the LLM vs original.

    Example: benchcheck bins gold.jsonl --bins 0.5,0.6,0.7,0.8,0.9,0.95,1 --bootstrap 1000 --seed 0
    """
    from benchcheck.labels.flags import parse_bins
    from benchcheck.report.terminal.labels import bins_renderables
    from benchcheck.runs.labels import run_bins

    claim([gold])
    with reporting("bins") as bar:
        run = run_bins(
            gold,
            bins=parse_bins(bins),
            bootstrap=bootstrap,
            seed=seed,
            min_bin=min_bin,
            progress=bar,
        )
    payload = run.to_json()
    shown, warnings = bins_renderables(payload)
    if emit(payload, lambda _: shown):
        warn(warnings)


@command("remedy", guard=True)
def remedy(
    data: Annotated[
        str, Arg("Training split (JSONL, CSV, TSV or Parquet); with --spans a CoNLL file.")
    ],
    output: Annotated[str, "Folder for the new splits."],
    judgments: Annotated[str | None, "Judgments file to flag with."] = None,
    flags: str | None = None,
    min_confidence: float = 0.9,
    mode: str | None = None,
    ablation: str = "random",
    seed: int = 0,
    label: str = "label",
    id_col: str | None = None,
    judges: str | None = None,
    prompts: str | None = None,
    force: bool = False,
    spans: str | None = None,
    scheme: str | None = None,
    task: Annotated[str | None, "mcq: DATA's keys corrected from the review's --gold."] = None,
    gold: Annotated[str | None, "Gold file of a flag --task mcq review (review import -o)."] = None,
) -> None:
    """Filter or flip flagged training examples, plus a random ablation of the same size.

    Writes cleaned.<ext> and ablation_random.<ext>; never modifies the input. With --spans
    (corrected spans of a span review) DATA is the CoNLL file reviewed, and --mode correct
    retags its reviewed sentences (filter removes them), written as OUTPUT/<DATA's name>.

    With --task mcq and --gold (the gold of a flag --task mcq review) DATA is the benchmark
    reviewed: it is written in its own format as OUTPUT/<DATA's name> with the experts' keys,
    the questions they found unanswerable kept (--mode correct, the default) or removed
    (--mode filter), and OUTPUT/changes.jsonl says what changed and why.

    Example: benchcheck remedy train.jsonl --flags f.jsonl --min-confidence 0.9 --mode flip -o out/
    Example: benchcheck remedy test.conll --spans corrected.csv --mode correct -o fixed/
    Example: benchcheck remedy mmlu_test.csv --task mcq --gold gold.jsonl -o fixed/
    """
    from benchcheck.labels.remedies import remedy_file_names
    from benchcheck.report.terminal.labels import remedy_renderables
    from benchcheck.runs.labels import run_remedy

    if task not in (None, "classification", "pair", "mcq"):
        raise UsageError("{task} of remedy: classification, pair or mcq")
    if (task == "mcq") != (gold is not None):
        raise UsageError("{gold} goes with {task} mcq, and {task} mcq needs it")
    if gold is not None:  # task mcq
        if judgments or flags or spans or scheme:
            raise UsageError("{task} mcq remedies from {gold}, not from flags or judgments")
        _remedy_mcq(data, gold, output, mode=mode or "correct", force=force)
        return
    mode = mode or "filter"
    if ablation != "random":
        raise UsageError(f"{{ablation}} supports 'random', got {ablation!r}")
    outputs = output_claims([data, judgments, flags, spans])
    written = [Path(data).name] if spans is not None else remedy_file_names(data)
    outputs.folder(output, param="output", names=written)
    claim_json(outputs)
    with reporting("remedy") as bar:
        run = run_remedy(
            data,
            judgments=judgments,
            flags=flags,
            min_confidence=min_confidence,
            mode=mode,
            seed=seed,
            label=label,
            id_col=id_col,
            judges=names(judges),
            prompts=names(prompts),
            output=output,
            force=force,
            spans=spans,
            scheme=scheme,
            progress=bar,
        )
    emit(run.to_json(), remedy_renderables)


@command("rerank", guard=True)
def rerank_cmd(
    gold: str,
    scores: Annotated[
        list[str] | None, "NAME=FILE with id and score (P(positive)) and/or pred."
    ] = None,
    positive: str = "1",
    cutoff: float = 0.5,
    bootstrap: int = 1000,
    seed: int = 0,
    task: Annotated[str | None, "mcq: models' --answers on the original and reviewed keys."] = None,
    answers: Annotated[list[str] | None, "Models' answers (as flag --task mcq reads)."] = None,
) -> None:
    """Score models on original and gold labels; rank change; paired bootstrap of differences.

    With --task mcq the gold of a flag --task mcq review and the models' --answers give each
    model's accuracy on the original and the reviewed keys (a question the experts found
    unanswerable is left out), the ranks, Kendall's tau, the models that moved, and a paired
    bootstrap of the gap between models next to each other in the reviewed ranking.

    Example: benchcheck rerank --gold gold.jsonl --scores gpt4=a.jsonl --scores deberta=b.jsonl
    Example: benchcheck rerank --gold gold.jsonl --task mcq --answers answers.csv
    """
    from benchcheck.report.terminal.labels import rerank_renderables
    from benchcheck.runs.labels import run_rerank

    if task not in (None, "classification", "pair", "mcq"):
        raise UsageError("{task} of rerank: classification, pair or mcq")
    if (task == "mcq") != bool(answers):
        raise UsageError("{answers} go with {task} mcq, and {task} mcq needs them")
    if task == "mcq":
        if scores:
            raise UsageError("{task} mcq re-ranks the models of {answers}, not {scores}")
        _rerank_mcq(gold, answers or [], bootstrap=bootstrap, seed=seed)
        return
    if not scores:
        raise UsageError("give at least one {scores} NAME=FILE")
    files = parse_assignments(scores, "--scores")
    claim([gold, *files.values()])
    with reporting("rerank") as bar:
        res = run_rerank(
            gold,
            files,
            positive=positive,
            cutoff=cutoff,
            bootstrap=bootstrap,
            seed=seed,
            progress=bar,
        )
    emit(res.to_json(), rerank_renderables)


def _remedy_mcq(data: str, gold: str, output: str, *, mode: str, force: bool) -> None:
    """``remedy --task mcq``: the benchmark with the reviewed keys, in its own format."""
    from benchcheck.report.terminal.mcq_review import mcq_remedy_renderables
    from benchcheck.runs.mcq_review import CHANGES_NAME, run_mcq_remedy

    outputs = output_claims([data, gold])
    outputs.folder(output, param="output", names=[Path(data).name, CHANGES_NAME])
    claim_json(outputs)
    with reporting("remedy") as bar:
        run = run_mcq_remedy(data, gold, output, mode=mode, force=force, progress=bar)
    emit(run.to_json(), mcq_remedy_renderables)


def _rerank_mcq(gold: str, answers: list[str], *, bootstrap: int, seed: int) -> None:
    """``rerank --task mcq``: the models of ``answers`` on the original and reviewed keys."""
    from benchcheck.report.terminal.mcq_review import mcq_rerank_renderables
    from benchcheck.runs.mcq_review import run_mcq_rerank

    claim([gold, *answers])
    with reporting("rerank") as bar:
        res = run_mcq_rerank(gold, answers, bootstrap=bootstrap, seed=seed, progress=bar)
    emit(res.to_json(), mcq_rerank_renderables)


@command("agreement", guard=True)
def agreement(
    source: list[str] | None = None,
    crowd: str | None = None,
    group: list[str] | None = None,
    judgments: Annotated[str | None, "Judgments: kappa across prompts / judges."] = None,
    truth: str = "gold",
    negative: str = "0",
    disagreement: str = "llm,original",
    crowd_model: str | None = None,
    alpha_level: str = "nominal",
    seed: int = 0,
) -> None:
    """Compare label sources: weighted-F1 matrix (rows = truth), Fleiss' kappa, crowd votes.

    Krippendorff's alpha (missing labels allowed) beside every Fleiss' kappa. --crowd-model
    fits a crowd model to the crowd file alone: each annotator's estimated accuracy, every
    item's posterior per label, and its labels as the source crowd_model.

    Example: benchcheck agreement --source orig=g.jsonl#label --source gold=g.jsonl --crowd c.tsv

    Example: benchcheck agreement --crowd c.tsv --crowd-model dawid-skene --json crowd.json
    """
    from benchcheck.report.terminal.labels import agreement_renderables
    from benchcheck.runs.labels import run_agreement

    specs = parse_assignments(source, "--source")
    claim([*(s.partition("#")[0] for s in specs.values()), crowd, judgments])
    pair = csv(disagreement) or []
    if len(pair) != 2:
        raise UsageError(f"{{disagreement}} expects two source names, got {disagreement!r}")
    with reporting("agreement") as bar:
        report = run_agreement(
            specs,
            crowd=crowd,
            groups={n: csv(v) or [] for n, v in parse_assignments(group, "--group").items()},
            judgments=judgments,
            truth=truth,
            negative=negative,
            disagreement=(pair[0], pair[1]),
            crowd_model=crowd_model,
            alpha_level=alpha_level,
            seed=seed,
            progress=bar,
        )
    emit(report.to_json(), lambda p: agreement_renderables(p, truth=truth))


@command("ensemble-curve", guard=True)
def ensemble_curve_cmd(
    judgments: Annotated[str, Arg()],
    gold: str,
    repeats: int = 50,
    unit: str = "member",
    positive: str | None = None,
    seed: int = 0,
) -> None:
    """ROC AUC against gold and error-detection F1 as the ensemble grows.

    Example: benchcheck ensemble-curve judgments.parquet --gold gold.jsonl --repeats 50
    """
    from benchcheck.report.terminal.labels import curve_renderables
    from benchcheck.runs.labels import run_ensemble_curve

    claim([judgments, gold])
    with reporting("ensemble-curve") as bar:
        run = run_ensemble_curve(
            judgments,
            gold,
            unit=unit,
            repeats=repeats,
            seed=seed,
            positive=positive,
            progress=bar,
        )
    emit(run.to_json(), curve_renderables)


@command("flag-spans", guard=True)
def flag_spans(
    gold: Annotated[str, Arg("Gold NER file (CoNLL), or a corpus folder of train/dev/test files.")],
    output: Annotated[str | None, "Write the span flags here."] = None,
    predictions: Annotated[
        str | None,
        "Model output: CoNLL with the same tokens, or a span table (sentence, start, end, "
        "type[, confidence]).",
    ] = None,
    spacy_model: str | None = None,
    label_map: Annotated[str | None, "MODEL=TYPE pairs, e.g. PERSON=PER,GPE=LOC,ORG=ORG."] = None,
    scheme: Annotated[str | None, "Force IOB1, IOB2 or BIOES."] = None,
    folds: int = 5,
    entity_disjoint: bool = False,
    crossweigh: int = 0,
    seed: int = 0,
    min_error_score: Annotated[
        float | None,
        "No-model path: flag disagreements with at least this error score (default 0.995 "
        "for --detector tagger, 0.5 for llm and both).",
    ] = None,
    detector: Annotated[
        str,
        "No-model path: tagger (out-of-fold CRF), llm (the CRF's candidate spans scored by "
        "the judge: P(gold wrong), two framings) or both (the two combined by --combination).",
    ] = "tagger",
    combination: Annotated[
        str, "--detector both: mean (of the two scores) or rank (mean normalised rank)."
    ] = "mean",
    verify: str = "candidates",
    judge_top: int | None = None,
    judge: Annotated[
        list[str] | None,
        "--detector llm/both: backend:model, repeatable, as for `benchcheck judge`. "
        "Default: llama-cpp (the embedded Qwen2.5-Coder-1.5B-Instruct).",
    ] = None,
    cache: str | None = None,
    no_cache: bool = False,
    concurrency: int = 8,
    base_url: str | None = JudgeSetup.base_url,
    api_key_env: str = JudgeSetup.api_key_env,
    timeout: float = JudgeSetup.timeout,
    top: int = 10,
) -> None:
    """Flag entity spans where a model disagrees with the gold span or type.

    Kinds: wrong_type, wrong_boundary, spurious_annotation (a gold span the model does not
    find), missing_annotation (a model span the gold lacks). With --predictions or --spacy
    the model is yours, ranked by its confidence when given. With neither, a CRF tagger
    trained out of fold on the file itself is the model (with --crossweigh N, each token
    scored by the less sure of the plain k-fold and N entity-disjoint ones), with a second
    member: surfaces annotated unlike their other occurrences in the file. Every candidate
    gets error_score = the noisy-or of crf_score (1 - the smallest held-out probability of a
    gold label in its region) and consistency_score (the share of the surface's other
    occurrences that disagree), ranked by it, flagged from --min-error-score. With
    --detector llm or both the judge answers, for each of the tagger's candidate spans,
    whether the gold annotation holds (llm_score = its P(gold wrong), cached like
    `benchcheck judge`), for the tagger's --judge-top highest rows; --verify all also puts
    every other gold span to the judge. The output feeds `benchcheck review export`
    unchanged.

    Example: benchcheck flag-spans test.conll --predictions pred.conll -o span_flags.jsonl

    Example: benchcheck flag-spans train.conll --folds 5 --seed 0 -o span_flags.jsonl

    Example: benchcheck flag-spans conll2003/ -o span_flags.jsonl   (every split: one
    tagger over the corpus, each flag with its split, file, line and document)

    Example: benchcheck flag-spans test.conll --detector both -o span_flags.jsonl

    Example: benchcheck flag-spans test.conll --detector llm --verify all -o span_flags.jsonl
    """
    from benchcheck.labels.ner_judge import VERIFY
    from benchcheck.report.terminal.labels import span_flag_renderables
    from benchcheck.runs.flag_spans import DETECTORS, run_flag_spans

    if detector not in DETECTORS:
        raise UsageError(f"{{detector}}: expected tagger, llm or both, got {detector!r}")
    if verify not in VERIFY:
        raise UsageError(f"{{verify}}: expected candidates or all, got {verify!r}")
    if detector == "tagger":
        judged = {"judge": judge, "cache": cache, "base_url": base_url, "no_cache": no_cache}
        used = [k for k, v in judged.items() if v]
        if combination != "mean":
            used.append("combination")
        if verify != "candidates":
            used.append("verify")
        if used:
            raise UsageError(f"{{{used[0]}}} is for --detector llm or both")
    claim([gold, predictions, cache], output=output)
    setup = JudgeSetup.from_options(
        judge,
        no_cache=no_cache,
        base_url=base_url,
        concurrency=concurrency,
        api_key_env=api_key_env,
        timeout=timeout,
        cache=cache,
    )

    with reporting("flag-spans") as bar:
        run = run_flag_spans(
            gold,
            predictions=predictions,
            spacy_model=spacy_model,
            label_map=label_map,
            scheme=scheme,
            output=output,
            folds=folds,
            seed=seed,
            entity_disjoint=entity_disjoint,
            crossweigh=crossweigh,
            min_error_score=min_error_score,
            detector=detector,
            setup=setup,
            combination=combination,
            verify=verify,
            judge_top=judge_top,
            progress=bar,
        )
    emit(run.to_json(top=top), span_flag_renderables)
