"""results.json has a published schema: generated from the section types, committed, held.

- ``docs/results.schema.json`` is what :func:`results_schema` generates today
  (``BENCHCHECK_UPDATE_SCHEMA=1`` rewrites it after a reviewed change);
- every golden results.json and the audits of the bundled samples (statistics, table,
  label errors with a stub judge, diagnostics, items, ranking, diff, comparison) validate
  against the committed file with an independent validator (jsonschema), and read back
  strictly through the types to the same JSON;
- the command goldens that are a section's content (stats, compare) validate against that
  section's definition;
- a corrupted results.json given to ``benchcheck report`` is one line naming the JSON path.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

import pytest
from _contamination_case import contamination_case
from _review_case import StubJudge, review_case
from jsonschema import Draft202012Validator

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.io.canonical import dumps
from benchcheck.io.typed import ShapeError, to_json
from benchcheck.runs.audit import (
    SECTIONS,
    AuditInputs,
    ContaminationInput,
    McqInput,
    NerInput,
    TableInput,
    read_document,
    results_schema,
    run_audit,
)
from benchcheck.runs.leakage import LeakageOptions
from benchcheck.sample_data import NER_SAMPLE, PAIR_SAMPLE

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = ROOT / "docs" / "results.schema.json"
GOLDEN_RESULTS = [
    ROOT / "tests" / "cli" / "golden" / "audit_ner.json",
    ROOT / "tests" / "report" / "golden" / "ner_results.json",
]
UPDATE = os.environ.get("BENCHCHECK_UPDATE_SCHEMA") == "1"


def _schema_text() -> str:
    return json.dumps(results_schema(SECTIONS), indent=2, ensure_ascii=False) + "\n"


def test_committed_schema_is_the_generated_one() -> None:
    if UPDATE:  # pragma: no cover - after a reviewed change of a section's type
        SCHEMA.write_text(_schema_text(), encoding="utf-8")
    assert SCHEMA.read_text(encoding="utf-8") == _schema_text(), (
        "docs/results.schema.json is stale: BENCHCHECK_UPDATE_SCHEMA=1 python -m pytest "
        "tests/runs/audit/test_results_schema.py, and bump the section's version"
    )


@pytest.fixture(scope="module")
def schema() -> dict:
    loaded = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(loaded)
    return loaded


def _check(document: dict, schema: dict) -> None:
    """Valid for jsonschema, and read strictly through the types back to the same JSON."""
    errors = sorted(Draft202012Validator(schema).iter_errors(document), key=str)
    assert not errors, errors[0]
    read = read_document(document, SECTIONS, strict=True)
    back = {**to_json(read.head)}
    for _, result in read.parts:
        back.update(result.to_json())
    assert back == document


@pytest.fixture(scope="module")
def audits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Results of audits that, together, run every section."""
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod

    tmp = tmp_path_factory.mktemp("audits")
    patch = pytest.MonkeyPatch()
    patch.setattr(run_mod, "make_judge", lambda spec, **kw: StubJudge())
    patch.setattr(cache_mod, "default_cache_path", lambda: tmp / "cache.sqlite")
    sys.path.insert(0, str(ROOT / "tests" / "cli"))
    from test_cli_items import _write_case

    files = _write_case(tmp, k=40, m=3)
    out: dict[str, dict] = {}
    try:
        assert main(["audit", "--seed", "1", "-o", str(tmp / "samples")]) == 0
        out["samples"] = json.loads((tmp / "samples" / "results.json").read_text("utf-8"))
        table = TableInput(
            str(tmp / "data.jsonl"),
            Columns(text_a="text_a", text_b="text_b"),
            predictions=files,
            error_rate="2/100",
        )
        first = run_audit(AuditInputs(table=table, judge=None, resamples=100))
        (tmp / "old.json").write_text(dumps(first.results), encoding="utf-8")
        again = AuditInputs(table=table, judge=None, resamples=100, baseline=str(tmp / "old.json"))
        out["items, ranking, diff"] = json.loads(dumps(run_audit(again).results))
        ner = NerInput(str(NER_SAMPLE), compare={"again": str(NER_SAMPLE)}, scores={"a": 1.0})
        out["comparison"] = json.loads(dumps(run_audit(AuditInputs(ner=ner)).results))
        pair = TableInput(str(PAIR_SAMPLE), Columns(text_a="grounding", text_b="generated_text"))
        out["label errors"] = json.loads(dumps(run_audit(AuditInputs(table=pair)).results))
        case = review_case(tmp / "review")
        reviewed = TableInput(
            str(case["data"]), Columns(text_a="text_a", text_b="text_b"), gold=str(case["gold"])
        )
        out["review"] = json.loads(dumps(run_audit(AuditInputs(table=reviewed)).results))
        leak = contamination_case(tmp / "leak")
        models = {m: str(leak[m]) for m in ("memo", "honest")}
        leaked = AuditInputs(
            table=TableInput(str(leak["test"]), Columns(text="text"), predictions=models),
            judge=None,
            contamination=ContaminationInput(  # near matches and corpus ids: every key
                (str(leak["corpus"]),), LeakageOptions(near_threshold=0.5), corpus_id_column="doc"
            ),
            resamples=100,
        )
        out["contamination"] = json.loads(dumps(run_audit(leaked).results))
        sys.path.insert(0, str(ROOT / "tests" / "runs" / "audit"))
        from test_section_mcq import _write as write_mcq

        (tmp / "mcq").mkdir()
        questions, answers = write_mcq(tmp / "mcq")
        mcq = McqInput(str(questions), answers=(str(answers),))
        out["mcq"] = json.loads(dumps(run_audit(AuditInputs(mcq=mcq, judge=None)).results))
    finally:
        patch.undo()
    return out


def test_every_section_runs_in_these_audits(audits) -> None:
    ran = {a["name"] for r in audits.values() for a in r["analyses"] if a["status"] == "ok"}
    assert ran == {s.name for s in SECTIONS}


@pytest.mark.parametrize(
    "name",
    [
        "samples",
        "items, ranking, diff",
        "comparison",
        "label errors",
        "review",
        "contamination",
        "mcq",
    ],
)
def test_audits_validate_and_read_back(audits, schema, name) -> None:
    _check(audits[name], schema)


@pytest.mark.parametrize("path", GOLDEN_RESULTS, ids=lambda p: p.name)
def test_golden_results_validate_and_read_back(schema, path: Path) -> None:
    _check(json.loads(path.read_text(encoding="utf-8")), schema)


@pytest.mark.parametrize(
    ("golden", "definition"),
    [
        ("stats_ner.json", "Stats"),
        ("stats_scores.json", "Stats"),
        ("stats_predictions.json", "Stats"),
        ("stats_pair_near.json", "Stats"),
        ("compare.json", "Datasets"),
    ],
)
def test_command_goldens_validate_as_their_section(schema, golden: str, definition: str) -> None:
    data = json.loads((ROOT / "tests" / "cli" / "golden" / golden).read_text(encoding="utf-8"))
    data.pop("schema_version")
    part = {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    errors = list(Draft202012Validator(part).iter_errors(data))
    assert not errors, errors[0]


def test_every_section_has_a_version_and_declared_keys(schema) -> None:
    listed = {s["name"]: s for s in schema["x-sections"]}
    assert list(listed) == [s.name for s in SECTIONS]
    for section in SECTIONS:
        assert listed[section.name]["version"] == section.version
        assert set(listed[section.name]["keys"]) <= set(schema["properties"])
    keys = [k for s in SECTIONS for k in s.keys()]
    assert len(keys) == len(set(keys)), "two sections claim one key"


def _corruptions(results: dict) -> list[tuple[str, dict]]:
    """(JSON path, a copy of ``results`` with the value there replaced by a wrong kind)."""
    out = []
    for path, edit in [
        (
            "$.stats.metrics.leakage_ratio",
            lambda r: r["stats"]["metrics"].update(leakage_ratio="x"),
        ),
        (
            "$.stats.splits.train.n_instances",
            lambda r: r["stats"]["splits"]["train"].update(n_instances=2.5),
        ),
        (
            "$.split_overlap.rows[1].against",
            lambda r: r["split_overlap"]["rows"][1].update(against="train"),
        ),
        (
            "$.entity_types.splits.dev.counts.LOC",
            lambda r: r["entity_types"]["splits"]["dev"]["counts"].update(LOC=None),
        ),
        ('$.inputs["diagnostic suite"]', lambda r: r["inputs"].update({"diagnostic suite": 3})),
        ("$.analyses[0].status", lambda r: r["analyses"][0].update(status="done")),
        (
            "$.diagnostics.models.overlap-baseline",
            lambda r: r["diagnostics"]["models"].update({"overlap-baseline": []}),
        ),
        (
            "$.table_stats.dimensions.redundancy.better",
            lambda r: r["table_stats"]["dimensions"]["redundancy"].update(better="up"),
        ),
    ]:
        broken = copy.deepcopy(results)
        edit(broken)
        out.append((path, broken))
    return out


def test_corruptions_are_refused_by_both_validators(audits, schema) -> None:
    for path, broken in _corruptions(audits["samples"]):
        assert list(Draft202012Validator(schema).iter_errors(broken)), path
        with pytest.raises(ShapeError) as exc:
            read_document(broken, SECTIONS)
        shown = path.replace("overlap-baseline", '["overlap-baseline"]').replace('.["', '["')
        assert exc.value.path == shown, (exc.value.path, shown)


def test_report_names_the_json_path_of_a_corrupted_results(audits, tmp_path, capsys) -> None:
    broken = copy.deepcopy(audits["samples"])
    broken["stats"]["metrics"]["leakage_ratio"] = "0.25"
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps(broken, indent=2), encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"error: {bad}: $.stats.metrics.leakage_ratio: expected a number or null (got '0.25')"
    )
    assert "\n" not in err and not (tmp_path / "r.html").exists()
    del broken["stats"]["dimensions"]
    bad.write_text(json.dumps(broken), encoding="utf-8")
    assert main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {bad}: $.stats.dimensions: expected an object, missing"
    )
