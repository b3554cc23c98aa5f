"""``benchcheck judge``: label probabilities from local and served language models."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from benchcheck.cli._app import app, console, console_err
from benchcheck.cli._common import ForceOpt, write_json
from benchcheck.errors import UsageError
from benchcheck.io.output import Outputs, atomic_file


@app.command("judge")
def judge(
    data: Annotated[str, typer.Argument(help="The examples to judge: JSONL, CSV, TSV or Parquet.")],
    output: Annotated[
        str, typer.Option("-o", "--output", help="Judgements file: .parquet or .jsonl.")
    ] = "judgments.parquet",
    judges: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            help="backend:model, repeatable (llama-cpp, openai, transformers, nli, vllm). "
            "Default: llama-cpp with the offline bundle's Qwen2.5-Coder-1.5B-Instruct.",
        ),
    ] = None,
    prompts: Annotated[
        str, typer.Option("--prompts", help="'all' (the four binary framings) or name,name,...")
    ] = "all",
    prompt_file: Annotated[
        str | None, typer.Option("--prompt-file", help="User templates (TOML, [prompts.NAME]).")
    ] = None,
    verbalisers: Annotated[
        str | None, typer.Option("--verbalisers", help="Answer tokens per label, e.g. 'no,yes'.")
    ] = None,
    text: Annotated[str | None, typer.Option("--text", help="Text column.")] = None,
    text_a: Annotated[
        str | None, typer.Option("--text-a", help="First text column (grounding).")
    ] = None,
    text_b: Annotated[
        str | None, typer.Option("--text-b", help="Second text column (generated text).")
    ] = None,
    label: Annotated[str | None, typer.Option("--label", help="Label column (kept).")] = None,
    id_col: Annotated[str | None, typer.Option("--id", help="Id column.")] = None,
    cache: Annotated[
        str | None,
        typer.Option("--cache", help="SQLite cache (default: under the user cache dir)."),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write a cache.")] = (
        False
    ),
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Requests in flight (openai).")
    ] = 8,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible server, e.g. .../v1.")
    ] = None,
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
    json_path: Annotated[
        str | None, typer.Option("--json", help="Write the run summary as JSON ('-' = stdout).")
    ] = None,
    engine: Annotated[
        str, typer.Option("--engine", help="embedded, or ray (judge actors via Ray Data).")
    ] = "embedded",
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster address (default: local).")
    ] = None,
    actors: Annotated[
        int, typer.Option("--actors", min=1, help="Judge actors with --engine ray.")
    ] = 1,
    force: ForceOpt = False,
) -> None:
    """Score every example with every judge and prompt; write one row per triple.

    Reads label-token log-probabilities from one forward pass (never generated text);
    results are cached and a killed run resumes where it stopped.

    Example: benchcheck judge data.jsonl --text-a grounding --text-b generated_text
    --prompts all -o judgments.parquet
    """
    from benchcheck.engine import ENGINES
    from benchcheck.io.tables import read_table
    from benchcheck.judges.base import Judge
    from benchcheck.judges.cache import JudgeCache, default_cache_path
    from benchcheck.judges.prompts import load_prompt_file, select_prompts
    from benchcheck.judges.run import judge_frame, make_judge, summarise

    out_path = Path(output)
    if out_path.suffix.lower() not in (".parquet", ".jsonl"):
        raise UsageError(f"{{output}} must end in .parquet or .jsonl, got {output!r}")
    outputs = Outputs([data, prompt_file, cache], force=force)
    outputs.file(out_path, param="output")
    outputs.file(json_path, param="json")
    if engine not in ENGINES:
        raise UsageError(f"--engine: expected embedded or ray, got {engine!r}")
    frame = read_table(data, text=text, text_a=text_a, text_b=text_b, label=label, id=id_col)
    extra = load_prompt_file(prompt_file) if prompt_file else None
    verb = [v.strip() for v in verbalisers.split(",")] if verbalisers else None
    templates = select_prompts(prompts, extra=extra, verbalisers=verb)
    store = None if no_cache else JudgeCache(cache or default_cache_path())
    built: list[Judge] = []
    try:
        for spec in judges or ["llama-cpp"]:
            console_err.print(f"loading judge {spec} ...", highlight=False)
            if engine == "ray":  # same cache semantics: RayJudge is a Judge like any other
                from benchcheck.engine.ray_judge import RayJudge

                built.append(RayJudge(spec, actors=actors, address=address))
            else:
                made = make_judge(
                    spec, base_url=base_url, concurrency=concurrency, api_key_env=api_key_env
                )
                if hasattr(made, "set_timeout"):  # a remote judge: bound each request
                    made.set_timeout(timeout)
                built.append(made)
        start = time.perf_counter()
        result = _run_with_progress(frame, built, templates, store, judge_frame)
        wall = time.perf_counter() - start
    finally:
        for j in built:
            j.close()
        if store is not None:
            store.close()
    if label is not None and "label" in frame.columns:
        result = result.join(frame.select("id", "label"), on="id", how="left")
    with atomic_file(out_path) as tmp:
        if out_path.suffix.lower() == ".parquet":
            result.write_parquet(tmp)
        else:
            result.write_ndjson(tmp)
    summary = summarise(result, price_per_1k_tokens=price)
    rate = summary.n_computed / wall if wall > 0 else float("nan")
    cost = "" if summary.cost is None else f", cost {summary.cost:.4f}"
    shown = console_err if json_path == "-" else console  # keep stdout pure JSON with --json -
    shown.print(
        f"wrote {result.height} judgements to {out_path} ({summary.n_computed} computed, "
        f"{summary.n_cached} from cache); {summary.prompt_tokens} prompt tokens, "
        f"{summary.seconds:.1f} s judge time, {wall:.1f} s wall, {rate:.2f} judgements/s{cost}",
        highlight=False,
    )
    write_json(
        {
            "command": "judge",
            "output": str(out_path),
            "judges": sorted(set(result["judge"].to_list())),
            "prompts": [t.name for t in templates],
            "rows": summary.n_rows,
            "computed": summary.n_computed,
            "cached": summary.n_cached,
            "prompt_tokens": summary.prompt_tokens,
            "judge_seconds": summary.seconds,
            "wall_seconds": wall,
            "price_per_1k_tokens": price,
            "cost": summary.cost,
            "cache": None if store is None else str(store.path),
        },
        json_path,
    )


def _run_with_progress(frame, built, templates, store, judge_frame):  # type: ignore[no-untyped-def]
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    class _Rate(TextColumn):
        def __init__(self) -> None:
            super().__init__("")

        def render(self, task):  # type: ignore[no-untyped-def]
            from rich.text import Text

            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:.2f}/s")

    columns = (
        TextColumn("judging"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        _Rate(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console_err, transient=False) as bar:
        task = bar.add_task("judge", total=None)
        started = False

        def progress(done: int, total: int) -> None:
            nonlocal started
            if not started:
                # cache hits arrive first: count them as done without a rate
                bar.reset(task, total=total, completed=done)
                started = True
            bar.update(task, completed=done, total=total)

        return judge_frame(frame, built, templates, cache=store, progress=progress)
