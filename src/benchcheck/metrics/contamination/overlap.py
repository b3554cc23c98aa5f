r"""Per-item overlap and the clean/dirty subsets, as three published studies define them.

An item's **overlap** is one of two shares, chosen by ``overlap``:

- ``tokens`` — the share of its tokens inside a matched span (Llama 2, Touvron et al. 2023,
  App. A.6: "a token is contaminated if it appears in any token n-gram longer than 10 tokens
  in both the evaluation sample and the training set"; spans may differ in up to
  ``skip`` = 4 positions, never in the first n = 10 nor at the end; the analysis is repeated
  with a minimum span length L in {10, …, 50}; see :mod:`~.scan`):

  .. math:: \mathrm{overlap}(x) = |\{t \in x : t \text{ inside a matched span}\}| / |x|

- ``ngram`` — the share of its distinct n-grams found anywhere in the corpus,
  :math:`|G_n(x) \cap G_n(C)| / |G_n(x)|` (PaLM, Chowdhery et al. 2022: contaminated when
  at least 70% of its 8-grams occur; GPT-3, Brown et al. 2020, App. C: "dirty" with a single
  N-gram collision, N the 5th percentile of the examples' lengths in words, at least 8 and at
  most 13).

Edge rule: an item with fewer tokens than a span needs (``min_length``, or n for
``ngram``) can show no overlap: its overlap is 0, as these definitions have it, and it is
counted in ``n_short_items``.

**Subsets** (Llama 2's four, not disjoint): *clean* (overlap < ``clean_below``),
*not clean* (≥ ``clean_below``), *not dirty* (< ``dirty_from``), *dirty*
(≥ ``dirty_from``); the paper's cut-offs are 20% and 80%. A cut-off of 0 reads as "no
overlap at all": ``clean_below=0`` makes the items without any overlap clean, and
``dirty_from=0`` makes every item with some overlap dirty (GPT-3's rule). Each item also
gets one **bucket**, the cell of the partition the two cut-offs make: ``clean``,
``between`` (not clean and not dirty) or ``dirty``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from benchcheck.errors import UsageError

__all__ = [
    "DEFINITIONS",
    "SUBSETS",
    "Definition",
    "bucket_of",
    "gpt3_n",
    "subset_masks",
]

#: Llama 2's four (overlapping) subsets, in the paper's order.
SUBSETS = ("clean", "not_clean", "not_dirty", "dirty")
#: The partition cells of :func:`bucket_of`.
BUCKETS = ("clean", "between", "dirty")
OVERLAPS = ("tokens", "ngram")


@dataclass(frozen=True)
class Definition:
    """A contamination definition: what overlap means and where the subsets are cut.

    ``n`` None is GPT-3's rule (:func:`gpt3_n`); ``min_length`` None is ``n``.
    """

    name: str
    overlap: str
    n: int | None
    min_length: int | None
    skip: int
    clean_below: float
    dirty_from: float

    def resolve(self, item_lengths: np.ndarray) -> Definition:
        """Fix ``n`` and ``min_length`` for these items and check the values."""
        n = self.n if self.n is not None else gpt3_n(item_lengths)
        out = replace(self, n=n, min_length=self.min_length if self.min_length else n)
        out.check()
        return out

    def check(self) -> None:
        """Refuse values no definition can use."""
        if self.overlap not in OVERLAPS:
            raise UsageError(f"{{overlap}} must be tokens or ngram, got {self.overlap!r}")
        if self.n is not None and self.n < 1:
            raise UsageError(f"{{n}} must be a positive number of tokens, got {self.n}")
        if self.skip < 0:
            raise UsageError(f"{{skip}} must be 0 or more, got {self.skip}")
        if not 0.0 <= self.clean_below <= self.dirty_from <= 1.0:
            raise UsageError(
                "the cut-offs must satisfy 0 <= {clean_below} <= {dirty_from} <= 1, got "
                f"{self.clean_below} and {self.dirty_from}"
            )


#: The published definitions (``definition`` names them; any field can be overridden).
DEFINITIONS: dict[str, Definition] = {
    "llama2": Definition("llama2", "tokens", 10, 10, 4, 0.2, 0.8),
    "gpt3": Definition("gpt3", "ngram", None, None, 0, 0.0, 0.0),
    "palm": Definition("palm", "ngram", 8, None, 0, 0.7, 0.7),
}


def gpt3_n(item_lengths: np.ndarray) -> int:
    """GPT-3's N: the 5th percentile of the items' lengths in words, clamped to [8, 13].

    The percentile is taken as an observed length (numpy's ``method="lower"``), as the
    paper does not say how it interpolates. No items: 13.

    >>> gpt3_n(np.array([20] * 95 + [9] * 5)), gpt3_n(np.array([3, 4, 50])), gpt3_n(np.array([]))
    (9, 8, 13)
    """
    lengths = np.asarray(item_lengths)
    if lengths.size == 0:
        return 13
    p5 = int(np.percentile(lengths, 5, method="lower"))
    return min(13, max(8, p5))


def _clean(overlap: np.ndarray, clean_below: float) -> np.ndarray:
    return overlap == 0 if clean_below == 0 else overlap < clean_below


def _dirty(overlap: np.ndarray, dirty_from: float) -> np.ndarray:
    return overlap > 0 if dirty_from == 0 else overlap >= dirty_from


def subset_masks(
    overlap: np.ndarray, clean_below: float, dirty_from: float
) -> dict[str, np.ndarray]:
    """Membership of each item in Llama 2's four subsets (see the module doc).

    >>> m = subset_masks(np.array([0.0, 0.2, 0.5, 0.8]), 0.2, 0.8)
    >>> {k: v.tolist() for k, v in m.items()}["not_dirty"]
    [True, True, True, False]
    """
    overlap = np.asarray(overlap, dtype=float)
    clean, dirty = _clean(overlap, clean_below), _dirty(overlap, dirty_from)
    return {"clean": clean, "not_clean": ~clean, "not_dirty": ~dirty, "dirty": dirty}


def bucket_of(overlap: np.ndarray, clean_below: float, dirty_from: float) -> list[str]:
    """Return the partition cell of each item: ``clean``, ``between`` or ``dirty``.

    >>> bucket_of(np.array([0.0, 0.19, 0.2, 0.8, 1.0]), 0.2, 0.8)
    ['clean', 'clean', 'between', 'dirty', 'dirty']
    >>> bucket_of(np.array([0.0, 0.01]), 0.0, 0.0)
    ['clean', 'dirty']
    """
    overlap = np.asarray(overlap, dtype=float)
    clean, dirty = _clean(overlap, clean_below), _dirty(overlap, dirty_from)
    return [
        "clean" if c else "dirty" if d else "between"
        for c, d in zip(clean.tolist(), dirty.tolist(), strict=True)
    ]
