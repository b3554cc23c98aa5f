"""Blind review export/import: golden files, blindness, seeding, errors."""

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest

from benchcheck.errors import InputError
from benchcheck.io.tables import read_rows, write_rows
from benchcheck.labels.review import export_review, import_review, read_expert_labels
from benchcheck.stats.agreement import cohen_kappa

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("BENCHCHECK_REGEN_GOLDEN") == "1"
EXPORT_FILES = [
    "expert_a.csv",
    "expert_b.csv",
    "tasks.json",
    "label_config.xml",
    "key.jsonl",
    "README.txt",
]


def _flags() -> pl.DataFrame:
    return read_rows(GOLDEN / "flags.jsonl")


def test_export_matches_golden(tmp_path):
    res = export_review(_flags(), tmp_path / "review", experts=2, seed=1)
    assert res.n_items == 8 and res.n_flagged == 8
    if REGEN:
        shutil.copytree(tmp_path / "review", GOLDEN / "export", dirs_exist_ok=True)
    for name in EXPORT_FILES:
        got = (tmp_path / "review" / name).read_bytes()
        assert got == (GOLDEN / "export" / name).read_bytes(), name


def test_export_is_blind_and_seeded(tmp_path):
    flags = _flags()
    export_review(flags, tmp_path / "a", seed=1)
    export_review(flags, tmp_path / "b", seed=1)
    export_review(flags, tmp_path / "c", seed=2)
    a = (tmp_path / "a" / "expert_a.csv").read_text()
    assert a == (tmp_path / "b" / "expert_a.csv").read_text()
    assert a != (tmp_path / "c" / "expert_a.csv").read_text()
    expert = pl.read_csv(tmp_path / "a" / "expert_a.csv", infer_schema=False)
    assert expert.columns == ["review_id", "text_a", "text_b", "label"]
    assert expert["label"].fill_null("").str.len_chars().max() == 0  # no label shown
    for name in ("expert_a.csv", "expert_b.csv", "tasks.json"):
        text = (tmp_path / "a" / name).read_text()
        for leak in ("llm_label", "confidence", "p_1", "rank", "flagged"):
            assert leak not in text, (name, leak)
    tasks = json.loads((tmp_path / "a" / "tasks.json").read_text())
    assert set(tasks[0]["data"]) == {"review_id", "text_a", "text_b"}
    # shuffled: not in the flags' order nor in rank order
    key = read_rows(tmp_path / "a" / "key.jsonl").filter(pl.col("review_id").is_not_null())
    order = key.sort("review_id")["id"].to_list()
    assert order != [r for r in flags.filter(pl.col("flagged"))["id"].to_list()]
    assert order != flags.filter(pl.col("flagged")).sort("rank")["id"].to_list()


def test_export_sample(tmp_path):
    res = export_review(_flags(), tmp_path, seed=3, sample=3)
    assert res.n_items == 3
    key = read_rows(tmp_path / "key.jsonl")
    assert key["review_id"].is_not_null().sum() == 3


def test_import_matches_golden(tmp_path):
    gold, summary = import_review(
        [GOLDEN / "filled" / "expert_a.csv", GOLDEN / "filled" / "expert_b.csv"],
        key_path=GOLDEN / "export" / "key.jsonl",
        reconciled=GOLDEN / "filled" / "reconciled.csv",
    )
    write_rows(gold, tmp_path / "gold.jsonl")
    text = json.dumps(summary.to_dict(), indent=2, sort_keys=True) + "\n"
    if REGEN:
        shutil.copy(tmp_path / "gold.jsonl", GOLDEN / "gold.jsonl")
        (GOLDEN / "import_summary.json").write_text(text)
    assert (tmp_path / "gold.jsonl").read_bytes() == (GOLDEN / "gold.jsonl").read_bytes()
    assert text == (GOLDEN / "import_summary.json").read_text()


def test_import_rules_by_hand():
    gold, s = import_review(
        [GOLDEN / "filled" / "expert_a.csv", GOLDEN / "filled" / "expert_b.csv"],
        key_path=GOLDEN / "export" / "key.jsonl",
        reconciled=GOLDEN / "filled" / "reconciled.csv",
    )
    rows = {r["id"]: r for r in gold.iter_rows(named=True)}
    # not flagged -> gold = original
    for i in ("a2", "a4", "a7", "a10"):
        assert rows[i]["status"] == "llm_agrees" and rows[i]["gold"] == rows[i]["label"]
    a = pl.read_csv(GOLDEN / "filled" / "expert_a.csv", infer_schema=False)
    b = pl.read_csv(GOLDEN / "filled" / "expert_b.csv", infer_schema=False)
    rec = pl.read_csv(GOLDEN / "filled" / "reconciled.csv", infer_schema=False)
    la = dict(zip(a["review_id"], a["label"], strict=True))
    lb = dict(zip(b["review_id"], b["label"], strict=True))
    lr = {k: v for k, v in zip(rec["review_id"], rec["label"], strict=True) if v}
    for r in rows.values():
        rid = r["review_id"]
        if rid is None:
            continue
        if rid in lr:
            assert r["status"] == "reconciled" and r["gold"] == lr[rid]
        elif la[rid] == lb[rid]:
            assert r["status"] == "experts_agree" and r["gold"] == la[rid]
        else:
            assert r["status"] == "unresolved" and r["gold"] is None and r["error"] is None
    rids = sorted(la)
    assert s.agreement_before["cohen_kappa"] == pytest.approx(
        cohen_kappa([la[r] for r in rids], [lb[r] for r in rids])
    )
    assert s.agreement_after["cohen_kappa"] >= s.agreement_before["cohen_kappa"]
    assert len(s.unresolved_ids) == s.status_counts["unresolved"] >= 1
    changed = [r for r in rows.values() if r["gold"] is not None and r["gold"] != r["label"]]
    assert sum(s.changes.values()) == len(changed)
    assert s.changes.get("1->0", 0) == sum(1 for r in changed if r["label"] == "1")


def test_import_bad_label_names_file_and_line(tmp_path):
    bad = tmp_path / "expert_a.csv"
    text = (GOLDEN / "filled" / "expert_a.csv").read_text().splitlines()
    text[3] = text[3].rsplit(",", 1)[0] + ",maybe"
    bad.write_text("\n".join(text) + "\n")
    with pytest.raises(InputError) as exc:
        import_review([bad], key_path=GOLDEN / "export" / "key.jsonl")
    assert exc.value.line == 4 and str(bad) in str(exc.value) and "maybe" in str(exc.value)


def test_import_unknown_review_id_and_missing_key(tmp_path):
    f = tmp_path / "e.csv"
    f.write_text("review_id,label\nr9999,1\n")
    with pytest.raises(InputError, match="not in the review key"):
        import_review([f], key_path=GOLDEN / "export" / "key.jsonl")
    with pytest.raises(InputError, match="key"):
        import_review([f])


def test_label_studio_json_and_three_experts(tmp_path):
    a = read_expert_labels(GOLDEN / "filled" / "expert_a.csv", ["0", "1"])
    tasks = [
        {
            "id": k,
            "data": {"review_id": rid},
            "annotations": [{"result": [{"value": {"choices": [lab]}}]}] if lab else [],
        }
        for k, (rid, lab) in enumerate(a.items())
    ]
    ls = tmp_path / "expert_c.json"
    ls.write_text(json.dumps(tasks))
    assert read_expert_labels(ls, ["0", "1"]) == a
    gold, s = import_review(
        [GOLDEN / "filled" / "expert_a.csv", GOLDEN / "filled" / "expert_b.csv", ls],
        key_path=GOLDEN / "export" / "key.jsonl",
    )
    assert "fleiss_kappa" in s.agreement_before
    assert s.experts == ("expert_a", "expert_b", "expert_c")


def test_sampled_review_marks_the_rest_not_reviewed(tmp_path):
    from benchcheck.labels.analysis import gold_error_rate

    export_review(_flags(), tmp_path, seed=5, sample=3)
    key = read_rows(tmp_path / "key.jsonl")
    rids = [r for r in key["review_id"].to_list() if r is not None]
    for name in ("expert_a", "expert_b"):
        (tmp_path / f"{name}.csv").write_text(
            "review_id,label\n" + "".join(f"{r},0\n" for r in rids)
        )
    gold, s = import_review([tmp_path / "expert_a.csv", tmp_path / "expert_b.csv"])
    assert s.status_counts == {
        "llm_agrees": 4,
        "experts_agree": 3,
        "reconciled": 0,
        "unresolved": 0,
        "not_reviewed": 5,
    }
    res, left = gold_error_rate(gold, population=50)
    assert res.sample == 7 and left["not_reviewed"] == 5
