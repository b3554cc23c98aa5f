r"""The one judge interface: score a batch of chat requests -> label probabilities.

A judge never reads generated text: it reads the log-probabilities of the label tokens at
the answer position and normalises them over the labels (methods.md, section 2, step 1):

.. math:: P(y = l \mid x) = \frac{\exp z_l}{\sum_{l'} \exp z_{l'}}

where :math:`z_l` is the log-probability (or logit) of label ``l``'s verbaliser token.
Caching, ordering and progress live in :mod:`benchcheck.judges.run`, not in backends.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from benchcheck.errors import UsageError
from benchcheck.judges.prompts import ChatRequest

#: Called by a backend as each result arrives: (index in the batch, score).
OnResult = Callable[[int, "JudgeScore"], None]


@dataclass(frozen=True)
class JudgeIdentity:
    """What makes two judges give the same answers: backend, model name, weights hash.

    ``options`` holds settings that change the numbers (e.g. chat template on/off).
    """

    backend: str
    model: str
    weights_hash: str = ""
    options: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        """A stable string for cache keys and the ``model`` column."""
        opts = ",".join(f"{k}={v}" for k, v in self.options)
        return f"{self.backend}|{self.model}|{self.weights_hash}|{opts}"

    @property
    def label(self) -> str:
        """The short name shown in the ``judge`` column: ``backend:model``."""
        return f"{self.backend}:{self.model}"


@dataclass(frozen=True)
class JudgeScore:
    """One judgement: probabilities and raw log-probabilities per label, tokens, seconds.

    ``logprobs`` are the label tokens' log-probabilities as the engine reported them
    (``None`` where the engine did not report a label, e.g. outside an API's top-k).

    >>> s = JudgeScore.from_logprobs(("0", "1"), (math.log(0.2), math.log(0.6)), 12, 0.5)
    >>> [round(p, 4) for p in s.probs]
    [0.25, 0.75]
    >>> round(sum(s.probs), 12)
    1.0
    """

    labels: tuple[str, ...]
    probs: tuple[float, ...]
    logprobs: tuple[float | None, ...]
    n_prompt_tokens: int
    seconds: float
    extra: tuple[tuple[str, Any], ...] = field(default=())

    @classmethod
    def from_logprobs(
        cls,
        labels: Sequence[str],
        logprobs: Sequence[float],
        n_prompt_tokens: int,
        seconds: float,
    ) -> JudgeScore:
        """Softmax over the label tokens' log-probabilities (or logits)."""
        return cls(
            tuple(labels),
            tuple(softmax(logprobs)),
            tuple(float(x) for x in logprobs),
            int(n_prompt_tokens),
            float(seconds),
        )

    def prob(self, label: str) -> float:
        """P(label)."""
        return self.probs[self.labels.index(label)]

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-safe dict (the cache's payload)."""
        d = asdict(self)
        d["extra"] = [list(kv) for kv in self.extra]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> JudgeScore:
        """Inverse of :meth:`to_json`."""
        return cls(
            labels=tuple(d["labels"]),
            probs=tuple(float(x) for x in d["probs"]),
            logprobs=tuple(None if x is None else float(x) for x in d["logprobs"]),
            n_prompt_tokens=int(d["n_prompt_tokens"]),
            seconds=float(d["seconds"]),
            extra=tuple((k, v) for k, v in d.get("extra", ())),
        )


def softmax(values: Sequence[float]) -> list[float]:
    """Numerically stable softmax.

    >>> [round(p, 6) for p in softmax([0.0, math.log(3.0)])]
    [0.25, 0.75]
    """
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def single_token(verbaliser: str, ids: Sequence[int], judge: str) -> int:
    """Return the verbaliser's one token id; :class:`UsageError` if it tokenises into several.

    >>> single_token("yes", [9], "x:m")
    9
    >>> single_token("10", [1, 0], "x:m")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: verbaliser '10' is 2 tokens [1, 0] for x:m; each label's ...
    """
    if len(ids) != 1:
        raise UsageError(
            f"verbaliser {verbaliser!r} is {len(ids)} tokens {list(ids)} for "
            f"{judge}; each label's answer must be one token"
        )
    return int(ids[0])


def log_softmax_at(logits: Any, ids: Sequence[int]) -> list[float]:
    """Log-softmax over a full logit vector, read at ``ids`` (numpy array in, floats out)."""
    import numpy as np

    z = np.asarray(logits, dtype=np.float64)
    top = z.max()
    lse = top + math.log(float(np.exp(z - top).sum()))
    return [float(z[i] - lse) for i in ids]


class Judge(ABC):
    """A backend that scores chat requests. Subclasses set :attr:`identity`."""

    identity: JudgeIdentity

    @abstractmethod
    def score(
        self, requests: Sequence[ChatRequest], *, on_result: OnResult | None = None
    ) -> list[JudgeScore]:
        """Score each request; call ``on_result(i, score)`` as each one is done.

        Returns the scores in request order. A backend that fails part-way has already
        reported every finished result through ``on_result``, then raises
        :class:`~benchcheck.errors.JudgeError`.
        """

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the model or connections."""

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
