"""Which columns of a table hold the text(s), the label and the id: one frozen value.

Classification and pair data come in any column names; :class:`Columns` says which is
which, is validated once when it is built, and is what every reader, run and the audit
take instead of five loose keyword arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from benchcheck.errors import UsageError

__all__ = ["Columns"]


@dataclass(frozen=True)
class Columns:
    """The columns of a classification (``text``) or pair (``text_a`` + ``text_b``) table.

    Every name is optional: readers fall back to ``text``, a known pair of columns
    (``text_a``/``text_b``, ``premise``/``hypothesis``, …), ``label`` and ``id`` (else the
    row number). A text column and pair columns exclude each other, and ``text_a`` needs
    ``text_b``.

    >>> Columns(text_a="premise", text_b="hypothesis").task
    'pair'
    >>> Columns(text="t", text_a="a", text_b="b")
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: give text or text_a and text_b, not both
    """

    text: str | None = None
    text_a: str | None = None
    text_b: str | None = None
    label: str | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        if self.text is not None and (self.text_a is not None or self.text_b is not None):
            raise UsageError("give {text} or {text_a} and {text_b}, not both")
        if (self.text_a is None) != (self.text_b is None):
            raise UsageError("{text_a} and {text_b} go together: give both")

    @classmethod
    def of(cls, value: Columns | Mapping[str, str | None] | None) -> Columns:
        """Return ``value`` as :class:`Columns`: itself, a mapping of its names, or none.

        >>> Columns.of({"text": "review"})
        Columns(text='review', text_a=None, text_b=None, label=None, id=None)
        >>> Columns.of({"txt": "review"})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        benchcheck.errors.UsageError: columns: unknown name 'txt'; expected text, text_a, ...
        """
        if value is None:
            return cls()
        if isinstance(value, Columns):
            return value
        names = ("text", "text_a", "text_b", "label", "id")
        unknown = [k for k in value if k not in names]
        if unknown:
            raise UsageError(
                f"columns: unknown name {unknown[0]!r}; expected text, text_a, text_b, label or id"
            )
        return cls(**{k: v for k, v in value.items()})

    @property
    def task(self) -> str | None:
        """``pair`` or ``classification`` when the columns say which, else ``None``."""
        if self.text_a is not None:
            return "pair"
        if self.text is not None:
            return "classification"
        return None

    def given(self) -> dict[str, str]:
        """Return the names given, as keyword arguments of the table readers.

        >>> Columns(text="review", label="stars").given()
        {'text': 'review', 'label': 'stars'}
        """
        pairs = (
            ("text", self.text),
            ("text_a", self.text_a),
            ("text_b", self.text_b),
            ("label", self.label),
            ("id", self.id),
        )
        return {k: v for k, v in pairs if v is not None}
