"""A folder of pair splits, given where a pair file is expected (issue 33).

``benchcheck audit FOLDER --text-a … --text-b …`` reads the folder as its table statistics
do: every split. Its label-error section judges every split (ids ``split/id``, the splits
and their sizes in ``results.json``), as the NER label-error section checks every split;
the sections about models (items, ranking) and contamination take the test split, the one
the models' predictions are on. The commands that take one pair file (``judge``, ``flag``,
``review export``, ``error-rate``, ``remedy``, ``rerank``) refuse a folder in one line,
exit 2, naming it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_journeys import PLANTED, StandInJudge

from benchcheck.cli import main
from benchcheck.sample_data import PAIR_SAMPLE

COLUMNS = ["--text-a", "grounding", "--text-b", "generated_text"]


@pytest.fixture
def pairs(tmp_path, monkeypatch, request):  # type: ignore[no-untyped-def]
    """``pairs/train.jsonl`` (p01–p10) and ``pairs/test.jsonl`` (p11–p20); a stand-in judge.

    Parametrised indirectly: ``"no id"`` writes the rows without their ``id`` field, so
    both splits' ids are the row numbers 0–9.
    """
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod

    monkeypatch.chdir(tmp_path)
    rows = [json.loads(line) for line in Path(PAIR_SAMPLE).read_text().splitlines()]
    truth = {r["id"]: PLANTED.get(r["id"], str(r["label"])) for r in rows}
    judge = StandInJudge({r["generated_text"]: truth[r["id"]] for r in rows})
    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: judge)
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")
    folder = Path("pairs")
    folder.mkdir()
    keep_id = getattr(request, "param", "id") == "id"
    for name, part in (("train", rows[:10]), ("test", rows[10:])):
        text = "".join(
            json.dumps({k: v for k, v in r.items() if keep_id or k != "id"}) + "\n" for r in part
        )
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("pairs", "planted"),
    [
        ("id", ["test/p18", "train/p08", "train/p10"]),
        ("no id", ["test/7", "train/7", "train/9"]),  # p08, p10, p18 by row
    ],
    indirect=["pairs"],
)
def test_audit_judges_every_split_of_a_pair_folder(pairs, planted) -> None:
    assert main(["audit", str(pairs), *COLUMNS, "-o", "report"]) == 0
    results = json.loads(Path("report/results.json").read_text(encoding="utf-8"))
    status = {a["name"]: a for a in results["analyses"]}
    assert status["table statistics"]["status"] == "ok"
    assert status["label errors"]["status"] == "ok"
    assert status["label errors"]["detail"].endswith("(every split: train 10, test 10)")
    le = results["label_errors"]
    assert le["dataset"]["n"] == 20
    assert le["dataset"]["splits"] == {"train": 10, "test": 10}
    # the planted errors: p08 and p10 in train, p18 in test
    flagged = sorted(e["id"] for e in le["examples"])
    assert flagged == planted
    assert le["summary"]["flagged"] == 3
    lines = Path("report/flagged.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == flagged


def test_models_and_contamination_take_the_test_split_of_a_folder(pairs) -> None:
    test_ids = [json.loads(line)["id"] for line in (pairs / "test.jsonl").open()]
    for model, shift in (("a", 3), ("b", 4)):  # every 3rd / 4th test prediction wrong
        with Path(f"pred_{model}.jsonl").open("w") as out:
            for i, row in enumerate(map(json.loads, (pairs / "test.jsonl").open())):
                pred = (int(row["label"]) + (i % shift == 0)) % 2
                out.write(json.dumps({"id": row["id"], "pred": str(pred)}) + "\n")
    Path("corpus.jsonl").write_text(json.dumps({"text": "unrelated"}) + "\n")
    argv = ["audit", str(pairs), *COLUMNS, "--no-judge", "--error-rate", "2/100"]
    argv += ["--predictions", "a=pred_a.jsonl", "--predictions", "b=pred_b.jsonl"]
    assert main([*argv, "--corpus", "corpus.jsonl", "-o", "report"]) == 0
    results = json.loads(Path("report/results.json").read_text(encoding="utf-8"))
    test_file = str(pairs / "test.jsonl")
    assert results["items"]["sources"]["data"] == test_file
    assert results["items"]["n_items"] == len(test_ids) == 10
    assert results["rank"]["sources"]["data"] == test_file
    accuracy = {m["name"]: m["score"] for m in results["rank"]["models"]}
    assert accuracy == pytest.approx({"a": 6 / 10, "b": 7 / 10})  # wrong: i = 0,3,6,9 / 0,4,8
    assert (results["contamination"]["test"], results["contamination"]["n_items"]) == (
        test_file,
        10,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["judge", "pairs", *COLUMNS, "-o", "j.parquet"],
        ["flag", "pairs", "--data", "pairs", "-o", "f.jsonl"],
        ["review", "export", "pairs", "-o", "review"],
        ["error-rate", "pairs"],
        ["remedy", "pairs", "--flags", "pairs", "-o", "out"],
        ["rerank", "--gold", "pairs", "--scores", "a=pairs"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_one_file_commands_refuse_a_folder_in_one_line(pairs, argv, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: pairs: is a folder; expected a file"
    assert not [p for p in Path().iterdir() if p.name != "pairs"]  # nothing written
