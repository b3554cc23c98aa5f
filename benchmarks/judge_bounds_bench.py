"""How long one hostile answer holds the OpenAI judge, and how much memory it costs.

Against the loopback fault server of the tests (``tests/judges/judges_fault_server.py``):

1. ``trickle``: a valid answer sent one byte every ``--trickle`` seconds (no single read
   is slow), the judge's timeout ``--timeout``, no retry: wall seconds of the request;
2. ``huge``: an answer padded to ``--huge-mb`` megabytes: wall seconds and the peak RSS of
   a fresh process that makes the one request.

Each runs with the judge as shipped (``new``) and, with ``--old REV``, the judge module of
that git revision loaded from ``git show REV:src/benchcheck/judges/openai_api.py`` (the
code before the bounds). Every case runs in its own process.

    python benchmarks/judge_bounds_bench.py --old d29de31 --huge-mb 300 --trickle 0.02
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CASE = r"""
import importlib.util, json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from judges_fault_server import FaultServer
impl, action, timeout, trickle, huge_mb, old_file = sys.argv[2:8]
if impl == "old":
    spec = importlib.util.spec_from_file_location("old_openai", old_file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    Judge = mod.OpenAIJudge
else:
    from benchcheck.judges.openai_api import OpenAIJudge as Judge
from benchcheck.judges.prompts import BUILTIN_PROMPTS
req = BUILTIN_PROMPTS["grounding"].render({"text_a": "g", "text_b": "c"})
server = FaultServer([action], trickle_seconds=float(trickle),
                     huge_bytes=int(float(huge_mb) * 2**20))
with server:
    judge = Judge("m", base_url=server.base_url, timeout=float(timeout), max_retries=0)
    start = time.perf_counter()
    try:
        judge.score([req])
        outcome = "answered"
    except Exception as exc:
        outcome = type(exc).__name__ + ": " + str(exc)[:120]
    wall = time.perf_counter() - start
print(json.dumps({"wall_s": round(wall, 2), "outcome": outcome,
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", help="git revision of the judge before the bounds")
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--trickle", type=float, default=0.02)
    parser.add_argument("--huge-mb", type=float, default=300.0)
    args = parser.parse_args()
    old_file = ROOT / "benchmarks" / "_data" / "old_openai_api.py"
    impls = ["new"]
    if args.old:
        old_file.parent.mkdir(parents=True, exist_ok=True)
        old_file.write_text(
            subprocess.run(
                ["git", "show", f"{args.old}:src/benchcheck/judges/openai_api.py"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        impls.append("old")
    for action in ("trickle", "huge"):
        for impl in impls:
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    _CASE,
                    str(ROOT / "tests" / "judges"),
                    impl,
                    action,
                    str(args.timeout),
                    str(args.trickle),
                    str(args.huge_mb),
                    str(old_file),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            print(
                json.dumps(
                    {
                        "case": action,
                        "impl": impl,
                        **json.loads(done.stdout.strip().splitlines()[-1]),
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    del resource, time  # imported for the docstring's readers; the cases run in children
    main()
