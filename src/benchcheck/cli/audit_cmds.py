"""``benchcheck audit``: parse the options, run :func:`benchcheck.runs.audit.run_audit`.

:func:`benchcheck.runs.audit.audit_inputs` turns the options into
:class:`~benchcheck.runs.audit.AuditInputs`; the run runs the sections, writes the report
folder and evaluates the ``--fail-on`` gates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchcheck.cli._common import (
    claim_json,
    command,
    emit,
    exit_with,
    output_claims,
    parse_assignments,
    parse_scores,
    reporting,
    show_gates,
    warn,
)
from benchcheck.cli._options import Arg
from benchcheck.data.columns import Columns
from benchcheck.data.mcq import McqColumns
from benchcheck.errors import UsageError
from benchcheck.io.formats import NerOptions
from benchcheck.runs.audit import LABEL_ERROR_SECONDS
from benchcheck.runs.judging import JudgeSetup
from benchcheck.runs.leakage import LeakageOptions

#: The help panels of audit's options (a test holds that every option is in one).
PANELS = {
    "Inputs": ("data", "split", "columns", "predictions", "compare", "matrix", "scores"),
    "Reading (NER)": ("scheme", "strict", "ner"),
    "Multiple choice": ("task", "answers", "mcq"),
    "Label errors": ("min_error_score", "gold", "precision", "error_rate", "label_error_seconds"),
    "Judges": ("judge", "no_judge", "base_url", "api_key_env", "timeout", "prompts"),
    "Contamination": (
        "corpus",
        "contamination",
        "text_column",
        "test_column",
        "corpus_id_column",
        "batch_mb",
    ),
    "Gates": ("baseline", "fail_on"),
    "Output": ("output", "seed", "json_out", "force"),
}


@command("audit", panels=PANELS)
def audit(
    data: Annotated[str | None, Arg()] = None,
    output: Annotated[Path, "Report folder (results.json and more)."] = Path("report"),
    split: list[str] | None = None,
    scheme: str | None = None,
    strict: bool = False,
    ner: NerOptions = NerOptions(),
    scores: Annotated[str | None, "NER: comma-separated model scores (Eq. 7)."] = None,
    predictions: Annotated[
        list[str] | None,
        "NAME=FILE: NER test predictions (CoNLL), or a model's predictions on a diagnostic suite.",
    ] = None,
    compare: list[str] | None = None,
    columns: Columns = Columns(),
    judge: str = "llama-cpp",
    no_judge: bool = False,
    base_url: str | None = JudgeSetup.base_url,
    api_key_env: str = JudgeSetup.api_key_env,
    timeout: float = JudgeSetup.timeout,
    prompts: Annotated[
        str | None,
        "Prompt framings: 'all' or names, e.g. nli,document "
        "(default: the judges' audit set, two framings, to keep audit fast).",
    ] = None,
    min_error_score: float | None = None,
    seed: int = 0,
    matrix: str | None = None,
    gold: Annotated[
        str | None,
        "Gold labels (review import -o): error rate, expert agreement per bin, ensemble "
        "curve, and the leaderboard under noise.",
    ] = None,
    precision: str | None = None,
    error_rate: str | None = None,
    baseline: str | None = None,
    corpus: Annotated[
        list[str] | None,
        "Corpus shards (Parquet, JSON lines, .gz/.zst): glob (quote it), file or folder; "
        "repeatable. Adds the contamination section: the table's items (or the NER test "
        "split's instances) against the corpus, and with --predictions each model's score on "
        "the clean and dirty items (NER: sentence exact match).",
    ] = None,
    contamination: LeakageOptions = LeakageOptions(),
    text_column: Annotated[str, "Text column of the corpus."] = "text",
    test_column: Annotated[
        str | None,
        "Column of the table checked against --corpus (default: --text, or --text-a of a pair "
        "file).",
    ] = None,
    corpus_id_column: str | None = None,
    batch_mb: int = 32,
    label_error_seconds: float = LABEL_ERROR_SECONDS,
    task: Annotated[
        str | None,
        "mcq: DATA is a multiple-choice benchmark (structure, near-duplicate questions, and "
        "with --answers the keys the models dispute).",
    ] = None,
    answers: list[str] | None = None,
    mcq: McqColumns = McqColumns(),
    fail_on: str | None = None,
    force: bool = False,
) -> None:
    """Run every analysis that applies to a dataset and write a report folder.

    With no DATA, audits the bundled samples: NER statistics, label-error flags on the pair
    sample with the embedded judge, and the diagnostic suite with a baseline's predictions
    (offline, no server, no API key). The folder gets results.json, report.html, report.md
    and flagged.csv/.jsonl.

    With --predictions NAME=FILE on a classification/pair file (or --matrix), the audit adds
    the item analysis and, with two or more models and --gold/--precision/--error-rate or
    the judge's flags, the leaderboard under label noise; --baseline adds the diff against
    an earlier results.json, and --fail-on exits 1 when a gate holds.

    --judge openai:MODEL with --base-url scores on any OpenAI-compatible server (vLLM,
    llama.cpp's server, a hosted API), as in benchcheck judge.

    NER files are read with the reading options of benchcheck stats (--format, --overlaps,
    --instances, --split-by-list, ...). --corpus adds the contamination section of
    benchcheck leakage (same options and defaults; the bootstrap takes --seed) on a
    classification or pair file, or on a NER dataset's test split.

    Example: benchcheck audit -o report/
    Example: benchcheck audit conll2003/ -o report/
    Example: benchcheck audit data/mnbm.jsonl --text-a grounding --text-b generated_text -o report/
    Example: benchcheck audit cdr.pubtator --split-by-list test=test.txt --overlaps keep-longest
    Example: benchcheck audit t.jsonl --text text --corpus 'c/*.jsonl.zst' --predictions a=a.jsonl
    Example: benchcheck audit mmlu_test.csv --task mcq --answers answers.csv -o report/
    """
    from benchcheck.runs.audit import (
        REPORT_FILES,
        ContaminationInput,
        JudgeInput,
        audit_inputs,
        run_audit,
        terminal_summary,
    )

    leak = None
    if corpus:
        leak = ContaminationInput(
            tuple(corpus),
            contamination,
            text_column=text_column,
            test_column=test_column,
            corpus_id_column=corpus_id_column,
            batch_mb=batch_mb,
        )
    elif contamination != LeakageOptions() or (
        text_column,
        test_column,
        corpus_id_column,
        batch_mb,
    ) != ("text", None, None, 32):
        raise UsageError("the contamination options need {corpus}")

    setup = JudgeSetup((judge,), base_url=base_url, api_key_env=api_key_env, timeout=timeout)
    inp = audit_inputs(
        data,
        splits=parse_assignments(split, "--split"),
        predictions=parse_assignments(predictions, "--predictions"),
        scores=parse_scores(scores),
        columns=columns,
        scheme=scheme,
        strict=strict,
        compare=parse_assignments(compare, "--compare"),
        judge=None if no_judge else JudgeInput(setup, prompts, min_error_score),
        matrix=matrix,
        gold=gold,
        precision=precision,
        error_rate=error_rate,
        baseline=baseline,
        seed=seed,
        reading=ner,
        contamination=leak,
        label_error_seconds=label_error_seconds,
        task=task,
        answers=tuple(answers or ()),
        mcq_columns=mcq,
    )
    outputs = output_claims(inp.paths())  # checked before the (long) audit
    outputs.folder(output, param="output", names=REPORT_FILES)
    claim_json(outputs)
    with reporting("judging") as bar:
        report = run_audit(inp, progress=bar, output=output, force=force, fail_on=fail_on)
    emit(report.to_json(), lambda _: terminal_summary(report), highlight=False)
    warn(report.unavailable)
    show_gates(report.gates)
    exit_with(report)
