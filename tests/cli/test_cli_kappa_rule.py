"""One rule for an undefined kappa at every entry point (stats.agreement's docstring).

Every rater puts every item in one and the same category: ``p_e = 1`` and kappa is 0/0.
The library answers ``None``, JSON ``null``, tables ``—``, through Cohen's kappa (accuracy
sample, crowd annotators vs truth, review experts) and Fleiss' kappa (human baseline,
agreement groups) alike. Defined cases still equal scikit-learn and statsmodels.
"""

import json
import warnings

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from benchcheck.cli import main
from benchcheck.diagnostics import sample_suite_path
from benchcheck.diagnostics.human import human_baseline
from benchcheck.labels.analysis import agreement_report
from benchcheck.labels.review import _agreement
from benchcheck.metrics.accuracy import score_annotations
from benchcheck.runs.diagnose import load_suite
from benchcheck.stats.agreement import cohen_kappa, fleiss_kappa

SUITE = str(sample_suite_path())
RATERS = ("a", "b", "c")


@pytest.fixture(scope="module")
def suite():
    return load_suite(SUITE)


def _statsmodels_fleiss(rows: list[list[str]]) -> float:
    cats = sorted({v for r in rows for v in r})
    coded = np.array([[cats.index(v) for v in r] for r in rows])
    table, _ = aggregate_raters(coded, n_cat=len(cats))
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return float(sm_fleiss_kappa(table, method="fleiss"))


def _library_answers(ids: list[str], ratings: dict[str, list[str]], suite) -> dict[str, object]:
    """Kappa through each library entry point for ``ratings[rater][k]`` on item ``ids[k]``."""
    by_rater = {w: dict(zip(ids, labs, strict=True)) for w, labs in ratings.items()}
    rows = [[ratings[w][k] for w in RATERS] for k in range(len(ids))]
    crowd = pl.DataFrame(
        [{"id": i, "annotator": w, "label": by_rater[w][i]} for w in RATERS for i in ids]
    )
    report = agreement_report(
        {**by_rater, "gold": by_rater["a"]},
        crowd=crowd,
        groups={"abc": list(RATERS)},
        truth="gold",
        disagreement=None,
    ).to_json()
    # The accuracy sample judges correct (1) / not (0): the first category counts as 1.
    first = ratings["a"][0]
    judged = [{w: int(ratings[w][k] == first) for w in ("a", "b")} for k in range(len(ids))]
    acc = score_annotations([("test", j) for j in judged])["test"]
    return {
        "stats.cohen_kappa": cohen_kappa(ratings["a"], ratings["b"]),
        "stats.fleiss_kappa": fleiss_kappa(rows),
        "accuracy pair a|b": acc.kappa_pairs["a|b"],
        "human baseline": human_baseline(suite, by_rater, n_resamples=20).fleiss_kappa,
        "agreement group": report["fleiss"]["abc"]["all"]["kappa"],
        "agreement crowd": report["fleiss"]["crowd"]["all"]["kappa"],
        "crowd annotator b vs truth": report["per_annotator"][1]["cohen_kappa"],
        "review experts (2)": _agreement([ratings["a"], ratings["b"]])["cohen_kappa"],
        "review experts (3)": _agreement([ratings[w] for w in RATERS])["fleiss_kappa"],
    }


def test_single_category_is_none_everywhere(suite):
    ids = list(suite.ids[:5])
    answers = _library_answers(ids, {w: ["entailment"] * 5 for w in RATERS}, suite)
    assert answers == dict.fromkeys(answers, None)


def test_defined_cases_match_the_references(suite):
    ids = list(suite.ids[:6])
    e, n, c = "entailment", "neutral", "contradiction"
    ratings = {
        "a": [e, e, n, c, n, e],
        "b": [e, n, n, c, e, e],
        "c": [e, e, c, c, n, n],
    }
    answers = _library_answers(ids, ratings, suite)
    rows = [[ratings[w][k] for w in RATERS] for k in range(6)]
    fleiss = _statsmodels_fleiss(rows)
    for key in (
        "stats.fleiss_kappa",
        "human baseline",
        "agreement group",
        "agreement crowd",
        "review experts (3)",
    ):
        assert answers[key] == pytest.approx(fleiss), key
    for key in ("stats.cohen_kappa", "crowd annotator b vs truth", "review experts (2)"):
        assert answers[key] == pytest.approx(cohen_kappa_score(ratings["a"], ratings["b"])), key
    binary = {w: [int(v == e) for v in ratings[w]] for w in ("a", "b")}
    assert answers["accuracy pair a|b"] == pytest.approx(
        cohen_kappa_score(binary["a"], binary["b"])
    )


def _words(text: str) -> str:
    return " ".join(text.split())


def test_cli_accuracy_prints_the_documented_form(tmp_path, capsys):
    path = tmp_path / "annotated.jsonl"
    path.write_text(
        "".join(
            json.dumps({"split": "test", "annotations": {"a": True, "b": True}}) + "\n"
            for _ in range(4)
        )
    )
    assert main(["accuracy", str(path), "--json", str(tmp_path / "acc.json")]) == 0
    out, err = capsys.readouterr()
    payload = json.loads((tmp_path / "acc.json").read_text())
    assert payload["splits"]["test"]["kappa_pairs"] == {"a|b": None}
    assert payload["splits"]["test"]["kappa_mean"] is None
    assert payload["metrics"]["kappa_mean"] is None
    assert "—" in out and "nan" not in out.lower()
    assert "no annotator pair with a defined kappa" in _words(err)


def test_cli_human_prints_the_documented_form(suite, tmp_path, capsys):
    ann = tmp_path / "ann.csv"
    ann.write_text(
        "id,annotator,label\n"
        + "".join(f"{i},{w},entailment\n" for i in suite.ids[:4] for w in RATERS)
    )
    out_json = tmp_path / "h.json"
    rc = main(
        [
            "human",
            "--suite",
            SUITE,
            "--annotations",
            str(ann),
            "--resamples",
            "20",
            "--json",
            str(out_json),
        ]
    )
    assert rc == 0
    out = _words(capsys.readouterr().out)
    payload = json.loads(out_json.read_text())
    assert payload["fleiss_kappa"] is None and payload["n_items_kappa"] == 4
    assert "Fleiss' kappa — over 4 examples" in out and "undefined" in out
    assert "nan" not in out.lower()


def test_cli_agreement_prints_the_documented_form(tmp_path, capsys):
    ids = [f"x{k}" for k in range(5)]
    for name in ("a", "b", "gold"):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps({"id": i, "label": "1"}) + "\n" for i in ids)
        )
    (tmp_path / "crowd.csv").write_text(
        "id,annotator,label\n" + "".join(f"{i},{w},1\n" for i in ids for w in RATERS)
    )
    argv = [
        "agreement",
        "--source", f"a={tmp_path / 'a.jsonl'}",
        "--source", f"b={tmp_path / 'b.jsonl'}",
        "--source", f"gold={tmp_path / 'gold.jsonl'}",
        "--crowd", str(tmp_path / "crowd.csv"),
        "--group", "ab=a,b",
    ]  # fmt: skip
    assert main([*argv, "--json", str(tmp_path / "ag.json")]) == 0
    out = capsys.readouterr().out
    payload = json.loads((tmp_path / "ag.json").read_text())
    # one rule for kappa and Krippendorff's alpha: a single category throughout is undefined
    undefined = {"krippendorff_alpha": None, "krippendorff_alpha_ci": None}
    assert payload["fleiss"]["ab"]["all"] == {
        "kappa": None, "n_items": 5, "raters": 2, **undefined
    }  # fmt: skip
    assert payload["fleiss"]["crowd"]["all"] == {
        "kappa": None, "n_items": 5, "raters": 3, **undefined
    }  # fmt: skip
    assert [r["cohen_kappa"] for r in payload["per_annotator"]] == [None, None, None]
    assert "nan" not in out.lower()
    fleiss_table = out[out.index("Fleiss' kappa and") : out.index("Crowd annotators")]
    assert "—" in fleiss_table and "1.000" not in fleiss_table
