"""Phenomenon-tagged diagnostic suites: per-tag R_K, partial-input audit, human baseline, checks.

Library entry points (methods.md section 3)::

    suite = load_suite("suite.jsonl")   # benchcheck.io.diagnostic; or the GLUE diagnostic TSV
    result = diagnose_suite(suite, {"model": {id: label}}, seed=0)
    result.to_json()["models"]["model"]["coarse"]["Logic"]  # {"r_k", "n", "ci", "confusion"}
    check_suite(suite).to_json()
"""

from benchcheck.diagnostics.artifacts import ArtifactAudit, Cue, partial_input_audit
from benchcheck.diagnostics.baselines import overlap_baseline
from benchcheck.diagnostics.checks import SuiteChecks, check_suite
from benchcheck.diagnostics.human import HumanBaseline, human_baseline
from benchcheck.diagnostics.sample import sample_predictions_path, sample_suite_path
from benchcheck.diagnostics.score import (
    NOT_COMPARABLE_NOTE,
    Cell,
    DiagnosisResult,
    ModelDiagnosis,
    PairedTest,
    diagnose_suite,
    rk_cell,
)
from benchcheck.diagnostics.suite import DiagnosticSuite, suite_from_dataset
from benchcheck.diagnostics.taxonomy import GLUE_TAXONOMY, Taxonomy

__all__ = [
    "GLUE_TAXONOMY",
    "NOT_COMPARABLE_NOTE",
    "ArtifactAudit",
    "Cell",
    "Cue",
    "DiagnosisResult",
    "DiagnosticSuite",
    "HumanBaseline",
    "ModelDiagnosis",
    "PairedTest",
    "SuiteChecks",
    "Taxonomy",
    "check_suite",
    "diagnose_suite",
    "human_baseline",
    "overlap_baseline",
    "partial_input_audit",
    "rk_cell",
    "sample_predictions_path",
    "sample_suite_path",
    "suite_from_dataset",
]
