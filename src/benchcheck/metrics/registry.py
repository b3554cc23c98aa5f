"""The former metric registry, now a read-only view of :mod:`benchcheck.metrics.table`.

Metrics are no longer registered by decorators: the table lists them. This module keeps
``from benchcheck.metrics.registry import REGISTRY, specs_for`` working; ``REGISTRY`` is the
table's name → spec mapping (read-only, in table order).
"""

from __future__ import annotations

from benchcheck.metrics.spec import DIMENSIONS, MetricSpec
from benchcheck.metrics.table import BY_NAME as REGISTRY
from benchcheck.metrics.table import specs_for

__all__ = ["DIMENSIONS", "REGISTRY", "MetricSpec", "specs_for"]
