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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see; at run time names load lazily
    from benchcheck.data.columns import Columns
    from benchcheck.data.model import Dataset
    from benchcheck.diagnostics.score import DiagnosisResult
    from benchcheck.errors import BenchcheckError, InputError, JudgeError, UsageError
    from benchcheck.io.load import load
    from benchcheck.io.source import DataSource
    from benchcheck.metrics.compute import StatsResult, compute_stats
    from benchcheck.runs.audit import AuditInputs, AuditReport, run_audit, write_report
    from benchcheck.runs.diagnose import run_diagnose as diagnose
    from benchcheck.runs.flag import FlagOptions, FlagRun
    from benchcheck.runs.flag import run_flag as flag

from benchcheck._version import __version__

#: public name → (module, name there). The top level holds one entry point per analysis and
#: the types it returns; everything else is public in its layer's package:
#: ``benchcheck.stats`` (intervals, agreement, R_K, CTT), ``benchcheck.labels`` (ensemble,
#: flags, review, error rates, remedies, rerank), ``benchcheck.judges``, ``benchcheck.items``
#: (test theory for benchmarks), ``benchcheck.diagnostics``, ``benchcheck.metrics`` (the
#: metric table), ``benchcheck.runs`` (one function per command) and ``benchcheck.io``.
_EXPORTS: dict[str, tuple[str, str]] = {
    # errors
    "BenchcheckError": ("benchcheck.errors", "BenchcheckError"),
    "InputError": ("benchcheck.errors", "InputError"),
    "UsageError": ("benchcheck.errors", "UsageError"),
    "JudgeError": ("benchcheck.errors", "JudgeError"),
    # datasets
    "Dataset": ("benchcheck.data.model", "Dataset"),
    "Columns": ("benchcheck.data.columns", "Columns"),
    "DataSource": ("benchcheck.io.source", "DataSource"),
    "load": ("benchcheck.io.load", "load"),
    # statistical dataset evaluation (benchcheck stats)
    "compute_stats": ("benchcheck.metrics.compute", "compute_stats"),
    "StatsResult": ("benchcheck.metrics.compute", "StatsResult"),
    # label-error detection (benchcheck flag)
    "flag": ("benchcheck.runs.flag", "run_flag"),
    "FlagOptions": ("benchcheck.runs.flag", "FlagOptions"),
    "FlagRun": ("benchcheck.runs.flag", "FlagRun"),
    # diagnostic evaluation (benchcheck diagnose)
    "diagnose": ("benchcheck.runs.diagnose", "run_diagnose"),
    "DiagnosisResult": ("benchcheck.diagnostics.score", "DiagnosisResult"),
    # the audit (benchcheck audit): every analysis that applies, as one results object
    "run_audit": ("benchcheck.runs.audit", "run_audit"),
    "AuditInputs": ("benchcheck.runs.audit", "AuditInputs"),
    "AuditReport": ("benchcheck.runs.audit", "AuditReport"),
    "write_report": ("benchcheck.runs.audit", "write_report"),
}

__all__ = [
    "AuditInputs",
    "AuditReport",
    "BenchcheckError",
    "Columns",
    "DataSource",
    "Dataset",
    "DiagnosisResult",
    "FlagOptions",
    "FlagRun",
    "InputError",
    "JudgeError",
    "StatsResult",
    "UsageError",
    "compute_stats",
    "diagnose",
    "flag",
    "load",
    "run_audit",
    "write_report",
    "__version__",
]


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module 'benchcheck' has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
