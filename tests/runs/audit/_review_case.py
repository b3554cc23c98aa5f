"""A reviewed pair dataset for the audit's tests: data, judgments and gold from a real review.

Synthetic pairs with planted flips (tests/labels/_labels_synth.py) go through the real
commands' runs: ``flag`` → ``review export`` → two experts who answer the truth →
``review import``. The gold file is what a user's review gives.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import polars as pl

from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore

sys.path.insert(0, str(Path(__file__).parents[2] / "labels"))
from _labels_synth import make_case, write_jsonl  # noqa: E402


def review_case(folder: Path, n: int = 80) -> dict[str, Path]:
    """Write ``data.jsonl``, ``j.parquet``, ``flags.jsonl``, ``review/`` and ``gold.jsonl``."""
    from benchcheck.runs.flag import run_flag
    from benchcheck.runs.review import run_review_export, run_review_import

    folder.mkdir(parents=True, exist_ok=True)
    data, judgments, truth, _ = make_case(n, flip_rate=0.2, seed=3)
    paths = {"data": folder / "data.jsonl", "judgments": folder / "j.parquet"}
    write_jsonl(data, paths["data"])
    judgments.write_parquet(paths["judgments"])
    paths["flags"] = folder / "flags.jsonl"
    run_flag(paths["judgments"], paths["data"], output=paths["flags"])
    run_review_export(paths["flags"], folder / "review", seed=1)
    answer = {i: str(t) for i, t in zip(data["id"], truth, strict=True)}
    key = pl.read_ndjson(folder / "review" / "key.jsonl")
    ids = dict(zip(key["review_id"], key["id"], strict=True))
    experts = []
    for name in ("expert_a", "expert_b"):
        path = folder / "review" / f"{name}.csv"
        sheet = pl.read_csv(path, infer_schema=False)
        labels = [answer[ids[r]] for r in sheet["review_id"]]
        sheet.with_columns(pl.Series("label", labels)).write_csv(path)
        experts.append(path)
    paths["gold"] = folder / "gold.jsonl"
    run_review_import(experts, output=paths["gold"])
    return paths


class StubJudge(Judge):
    """P(1) from the request's length: deterministic, no model, the same in every run."""

    identity = JudgeIdentity("stub", "len", "0" * 8)

    def score(self, requests, *, on_result=None):  # type: ignore[no-untyped-def]
        out = []
        for i, req in enumerate(requests):
            p = 0.15 + 0.7 * (len(str(req)) % 5) / 4
            s = JudgeScore.from_logprobs(("0", "1"), (math.log(1 - p), math.log(p)), 1, 0.0)
            if on_result:
                on_result(i, s)
            out.append(s)
        return out
