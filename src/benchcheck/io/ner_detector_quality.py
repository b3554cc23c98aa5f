"""The NER label-error detector's measured quality, for the report (issue 25, item 4).

``benchcheck/labels/ner_detector_quality.json`` (package data) is written by
``benchmarks/ner_detect_summary.py`` from the committed benchmark
``benchmarks/results/ner_detect_quality.json`` (``benchmarks/ner_detect_bench.py``: real NER
corpora, 5% of the entities given a planted error of one of four kinds, seeded draws); a
test checks that the two agree. The audit's ``ner label errors`` section carries these
numbers in ``results.json`` (as the pair section carries its default judge's) and shows
them below its flags: "How good is this detector?".

>>> q = load_ner_detector_quality()
>>> q["detector"], q["kinds"]
('tagger', ['type', 'boundary', 'missing', 'spurious'])
>>> {"msra_test", "japanese", "wnut16_train", "conll_sample"} <= set(q["corpora"])
True
"""

from __future__ import annotations

import copy
import functools
import json
from importlib import resources
from typing import Any

__all__ = ["load_ner_detector_quality", "ner_detector_note"]


@functools.lru_cache(maxsize=1)
def _read() -> dict[str, Any]:
    text = (
        resources.files("benchcheck.labels")
        .joinpath("ner_detector_quality.json")
        .read_text("utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    return data


def load_ner_detector_quality() -> dict[str, Any]:
    """Return the package's ``labels/ner_detector_quality.json`` (read once, a fresh copy).

    Keys: ``schema_version``, ``source``, ``detector``, ``planted_rate``, ``kinds``,
    ``settings`` (the tagger's, incl. ``min_error_score``: the default flags' threshold the
    benchmark used) and ``corpora`` (per corpus: ``sentences``, ``entity_types``, ``draws``,
    ``ap`` and ``ap_random`` — mean sentence-level AP over the kinds —, ``ap_by_kind``,
    ``flag_precision``, ``flag_recall``, ``seconds_per_1k_sentences``).
    """
    return copy.deepcopy(_read())


def ner_detector_note() -> dict[str, Any]:
    """Return the ``detector_quality`` block of ``ner_label_errors`` in ``results.json``.

    The package data less its ``schema_version`` (a property of the file, not of the note).

    >>> note = ner_detector_note()
    >>> "schema_version" in note, note["settings"]["folds"]
    (False, 5)
    """
    note = load_ner_detector_quality()
    note.pop("schema_version", None)
    return note
