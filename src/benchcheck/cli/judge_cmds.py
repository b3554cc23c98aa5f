"""``benchcheck judge``: label probabilities from local and served language models."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli import _options as opt
from benchcheck.cli._app import console, console_err
from benchcheck.cli._common import claim, command, write_json
from benchcheck.data.columns import Columns
from benchcheck.errors import UsageError


@command("judge")
@opt.with_columns
def judge(
    data: Annotated[str, opt.arg("The examples to judge: JSONL, CSV, TSV or Parquet.")],
    output: Annotated[str, opt.out("Judgements file: .parquet or .jsonl.")] = "judgments.parquet",
    judges: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            help="backend:model, repeatable (llama-cpp, openai, transformers, nli, vllm). "
            "Default: llama-cpp with the offline bundle's Qwen2.5-Coder-1.5B-Instruct.",
        ),
    ] = None,
    prompts: Annotated[
        str | None,
        typer.Option(
            "--prompts",
            help="name,name,... or 'all' (the four binary framings). Default: nli,document "
            "(chosen by benchmarks/detect_bench.py), or every template of --prompt-file.",
        ),
    ] = None,
    prompt_file: Annotated[
        str | None, typer.Option("--prompt-file", help="User templates (TOML, [prompts.NAME]).")
    ] = None,
    verbalisers: Annotated[
        str | None, typer.Option("--verbalisers", help="Answer tokens per label, e.g. 'no,yes'.")
    ] = None,
    columns: Columns = opt.DEFAULT_COLUMNS,  # the five column options (opt.with_columns)
    cache: opt.CacheOpt = None,
    no_cache: opt.NoCacheOpt = False,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Requests in flight (openai).")
    ] = 8,
    base_url: opt.BaseUrlOpt = None,
    api_key_env: Annotated[
        str, typer.Option("--api-key-env", help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", help="Seconds per request (openai): connect, reads and the whole answer."
        ),
    ] = 60.0,
    price: Annotated[
        float | None,
        typer.Option("--price-per-1k-tokens", help="Price per 1000 prompt tokens, for the cost."),
    ] = None,
    json_path: opt.JsonOpt = None,
    engine: Annotated[
        str, typer.Option("--engine", help="embedded, or ray (judge actors via Ray Data).")
    ] = "embedded",
    address: opt.AddressOpt = None,
    actors: Annotated[
        int, typer.Option("--actors", min=1, help="Judge actors with --engine ray.")
    ] = 1,
    content_free: Annotated[
        bool,
        typer.Option(
            "--content-free/--no-content-free",
            help="Also judge the content-free inputs 'N/A', '' and '[MASK]' (3 rows per "
            "judge × prompt) for `benchcheck flag --calibration contextual`.",
        ),
    ] = True,
    force: opt.ForceOpt = False,
) -> None:
    """Score every example with every judge and prompt; write one row per triple.

    Reads label-token log-probabilities from one forward pass (never generated text);
    results are cached and a killed run resumes where it stopped.

    Example: benchcheck judge data.jsonl --text-a grounding --text-b generated_text
    -o judgments.parquet
    """
    from benchcheck.engine import ENGINES
    from benchcheck.report.terminal.judge import judge_summary
    from benchcheck.report.terminal.progress import progress_bar
    from benchcheck.runs.judge import JudgeSetup, run_judge

    out_path = Path(output)
    if out_path.suffix.lower() not in (".parquet", ".jsonl"):
        raise UsageError(f"{{output}} must end in .parquet or .jsonl, got {output!r}")
    if engine not in ENGINES:
        raise UsageError(f"{{engine}}: expected embedded or ray, got {engine!r}")
    claim([data, prompt_file, cache], force, json_path, output=out_path)
    setup = JudgeSetup(
        tuple(judges or ["llama-cpp"]),
        base_url=base_url,
        concurrency=concurrency,
        api_key_env=api_key_env,
        timeout=timeout,
        cache=cache,
        use_cache=not no_cache,
        engine=engine,
        address=address,
        actors=actors,
    )
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
            content_free=content_free,
        )
    run.write(out_path)
    payload = run.to_json(output=str(out_path))
    shown = console_err if json_path == "-" else console  # keep stdout pure JSON with --json -
    shown.print(judge_summary(payload), highlight=False)
    write_json(payload, json_path)
