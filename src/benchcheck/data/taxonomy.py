"""Phenomenon taxonomies: coarse categories → fine tags.

The default is the GLUE diagnostic taxonomy (Wang et al. 2018; methods.md section 3). A user
taxonomy file (TOML or JSON) may replace it for any domain, e.g. a safety suite whose coarse
categories are threats and whose fine tags are attack kinds.

File forms accepted (TOML or JSON)::

    name = "my-suite"                     # optional
    [categories]
    "Robustness" = ["Typos", "Paraphrase"]
    "Bias" = ["Gender", "Age"]

or a plain top-level mapping ``{"Robustness": ["Typos", ...], ...}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

__all__ = ["GLUE_TAXONOMY", "Taxonomy"]


def _norm(name: str) -> str:
    """Return the matching key: case-folded, spaces collapsed, no spaces around ``/`` or ``-``."""
    key = re.sub(r"\s+", " ", name.strip().casefold())
    return re.sub(r"\s*([/-])\s*", r"\1", key)


@dataclass(frozen=True)
class Taxonomy:
    """Coarse categories, each with its fine tags, in display order.

    Tags are matched case-insensitively (and through ``aliases``) and reported under their
    canonical spelling.

    >>> GLUE_TAXONOMY.coarse_of("double negation")
    'Logic'
    >>> GLUE_TAXONOMY.canonical("Core args")
    'Core Arguments'
    >>> GLUE_TAXONOMY.canonical("Telepathy") is None
    True
    """

    categories: tuple[tuple[str, tuple[str, ...]], ...]
    name: str = "custom"
    aliases: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for _, fines in self.categories:
            for tag in fines:
                if _norm(tag) in seen:
                    raise ValueError(f"tag {tag!r} appears twice in taxonomy {self.name!r}")
                seen.add(_norm(tag))

    @property
    def coarse_names(self) -> list[str]:
        """The coarse categories, in order."""
        return [c for c, _ in self.categories]

    @property
    def fine_names(self) -> list[str]:
        """All fine tags, in order."""
        return [t for _, fines in self.categories for t in fines]

    @cached_property
    def _table(self) -> dict[str, tuple[str, str | None]]:
        table: dict[str, tuple[str, str | None]] = {}
        for coarse, fines in self.categories:
            table[_norm(coarse)] = (coarse, None)
            for tag in fines:
                table[_norm(tag)] = (tag, coarse)
        for alias, target in self.aliases.items():
            if _norm(target) in table:
                table[_norm(alias)] = table[_norm(target)]
        return table

    def canonical(self, tag: str) -> str | None:
        """Canonical spelling of a fine tag or coarse name; None when unknown."""
        hit = self._table.get(_norm(tag))
        return None if hit is None else hit[0]

    def coarse_of(self, tag: str) -> str | None:
        """Return the coarse category of a tag (a coarse name maps to itself); None if unknown."""
        hit = self._table.get(_norm(tag))
        if hit is None:
            return None
        return hit[0] if hit[1] is None else hit[1]

    def is_coarse(self, tag: str) -> bool:
        """Whether ``tag`` names a coarse category."""
        hit = self._table.get(_norm(tag))
        return hit is not None and hit[1] is None

    def to_json(self) -> dict[str, object]:
        """JSON form: ``{"name", "categories": {coarse: [fine, ...]}}``."""
        return {"name": self.name, "categories": {c: list(f) for c, f in self.categories}}

    @classmethod
    def from_mapping(
        cls, categories: Mapping[str, Sequence[str]], *, name: str = "custom"
    ) -> Taxonomy:
        """Build from ``{coarse: [fine, ...]}``."""
        return cls(tuple((str(c), tuple(str(t) for t in f)) for c, f in categories.items()), name)


GLUE_TAXONOMY = Taxonomy(
    (
        (
            "Lexical Semantics",
            (
                "Lexical Entailment",
                "Morphological Negation",
                "Factivity",
                "Symmetry/Collectivity",
                "Redundancy",
                "Named Entities",
                "Quantifiers",
            ),
        ),
        (
            "Predicate-Argument Structure",
            (
                "Core Arguments",
                "Prepositional Phrases",
                "Ellipsis/Implicits",
                "Anaphora/Coreference",
                "Active/Passive",
                "Nominalization",
                "Genitives/Partitives",
                "Datives",
                "Relative Clauses",
                "Coordination Scope",
                "Intersectivity",
                "Restrictivity",
            ),
        ),
        (
            "Logic",
            (
                "Negation",
                "Double Negation",
                "Intervals/Numbers",
                "Conjunction",
                "Disjunction",
                "Conditionals",
                "Universal",
                "Existential",
                "Temporal",
                "Upward Monotone",
                "Downward Monotone",
                "Non-Monotone",
            ),
        ),
        ("Knowledge", ("Common Sense", "World Knowledge")),
    ),
    name="glue-diagnostic",
    # Spellings seen in the released diagnostic-full.tsv and in common re-distributions.
    aliases={
        "Core args": "Core Arguments",
        "Core argument": "Core Arguments",
        "Nonmonotone": "Non-Monotone",
        "Nominalisation": "Nominalization",
        "Commonsense": "Common Sense",
        "Prepositional phrase": "Prepositional Phrases",
        "Relative clause": "Relative Clauses",
        "Conditional": "Conditionals",
        "Interval/Numbers": "Intervals/Numbers",
    },
)
