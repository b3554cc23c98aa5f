"""``benchcheck judge``: every example × judge × prompt → one row of label probabilities."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcheck.data.columns import Columns
from benchcheck.io.judgments import with_data_columns
from benchcheck.runs.judging import JudgeSetup, Progress

if TYPE_CHECKING:
    import polars as pl

    from benchcheck.judges.run import JudgeRunSummary

__all__ = ["JudgeRun", "run_judge"]


@dataclass(frozen=True)
class JudgeRun:
    """The judgments of one run and their totals."""

    judgments: pl.DataFrame
    summary: JudgeRunSummary
    prompts: tuple[str, ...]
    wall_seconds: float
    price_per_1k_tokens: float | None = None
    cache: str | None = None
    output: str | None = None

    @property
    def rate(self) -> float:
        """Judgements computed per second of wall time."""
        return (
            self.summary.n_computed / self.wall_seconds if self.wall_seconds > 0 else float("nan")
        )

    def write(self, path: Path) -> None:
        """Write the judgments atomically: Parquet for a ``.parquet`` path, else JSON lines."""
        from benchcheck.errors import uninterrupted
        from benchcheck.io.output import atomic_file

        with atomic_file(path) as tmp:
            if path.suffix.lower() == ".parquet":
                with uninterrupted():  # a signal mid-write would panic polars' writers
                    self.judgments.write_parquet(tmp)
            else:
                self.judgments.write_ndjson(tmp)

    def to_json(self, *, output: str | None = None) -> dict[str, Any]:
        """Return the canonical JSON of ``benchcheck judge --json``."""
        return {
            "command": "judge",
            "output": output if output is not None else self.output,
            "judges": sorted(set(self.judgments["judge"].to_list())),
            "prompts": list(self.prompts),
            "rows": self.summary.n_rows,
            "computed": self.summary.n_computed,
            "cached": self.summary.n_cached,
            "prompt_tokens": self.summary.prompt_tokens,
            "judge_seconds": self.summary.seconds,
            "wall_seconds": self.wall_seconds,
            "price_per_1k_tokens": self.price_per_1k_tokens,
            "cost": self.summary.cost,
            "cache": self.cache,
        }


def run_judge(
    data: str | Path,
    *,
    columns: Columns | Mapping[str, str | None] | None = None,
    setup: JudgeSetup | None = None,
    prompts: str | None = None,
    prompt_file: str | Path | None = None,
    verbalisers: Sequence[str] | None = None,
    price_per_1k_tokens: float | None = None,
    progress: Progress | None = None,
    on_build: Callable[[str], None] | None = None,
    content_free: bool = True,
    output: str | Path | None = None,
) -> JudgeRun:
    """Read the examples and judge each with every judge × prompt (cached, resumable).

    ``prompts`` is ``all`` or names (built-in or from ``prompt_file``; default: the
    ``prompt_file``'s templates, else :data:`~benchcheck.judges.run.DEFAULT_PROMPTS`);
    ``verbalisers`` the answer token of each label. With a label column in ``columns``,
    the judgments carry it. The judgments also carry the data's column names
    (``data_columns``, :func:`benchcheck.io.judgments.judged_columns`), so ``flag`` reads
    the data with the columns it was judged with.
    ``content_free`` also judges the content-free inputs of contextual calibration
    (three rows per judge × prompt, ``content_free`` column; ``benchcheck flag`` reads them).
    With ``output`` (``.parquet``, else JSON lines) the judgments are written there
    (:meth:`JudgeRun.write`).
    """
    from benchcheck.io.tables import read_table
    from benchcheck.judges.prompts import load_prompt_file, select_prompts
    from benchcheck.judges.run import (
        CONTENT_FREE_INPUTS,
        DEFAULT_PROMPTS,
        judge_frame,
        summarise,
    )

    columns = Columns.of(columns)
    frame = read_table(data, **columns.given())
    extra = load_prompt_file(prompt_file) if prompt_file else None
    spec = prompts or ("all" if extra else DEFAULT_PROMPTS)
    templates = select_prompts(spec, extra=extra, verbalisers=verbalisers)
    setup = setup or JudgeSetup()
    with setup.open(on_build=on_build) as (judges, store):
        start = time.perf_counter()
        result = judge_frame(
            frame,
            judges,
            templates,
            cache=store,
            progress=progress,
            content_free=CONTENT_FREE_INPUTS if content_free else (),
        )
        wall = time.perf_counter() - start
        cache = None if store is None else str(store.path)
    if columns.label is not None and "label" in frame.columns:
        result = result.join(frame.select("id", "label"), on="id", how="left")
    result = with_data_columns(result, columns)
    run = JudgeRun(
        judgments=result,
        summary=summarise(result, price_per_1k_tokens=price_per_1k_tokens),
        prompts=tuple(t.name for t in templates),
        wall_seconds=wall,
        price_per_1k_tokens=price_per_1k_tokens,
        cache=cache,
        output=None if output is None else str(output),
    )
    if output is not None:
        run.write(Path(output))
    return run
