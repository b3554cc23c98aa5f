"""Worker for the kill-and-resume test: judges N examples with a slow fake judge.

Usage: python judges_resume_worker.py CACHE LOG N
Each computed judgement appends its example id to LOG (flushed) after it is scored.
"""

from __future__ import annotations

import os
import sys
import time

import polars as pl

from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore
from benchcheck.judges.cache import JudgeCache
from benchcheck.judges.prompts import select_prompts
from benchcheck.judges.run import judge_frame


class SlowJudge(Judge):
    identity = JudgeIdentity("fake", "slow", "0" * 8)

    def __init__(self, log_path: str) -> None:
        self.log = open(log_path, "a", buffering=1)

    def score(self, requests, *, on_result=None):
        out = []
        for i, req in enumerate(requests):
            time.sleep(0.02)
            p = (len(req.user) % 7 + 1) / 9
            s = JudgeScore(req.labels, (1 - p, p), (None, None), len(req.user), 0.02)
            self.log.write(req.user.split("Hypothesis: ")[-1].split("\n")[0] + "\n")
            self.log.flush()
            os.fsync(self.log.fileno())
            out.append(s)
            if on_result is not None:
                on_result(i, s)
        return out


if __name__ == "__main__":
    cache_path, log_path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    frame = pl.DataFrame(
        {
            "id": [f"e{i}" for i in range(n)],
            "text_a": ["ground"] * n,
            "text_b": [f"h{i}" for i in range(n)],
        }
    )
    with JudgeCache(cache_path) as cache:
        out = judge_frame(
            frame, [SlowJudge(log_path)], select_prompts("nli"), cache=cache, batch_size=16
        )
    print(out.height, int(out["cached"].sum()))
