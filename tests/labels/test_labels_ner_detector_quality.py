"""The package's NER detector quality numbers are the committed benchmark's (issue 25, item 4).

``src/benchcheck/labels/ner_detector_quality.json`` must be exactly what
``benchmarks/ner_detect_summary.py`` writes from ``benchmarks/results/ner_detect_quality.json``
(rerun the script after the benchmark); the projection is also checked number by number.
"""

from __future__ import annotations

import importlib.util
import json
import math
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from benchcheck.io.ner_detector_quality import load_ner_detector_quality, ner_detector_note

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "results" / "ner_detect_quality.json"
PACKAGE = ROOT / "src" / "benchcheck" / "labels" / "ner_detector_quality.json"
KINDS = ("type", "boundary", "missing", "spurious")


def _summary_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "ner_detect_summary", ROOT / "benchmarks" / "ner_detect_summary.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> dict:
    return json.loads(BENCH.read_text(encoding="utf-8"))


def _r(v: float | None, d: int = 4) -> float | None:
    return None if v is None or math.isnan(v) else round(v, d)


def test_package_file_is_what_the_summary_script_writes(bench) -> None:
    script = _summary_script()
    assert PACKAGE.read_text(encoding="utf-8") == script.dumps(script.package_view(bench)), (
        "rerun: python benchmarks/ner_detect_summary.py"
    )


def test_package_numbers_equal_the_benchmark_by_hand(bench) -> None:
    q = load_ner_detector_quality()
    assert q["source"].startswith("benchmarks/results/ner_detect_quality.json")
    assert q["detector"] == "tagger" and q["kinds"] == list(KINDS)
    assert q["planted_rate"] == bench["rate"]
    assert q["settings"] == bench["tagger"] and "min_error_score" in q["settings"]
    assert set(q["corpora"]) == set(bench["corpora"])
    assert {"msra_test", "msra_train10k", "japanese", "wnut16_train", "conll_sample"} <= set(
        q["corpora"]
    )
    for name, mine in q["corpora"].items():
        c = bench["corpora"][name]
        tagger = c["mean_over_kinds"]["tagger"]
        assert mine["sentences"] == c["sentences"] and mine["draws"] == c["draws"] >= 1
        assert mine["entity_types"] == c["types"]
        assert mine["ap"] == _r(tagger["ap"])
        assert mine["ap_random"] == _r(c["mean_over_kinds"]["random"]["ap"])
        assert mine["flag_precision"] == _r(tagger["flag_precision"])
        assert mine["flag_recall"] == _r(tagger["flag_recall"])
        assert mine["ap_by_kind"] == {k: _r(c["kinds"][k]["tagger"]["ap"]) for k in KINDS}
        assert mine["seconds_per_1k_sentences"] == _r(c["seconds_per_1k_sentences"], 2)
        # the default detector ranks far better than chance on every corpus
        assert mine["ap"] > 2 * mine["ap_random"]


def test_the_tagger_settings_measured_are_the_library_defaults() -> None:
    """Folds, algorithm, c2, epochs and the flag threshold are the library's defaults."""
    from benchcheck.labels.ner_detect import MIN_ERROR_SCORE
    from benchcheck.labels.ner_tagger import TaggerOptions

    s = load_ner_detector_quality()["settings"]
    opts = TaggerOptions()
    assert (s["folds"], s["algorithm"], s["c2"], s["max_iterations"]) == (
        opts.folds,
        opts.algorithm,
        opts.c2,
        opts.max_iterations,
    )
    assert s["min_error_score"] == MIN_ERROR_SCORE


def test_summary_handles_member_keys_and_undefined_metrics() -> None:
    """A rerun adds ``crf``/``consistency`` (ignored here) and may leave a precision NaN."""
    script = _summary_script()
    det = {"ap": 0.5, "p_at_k": 0.5, "span_recall": 0.9}
    kind = {"tagger": det, "crf": det, "consistency": det, "random": {"ap": 0.1, "p_at_k": 0.1}}
    corpus = {
        "sentences": 100,
        "types": 3,
        "entities": 120,
        "draws": 2,
        "seconds_per_1k_sentences": 7.123,
        "kinds": {k: dict(kind) for k in KINDS},
        "mean_over_kinds": {
            "tagger": {**det, "flag_precision": float("nan"), "flag_recall": 0.0},
            "crf": det,
            "consistency": det,
            "cleanlab": det,
            "random": {"ap": 0.123456, "p_at_k": 0.1},
        },
    }
    with_members = {
        "benchmark": "ner_detect_bench",
        "rate": 0.05,
        "tagger": {"folds": 5, "min_error_score": 0.995},
        "corpora": {"b": corpus, "a": corpus},
    }
    view = script.package_view(with_members)
    assert list(view["corpora"]) == ["a", "b"]
    a = view["corpora"]["a"]
    assert (a["flag_precision"], a["flag_recall"], a["ap_random"]) == (None, 0.0, 0.1235)
    assert a["seconds_per_1k_sentences"] == 7.12 and a["entity_types"] == 3
    assert view["settings"]["min_error_score"] == 0.995
    # without the member keys (the benchmark before the consistency member): the same view
    for k in KINDS:
        corpus["kinds"][k] = {"tagger": det, "random": kind["random"]}
    corpus["mean_over_kinds"] = {
        k: v for k, v in corpus["mean_over_kinds"].items() if k not in ("crf", "consistency")
    }
    assert script.package_view(with_members) == view
    assert "NaN" not in script.dumps(view) and "null" in script.dumps(view)


def test_the_package_data_ships_in_the_wheel_and_loads() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = pyproject["tool"]["setuptools"]["package-data"]["benchcheck"]
    assert "labels/ner_detector_quality.json" in data
    note = ner_detector_note()
    assert "schema_version" not in note
    assert note["corpora"] == load_ner_detector_quality()["corpora"]
    # a fresh copy each call: a caller cannot change the cached numbers
    note["corpora"].clear()
    assert load_ner_detector_quality()["corpora"]
