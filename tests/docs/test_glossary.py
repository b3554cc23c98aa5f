"""The glossary explains each word the issue found unexplained in the terminal and report."""

from __future__ import annotations

from pathlib import Path

GLOSSARY = Path(__file__).parents[2] / "docs" / "glossary.md"
TERMS = ("MOVER", "mid-p", "bayes-platt", "poisson-binomial", "noisy-or", "AP", "P@k", "ECE")


def test_every_term_has_an_entry():
    rows = [
        line
        for line in GLOSSARY.read_text(encoding="utf-8").splitlines()
        if line.startswith("| **")
    ]
    entries = {row.split("**")[1] for row in rows}
    assert set(TERMS) <= entries
    assert all(len(row.split("|")[2].split()) >= 8 for row in rows)  # an explanation, not a word
