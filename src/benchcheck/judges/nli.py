r"""A judge on a sequence-classification NLI cross-encoder (``transformers``).

The cross-encoder reads the pair itself (``text_a`` as premise, ``text_b`` as hypothesis),
not the prompt text; its class probabilities come from a softmax over its logits.

- Binary prompts (labels ``("0", "1")``): :math:`P(1) = P(\text{entailment})` and
  :math:`P(0) = 1 - P(\text{entailment})` (consistent = entailed).
- Three-way prompts (labels named like the model's classes, e.g. ``nli3``): each label gets
  the probability of the model class of the same name (case-insensitive).

The entailment class is found in ``config.id2label`` (a name starting with ``entail``) or
given as ``entailment_index``. Since the prompt text is ignored, run it with one prompt
(``--prompts nli`` or ``nli3``). Needs the ``nli`` extra.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

from benchcheck.errors import JudgeUnavailable, UsageError
from benchcheck.judges.base import JudgeIdentity, JudgeScore
from benchcheck.judges.hf_local import BatchedTorchJudge, weights_hash
from benchcheck.judges.prompts import ChatRequest


class NLIJudge(BatchedTorchJudge):
    """Score pairs with an NLI cross-encoder; ``model``/``tokenizer`` objects or a name."""

    backend = "nli"

    def __init__(
        self,
        name: str,
        *,
        model: Any = None,
        tokenizer: Any = None,
        batch_size: int = 16,
        device: str = "cpu",
        entailment_index: int | None = None,
    ) -> None:
        super().__init__(
            name,
            "AutoModelForSequenceClassification",
            "nli",
            model=model,
            tokenizer=tokenizer,
            batch_size=batch_size,
            device=device,
        )
        id2label = {int(k): str(v) for k, v in self.model.config.id2label.items()}
        self.classes = [id2label[i] for i in range(len(id2label))]
        self._class_index = {c.lower(): i for i, c in enumerate(self.classes)}
        if entailment_index is None:
            hits = [i for i, c in enumerate(self.classes) if c.lower().startswith("entail")]
            if len(hits) != 1:
                raise JudgeUnavailable(
                    f"{name}: cannot tell the entailment class from {self.classes}; "
                    "pass entailment_index"
                )
            entailment_index = hits[0]
        self.entailment_index = entailment_index
        self.identity = JudgeIdentity(
            self.backend,
            name,
            weights_hash(self.model, name),
            (("entailment_index", str(entailment_index)),),
        )

    def _map(self, req: ChatRequest, probs: list[float]) -> tuple[list[float], list[float | None]]:
        if tuple(req.labels) == ("0", "1"):
            p = probs[self.entailment_index]
            pr = [1.0 - p, p]
        else:
            missing = [lab for lab in req.labels if lab.lower() not in self._class_index]
            if missing:
                raise UsageError(
                    f"{self.identity.label}: labels {missing} are not classes of the model "
                    f"{self.classes}; use binary labels ('0', '1') or the model's class names"
                )
            pr = [probs[self._class_index[lab.lower()]] for lab in req.labels]
            total = sum(pr)
            pr = [x / total for x in pr]
        return pr, [math.log(x) if x > 0 else -math.inf for x in pr]

    def score_batch(self, batch: Sequence[ChatRequest]) -> Iterator[JudgeScore]:
        """Score one batch of (text_a, text_b) pairs."""
        torch = self.torch
        pairs = []
        for r in batch:
            f = dict(r.fields)
            if "text_a" not in f or "text_b" not in f:
                raise UsageError("the nli judge needs pair examples ({text_a} and {text_b})")
            pairs.append((f["text_a"], f["text_b"]))
        t0 = time.perf_counter()
        enc = self.tok(
            [a for a, _ in pairs],
            [b for _, b in pairs],
            return_tensors="pt",
            padding=True,
            truncation=True,
        ).to(self.device)
        with torch.inference_mode():
            probs = torch.softmax(self.model(**enc).logits.double(), dim=-1).cpu().tolist()
        seconds = (time.perf_counter() - t0) / len(batch)
        lengths = enc["attention_mask"].sum(-1).tolist()
        for j, req in enumerate(batch):
            pr, lps = self._map(req, probs[j])
            yield JudgeScore(req.labels, tuple(pr), tuple(lps), int(lengths[j]), seconds)
