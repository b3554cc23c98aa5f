"""The audit's contamination section: benchcheck leakage's numbers, checked by hand, rendered.

The case (``_contamination_case``) plants overlaps 1, 1, 0.5, 0, 0, 0 and two models whose
scores on the clean and dirty subsets are known; the section must hold exactly what
``run_leakage`` gives for the same inputs and what the case says by hand.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from _contamination_case import PLANTED, contamination_case

from benchcheck.data.columns import Columns
from benchcheck.io.canonical import dumps
from benchcheck.io.typed import ABSENT
from benchcheck.runs.audit import (
    AuditInputs,
    ContaminationInput,
    NerInput,
    TableInput,
    run_audit,
)
from benchcheck.runs.audit.sections.contamination import ContaminationSection, top_items
from benchcheck.runs.leakage import LeakageOptions, run_leakage
from benchcheck.sample_data import NER_SAMPLE

TOL = 1e-12
SEED, RESAMPLES = 3, 200


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return contamination_case(tmp_path_factory.mktemp("contamination"))


def _inputs(case: dict[str, Path], **kw) -> AuditInputs:
    table = TableInput(
        str(case["test"]),
        Columns(text="text"),
        predictions={"memo": str(case["memo"]), "honest": str(case["honest"])},
    )
    leak = ContaminationInput((str(case["corpus"].parent),), corpus_id_column="doc", **kw)
    return AuditInputs(table=table, judge=None, contamination=leak, seed=SEED, resamples=RESAMPLES)


@pytest.fixture(scope="module")
def section(case) -> dict:
    report = run_audit(_inputs(case), sections=[ContaminationSection()])
    return json.loads(dumps(report.results))


@pytest.fixture(scope="module")
def leakage(case) -> dict:
    result = run_leakage(
        case["test"],
        [str(case["corpus"].parent)],
        test_column="text",
        corpus_id_column="doc",
        label_column="label",
        predictions={"memo": str(case["memo"]), "honest": str(case["honest"])},
        options=LeakageOptions(seed=SEED, resamples=RESAMPLES),
    )
    return json.loads(dumps(result.to_json()))


def test_section_holds_run_leakage_values(section, leakage) -> None:
    c = section["contamination"]
    for key in ("parameters", "corpus", "n_items", "n_short_items", "buckets", "partition"):
        assert c[key] == leakage[key], key
    for key in ("metrics", "histogram", "scores"):
        assert c[key] == leakage[key], key
    contaminated = [i for i in leakage["items"] if i["overlap"] or i["exact_matches"]]
    assert c["n_contaminated"] == len(contaminated) == 3
    by_id = {i["id"]: i for i in leakage["items"]}
    assert [i["id"] for i in c["top_items"]] == ["d2", "d1", "h1"]  # d2 also matches exactly
    for item in c["top_items"]:
        assert item == by_id[item["id"]]
    assert section["analyses"] == [
        {"name": "contamination", "status": "ok", "detail": "6 items, 2 dirty, 3 clean (llama2)"}
    ]


def test_section_values_by_hand(section) -> None:
    c = section["contamination"]
    assert c["test_column"] == "text"
    assert (c["parameters"]["n"], c["parameters"]["min_length"], c["parameters"]["skip"]) == (
        10,
        10,
        4,
    )
    assert c["corpus"]["documents"] == 4
    assert c["buckets"] == {"clean": 3, "not_clean": 3, "not_dirty": 4, "dirty": 2}
    assert c["partition"] == {"clean": 3, "between": 1, "dirty": 2}
    assert c["histogram"]["counts"] == [3, 0, 0, 0, 0, 1, 0, 0, 0, 2]
    assert c["histogram"]["edges"] == pytest.approx([k / 10 for k in range(11)], abs=TOL)
    assert c["metrics"]["mean_overlap"] == pytest.approx(2.5 / 6, abs=TOL)
    assert c["metrics"]["exact_rate"] == pytest.approx(1 / 6, abs=TOL)
    for item in c["top_items"]:
        assert (item["overlap"], item["bucket"]) == PLANTED[item["id"]]
    d1 = next(i for i in c["top_items"] if i["id"] == "d1")
    # document 0 is "intro words <d1's 20 words> outro": the span starts at token 2
    assert d1["matches"][0] | {"file": ""} == {
        "file": "",
        "row": 0,
        "id": "doc0",
        "offset": 2,
        "item_offset": 0,
        "length": 20,
    }
    h1 = next(i for i in c["top_items"] if i["id"] == "h1")
    assert (h1["matches"][0]["row"], h1["matches"][0]["length"]) == (2, 10)
    models = {m["model"]: m for m in c["scores"]["models"]}
    memo, honest = models["memo"], models["honest"]
    assert memo["score"] == pytest.approx(4 / 6, abs=TOL)
    assert honest["score"] == pytest.approx(4 / 6, abs=TOL)
    assert memo["subsets"]["clean"]["score"] == pytest.approx(1 / 3, abs=TOL)
    assert memo["subsets"]["dirty"]["score"] == pytest.approx(1.0, abs=TOL)
    assert memo["clean_minus_dirty"] == pytest.approx(-2 / 3, abs=TOL)
    assert honest["clean_minus_dirty"] == pytest.approx(1.0, abs=TOL)
    # honest: clean all right, dirty all wrong: every resample gives 1 - 0
    assert honest["interval"] == [1.0, 1.0]
    # memo: clean resamples have means in {0, 1/3, 2/3, 1}, dirty always 1
    lo, hi = memo["interval"]
    assert -1.0 - TOL <= lo <= hi <= 0.0 + TOL
    assert memo["rank"] == {"all": 1, "clean": 2, "dirty": 1}
    assert honest["rank"] == {"all": 1, "clean": 1, "dirty": 2}
    assert c["scores"]["ranking_changes"] is True
    assert c["scores"]["seed"] == SEED and c["scores"]["resamples"] == RESAMPLES


def test_top_items_are_capped_most_contaminated_first() -> None:
    rows = [
        {"id": str(k), "overlap": k / 10, "exact_matches": 0, "normalised_matches": 0}
        | {"n_matches": 1}
        for k in range(6)
    ]
    assert [r["id"] for r in top_items(rows, cap=3)] == ["5", "4", "3"]
    assert [r["id"] for r in top_items(rows)] == ["5", "4", "3", "2", "1"]  # "0": no overlap


def test_definition_options_reach_the_run(case) -> None:
    leak = replace(LeakageOptions(), definition="palm", n=5, clean_below=0.1, dirty_from=0.9)
    report = run_audit(_inputs(case, options=leak), sections=[ContaminationSection()])
    c = report.sections["contamination"].contamination
    p = c.parameters
    assert (p.definition, p.overlap, p.n, p.clean_below, p.dirty_from) == (
        "palm+custom",
        "ngram",
        5,
        0.1,
        0.9,
    )
    # h1: 10 of its 16 distinct 5-grams are in the corpus (the first 10 words give 6)
    h1 = next(i for i in c.top_items if i.id == "h1")
    assert h1.overlap == pytest.approx(6 / 16, abs=TOL)


def test_without_a_corpus_nothing_is_added(case) -> None:
    inputs = replace(_inputs(case), contamination=None)
    report = run_audit(inputs, sections=[ContaminationSection()])
    assert "contamination" not in report.results
    assert report.results["analyses"] == [
        {"name": "contamination", "status": "skipped", "detail": "no --corpus given"}
    ]


def test_a_ner_dataset_checks_its_test_split(tmp_path: Path) -> None:
    """The sample's test sentences, tokens joined: two planted in the corpus, with n = L = 4.

    Sentence 0 "Angela Merkel met Siemens managers in Munich on Monday ." is 9 tokens
    without the full stop, all inside document 0 (overlap 1); sentence 1 "Ngozi
    Okonjo-Iweala leads the World Trade Organization ." is 8 tokens ("Okonjo-Iweala" is two),
    of which "the World Trade Organization" (4) is in document 1 (overlap 0.5).
    """
    corpus = tmp_path / "corpus.jsonl"
    docs = [
        "Yesterday Angela Merkel met Siemens managers in Munich on Monday, it said.",
        "Officials of the World Trade Organization spoke.",
    ]
    corpus.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
    leak = ContaminationInput((str(corpus),), LeakageOptions(n=4, min_length=4))
    inputs = AuditInputs(ner=NerInput(str(NER_SAMPLE)), judge=None, contamination=leak)
    report = run_audit(inputs, sections=[ContaminationSection()])
    c = report.sections["contamination"].contamination
    assert c.test == "benchcheck:sample_data/ner/test.txt"
    assert c.test_column == "tokens of split test"
    assert c.n_items == 8  # the sample's test split
    assert [(i.id, i.overlap, i.bucket) for i in c.top_items] == [
        ("0", 1.0, "dirty"),
        ("1", 0.5, "between"),
    ]
    assert c.scores is ABSENT and c.buckets["dirty"] == 1

    # NER predictions: per sentence exact match. "gold" is the test file itself; "miss0"
    # tags sentence 0 (the dirty one) all O: 7/8 overall, 1 on the 6 clean, 0 on the dirty.
    gold_lines = (NER_SAMPLE / "test.txt").read_text(encoding="utf-8").splitlines()
    first = next(k for k, line in enumerate(gold_lines) if line.startswith("Angela"))
    miss = [
        line.rsplit(" ", 1)[0] + " O" if first <= k < first + 10 else line
        for k, line in enumerate(gold_lines)
    ]
    (tmp_path / "miss0.conll").write_text("\n".join(miss) + "\n", encoding="utf-8")
    files = {"gold": str(NER_SAMPLE / "test.txt"), "miss0": str(tmp_path / "miss0.conll")}
    ner = NerInput(str(NER_SAMPLE), predictions=files)
    report = run_audit(replace(inputs, ner=ner), sections=[ContaminationSection()])
    scores = report.sections["contamination"].contamination.scores
    assert scores is not ABSENT
    by = {m.model: m for m in scores.models}
    assert by["gold"].score == 1.0 and by["miss0"].score == pytest.approx(7 / 8, abs=TOL)
    assert by["miss0"].subsets["clean"].n == 6
    assert by["miss0"].subsets["clean"].score == 1.0 and by["miss0"].subsets["dirty"].score == 0.0
    assert by["miss0"].clean_minus_dirty == 1.0 and by["miss0"].interval is None  # 1 dirty item
    assert (by["miss0"].rank.all, by["miss0"].rank.clean) == (2, 1) and scores.ranking_changes


def test_rendered_in_html_and_markdown(case, tmp_path: Path) -> None:
    report = run_audit(_inputs(case), sections=[ContaminationSection()], output=tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    page = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "## Contamination by a corpus" in md
    assert "| dirty | 2 | 33.3% |" in md and "| not dirty | 4 | 66.7% |" in md
    assert "| [0.5, 0.6) | 1 |" in md and "| [0.9, 1] | 2 |" in md
    assert "| memo | 0.667 | 0.333 | 1.000 | -0.667 |" in md
    assert "| honest | 0.667 | 1.000 | 0.000 | 1.000 | [1.000, 1.000] | -2.00 | 1 | 1 | 2 |" in md
    assert "| h1 | 20 | 0.500 | between | 0 | 1 | " in md
    assert "The ranking on the clean subset differs" in md
    assert 'id="contamination-scores"' in page and 'id="contamination-items"' in page
    assert ">-0.667<" in page and "[1.000, 1.000]" in page and ">0.500<" in page
    assert "[0.9, 1]: 2 items" in page  # the histogram bar's tooltip
    # untrusted text is escaped
    section = ContaminationSection()
    result = report.sections["contamination"]
    c = result.contamination
    hostile = replace(c, top_items=(replace(c.top_items[0], id="<script>x</script>|*"),))
    html = section.html(replace(result, contamination=hostile))
    assert "<script>x" not in html and "&lt;script&gt;x" in html
    lines = "".join(section.markdown(replace(result, contamination=hostile)))
    assert "<script>" not in lines and "\\|\\*" in lines


def test_inputs_name_the_corpus_and_the_split_lists(case) -> None:
    from benchcheck.io.formats import NerOptions

    inputs = _inputs(case)
    report = run_audit(inputs, sections=[ContaminationSection()])
    assert report.results["inputs"]["corpus"] == str(case["corpus"].parent)
    assert str(case["corpus"].parent) in inputs.paths()  # never an output
    lists = NerOptions(split_lists={"test": str(case["test"])})
    assert str(case["test"]) in AuditInputs(ner=NerInput("x", reading=lists)).paths()


def test_report_re_renders_byte_for_byte(case, tmp_path: Path) -> None:
    from benchcheck.runs.audit import render_results

    run_audit(_inputs(case), sections=[ContaminationSection()], output=tmp_path / "r")
    results = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    page, md = render_results(results, [ContaminationSection()])
    assert page == (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert md == (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_pair_file_checks_its_first_text(case, tmp_path: Path) -> None:
    """A pair file: text_a (premise, grounding document) unless --test-column says otherwise."""
    rows = [json.loads(line) for line in case["test"].read_text(encoding="utf-8").splitlines()]
    pair = tmp_path / "pair.jsonl"
    pair.write_text(
        "".join(json.dumps({**r, "claim": "a short claim about it"}) + "\n" for r in rows),
        encoding="utf-8",
    )
    table = TableInput(str(pair), Columns(text_a="text", text_b="claim"))
    leak = ContaminationInput((str(case["corpus"]),))
    inputs = AuditInputs(table=table, judge=None, contamination=leak)
    c = run_audit(inputs, sections=[ContaminationSection()]).sections["contamination"]
    assert c.contamination.test_column == "text"
    assert c.contamination.buckets["dirty"] == 2
    other = replace(inputs, contamination=replace(leak, test_column="claim"))
    c = run_audit(other, sections=[ContaminationSection()]).sections["contamination"]
    assert c.contamination.test_column == "claim" and c.contamination.n_contaminated == 0
