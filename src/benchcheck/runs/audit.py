"""``benchcheck audit``: which inputs an audit of the given data has, then :func:`run_audit`.

:func:`audit_inputs` decides what the data is — nothing (the bundled samples), a table with
text columns, a diagnostic suite, or a NER dataset — and builds the
:class:`~benchcheck.audit.AuditInputs` the analyses read; :func:`benchcheck.audit.run_audit`
runs them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchcheck.audit import AuditInputs
from benchcheck.data.columns import Columns
from benchcheck.errors import UsageError

__all__ = ["audit_inputs"]


def audit_inputs(
    data: str | None,
    *,
    splits: Mapping[str, str],
    predictions: Mapping[str, str],
    scores: Mapping[str, float],
    columns: Columns | None = None,
    **common: Any,
) -> AuditInputs:
    """Return the inputs of an audit of ``data`` (``common``: the options every kind takes).

    ``predictions`` are a NER dataset's test predictions, a suite's or a table's models;
    ``columns`` name a table's columns (a text column makes ``data`` a table).
    """
    from benchcheck.io.diagnostic import looks_like_suite

    cols = columns or Columns()
    text, text_a, text_b = cols.text, cols.text_a, cols.text_b

    if data is None and not splits:
        from benchcheck.diagnostics import sample_predictions_path
        from benchcheck.sample_data import DIAGNOSTIC_SAMPLE, NER_SAMPLE, PAIR_SAMPLE

        if text or text_a or text_b or predictions:
            raise UsageError("name the data file these options apply to (DATA)")
        return AuditInputs(
            **common,
            ner=str(NER_SAMPLE),
            table=str(PAIR_SAMPLE),
            text_a="grounding",
            text_b="generated_text",
            suite=str(DIAGNOSTIC_SAMPLE),
            suite_predictions={"overlap-baseline": str(sample_predictions_path())},
        )
    if text or text_a or text_b:
        if data is None:
            raise UsageError("{text} or {text_a} and {text_b} need a DATA file")
        return AuditInputs(
            **common,
            table=data,
            text=text,
            text_a=text_a,
            text_b=text_b,
            label=cols.label,
            id=cols.id,
            item_predictions=predictions,
        )
    if data is not None and looks_like_suite(data):
        return AuditInputs(**common, suite=data, suite_predictions=predictions)
    return AuditInputs(
        **common, ner=data, ner_splits=splits, scores=scores, ner_predictions=predictions
    )
