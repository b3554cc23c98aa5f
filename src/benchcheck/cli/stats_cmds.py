"""Commands of the statistical dataset evaluation: stats, compare, sample, accuracy, audit."""

from __future__ import annotations
