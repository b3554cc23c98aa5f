"""The public surface: every exported name resolves, and the package import stays light."""

import benchcheck


def test_every_exported_name_resolves():
    missing = [
        n for n in benchcheck.__all__ if n != "__version__" and getattr(benchcheck, n, None) is None
    ]
    assert missing == []


def test_unknown_name_raises_attribute_error():
    try:
        benchcheck.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_import_does_not_pull_heavy_dependencies(heavy_modules_after):
    heavy = ("sklearn", "scipy", "torch", "llama_cpp", "polars")
    assert heavy_modules_after("import benchcheck", heavy) == []


def test_top_level_is_one_entry_point_per_analysis_and_its_types():
    # The rest is public in its layer's package (benchcheck.labels, benchcheck.stats, ...).
    assert len(benchcheck.__all__) <= 21
    assert benchcheck.flag is __import__("benchcheck.runs.flag", fromlist=["x"]).run_flag
    assert benchcheck.diagnose.__name__ == "run_diagnose"


def _cli_json(argv: list[str], name: str) -> dict:
    import json
    from pathlib import Path

    from benchcheck.cli import main

    assert main([*argv, "--json", name]) == 0
    return json.loads(Path(name).read_text(encoding="utf-8"))


def _round_trip(payload: dict) -> dict:
    import json

    from benchcheck.io.canonical import dumps

    return json.loads(dumps(payload))


def test_flag_from_python_is_what_the_cli_writes(tmp_path, monkeypatch):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
    from _golden_chain import _synthetic

    monkeypatch.chdir(tmp_path)
    _synthetic(tmp_path)
    cli = _cli_json(["flag", "j.parquet", "--data", "data.jsonl", "-o", "flags.jsonl"], "f.json")
    run = benchcheck.flag("j.parquet", "data.jsonl", options=benchcheck.FlagOptions())
    assert _round_trip(run.to_json(output="flags.jsonl")) == cli
    assert run.flagged()["id"].to_list()[:3] == [r["id"] for r in cli["top"][:3]]


def test_diagnose_from_python_is_what_the_cli_writes(tmp_path, monkeypatch):
    from benchcheck.diagnostics import sample_predictions_path
    from benchcheck.sample_data import DIAGNOSTIC_SAMPLE

    monkeypatch.chdir(tmp_path)
    base = str(sample_predictions_path())
    argv = ["diagnose", "--suite", str(DIAGNOSTIC_SAMPLE), "--predictions", f"base={base}"]
    cli = _cli_json([*argv, "--resamples", "200"], "d.json")
    result = benchcheck.diagnose(DIAGNOSTIC_SAMPLE, {"base": base}, resamples=200)
    assert isinstance(result, benchcheck.DiagnosisResult)
    assert _round_trip(result.to_json()) == cli


def test_all_lists_exactly_the_exports():
    assert benchcheck.__all__ == [*sorted(benchcheck._EXPORTS), "__version__"]
