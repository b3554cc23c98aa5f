"""A transparent rule-based NLI baseline, used for the shipped demo predictions.

It is *not* a model of inference: it is the lexical-overlap and negation-mismatch heuristic
that diagnostic suites are built to expose (McCoy et al. 2019 call the first the lexical
overlap heuristic). Its scores on the sample suite show what the per-phenomenon table looks
like for a model that relies on surface cues.
"""

from __future__ import annotations

import re

__all__ = ["NEGATION_WORDS", "overlap_baseline"]

NEGATION_WORDS = frozenset({"not", "no", "none", "never", "nobody", "nothing", "n't", "neither"})
_STOP = frozenset(
    "a an the of to in on at by for with and or is was were are be been it that this "
    "some any every all most".split()
)


def _words(text: str) -> list[str]:
    return re.findall(r"n't|[a-z0-9]+", text.casefold())


def overlap_baseline(premise: str, hypothesis: str) -> str:
    """Predict an NLI label from surface cues alone.

    Rules, in order: a negation word on one side only → ``contradiction``; every content
    word of the hypothesis occurs in the premise → ``entailment``; else ``neutral``.

    >>> overlap_baseline("The shop is open.", "The shop is not open.")
    'contradiction'
    >>> overlap_baseline("A red car was parked here.", "A car was parked here.")
    'entailment'
    >>> overlap_baseline("A heron stood there.", "A bird stood there.")
    'neutral'
    """
    p, h = _words(premise), _words(hypothesis)
    if bool(NEGATION_WORDS & set(p)) != bool(NEGATION_WORDS & set(h)):
        return "contradiction"
    content = [w for w in h if w not in _STOP and w not in NEGATION_WORDS]
    if set(content) <= set(p):
        return "entailment"
    return "neutral"
