"""Say where a benchmark number of the report comes from, for a reader without the sources.

The quality notes (:mod:`benchcheck.report.judge_note`,
:mod:`benchcheck.report.ner_quality_note`) cite a committed benchmark by its files in
benchcheck's source repository (``source``: ``"RESULTS (SCRIPT)"``). A user who installed the
package has neither file, so the report says what each holds and that it lives in the
source repository, not in the installed package.

>>> said = benchmark_source("benchmarks/results/x.json (benchmarks/x_bench.py)")
>>> said.startswith("benchcheck's benchmark benchmarks/x_bench.py, its results in ")
True
>>> said.endswith("(in the source repository, not installed with the package)")
True
>>> benchmark_source("a note")
'a note'
"""

from __future__ import annotations

import re

__all__ = ["REPOSITORY", "benchmark_source"]

#: Where the cited files are, said once per sentence.
REPOSITORY = "in the source repository, not installed with the package"

_SOURCE = re.compile(r"^(?P<results>\S+\.json) \((?P<script>\S+\.py)\)$")


def benchmark_source(source: str) -> str:
    """Say what a benchmark's ``"RESULTS (SCRIPT)"`` names hold; any other text unchanged."""
    m = _SOURCE.match(source.strip())
    if m is None:
        return source
    return f"benchcheck's benchmark {m['script']}, its results in {m['results']} ({REPOSITORY})"
