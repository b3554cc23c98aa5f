"""What a reviewer is asked to do: the task definition and what each label means.

A blind review (:mod:`benchcheck.labels.review`, :mod:`benchcheck.labels.span_review`)
shows examples without the original label; without a task and label meanings a reviewer
sees ``0``/``1`` and guesses. Every package therefore carries :class:`Guidelines`: the
user's (read by :func:`benchcheck.io.review.read_guidelines`) or a default per task
(:func:`default_guidelines`). The defaults follow the conventions benchcheck's own judges
and bundled data use: a binary pair is factual consistency (``1`` = every fact of the
second text is supported by the first, as the built-in prompts ask, and the TRUE
benchmark's binary datasets label), three NLI labels are the SNLI/MNLI definitions, and
the CoNLL entity types are those of the CoNLL-2003 shared task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Guidelines", "default_guidelines"]

#: Meanings of the usual NER types (CoNLL-2003 shared task; MISC as its guidelines say).
_NER_TYPES = {
    "PER": "a person's name (real or fictional)",
    "LOC": "a location: a country, city, region, mountain, river, …",
    "ORG": "an organisation: a company, institution, team, party, government body, …",
    "MISC": "another proper name: a nationality, event, work of art, product, language, …",
    "GPE": "a geo-political entity: a country, city or state",
}
_NLI = {
    "entailment": "the first text (premise) makes the second (hypothesis) certainly true",
    "neutral": "the second text might be true or false given the first",
    "contradiction": "the first text makes the second certainly false",
}


@dataclass(frozen=True)
class Guidelines:
    """A review's task definition and the meaning of each label (``labels``: label → text).

    >>> g = Guidelines("Is it spam?", {"1": "spam", "0": "not spam"})
    >>> g.meaning("1"), g.meaning("2")
    ('spam', None)
    """

    task: str
    labels: Mapping[str, str] = field(default_factory=dict)

    def meaning(self, label: str) -> str | None:
        """Return what ``label`` means, or None when the guidelines do not say."""
        return self.labels.get(label)

    def over(self, default: Guidelines) -> Guidelines:
        """Return these guidelines with ``default``'s meanings for the labels they leave out.

        >>> Guidelines("T", {"1": "yes"}).over(Guidelines("D", {"0": "no", "1": "y"})).labels
        {'0': 'no', '1': 'yes'}
        """
        return Guidelines(self.task, {**dict(default.labels), **dict(self.labels)})

    def choice_text(self, label: str) -> str:
        """Return a choice as a reviewer reads it: ``1 — meaning`` (the label alone without one).

        >>> Guidelines("T", {"1": "yes"}).choice_text("1")
        '1 — yes'
        """
        found = self.meaning(label)
        return label if not found else f"{label} — {found}"

    def to_markdown(self, choices: Sequence[str], columns: Mapping[str, str] | None = None) -> str:
        """Return the guidelines as a reviewer reads them: the task, the columns, the labels.

        ``columns`` maps each shown column to what it holds.
        """
        lines = ["# Review guidelines", "", self.task.strip(), ""]
        if columns:
            lines += ["## Columns", ""]
            lines += [f"- `{name}`: {what}" for name, what in columns.items()]
            lines.append("")
        lines += ["## Labels", ""]
        for lab in choices:
            lines.append(f"- `{lab}`: {self.meaning(lab) or '(no meaning given)'}")
        lines += [
            "",
            "Work alone: do not discuss items with the other reviewers until everyone has "
            "finished. Leave an item empty (or skip it) when you cannot decide.",
            "",
        ]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {"task": self.task, "labels": dict(self.labels)}


#: The verdicts of a multiple-choice review besides a letter.
_MCQ = {
    "none": "no option is correct",
    "several": "more than one option is correct",
    "unclear": "the question cannot be answered as written",
}


def default_guidelines(
    task: str, choices: Sequence[str], columns: Sequence[str] = ()
) -> Guidelines:
    """Return the default guidelines of a ``pair``, ``classification``, ``mcq`` or ``ner`` review.

    ``columns`` are the shown text columns (the pair's first and second text, the text)
    as the dataset names them; ``choices`` the labels (entity types for ``ner``).

    >>> g = default_guidelines("pair", ["0", "1"], ["grounding", "generated_text"])
    >>> g.meaning("1")
    'yes: every fact in generated_text is supported by grounding (consistent)'
    >>> default_guidelines("ner", ["LOC", "XYZ"]).meaning("XYZ") is None
    True
    >>> default_guidelines("mcq", ["A", "B", "none"]).meaning("none")
    'no option is correct'
    """
    labels = set(choices)
    if task == "mcq":
        return Guidelines(
            "Each item shows one multiple-choice question with its options lettered A, B, "
            "…. Choose the letter of the correct option. Answer none when no option is "
            "correct, several when more than one is, and unclear when the question cannot be "
            "answered as written (missing context, ambiguous wording). Judge the question as "
            "an expert of its subject; leave the answer empty when you cannot decide.",
            {
                **{c: f"option {c} is the one correct answer" for c in choices if len(c) == 1},
                **{k: v for k, v in _MCQ.items() if k in labels},
            },
        )
    if task == "ner":
        return Guidelines(
            "Each task shows one sentence of a document, with the sentences before and after "
            "it and the document's id for context, and the entity spans it is annotated with "
            "now. Correct the spans of the middle sentence only: move a boundary, change a "
            "type, delete a span that is no entity, add a missing one. Mark whole tokens "
            "(words); an entity is the full name, without a leading article. Submit the "
            "sentence unchanged when its spans are right; skip it when you cannot judge.",
            {t: _NER_TYPES[t] for t in choices if t in _NER_TYPES},
        )
    if task == "pair":
        a, b = (list(columns) + ["the first text", "the second text"])[:2]
        if labels == {"0", "1"}:
            return Guidelines(
                f"Each item shows two texts: {a} and {b}. Decide whether everything {b} "
                f"states is supported by {a}: a fact {a} does not give, or contradicts, "
                f"makes the answer 0. Judge from {a} alone, not from what you know.",
                {
                    "1": f"yes: every fact in {b} is supported by {a} (consistent)",
                    "0": f"no: {b} states something {a} does not support or contradicts",
                },
            )
        if labels and labels <= set(_NLI):
            return Guidelines(
                f"Each item shows a premise ({a}) and a hypothesis ({b}). Decide how the "
                "premise bears on the hypothesis, reading both as describing the same "
                "situation.",
                {k: v for k, v in _NLI.items() if k in labels},
            )
        return Guidelines(
            f"Each item shows two texts: {a} and {b}. Choose the label the pair should have, "
            "as the dataset's annotation guidelines define the labels."
        )
    text = (list(columns) + ["the text"])[0]
    return Guidelines(
        f"Each item shows one text ({text}). Choose the label it should have, as the "
        "dataset's annotation guidelines define the labels."
    )
