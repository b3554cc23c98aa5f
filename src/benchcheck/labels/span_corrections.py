"""Corrected spans of a span review, against the corpus: accuracy (Eq. 2) and the remedy.

``benchcheck review import -o`` of a span review writes, per settled sentence, its corrected
gold spans (:func:`benchcheck.labels.span_review.combine_span_review`: ``split``,
``sentence``, ``start``, ``end`` exclusive, ``type``; a row without a span for a sentence
settled with no entity; ``stratum`` ``disputed`` for a flagged sentence, ``undisputed`` for
an audit-sample one). :func:`corrected_spans` reads that table into one span set per
reviewed sentence; :func:`check_corrections` checks it against the corpus (split names,
sentence indices, span ends); :func:`reviewed_accuracy` estimates the NER paper's Eq. 2
accuracy (share of instances whose annotation is correct) per split from the reviewed
sentences, with a Clopper–Pearson interval (``scipy.stats.binomtest``).

Which sentences estimate the accuracy. Flagged sentences were picked for being suspicious,
so the share of them whose gold survived review is biased toward errors: with only flagged
rows (``sample: flagged``) the estimate is a **lower bound** of the accuracy, not an
estimate of it. When the table says which sentences were an audit sample (``stratum``
``undisputed``: ``review export --audit-sample`` draws them at random among the sentences
without a flag), the estimate is computed from the audit rows only (``sample: audit``):
an unbiased estimate of the accuracy of the unflagged sentences.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from benchcheck.errors import InputError

__all__ = [
    "CORRECTED_COLUMNS",
    "Corrections",
    "ReviewedAccuracy",
    "check_corrections",
    "corrected_spans",
    "reviewed_accuracy",
]

#: Columns a corrected-spans table must have (``review import -o`` of a span review).
CORRECTED_COLUMNS = ("split", "sentence", "start", "end", "type")

Span = tuple[int, int, str]


@dataclass(frozen=True)
class Corrections:
    """Per reviewed sentence ``(split, sentence)``: its corrected spans, and its stratum."""

    spans: Mapping[tuple[str, int], frozenset[Span]]
    #: ``disputed`` (flagged) or ``undisputed`` (audit sample); ``None``: not recorded.
    stratum: Mapping[tuple[str, int], str | None]
    #: The 1-based line (data row) of each sentence's first row, for error messages.
    line: Mapping[tuple[str, int], int]
    source: str

    @property
    def has_audit(self) -> bool:
        """Whether the table says which sentences were an audit sample."""
        return any(v == "undisputed" for v in self.stratum.values())


def corrected_spans(frame: pl.DataFrame, *, source: str | Path) -> Corrections:
    """Read a corrected-spans table (columns :data:`CORRECTED_COLUMNS`, optional ``stratum``).

    A row with null ``start``/``end``/``type`` marks a sentence settled with no entity.

    >>> f = pl.DataFrame({"split": ["test", "test", "dev"], "sentence": [0, 0, 3],
    ...                   "start": [0, 3, None], "end": [2, 4, None],
    ...                   "type": ["PER", "ORG", None]})
    >>> c = corrected_spans(f, source="gold.csv")
    >>> sorted(c.spans[("test", 0)]), c.spans[("dev", 3)]
    ([(0, 2, 'PER'), (3, 4, 'ORG')], frozenset())
    """
    missing = [c for c in CORRECTED_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(
            f"not corrected spans (benchcheck review import -o of a span review): no "
            f"column(s) {missing}",
            path=source,
        )
    lines = (
        frame["__line__"].cast(pl.Int64).to_list()
        if "__line__" in frame.columns
        else list(range(2, frame.height + 2))
    )
    has_stratum = "stratum" in frame.columns
    spans: dict[tuple[str, int], set[Span]] = {}
    stratum: dict[tuple[str, int], str | None] = {}
    first: dict[tuple[str, int], int] = {}
    cols = [*CORRECTED_COLUMNS, *(["stratum"] if has_stratum else [])]
    for line, row in zip(lines, frame.select(cols).iter_rows(named=True), strict=True):
        split, sentence = row["split"], row["sentence"]
        if split is None or sentence is None:
            raise InputError("a row without its split or sentence", path=source, line=line)
        try:
            key = (str(split), int(sentence))
        except (TypeError, ValueError):
            raise InputError(
                f"sentence {sentence!r} is not a whole number", path=source, line=line
            ) from None
        if key[1] < 0:
            raise InputError(f"sentence {key[1]} is negative", path=source, line=line)
        first.setdefault(key, line)
        spans.setdefault(key, set())
        stratum[key] = str(row["stratum"]) if has_stratum and row["stratum"] else None
        given = (row["start"], row["end"], row["type"])
        if all(v is None for v in given):
            continue
        if any(v is None for v in given):
            raise InputError(
                "a span row needs start, end and type (all three empty: no entity)",
                path=source,
                line=line,
            )
        try:
            a, b = int(row["start"]), int(row["end"])
        except (TypeError, ValueError):
            raise InputError(
                "start and end must be whole numbers", path=source, line=line
            ) from None
        if not 0 <= a < b:
            raise InputError(
                f"span [{a}, {b}) is empty or negative (end is exclusive)", path=source, line=line
            )
        kind = str(row["type"])
        if not kind or kind.split() != [kind] or not kind.isprintable():
            raise InputError(
                "the type is empty or holds white space or a control character, which a tag "
                "column cannot hold; expected one word (e.g. PER)",
                path=source,
                line=line,
                got=kind,
            )
        spans[key].add((a, b, kind))
    return Corrections({k: frozenset(v) for k, v in spans.items()}, stratum, first, str(source))


def check_corrections(
    corrections: Corrections, sentence_lengths: Mapping[str, Any], *, corpus: str
) -> None:
    """Refuse corrections that do not fit the corpus (``split`` → token count per sentence).

    Raises :class:`InputError` naming the corrected-spans file and line: a split the corpus
    lacks, a sentence index past the split's end, a span past its sentence's end.

    >>> c = corrected_spans(pl.DataFrame({"split": ["test"], "sentence": [1], "start": [2],
    ...                                   "end": [5], "type": ["PER"]}), source="g.csv")
    >>> check_corrections(c, {"test": [4, 4]}, corpus="data/")
    Traceback (most recent call last):
    ...
    benchcheck.errors.InputError: g.csv:2: span [2, 5) of test sentence 1 ends past \
the sentence's 4 tokens (data/)
    """
    for key, spans in corrections.spans.items():
        split, sentence = key
        line = corrections.line[key]
        if split not in sentence_lengths:
            raise InputError(
                f"split {split!r} is not in the corpus {corpus} (its splits: "
                f"{sorted(sentence_lengths)})",
                path=corrections.source,
                line=line,
            )
        lengths = sentence_lengths[split]
        if sentence >= len(lengths):
            raise InputError(
                f"sentence {sentence} is out of range: {split} has {len(lengths)} sentences "
                f"(0 to {len(lengths) - 1}) in {corpus}",
                path=corrections.source,
                line=line,
            )
        n = int(lengths[sentence])
        for a, b, _ in sorted(spans):
            if b > n:
                raise InputError(
                    f"span [{a}, {b}) of {split} sentence {sentence} ends past the "
                    f"sentence's {n} tokens ({corpus})",
                    path=corrections.source,
                    line=line,
                )


@dataclass(frozen=True)
class ReviewedAccuracy:
    """Eq. 2 accuracy of one split, estimated from its reviewed sentences.

    ``accuracy`` = (n_reviewed - n_changed) / n_reviewed over the sentences that estimate
    it (``sample``: ``audit`` rows when the review had an audit sample, else every reviewed
    sentence, ``flagged``, a lower bound); ``ci`` the Clopper–Pearson interval at ``level``.
    ``n_reviewed_all`` / ``n_changed_all`` count every reviewed sentence of the split.
    """

    split: str
    sample: str
    n_reviewed: int
    n_changed: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None
    level: float
    n_reviewed_all: int
    n_changed_all: int

    def to_json(self) -> dict[str, Any]:
        """Return the split's entry of ``stats --json``'s ``reviewed_accuracy``."""
        return {
            "sample": self.sample,
            "n_reviewed": self.n_reviewed,
            "n_changed": self.n_changed,
            "accuracy": self.accuracy,
            "ci": [self.ci_low, self.ci_high] if self.accuracy is not None else None,
            "level": self.level,
            "n_reviewed_all": self.n_reviewed_all,
            "n_changed_all": self.n_changed_all,
        }


def reviewed_accuracy(
    corrections: Corrections,
    gold: Mapping[str, Mapping[int, frozenset[Span]]],
    *,
    level: float = 0.95,
) -> tuple[ReviewedAccuracy, ...]:
    """Eq. 2 accuracy per split: share of reviewed sentences whose gold equals the corrected.

    ``gold``: split → sentence → the corpus's spans (a sentence without entity may be
    absent). A sentence is *changed* when its corrected span set differs from its gold one.
    Accuracy = 1 - n_changed / n over the estimating sentences (module docstring), with the
    exact Clopper–Pearson interval of ``scipy.stats.binomtest(...).proportion_ci("exact")``.

    >>> c = corrected_spans(pl.DataFrame({"split": ["t", "t", "t"], "sentence": [0, 1, 2],
    ...     "start": [0, 0, None], "end": [1, 2, None], "type": ["PER", "LOC", None]}),
    ...     source="g.csv")
    >>> gold = {"t": {0: frozenset({(0, 1, "PER")}), 1: frozenset({(0, 1, "LOC")})}}
    >>> r = reviewed_accuracy(c, gold)[0]
    >>> r.sample, r.n_reviewed, r.n_changed, round(r.accuracy, 4)
    ('flagged', 3, 1, 0.6667)
    >>> round(r.ci_low, 4), round(r.ci_high, 4)
    (0.0943, 0.9916)
    """
    from scipy.stats import binomtest

    audit = corrections.has_audit
    out = []
    for split in sorted({k[0] for k in corrections.spans}):
        keys = sorted(k for k in corrections.spans if k[0] == split)
        empty: frozenset[Span] = frozenset()
        changed = {k for k in keys if corrections.spans[k] != gold.get(split, {}).get(k[1], empty)}
        used = [k for k in keys if corrections.stratum[k] == "undisputed"] if audit else keys
        n = len(used)
        bad = sum(1 for k in used if k in changed)
        acc = lo = hi = None
        if n:
            ci = binomtest(n - bad, n).proportion_ci(confidence_level=level, method="exact")
            acc, lo, hi = (n - bad) / n, float(ci.low), float(ci.high)
        out.append(
            ReviewedAccuracy(
                split,
                "audit" if audit else "flagged",
                n,
                bad,
                acc,
                lo,
                hi,
                level,
                len(keys),
                len(changed),
            )
        )
    return tuple(out)
