"""Multiple-choice questions: which columns hold what, and the key normalised to an index.

An MCQ split's table (``task="mcq"``) has the classification columns — ``id``, ``text``
(the question), ``label`` (the key's letter), ``line``, ``n_tokens``, ``x_hash``,
``xy_hash`` — so every text statistic reads it as a classification over letters, plus
``options`` (a list of strings), ``key`` (the key's 0-based index) and ``group`` (subject;
null when the data has none).
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

from benchcheck.errors import UsageError

__all__ = ["LETTERS", "McqColumns", "key_index", "letter", "lettered"]

#: Option letters: ``A`` is option 0.
LETTERS = string.ascii_uppercase

#: Column names tried in order when a role is not named.
QUESTION_DEFAULTS = ("question", "question_stem", "ctx", "prompt", "input", "query", "stem")
OPTIONS_DEFAULTS = ("options", "choices", "endings", "answers_list")
KEY_DEFAULTS = ("answer", "answerKey", "answer_key", "answer_idx", "key", "label", "target", "gold")
GROUP_DEFAULTS = ("subject", "group", "category")


@dataclass(frozen=True)
class McqColumns:
    """The columns of a multiple-choice table; every name is optional.

    ``options`` names one column holding the options (a list, a ``{label, text}`` object,
    a list of such objects or a letter → text mapping); ``option_columns`` names one column
    per option instead (``("A", "B", "C", "D")``). Without either, the reader tries
    :data:`OPTIONS_DEFAULTS`, then columns named ``A``, ``B``, … .

    >>> McqColumns(options="choices", option_columns=("A", "B"))
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: give choices or option_columns, not both
    """

    question: str | None = None
    options: str | None = None
    option_columns: tuple[str, ...] | None = None
    key: str | None = None
    group: str | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        if self.options is not None and self.option_columns is not None:
            raise UsageError("give {choices} or {option_columns}, not both")
        if self.option_columns is not None:
            if len(self.option_columns) < 2:
                raise UsageError("{option_columns} needs at least two columns")
            object.__setattr__(self, "option_columns", tuple(self.option_columns))


def letter(index: int) -> str:
    """Return the letter of a 0-based option index.

    >>> letter(0), letter(3)
    ('A', 'D')
    """
    return LETTERS[index]


def lettered(question: str, options: Sequence[str]) -> str:
    """Return the question with its options lettered, one a line (reviewers, judges).

    >>> print(lettered("2 + 2?", ["3", "4"]))
    2 + 2?
    A. 3
    B. 4
    """
    return "\n".join([question, *(f"{letter(i)}. {o}" for i, o in enumerate(options))])


def key_index(
    key: object, options: Sequence[str], labels: Sequence[str] | None = None
) -> int | None:
    """Return the 0-based option a key names, or ``None`` when it names none.

    In order: an option label (``{label, text}`` data such as ARC, whose labels may be
    ``"1"``–``"4"``), an integer or digit string (0-based), a single letter (``A`` = 0,
    any case), the text of exactly one option (whitespace stripped).

    >>> opts = ["Paris", "Rome", "Oslo"]
    >>> key_index(2, opts), key_index("1", opts), key_index("b", opts), key_index(" Oslo", opts)
    (2, 1, 1, 2)
    >>> key_index("1", opts, labels=["1", "2", "3"]), key_index(3, opts), key_index("Bern", opts)
    (0, None, None)
    """
    n = len(options)
    if isinstance(key, bool) or key is None:
        return None
    if isinstance(key, float):
        if not key.is_integer():
            return None
        key = int(key)
    if isinstance(key, int):
        return key if 0 <= key < n else None
    text = str(key).strip()
    if labels is not None and text in labels:
        return list(labels).index(text)
    if text.isdigit():
        value = int(text)
        return value if value < n else None
    if len(text) == 1 and text.upper() in LETTERS:
        value = LETTERS.index(text.upper())
        return value if value < n else None
    hits = [i for i, o in enumerate(options) if o.strip() == text]
    return hits[0] if len(hits) == 1 else None
