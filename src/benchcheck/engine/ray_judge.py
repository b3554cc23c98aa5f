"""Judging on Ray: requests flow through Ray Data ``map_batches`` to judge actors.

:class:`RayJudge` is a :class:`~benchcheck.judges.base.Judge` like any other, so
:func:`benchcheck.judges.run.judge_frame` runs it with the same cache semantics: the driver
serves stored judgements from the cache, sends only the missing ones to the cluster, and
commits each result to the cache as it streams back (nothing is scored twice; a killed run
resumes where it stopped). Each actor builds its own judge once (llama.cpp on CPU nodes by
default) and keeps it for every batch it receives.

Requests are ordered by their rendered text before they are cut into batches, so requests
sharing a prefix (one prompt template, one premise) land in the same actor's batch, where
llama.cpp's prefix reuse pays off.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from typing import Any

from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore, OnResult
from benchcheck.judges.prompts import ChatRequest


def _build(spec: str, options: Mapping[str, Any]) -> Judge:
    """Build the real judge inside an actor (llama-cpp takes ``options`` as keywords)."""
    backend, _, model = spec.partition(":")
    if backend.strip().lower() == "llama-cpp":
        from benchcheck.judges.llama_cpp import LlamaCppJudge
        from benchcheck.judges.resolve import DEFAULT_MODEL

        return LlamaCppJudge(model or DEFAULT_MODEL, **dict(options))
    from benchcheck.judges.run import make_judge

    return make_judge(spec, **dict(options))


class _JudgeWorker:
    """The ``map_batches`` actor: one judge, built once, scoring every batch it is given."""

    def __init__(self, spec: str, options: Mapping[str, Any]) -> None:
        self.judge = _build(spec, options)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        requests = [pickle.loads(r) for r in batch["request"]]
        scores = self.judge.score(requests)
        return {
            "index": batch["index"],
            "score": [pickle.dumps(s.to_json()) for s in scores],
        }


def _identity(spec: str, options: Mapping[str, Any]) -> JudgeIdentity:
    judge = _build(spec, options)
    try:
        return judge.identity
    finally:
        judge.close()


class RayJudge(Judge):
    """Score requests on ``actors`` Ray actors, each holding one judge built from ``spec``.

    ``options`` are passed to the backend (for llama-cpp e.g. ``n_threads``, ``n_ctx``);
    ``cpus_per_actor`` is what Ray reserves for each actor.
    """

    def __init__(
        self,
        spec: str = "llama-cpp",
        *,
        actors: int = 1,
        cpus_per_actor: float = 1.0,
        batch_size: int = 16,
        options: Mapping[str, Any] | None = None,
        address: str | None = None,
    ) -> None:
        from benchcheck.engine.ray_engine import connect

        self.ray = connect(address)
        self.spec = spec
        self.actors = actors
        self.cpus_per_actor = cpus_per_actor
        self.batch_size = batch_size
        self.options = dict(options or {})
        if spec.partition(":")[0].strip().lower() == "llama-cpp":
            # One llama.cpp thread per reserved CPU: actors must not oversubscribe a node.
            self.options.setdefault("n_threads", max(1, int(cpus_per_actor)))
        # The identity (model, weights hash, options) keys the cache: ask a worker for it,
        # so the driver never loads the model.
        task = self.ray.remote(num_cpus=cpus_per_actor)(_identity)
        self.identity = self.ray.get(task.remote(spec, self.options))

    def score(
        self, requests: Sequence[ChatRequest], *, on_result: OnResult | None = None
    ) -> list[JudgeScore]:
        """Score on the actors; ``on_result`` is called as each batch streams back."""
        if not requests:
            return []
        order = sorted(range(len(requests)), key=lambda i: _sort_key(requests[i]))
        items = [
            {"index": i, "request": pickle.dumps(requests[i], protocol=pickle.HIGHEST_PROTOCOL)}
            for i in order
        ]
        # Enough blocks that every actor gets work (one block goes to one actor).
        blocks = min(len(items), max(4 * self.actors, len(items) // 64))
        ds = self.ray.data.from_items(items, override_num_blocks=blocks)
        scored = ds.map_batches(
            _JudgeWorker,
            fn_constructor_kwargs={"spec": self.spec, "options": self.options},
            batch_size=self.batch_size,
            compute=self.ray.data.ActorPoolStrategy(size=self.actors),
            num_cpus=self.cpus_per_actor,
        )
        out: list[JudgeScore | None] = [None] * len(requests)
        for row in scored.iter_rows():
            i = int(row["index"])
            score = JudgeScore.from_json(pickle.loads(row["score"]))
            out[i] = score
            if on_result is not None:
                on_result(i, score)
        return [s for s in out if s is not None]


def _sort_key(request: ChatRequest) -> str:
    return (request.system or "") + "\x1f" + request.user
