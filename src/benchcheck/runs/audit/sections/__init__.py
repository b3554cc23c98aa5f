"""The sections of the audit, in the order they run and the report shows them (:data:`SECTIONS`).

Each module holds one section whole (:class:`benchcheck.runs.audit.Section`): when it
applies, its run, its typed result (the keys it adds to ``results.json``), its HTML,
Markdown and terminal renderings and its card. To add an analysis, add a module here and
its instance to :data:`SECTIONS` (after the sections it ``needs``); docs/architecture.md
shows the whole path, tests included. Importing a section is cheap: each imports the
runs it calls when it runs.
"""

from __future__ import annotations

from benchcheck.runs.audit._section import Section
from benchcheck.runs.audit.sections.comparison import Comparison
from benchcheck.runs.audit.sections.contamination import ContaminationSection
from benchcheck.runs.audit.sections.diagnostics import DiagnosticsSection
from benchcheck.runs.audit.sections.diff import DiffSection
from benchcheck.runs.audit.sections.items import ItemsSection
from benchcheck.runs.audit.sections.label_errors import LabelErrorsSection
from benchcheck.runs.audit.sections.mcq import McqSection
from benchcheck.runs.audit.sections.ner_label_errors import NerLabelErrorsSection
from benchcheck.runs.audit.sections.ranking import RankingSection
from benchcheck.runs.audit.sections.review import Review
from benchcheck.runs.audit.sections.statistics import Statistics
from benchcheck.runs.audit.sections.table_statistics import TableStatistics

__all__ = ["SECTIONS"]

#: The audit: every section, in the order they run (a section runs after those it needs).
SECTIONS: tuple[Section, ...] = (  # type: ignore[type-arg]
    Statistics(),
    Comparison(),
    TableStatistics(),
    McqSection(),
    LabelErrorsSection(),
    NerLabelErrorsSection(),
    Review(),
    DiagnosticsSection(),
    ItemsSection(),
    RankingSection(),
    ContaminationSection(),
    DiffSection(),
)
