"""Label-error detection with a judge ensemble (methods.md section 2).

judgments → :func:`ensemble` → :func:`flag_examples` → :func:`export_review` /
:func:`import_review` (gold labels) → :func:`gold_error_rate`, :func:`bin_agreement`,
:func:`ensemble_curve`, :func:`agreement_report`; :func:`apply_remedy` and :func:`rerank`
for the consequences; :func:`compare_spans` for NER span flags.
"""

from benchcheck.labels.analysis import (
    agreement_report,
    bin_agreement,
    ensemble_curve,
    gold_error_rate,
)
from benchcheck.labels.ensemble import ensemble
from benchcheck.labels.flags import (
    confident_learning_flags,
    detector_overlap,
    flag_examples,
    summarize_flags,
)
from benchcheck.labels.ner_flags import compare_spans, span_review_frame
from benchcheck.labels.remedies import apply_remedy, rerank
from benchcheck.labels.review import export_review, import_review

__all__ = [
    "agreement_report",
    "apply_remedy",
    "bin_agreement",
    "compare_spans",
    "confident_learning_flags",
    "detector_overlap",
    "ensemble",
    "ensemble_curve",
    "export_review",
    "flag_examples",
    "gold_error_rate",
    "import_review",
    "rerank",
    "span_review_frame",
    "summarize_flags",
]
