"""Run judges over a table of examples: cache look-up, batched scoring, one row per result.

:func:`judge_frame` is the library entry point behind ``benchcheck judge``: for every
(judge, prompt, example) it serves the stored result from the cache or asks the judge,
committing each new result to the cache as it arrives, and returns one row per
(example, judge, prompt) with ``p_<label>`` and ``logprob_<label>`` columns.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from benchcheck._progress import Progress
from benchcheck.errors import UsageError
from benchcheck.judges.base import Judge, JudgeScore
from benchcheck.judges.cache import JudgeCache, example_hash
from benchcheck.judges.prompts import PromptTemplate

#: ``--judge`` backend names.
BACKENDS: tuple[str, ...] = ("llama-cpp", "openai", "transformers", "nli", "vllm")

_TEXT_FIELDS = ("text", "text_a", "text_b")

#: Content-free inputs of contextual calibration (Zhao et al. 2021): each one is written
#: into every text field of a prompt, and the judge's answer measures the prompt's bias.
CONTENT_FREE_INPUTS: tuple[str, ...] = ("N/A", "", "[MASK]")

#: ``id`` prefix of the content-free rows of a judgments table.
CONTENT_FREE_PREFIX = "content-free:"

#: The default prompt set of ``benchcheck judge`` and ``benchcheck audit``: two framings,
#: chosen by ``benchmarks/detect_bench.py`` (docs/judges.md): on real pairs no other
#: framing or layout ranked better beyond noise, the framings are nearly redundant
#: (Spearman 0.8-0.98), and these two share the grounding prefix, so they cost about half
#: of all four.
DEFAULT_PROMPTS = "nli,document"
#: The audit's set (the same).
AUDIT_PROMPTS = DEFAULT_PROMPTS


def make_judge(
    spec: str,
    *,
    base_url: str | None = None,
    concurrency: int = 8,
    api_key_env: str = "OPENAI_API_KEY",
) -> Judge:
    """Build a judge from ``backend:model`` (``llama-cpp`` alone = the embedded default).

    >>> make_judge("nope:x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: judge: unknown backend 'nope'; choose one of llama-cpp, ...
    """
    backend, _, model = spec.partition(":")
    backend = backend.strip().lower()
    if backend not in BACKENDS:
        raise UsageError(
            f"{{judge}}: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}"
        )
    if backend == "llama-cpp":
        from benchcheck.judges.llama_cpp import LlamaCppJudge
        from benchcheck.judges.resolve import DEFAULT_MODEL

        return LlamaCppJudge(model or DEFAULT_MODEL)
    if not model:
        raise UsageError(f"{{judge}} {spec!r}: name the model, e.g. {backend}:NAME")
    if backend == "openai":
        from benchcheck.judges.openai_api import OpenAIJudge

        return OpenAIJudge(
            model, base_url=base_url, concurrency=concurrency, api_key_env=api_key_env
        )
    if backend == "transformers":
        from benchcheck.judges.hf_local import TransformersJudge

        return TransformersJudge(model)
    if backend == "nli":
        from benchcheck.judges.nli import NLIJudge

        return NLIJudge(model)
    from benchcheck.judges.vllm_engine import VLLMJudge

    return VLLMJudge(model)


def _fields(frame: pl.DataFrame) -> list[str]:
    fields = [c for c in _TEXT_FIELDS if c in frame.columns]
    if not fields:
        raise UsageError("the table needs a 'text' column or 'text_a' and 'text_b' columns")
    return fields


def queue_batches(
    pending: Sequence[tuple[str, tuple[int, int]]],
    examples: Sequence[Mapping[str, str]],
    batch_size: int,
) -> list[list[tuple[str, tuple[int, int]]]]:
    """Cut the pending ``(key, (prompt, example))`` requests into batches, grounding-major.

    Requests are ordered by their example's first text (``text_a``, else ``text``; in order
    of first appearance), then example, then prompt, and a batch never splits a grounding's
    requests unless they alone exceed ``batch_size``. So every framing of an example, and
    every example sharing its grounding (two summaries of one document), reach the judge
    in one batch: a prefix-sharing backend evaluates each grounding once per judge.

    >>> ex = [{"text_a": "A", "text_b": "x"}, {"text_a": "B", "text_b": "y"},
    ...       {"text_a": "A", "text_b": "z"}]
    >>> todo = [(f"k{p}{e}", (p, e)) for p in range(2) for e in range(3)]
    >>> [[k for k, _ in b] for b in queue_batches(todo, ex, 4)]
    [['k00', 'k10', 'k02', 'k12'], ['k01', 'k11']]
    """
    if batch_size < 1:
        raise UsageError(f"the batch size must be >= 1, got {batch_size}")
    first: dict[str, int] = {}
    for ex in examples:
        first.setdefault(str(ex.get("text_a", ex.get("text", ""))), len(first))

    def grounding(ei: int) -> int:
        ex = examples[ei]
        return first[str(ex.get("text_a", ex.get("text", "")))]

    ordered = sorted(pending, key=lambda kv: (grounding(kv[1][1]), kv[1][1], kv[1][0]))
    groups: list[list[tuple[str, tuple[int, int]]]] = []
    for item in ordered:
        if groups and grounding(groups[-1][-1][1][1]) == grounding(item[1][1]):
            groups[-1].append(item)
        else:
            groups.append([item])
    batches: list[list[tuple[str, tuple[int, int]]]] = []
    for group in groups:
        while len(group) > batch_size:
            batches.append(group[:batch_size])
            group = group[batch_size:]
        if batches and len(batches[-1]) + len(group) <= batch_size:
            batches[-1].extend(group)
        else:
            batches.append(list(group))
    return batches


def judge_frame(
    frame: pl.DataFrame,
    judges: Sequence[Judge],
    prompts: Sequence[PromptTemplate],
    *,
    cache: JudgeCache | None = None,
    progress: Progress | None = None,
    batch_size: int = 256,
    content_free: Sequence[str] = (),
) -> pl.DataFrame:
    """Judge every example with every (judge, prompt); one output row per triple.

    ``frame`` has ``id`` and ``text`` or ``text_a``/``text_b`` (as from
    :func:`benchcheck.io.tables.read_table`). Columns of the result: ``id``, ``judge``,
    ``prompt``, ``p_<label>`` and ``logprob_<label>`` for every label of every prompt
    (null where a prompt lacks that label), ``model`` (model name), ``weights_hash``,
    ``template_hash``, ``n_prompt_tokens``, ``seconds`` (wall time of this judgement when
    it was computed) and ``cached`` (served from the cache in this run).
    Rows come in the order judge, prompt, example.

    ``content_free`` (e.g. :data:`CONTENT_FREE_INPUTS`) adds, per judge × prompt, one row
    per content-free input — the input written into every text field — for contextual
    calibration (:mod:`benchcheck.labels.calibration`); those rows come after the examples,
    with ``id`` ``content-free:<input>`` and the input in a ``content_free`` column that
    is null on the examples' rows (the column exists only when inputs are given).
    """
    if not judges:
        raise UsageError("no judge given")
    if not prompts:
        raise UsageError("no prompt given")
    fields = _fields(frame)
    ids = frame["id"].cast(pl.String).to_list()
    examples = [dict(zip(fields, vals, strict=True)) for vals in frame.select(fields).iter_rows()]
    cf_inputs = list(dict.fromkeys(content_free))
    n_data = len(examples)
    ids += [f"{CONTENT_FREE_PREFIX}{t}" for t in cf_inputs]
    examples += [dict.fromkeys(fields, t) for t in cf_inputs]
    ex_hashes = [example_hash(e) for e in examples]
    total = len(judges) * len(prompts) * len(examples)
    done = 0
    labels: list[str] = []
    for p in prompts:
        labels += [lab for lab in p.labels if lab not in labels]
    records: list[dict[str, object]] = []
    for judge in judges:
        ident = judge.identity
        # Example-major order: the framings of one example are queued side by side, so they
        # land in the same batch and a prefix-sharing backend evaluates the example's
        # grounding once per judge, not once per batch that happens to hold a framing of it.
        keys = {
            (pi, ei): JudgeCache.key(ident.key, prompts[pi].template_hash, ex_hashes[ei])
            for ei in range(len(examples))
            for pi in range(len(prompts))
        }
        stored = cache.get_many(set(keys.values())) if cache is not None else {}
        results: dict[str, tuple[JudgeScore, bool]] = {k: (s, True) for k, s in stored.items()}
        done += sum(1 for k in keys.values() if k in results)
        if progress is not None:
            progress(done, total)
        todo: dict[str, tuple[int, int]] = {}
        for (pi, ei), k in keys.items():
            if k not in results and k not in todo:
                todo[k] = (pi, ei)
        counts = Counter(keys.values())  # duplicate examples share one key
        for chunk in queue_batches(list(todo.items()), examples, batch_size):
            requests = [prompts[pi].render(examples[ei]) for _, (pi, ei) in chunk]

            def on_result(
                i: int,
                score: JudgeScore,
                chunk=chunk,
                results=results,
                ident=ident,
                counts=counts,
            ) -> None:
                nonlocal done
                key, (pi, ei) = chunk[i]
                if key in results:
                    return
                results[key] = (score, False)
                if cache is not None:
                    cache.put(
                        key,
                        score,
                        judge=ident.key,
                        template_hash=prompts[pi].template_hash,
                        ex_hash=ex_hashes[ei],
                    )
                done += counts[key]
                if progress is not None:
                    progress(done, total)

            scores = judge.score(requests, on_result=on_result)
            for i, score in enumerate(scores):  # backends that do not call back
                on_result(i, score)
        for pi, p in enumerate(prompts):
            for ei in range(len(examples)):
                score, was_cached = results[keys[(pi, ei)]]
                row: dict[str, object] = {"id": ids[ei], "judge": ident.label, "prompt": p.name}
                for lab in labels:
                    has = lab in score.labels
                    row[f"p_{lab}"] = score.prob(lab) if has else None
                    lp = score.logprobs[score.labels.index(lab)] if has else None
                    row[f"logprob_{lab}"] = lp
                if cf_inputs:
                    row["content_free"] = cf_inputs[ei - n_data] if ei >= n_data else None
                row.update(
                    model=ident.model,
                    weights_hash=ident.weights_hash,
                    template_hash=p.template_hash,
                    n_prompt_tokens=score.n_prompt_tokens,
                    seconds=score.seconds,
                    cached=was_cached,
                )
                records.append(row)
    schema: dict[str, pl.DataType] = {
        "id": pl.String(),
        "judge": pl.String(),
        "prompt": pl.String(),
    }
    for lab in labels:
        schema[f"p_{lab}"] = pl.Float64()
        schema[f"logprob_{lab}"] = pl.Float64()
    if cf_inputs:
        schema["content_free"] = pl.String()
    schema.update(
        model=pl.String(),
        weights_hash=pl.String(),
        template_hash=pl.String(),
        n_prompt_tokens=pl.Int64(),
        seconds=pl.Float64(),
        cached=pl.Boolean(),
    )
    return pl.DataFrame(records, schema=schema)


@dataclass(frozen=True)
class JudgeRunSummary:
    """Totals of one run: rows, how many were computed, prompt tokens, seconds, cost.

    Tokens and seconds count only judgements computed in this run; ``cost`` is
    ``tokens / 1000 * price_per_1k_tokens`` when a price is given.
    """

    n_rows: int
    n_computed: int
    n_cached: int
    prompt_tokens: int
    seconds: float
    cost: float | None

    @property
    def rows_per_second(self) -> float:
        """Computed judgements per second of judge time."""
        return self.n_computed / self.seconds if self.seconds > 0 else math.nan


def summarise(frame: pl.DataFrame, *, price_per_1k_tokens: float | None = None) -> JudgeRunSummary:
    """Totals of a :func:`judge_frame` result.

    >>> f = pl.DataFrame({"n_prompt_tokens": [100, 50], "seconds": [1.0, 0.5],
    ...                   "cached": [False, True]})
    >>> summarise(f, price_per_1k_tokens=0.5)
    JudgeRunSummary(n_rows=2, n_computed=1, n_cached=1, prompt_tokens=100, seconds=1.0, cost=0.05)
    """
    fresh = frame.filter(~pl.col("cached"))
    tokens = int(fresh["n_prompt_tokens"].sum() or 0)
    seconds = float(fresh["seconds"].sum() or 0.0)
    cost = None if price_per_1k_tokens is None else tokens / 1000.0 * price_per_1k_tokens
    return JudgeRunSummary(
        frame.height, fresh.height, frame.height - fresh.height, tokens, seconds, cost
    )
