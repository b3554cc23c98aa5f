"""``benchcheck judge``: label probabilities from local and served language models."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchcheck.cli._app import console_err
from benchcheck.cli._common import claim, command, emit, stderr
from benchcheck.cli._options import Arg
from benchcheck.data.columns import Columns
from benchcheck.data.mcq import McqColumns
from benchcheck.errors import UsageError
from benchcheck.runs.judging import JudgeSetup


@command("judge")
def judge(
    data: Annotated[str, Arg("The examples to judge: JSONL, CSV, TSV or Parquet.")],
    output: Annotated[str, "Judgements file: .parquet or .jsonl."] = "judgments.parquet",
    judge: Annotated[
        list[str] | None,
        "backend:model, repeatable (llama-cpp, openai, transformers, nli, vllm). "
        "Default: llama-cpp with the offline bundle's model (Qwen2.5 Coder 1.5B Instruct).",
    ] = None,
    prompts: Annotated[
        str | None,
        "name,name,... or 'all' (the four binary framings). Default: nli,document "
        "(the best pair in the detection benchmark), or every template of --prompt-file.",
    ] = None,
    prompt_file: str | None = None,
    verbalisers: str | None = None,
    columns: Columns = Columns(),
    cache: str | None = None,
    no_cache: bool = False,
    concurrency: int = 8,
    base_url: str | None = JudgeSetup.base_url,
    api_key_env: str = JudgeSetup.api_key_env,
    timeout: float = JudgeSetup.timeout,
    price: float | None = None,
    json_out: str | None = None,
    engine: Annotated[str, "embedded, or ray (judge actors via Ray Data)."] = "embedded",
    address: str | None = None,
    actors: int = 1,
    no_content_free: bool = False,
    task: Annotated[
        str | None,
        "mcq: DATA is multiple-choice questions; each judge gives P(option) from the letters.",
    ] = None,
    mcq: McqColumns = McqColumns(),
    rotations: Annotated[
        int | None,
        "mcq: ask each question this many times with its options cyclically shifted and "
        "average P(option) (default: as many as it has options; 1: the original order).",
    ] = None,
) -> None:
    """Score every example with every judge and prompt; write one row per triple.

    Reads label-token log-probabilities from one forward pass (never generated text);
    results are cached and a killed run resumes where it stopped.

    With --task mcq each question is asked with its lettered options and each judge's
    P(option) read from the letters' log-probabilities, averaged over cyclic shifts of the
    options (position-bias debiasing); benchcheck flag --task mcq reads the judgments.

    Example: benchcheck judge data.jsonl --text-a grounding --text-b generated_text
    -o judgments.parquet

    Example: benchcheck judge mmlu_test.csv --task mcq -o mcq_judgments.parquet
    """
    from benchcheck.engine import ENGINES
    from benchcheck.report.terminal.judge import judge_summary
    from benchcheck.report.terminal.progress import progress_bar
    from benchcheck.runs.judge import run_judge

    out_path = Path(output)
    if out_path.suffix.lower() not in (".parquet", ".jsonl"):
        raise UsageError(f"{{output}} must end in .parquet or .jsonl, got {output!r}")
    if engine not in ENGINES:
        raise UsageError(f"{{engine}}: expected embedded or ray, got {engine!r}")
    claim([data, prompt_file, cache], output=out_path)
    setup = JudgeSetup.from_options(
        judge,
        no_cache=no_cache,
        base_url=base_url,
        concurrency=concurrency,
        api_key_env=api_key_env,
        timeout=timeout,
        cache=cache,
        engine=engine,
        address=address,
        actors=actors,
    )
    if task not in (None, "mcq"):
        raise UsageError(
            f"{{task}} of judge: mcq (other data are read by their columns), got {task!r}"
        )
    if task is None and (rotations is not None or mcq != McqColumns()):
        raise UsageError("{rotations} and the multiple-choice columns need {task} mcq")
    if task == "mcq":
        _judge_mcq(data, output, setup, mcq, id_col=columns.id, rotations=rotations)
        return
    with progress_bar(console_err) as bar:
        run = run_judge(
            data,
            columns=columns,
            setup=setup,
            prompts=prompts,
            prompt_file=prompt_file,
            verbalisers=[v.strip() for v in verbalisers.split(",")] if verbalisers else None,
            price_per_1k_tokens=price,
            progress=bar,
            on_build=lambda spec: console_err.print(f"loading judge {spec} ...", highlight=False),
            content_free=not no_content_free,
            output=output,
        )
    payload = run.to_json()
    if not emit(payload, lambda p: [judge_summary(p)], highlight=False):
        stderr([judge_summary(payload)], highlight=False)  # stdout holds the JSON alone


def _judge_mcq(
    data: str,
    output: str,
    setup: JudgeSetup,
    mcq: McqColumns,
    *,
    id_col: str | None,
    rotations: int | None,
) -> None:
    """``judge --task mcq``: each judge's P(option), debiased over cyclic option shifts."""
    from benchcheck.report.terminal.labels import key_value_table
    from benchcheck.report.terminal.progress import progress_bar
    from benchcheck.runs.mcq_judge import run_mcq_judge

    cols = McqColumns(
        question=mcq.question,
        options=mcq.options,
        option_columns=mcq.option_columns,
        key=mcq.key,
        group=mcq.group,
        id=id_col,
    )
    with progress_bar(console_err) as bar:
        run = run_mcq_judge(
            data, columns=cols, setup=setup, rotations=rotations, progress=bar, output=output
        )
    emit(run.to_json(), lambda p: [key_value_table("Multiple-choice judgments", p)])
