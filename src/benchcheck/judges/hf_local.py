r"""A judge on local Hugging Face causal-LM weights (``transformers``), batched on CPU or GPU.

Prompts are rendered with the tokenizer's chat template (raw ``system\n\nuser\n`` text
when it has none), padded on the **left** and run in batches of ``batch_size`` through one
forward pass; the logits at the last position (the next token after each prompt) are read
at the verbaliser tokens. Position ids are computed from the attention mask, so a prompt
scores the same alone and inside a padded batch. Label probabilities are the softmax over
the verbaliser tokens' log-probabilities (see :mod:`benchcheck.judges.base`).

Needs the ``transformers`` extra (``torch``, ``transformers``).
"""

from __future__ import annotations

import hashlib
import inspect
import time
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from benchcheck.errors import JudgeUnavailable, UsageError, require
from benchcheck.judges.base import Judge, JudgeIdentity, JudgeScore, OnResult, single_token
from benchcheck.judges.prompts import ChatRequest


def weights_hash(model: Any, source: str | None = None) -> str:
    """sha256 identity of weights: of the weight files in a local folder, else of the tensors."""
    if source is not None and Path(source).is_dir():
        from benchcheck.judges.resolve import file_sha256

        files = sorted(
            p
            for p in Path(source).iterdir()
            if p.suffix in (".safetensors", ".bin", ".pt", ".gguf") and p.is_file()
        )
        if files:
            digest = hashlib.sha256()
            for f in files:
                digest.update(f"{f.name}:{file_sha256(f)}\n".encode())
            return digest.hexdigest()
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().to("cpu").contiguous().numpy().tobytes())
    return digest.hexdigest()


def _load_pair(name: str, loader: str) -> tuple[Any, Any]:
    transformers = require("transformers", "transformers")
    try:
        tok = transformers.AutoTokenizer.from_pretrained(name)
        model = getattr(transformers, loader).from_pretrained(name)
    except (OSError, ValueError) as exc:
        raise JudgeUnavailable(f"transformers cannot load {name!r}: {exc}") from None
    return tok, model


class BatchedTorchJudge(Judge):
    """What the transformers and NLI judges share: model loading and batching.

    The model and tokenizer are given, or loaded by name with ``loader`` (an ``Auto*`` class
    of ``transformers``); the model is moved to ``device``. Subclasses implement
    :meth:`score_batch`; :meth:`score` cuts the requests into batches of ``batch_size``.
    """

    def __init__(
        self,
        name: str,
        loader: str,
        extra: str,
        *,
        model: Any,
        tokenizer: Any,
        batch_size: int,
        device: str,
    ) -> None:
        self.torch = require("torch", extra)
        if batch_size < 1:
            raise UsageError(f"batch_size must be >= 1, got {batch_size}")
        if model is None or tokenizer is None:
            tokenizer, model = _load_pair(name, loader)
        self.model = model.to(device).eval()
        self.tok = tokenizer
        self.device = device
        self.batch_size = batch_size

    @abstractmethod
    def score_batch(self, batch: Sequence[ChatRequest]) -> Iterator[JudgeScore]:
        """Yield one score per request of ``batch``, in order."""

    def score(
        self, requests: Sequence[ChatRequest], *, on_result: OnResult | None = None
    ) -> list[JudgeScore]:
        """Score in batches of ``batch_size``; report each score as it is made."""
        out: list[JudgeScore] = []
        for start in range(0, len(requests), self.batch_size):
            for score in self.score_batch(requests[start : start + self.batch_size]):
                if on_result is not None:
                    on_result(len(out), score)
                out.append(score)
        return out


class TransformersJudge(BatchedTorchJudge):
    """Score chat requests with a causal LM; pass ``model``/``tokenizer`` objects or a name."""

    backend = "transformers"

    def __init__(
        self,
        name: str,
        *,
        model: Any = None,
        tokenizer: Any = None,
        batch_size: int = 8,
        device: str = "cpu",
        chat_template: bool = True,
    ) -> None:
        super().__init__(
            name,
            "AutoModelForCausalLM",
            "transformers",
            model=model,
            tokenizer=tokenizer,
            batch_size=batch_size,
            device=device,
        )
        self.tok.padding_side = "left"
        if self.tok.pad_token is None:
            if self.tok.eos_token is None:
                raise JudgeUnavailable(f"{name}: tokenizer has neither a pad nor an eos token")
            self.tok.pad_token = self.tok.eos_token
        self.use_chat = bool(chat_template and getattr(self.tok, "chat_template", None))
        self._takes_positions = "position_ids" in inspect.signature(self.model.forward).parameters
        self.identity = JudgeIdentity(
            self.backend,
            name,
            weights_hash(self.model, name),
            (("chat", "1" if self.use_chat else "0"),),
        )

    def label_token(self, verbaliser: str) -> int:
        """Return the verbaliser's single token id; :class:`UsageError` if it is not one token."""
        ids = self.tok.encode(verbaliser, add_special_tokens=False)
        return single_token(verbaliser, ids, self.identity.label)

    def prompt_text(self, req: ChatRequest) -> str:
        """Render the request with the chat template (or as raw text)."""
        if self.use_chat:
            return str(
                self.tok.apply_chat_template(
                    req.messages(), tokenize=False, add_generation_prompt=True
                )
            )
        return req.plain_text()

    def score_batch(self, batch: Sequence[ChatRequest]) -> Iterator[JudgeScore]:
        """Score one left-padded batch in one forward pass."""
        torch = self.torch
        ids = [[self.label_token(v) for v in r.verbalisers] for r in batch]
        t0 = time.perf_counter()
        enc = self.tok(
            [self.prompt_text(r) for r in batch],
            return_tensors="pt",
            padding=True,
            add_special_tokens=not self.use_chat,
        ).to(self.device)
        kwargs = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
        if self._takes_positions:
            pos = enc["attention_mask"].long().cumsum(-1) - 1
            kwargs["position_ids"] = pos.clamp(min=0)
        with torch.inference_mode():
            logits = self.model(**kwargs).logits[:, -1, :].double()
        logp = torch.log_softmax(logits, dim=-1).cpu()
        seconds = (time.perf_counter() - t0) / len(batch)
        lengths = enc["attention_mask"].sum(-1).tolist()
        for j, req in enumerate(batch):
            lps = [float(logp[j, i]) for i in ids[j]]
            yield JudgeScore.from_logprobs(req.labels, lps, int(lengths[j]), seconds)
