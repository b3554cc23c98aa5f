"""A tiny CoNLL corpus whose out-of-fold tagger answer is forced (NER detector tests)."""

from __future__ import annotations

NAMES = ["Anna", "Boris", "Carl", "Dora", "Emil"]
CITIES = ["Paris", "Rome", "Oslo", "Lima"]


def corpus(n: int = 24, wrong: dict[int, str] | None = None) -> str:
    """``NAME visited CITY .`` sentences, PER and LOC; ``wrong`` gives a city another tag."""
    wrong = wrong or {}
    blocks = []
    for i in range(n):
        city_tag = wrong.get(i, "B-LOC")
        blocks.append(f"{NAMES[i % 5]} B-PER\nvisited O\n{CITIES[i % 4]} {city_tag}\n. O\n")
    return "\n".join(blocks)
