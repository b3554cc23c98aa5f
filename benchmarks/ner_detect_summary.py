"""The NER detector's measured quality as package data, numbers only (issue 25, item 4).

``ner_detect_bench.py`` writes the committed ``benchmarks/results/ner_detect_quality.json``
(per corpus × kind × detector: sentence-level AP, P@k, span recall, the default flags'
precision and recall, a threshold sweep). This script projects it onto what the audit's
``ner label errors`` section shows ("How good is this detector?"):
``src/benchcheck/labels/ner_detector_quality.json`` — per corpus its sentences, entity
types and draws, the default detector's mean AP over the four planted kinds next to a
random ranking's, its AP per kind, its default flags' precision and recall, and its seconds
per 1k sentences; plus the tagger settings the numbers were measured with (incl.
``min_error_score``) and the source path. ``tests/labels/test_labels_ner_detector_quality.py``
checks that the package data equals this projection of the committed benchmark.

The default detector is ``tagger`` (``benchcheck flag-spans DATA`` without a model); the
members (``crf``, ``consistency``), cleanlab and spaCy stay in the benchmark file. A metric
that is not defined in a run (no flag at the threshold: precision NaN) is ``null``.

    python benchmarks/ner_detect_summary.py

The audit copies the numbers into ``results.json``: regenerate the NER golden file after
(``BENCHCHECK_UPDATE_GOLDEN=1 python -m pytest tests/report/test_report_render.py -k golden``).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "results" / "ner_detect_quality.json"
PACKAGE = HERE.parent / "src" / "benchcheck" / "labels" / "ner_detector_quality.json"
SCHEMA_VERSION = 1
#: The detector ``benchcheck flag-spans DATA`` (and the audit) runs, as the benchmark names it.
DEFAULT_DETECTOR = "tagger"
#: The planted kinds, in the order the report shows them.
KINDS = ("type", "boundary", "missing", "spurious")
SOURCE_NAME = "benchmarks/results/ner_detect_quality.json (benchmarks/ner_detect_bench.py)"


def _r(v: Any, d: int = 4) -> float | None:
    """Round to ``d`` places; ``None`` (and NaN: not defined in that run) stay ``None``.

    >>> _r(0.123456), _r(float("nan")), _r(None), _r(4.82794, 2)
    (0.1235, None, None, 4.83)
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return round(float(v), d)


def corpus_view(c: dict[str, Any]) -> dict[str, Any]:
    """One corpus of the benchmark: the numbers the report's table shows.

    >>> k = {"ap": 0.5, "p_at_k": 0.4}
    >>> c = {"sentences": 10, "types": 3, "draws": 2, "seconds_per_1k_sentences": 5.0,
    ...      "kinds": {kind: {"tagger": k} for kind in KINDS},
    ...      "mean_over_kinds": {"tagger": {"ap": 0.5, "flag_precision": 0.6,
    ...                                     "flag_recall": float("nan")},
    ...                          "random": {"ap": 0.1}}}
    >>> v = corpus_view(c)
    >>> v["ap"], v["ap_random"], v["flag_precision"], v["flag_recall"], v["ap_by_kind"]["type"]
    (0.5, 0.1, 0.6, None, 0.5)
    """
    mean = c["mean_over_kinds"]
    default = mean[DEFAULT_DETECTOR]
    return {
        "sentences": int(c["sentences"]),
        "entity_types": int(c["types"]),
        "draws": int(c["draws"]),
        "ap": _r(default["ap"]),
        "ap_random": _r(mean["random"]["ap"]),
        "ap_by_kind": {k: _r(c["kinds"][k][DEFAULT_DETECTOR]["ap"]) for k in KINDS},
        "flag_precision": _r(default.get("flag_precision")),
        "flag_recall": _r(default.get("flag_recall")),
        "seconds_per_1k_sentences": _r(c["seconds_per_1k_sentences"], 2),
    }


def package_view(bench: dict[str, Any]) -> dict[str, Any]:
    """The package data: settings, source, and :func:`corpus_view` per corpus (sorted)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "source": SOURCE_NAME,
        "detector": DEFAULT_DETECTOR,
        "planted_rate": bench["rate"],
        "kinds": list(KINDS),
        "settings": dict(bench["tagger"]),
        "corpora": {name: corpus_view(c) for name, c in sorted(bench["corpora"].items())},
    }


def dumps(view: dict[str, Any]) -> str:
    """The package file's text: sorted keys, one space indent, a final newline."""
    return json.dumps(view, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def markdown(view: dict[str, Any]) -> str:
    """The table of the default detector per corpus (for the docs)."""

    def f(v: Any) -> str:
        return "—" if v is None else f"{v:.2f}"

    lines = [
        "| corpus | sentences | mean AP (random) | AP " + " / ".join(KINDS) + " | flags P / R |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, q in view["corpora"].items():
        per = " / ".join(f(q["ap_by_kind"][k]) for k in KINDS)
        lines.append(
            f"| {name} | {q['sentences']} | {f(q['ap'])} ({f(q['ap_random'])}) | {per} | "
            f"{f(q['flag_precision'])} / {f(q['flag_recall'])} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=str(SOURCE), help="ner_detect_bench.py JSON")
    ap.add_argument("--package-json", default=str(PACKAGE))
    args = ap.parse_args()
    # the bench writes NaN where a metric is undefined; json reads it as float('nan')
    bench = json.loads(Path(args.source).read_text(encoding="utf-8"))
    view = package_view(bench)
    Path(args.package_json).write_text(dumps(view), encoding="utf-8")
    print(f"wrote {args.package_json}")
    print(markdown(view))


if __name__ == "__main__":
    main()
