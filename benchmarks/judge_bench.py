"""Speed of the 4-prompt llama.cpp judge ensemble against its limit and a naive path.

On N paragraph-length (grounding, generated text) pairs, measured in one run:

1. ``ensemble``: ``judge_frame`` with the four binary framings, cold SQLite cache
   (chunked KV-prefix reuse, one forward pass per prompt, no sampling);
2. ``raw limit``: the engine's prompt-processing throughput on exactly the same token
   sequences, each evaluated from an empty KV cache in one batch; converted to the
   examples/s the ensemble would reach if it spent all its time processing prompts;
3. ``naive``: ``Llama.create_chat_completion(max_tokens=2, temperature=0)`` per prompt,
   then parsing the digit out of the generated text (what a quick script would do);
4. ``cached``: the same ``judge_frame`` call again, served entirely from the cache.

Targets (issue 3): ensemble >= 90% of the raw limit, >= 3x naive, cached >= 100x faster.

``--batch-curve`` also prints the engine's prompt-processing rate by batch size on the same
tokens: on a CPU it flattens from about 64 tokens on, which bounds what batching several
prompts into one decode could gain.
Ratios are given on wall time and on process CPU time (robust to other processes on a
shared machine; with one thread CPU time is the wall time a quiet machine would show).

    python benchmarks/judge_bench.py --n 8 --model qwen2.5-coder-0.5b-instruct

``--batch-size`` smaller than 4 x n (e.g. ``--n 32 --batch-size 32``) shows the queue
order: judge_frame queues requests grounding-major, so each example's grounding is
evaluated once however the requests are cut into batches (``tokens_evaluated_per_prompt``);
``--paths ensemble`` skips the raw-limit and naive paths (run against the code before and
after a change, in the same load, with ``PYTHONPATH`` pointing at each).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
import time
from pathlib import Path

import polars as pl

from benchcheck.judges.cache import JudgeCache
from benchcheck.judges.llama_cpp import LlamaCppJudge
from benchcheck.judges.prompts import select_prompts
from benchcheck.judges.run import judge_frame

SUBJECTS = [
    "The council",
    "The museum",
    "A local bakery",
    "The ferry company",
    "The school",
    "The hospital",
    "A cycling club",
    "The library",
    "The orchestra",
    "The harbour",
]
VERBS = ["announced", "confirmed", "reported", "denied", "postponed", "celebrated"]
OBJECTS = [
    "a new timetable",
    "record visitor numbers",
    "a budget cut",
    "the opening of a wing",
    "a partnership with two villages",
    "repairs to the roof",
    "a drop in costs",
    "plans for a summer festival",
    "the hiring of twelve staff",
    "a longer season",
]
WHEN = [
    "on Monday",
    "last week",
    "in March",
    "after a long debate",
    "before the holidays",
    "at a public meeting",
    "in its annual report",
    "despite heavy rain",
]


def make_pairs(n: int, *, seed: int = 0, sentences: int = 6) -> pl.DataFrame:
    """Paragraph-length groundings (~80-100 words) and one-sentence generated texts."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        facts = [
            (rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(WHEN))
            for _ in range(sentences)
        ]
        grounding = " ".join(f"{s} {v} {o} {w}." for s, v, o, w in facts)
        s, v, o, w = rng.choice(facts)
        if i % 2:
            o = rng.choice([x for x in OBJECTS if x != o])
        rows.append({"id": f"b{i}", "text_a": grounding, "text_b": f"{s} {v} {o} {w}."})
    return pl.DataFrame(rows)


def batch_curve(judge: LlamaCppJudge, tokens: list[int], total: int = 512) -> dict[int, float]:
    """Prompt-processing tokens/s when ``total`` tokens are evaluated in batches of b."""
    llm, tokens = judge.llm, tokens[:total]
    curve = {}
    for b in (8, 16, 32, 64, 128, 256, 512):
        llm.reset()
        start = time.perf_counter()
        for s in range(0, len(tokens), b):
            llm.eval(tokens[s : s + b])
        curve[b] = round(len(tokens) / (time.perf_counter() - start), 1)
    return curve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--batch-curve", action="store_true")
    ap.add_argument(
        "--batch-size",
        type=int,
        default=256,
        help="judge_frame's batch size (smaller than n x 4 shows the queue order's effect)",
    )
    ap.add_argument(
        "--paths",
        default="raw,ensemble,cached,naive",
        help="which of raw, ensemble, cached, naive to run (ensemble is always run)",
    )
    args = ap.parse_args()
    paths = set(args.paths.split(","))

    frame = make_pairs(args.n)
    prompts = select_prompts("all")
    judge = LlamaCppJudge(args.model, n_threads=args.threads)
    llm = judge.llm
    requests = [p.render(ex) for p in prompts for ex in frame.select("text_a", "text_b").to_dicts()]
    token_lists = [judge.prompt_tokens(r) for r in requests]
    total_tokens = sum(map(len, token_lists))

    # 2. raw prompt-processing limit on the same tokens, each from an empty KV cache
    raw_seconds = raw_cpu = raw_tok_s = float("nan")
    if "raw" in paths:
        start, cpu0 = time.perf_counter(), time.process_time()
        for toks in token_lists:
            llm.reset()
            llm.eval(toks)
            judge.last_logits()
        raw_seconds = time.perf_counter() - start
        raw_cpu = time.process_time() - cpu0
        raw_tok_s = total_tokens / raw_seconds

    # 1. the ensemble through the library entry point, cold cache
    with tempfile.TemporaryDirectory() as tmp:
        cache = JudgeCache(Path(tmp) / "bench.sqlite")
        llm.reset()
        before = judge.tokens_evaluated
        start, cpu0 = time.perf_counter(), time.process_time()
        first = judge_frame(frame, [judge], prompts, cache=cache, batch_size=args.batch_size)
        ens_seconds = time.perf_counter() - start
        ens_cpu = time.process_time() - cpu0
        evaluated = judge.tokens_evaluated - before
        # 4. the same call again: everything from the cache
        start = time.perf_counter()
        again = judge_frame(frame, [judge], prompts, cache=cache)
        cached_seconds = time.perf_counter() - start
        assert again["cached"].all() and again.height == first.height
        cache.close()

    # 3. naive: generate text, parse the digit
    naive_seconds = naive_cpu = float("nan")
    parsed = 0
    if "naive" in paths:
        llm.reset()
        start, cpu0 = time.perf_counter(), time.process_time()
        for req in requests:
            out = llm.create_chat_completion(messages=req.messages(), max_tokens=2, temperature=0.0)
            text = out["choices"][0]["message"]["content"] or ""
            parsed += bool(re.search(r"[01]", text))
        naive_seconds = time.perf_counter() - start
        naive_cpu = time.process_time() - cpu0

    curve = (
        batch_curve(judge, [t for toks in token_lists for t in toks]) if args.batch_curve else {}
    )

    n = args.n
    result = {
        "model": args.model,
        "threads": judge.n_threads,
        "n_examples": n,
        "n_prompts": len(prompts),
        "prompt_tokens": total_tokens,
        "tokens_evaluated_by_ensemble": evaluated,
        "raw_tokens_per_s": round(raw_tok_s, 1),
        "raw_limit_examples_per_s": round(n / raw_seconds, 3),
        "ensemble_examples_per_s": round(n / ens_seconds, 3),
        "ensemble_prompts_per_s": round(n * len(prompts) / ens_seconds, 3),
        "ensemble_cpu_s_per_prompt": round(ens_cpu / (n * len(prompts)), 4),
        "tokens_evaluated_per_prompt": round(evaluated / (n * len(prompts)), 1),
        "batch_size": args.batch_size,
        "naive_examples_per_s": round(n / naive_seconds, 3),
        "naive_parsed_answers": f"{parsed}/{len(requests)}",
        "cached_examples_per_s": round(n / cached_seconds, 1),
        "ensemble_vs_raw_limit": round(raw_seconds / ens_seconds, 3),
        "ensemble_vs_naive": round(naive_seconds / ens_seconds, 2),
        "cached_speedup": round(ens_seconds / cached_seconds, 1),
        # CPU seconds are robust to other processes on a shared machine (1 thread: CPU ~ wall)
        "cpu_s_raw_ensemble_naive": [round(raw_cpu, 1), round(ens_cpu, 1), round(naive_cpu, 1)],
        "cpu_ensemble_vs_raw_limit": round(raw_cpu / ens_cpu, 3),
        "cpu_ensemble_vs_naive": round(naive_cpu / ens_cpu, 2),
    }
    if curve:
        result["tokens_per_s_by_batch"] = curve
    for k, v in result.items():
        print(f"{k:32s} {v}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
