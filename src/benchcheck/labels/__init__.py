"""Label-error detection with a judge ensemble (methods.md section 2).

judgments → :func:`ensemble` → :func:`detect` (the flag rule) → :func:`build_review` /
:func:`combine_review` (gold labels; the files: :mod:`benchcheck.runs.review`) →
:func:`gold_error_rate`, :func:`stratified_gold_error_rate`, :func:`bin_agreement`,
:func:`ensemble_curve`, :func:`agreement_report`; :func:`apply_remedy` and :func:`rerank`
for the consequences; :func:`compare_spans` for NER span flags.

Names load on first use (PEP 562, as :mod:`benchcheck` does): importing one module of the
package (``benchcheck.labels.ner_flags``) no longer imports scikit-learn and SciPy through
the others, seconds of every label command's start.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name → module that defines it
_EXPORTS: dict[str, str] = {
    "agreement_report": "benchcheck.labels.analysis",
    "bin_agreement": "benchcheck.labels.analysis",
    "ensemble_curve": "benchcheck.labels.analysis",
    "gold_error_rate": "benchcheck.labels.analysis",
    "ensemble": "benchcheck.labels.ensemble",
    "confident_learning_flags": "benchcheck.labels.flags",
    "detect": "benchcheck.labels.detectors",
    "detector_overlap": "benchcheck.labels.flags",
    "summarize_flags": "benchcheck.labels.flags",
    "compare_spans": "benchcheck.labels.ner_flags",
    "span_review_frame": "benchcheck.labels.ner_flags",
    "apply_remedy": "benchcheck.labels.remedies",
    "rerank": "benchcheck.labels.remedies",
    "build_review": "benchcheck.labels.review",
    "combine_review": "benchcheck.labels.review",
    "stratified_gold_error_rate": "benchcheck.labels.error_rate",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'benchcheck.labels' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
