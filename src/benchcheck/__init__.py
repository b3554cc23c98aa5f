"""benchcheck: audit NLP datasets and benchmarks before you trust them.

The public API, one place. Names load on first use (PEP 562), so ``import benchcheck`` and
the command line stay fast; every name below is importable as ``from benchcheck import X``.

>>> import benchcheck as bc
>>> from benchcheck.sample_data import NER_SAMPLE
>>> round(bc.compute_stats(bc.load(NER_SAMPLE)).metrics["leakage_ratio"], 3)
0.25
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name → module that defines it
_EXPORTS: dict[str, str] = {
    # errors
    "BenchcheckError": "benchcheck.errors",
    "InputError": "benchcheck.errors",
    "UsageError": "benchcheck.errors",
    "JudgeError": "benchcheck.errors",
    "JudgeUnavailable": "benchcheck.errors",
    # dataset model and readers
    "Dataset": "benchcheck.data.model",
    "Split": "benchcheck.data.model",
    "load": "benchcheck.io.load",
    "read_conll": "benchcheck.io.conll",
    "read_table": "benchcheck.io.tables",
    # statistical dataset evaluation
    "compute_stats": "benchcheck.metrics.compute",
    "StatsResult": "benchcheck.metrics.compute",
    "REGISTRY": "benchcheck.metrics.registry",
    "draw_sample": "benchcheck.metrics.accuracy",
    "score_annotations": "benchcheck.metrics.accuracy",
    # judges
    "Judge": "benchcheck.judges",
    "JudgeScore": "benchcheck.judges",
    "JudgeCache": "benchcheck.judges",
    "PromptTemplate": "benchcheck.judges",
    "judge_frame": "benchcheck.judges",
    "make_judge": "benchcheck.judges",
    "resolve_model": "benchcheck.judges",
    # label-error detection
    "ensemble": "benchcheck.labels",
    "read_judgments": "benchcheck.io.judgments",
    "flag_examples": "benchcheck.labels",
    "export_review": "benchcheck.runs.review",
    "import_review": "benchcheck.runs.review",
    "build_review": "benchcheck.labels",
    "combine_review": "benchcheck.labels",
    "stratified_gold_error_rate": "benchcheck.labels",
    "gold_error_rate": "benchcheck.labels",
    "bin_agreement": "benchcheck.labels",
    "ensemble_curve": "benchcheck.labels",
    "agreement_report": "benchcheck.labels",
    "apply_remedy": "benchcheck.labels",
    "rerank": "benchcheck.labels",
    "compare_spans": "benchcheck.labels",
    # statistics (arrays in, numbers out)
    "error_rate_interval": "benchcheck.stats.intervals",
    "clopper_pearson": "benchcheck.stats.intervals",
    "hypergeometric_interval": "benchcheck.stats.stratified",
    "stratified_error_rate": "benchcheck.stats.stratified",
    "plan_reviews": "benchcheck.stats.stratified",
    "cohen_kappa": "benchcheck.stats.agreement",
    "fleiss_kappa": "benchcheck.stats.agreement",
    "weighted_f1_matrix": "benchcheck.stats.agreement",
    "rk_from_confusion": "benchcheck.stats.correlation",
    # diagnostic evaluation
    "load_suite": "benchcheck.runs.diagnose",
    "diagnose_suite": "benchcheck.diagnostics",
    "check_suite": "benchcheck.diagnostics",
    "human_baseline": "benchcheck.diagnostics",
    "partial_input_audit": "benchcheck.diagnostics",
    # test theory for benchmarks (items × models)
    "ItemMatrix": "benchcheck.items",
    "item_matrix": "benchcheck.items",
    "matrix_from_predictions": "benchcheck.items",
    "analyse_items": "benchcheck.items",
    "fit_irt": "benchcheck.items.irt",
    "rank_under_noise": "benchcheck.items.noise",
    "diff_results": "benchcheck.items.diff",
    "evaluate_gates": "benchcheck.items.diff",
    "cronbach_alpha": "benchcheck.stats.ctt",
    "kr20": "benchcheck.stats.ctt",
    # the audit: every analysis that applies, as one results object
    "run_audit": "benchcheck.audit",
    "AuditInputs": "benchcheck.audit",
    "AuditReport": "benchcheck.audit",
    "write_report": "benchcheck.report.folder",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'benchcheck' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
