"""Blind review export/import: golden files, blindness, seeding, audit sample, safety, errors."""

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from _golden import assert_matches_golden

from benchcheck.errors import InputError, UsageError
from benchcheck.io.review import read_expert_file
from benchcheck.io.tables import read_rows, write_rows
from benchcheck.labels.review import build_review, content_hash
from benchcheck.runs.review import run_review_export, run_review_import
from benchcheck.stats.agreement import cohen_kappa

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("BENCHCHECK_REGEN_GOLDEN") == "1"
EXPORT_FILES = [
    "expert_a.csv",
    "expert_b.csv",
    "tasks.json",
    "label_config.xml",
    "argilla/settings.json",
    "argilla/records.json",
    "key.jsonl",
    "guidelines.md",
    "README.txt",
]
SHOWN = [
    "expert_a.csv",
    "expert_b.csv",
    "tasks.json",
    "argilla/settings.json",
    "argilla/records.json",
]
LEAKS = ("llm_label", "confidence", "p_1", "rank", "flagged", "stratum", "disputed")


def _flags() -> pl.DataFrame:
    return read_rows(GOLDEN / "flags.jsonl")


def _big_flags(n: int = 60, n_flagged: int = 12) -> pl.DataFrame:
    """A flags table of ``n`` pairs, the first ``n_flagged`` flagged."""
    return pl.DataFrame(
        {
            "id": [f"x{i:03d}" for i in range(n)],
            "text_a": [f"premise {i}" for i in range(n)],
            "text_b": [f"claim {i}" for i in range(n)],
            "label": ["1" if i % 2 else "0" for i in range(n)],
            "llm_label": [
                ("0" if i % 2 else "1") if i < n_flagged else ("1" if i % 2 else "0")
                for i in range(n)
            ],
            "confidence": [0.9] * n,
            "flagged": [i < n_flagged for i in range(n)],
        }
    )


def _fill(folder: Path, answer, names=("expert_a", "expert_b")) -> None:
    """Experts fill their exported sheets: ``answer(key_row) -> label``."""
    key = {r["review_id"]: r for r in read_rows(folder / "key.jsonl").iter_rows(named=True)}
    for name in names:
        sheet = pl.read_csv(folder / f"{name}.csv", infer_schema=False)
        sheet.with_columns(
            pl.Series("label", [answer(key[r]) for r in sheet["review_id"]])
        ).write_csv(folder / f"{name}.csv")


def test_export_matches_golden(tmp_path):
    res = run_review_export(_flags(), tmp_path / "review", experts=2, seed=1)
    assert res.package.n_items == 8 and res.package.n_flagged == 8
    assert list(res.files) == EXPORT_FILES and res.replaced == ()
    if REGEN:
        shutil.copytree(tmp_path / "review", GOLDEN / "export", dirs_exist_ok=True)
    for name in EXPORT_FILES:
        got = (tmp_path / "review" / name).read_bytes()
        assert got == (GOLDEN / "export" / name).read_bytes(), name


def test_export_is_blind_and_seeded(tmp_path):
    flags = _flags()
    run_review_export(flags, tmp_path / "a", seed=1)
    run_review_export(flags, tmp_path / "b", seed=1)
    run_review_export(flags, tmp_path / "c", seed=2)
    a = (tmp_path / "a" / "expert_a.csv").read_text()
    assert a == (tmp_path / "b" / "expert_a.csv").read_text()
    assert a != (tmp_path / "c" / "expert_a.csv").read_text()
    expert = pl.read_csv(tmp_path / "a" / "expert_a.csv", infer_schema=False)
    assert expert.columns == ["review_id", "content_hash", "text_a", "text_b", "label"]
    assert expert["label"].fill_null("").str.len_chars().max() == 0  # no label shown
    for name in SHOWN:
        text = (tmp_path / "a" / name).read_text()
        for leak in LEAKS:
            assert leak not in text, (name, leak)
    tasks = json.loads((tmp_path / "a" / "tasks.json").read_text())
    assert set(tasks[0]["data"]) == {"review_id", "content_hash", "text_a", "text_b"}
    # shuffled: not in the flags' order nor in rank order
    key = read_rows(tmp_path / "a" / "key.jsonl").filter(pl.col("review_id").is_not_null())
    order = key.sort("review_id")["id"].to_list()
    assert order != [r for r in flags.filter(pl.col("flagged"))["id"].to_list()]
    assert order != flags.filter(pl.col("flagged")).sort("rank")["id"].to_list()


def test_content_hash_is_sha256_of_id_and_texts():
    import hashlib

    want = hashlib.sha256(
        json.dumps(["r0001", [["text_a", "a"], ["text_b", "b"]]], ensure_ascii=False).encode()
    ).hexdigest()[:16]
    assert content_hash("r0001", {"text_a": "a", "text_b": "b"}) == want
    key = read_rows(GOLDEN / "export" / "key.jsonl")
    sheet = pl.read_csv(GOLDEN / "export" / "expert_a.csv", infer_schema=False)
    by_rid = dict(zip(key["review_id"], key["content_hash"], strict=True))
    for row in sheet.iter_rows(named=True):
        texts = {"text_a": row["text_a"], "text_b": row["text_b"]}
        assert (
            row["content_hash"] == by_rid[row["review_id"]] == content_hash(row["review_id"], texts)
        )


def test_export_sample(tmp_path):
    res = run_review_export(_flags(), tmp_path, seed=3, sample=3)
    assert res.package.n_items == 3
    key = read_rows(tmp_path / "key.jsonl")
    assert key["review_id"].is_not_null().sum() == 3


def test_audit_sample_is_mixed_in_blind_and_recorded_in_the_key(tmp_path):
    flags = _big_flags(60, 12)
    plain = build_review(flags, seed=4)
    audit = build_review(flags, seed=4, audit_sample=10)
    # audit_sample=0 keeps the flags-only review exactly as before
    assert plain.n_items == 12 and build_review(flags, seed=4, audit_sample=0).items.equals(
        plain.items
    )
    assert audit.n_items == 22 and audit.n_audit == 10 and audit.n_undisputed == 48
    key = audit.key
    assert key.filter(pl.col("stratum") == "disputed")["flagged"].all()
    assert not key.filter(pl.col("stratum") == "undisputed")["flagged"].any()
    reviewed = key.filter(pl.col("review_id").is_not_null())
    assert (reviewed["stratum"] == "undisputed").sum() == 10
    assert (reviewed["stratum"] == "disputed").sum() == 12
    # same columns for both strata, and the strata interleave in review order
    assert audit.items.columns == plain.items.columns
    by_rid = dict(zip(reviewed["review_id"], reviewed["stratum"], strict=True))
    order = [by_rid[r] for r in audit.items["review_id"]]
    assert order != sorted(order) and order != sorted(order, reverse=True)
    # seeded: same seed same audit, other seed other audit
    again = build_review(flags, seed=4, audit_sample=10)
    other = build_review(flags, seed=5, audit_sample=10)
    assert again.items.equals(audit.items) and again.key.equals(audit.key)
    ids = set(audit.key.filter(pl.col("review_id").is_not_null())["id"])
    assert ids != set(other.key.filter(pl.col("review_id").is_not_null())["id"])
    # the written files carry no stratum
    run_review_export(flags, tmp_path / "r", seed=4, audit_sample=10)
    for name in SHOWN:
        text = (tmp_path / "r" / name).read_text()
        assert "undisputed" not in text and "stratum" not in text, name


def test_audit_sample_larger_than_the_undisputed_is_refused():
    with pytest.raises(UsageError, match="audit_sample"):
        build_review(_big_flags(20, 12), audit_sample=9)
    with pytest.raises(UsageError, match="audit_sample"):
        build_review(_big_flags(20, 12), audit_sample=-1)


def test_import_matches_golden(tmp_path):
    run = run_review_import(
        [GOLDEN / "filled" / "expert_a.csv", GOLDEN / "filled" / "expert_b.csv"],
        key_path=GOLDEN / "export" / "key.jsonl",
        reconciled=GOLDEN / "filled" / "reconciled.csv",
    )
    write_rows(run.gold, tmp_path / "gold.jsonl")
    text = json.dumps(run.summary.to_dict(), indent=2, sort_keys=True) + "\n"
    if REGEN:
        shutil.copy(tmp_path / "gold.jsonl", GOLDEN / "gold.jsonl")
        (GOLDEN / "import_summary.json").write_text(text)
    assert_matches_golden((tmp_path / "gold.jsonl").read_bytes(), GOLDEN / "gold.jsonl")
    assert_matches_golden(text, GOLDEN / "import_summary.json")


def test_import_rules_by_hand():
    run = run_review_import(
        [GOLDEN / "filled" / "expert_a.csv", GOLDEN / "filled" / "expert_b.csv"],
        key_path=GOLDEN / "export" / "key.jsonl",
        reconciled=GOLDEN / "filled" / "reconciled.csv",
    )
    gold, s = run.gold, run.summary
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
        run_review_import([bad], key_path=GOLDEN / "export" / "key.jsonl")
    assert exc.value.line == 4 and str(bad) in str(exc.value) and "maybe" in str(exc.value)


def test_import_unknown_review_id_and_missing_key(tmp_path):
    f = tmp_path / "e.csv"
    f.write_text("review_id,label\nr9999,1\n")
    with pytest.raises(InputError, match="not in the review key") as exc:
        run_review_import([f], key_path=GOLDEN / "export" / "key.jsonl")
    assert exc.value.line == 2
    with pytest.raises(InputError, match="key"):
        run_review_import([f])


def test_label_studio_json_and_three_experts(tmp_path):
    (a,) = read_expert_file(GOLDEN / "filled" / "expert_a.csv", labels=["0", "1"])
    sheet = pl.read_csv(GOLDEN / "filled" / "expert_a.csv", infer_schema=False)
    hashes = dict(zip(sheet["review_id"], sheet["content_hash"], strict=True))
    tasks = [
        {
            "id": k,
            "data": {"review_id": rid, "content_hash": hashes[rid]},
            "annotations": [{"result": [{"value": {"choices": [lab]}}]}] if lab else [],
        }
        for k, (rid, lab) in enumerate(a.labels.items())
    ]
    ls = tmp_path / "expert_c.json"
    ls.write_text(json.dumps(tasks))
    (c,) = read_expert_file(ls, labels=["0", "1"])
    assert c.labels == a.labels and c.hashes == a.hashes
    run = run_review_import(
        [GOLDEN / "filled" / "expert_a.csv", GOLDEN / "filled" / "expert_b.csv", ls],
        key_path=GOLDEN / "export" / "key.jsonl",
    )
    assert "fleiss_kappa" in run.summary.agreement_before
    assert run.summary.experts == ("expert_a", "expert_b", "expert_c")


def test_argilla_files_follow_the_argilla_2_record_and_settings_format(tmp_path):
    run_review_export(_flags(), tmp_path, seed=1)
    settings = json.loads((tmp_path / "argilla" / "settings.json").read_text())
    records = json.loads((tmp_path / "argilla" / "records.json").read_text())
    sheet = pl.read_csv(tmp_path / "expert_a.csv", infer_schema=False)
    # Settings.from_json: fields (TextField models), questions (label_selection), metadata
    assert [f["name"] for f in settings["fields"]] == ["text_a", "text_b"]
    assert all(f["settings"] == {"type": "text", "use_markdown": False} for f in settings["fields"])
    (q,) = settings["questions"]
    assert q["name"] == "label" and q["settings"]["type"] == "label_selection"
    assert [o["value"] for o in q["settings"]["options"]] == ["0", "1"]
    assert settings["metadata"][0]["settings"]["type"] == "terms"
    assert settings["metadata"][0]["visible_for_annotators"] is False
    # records.from_json -> Record.from_dict: id, fields, metadata, suggestions, responses
    assert [r["id"] for r in records] == sheet["review_id"].to_list()
    for r, row in zip(records, sheet.iter_rows(named=True), strict=True):
        assert set(r) == {"id", "fields", "metadata", "suggestions", "responses", "vectors"}
        assert r["fields"] == {"text_a": row["text_a"], "text_b": row["text_b"]}
        assert r["metadata"] == {"content_hash": row["content_hash"]}


def test_argilla_export_with_two_annotators_is_two_experts(tmp_path):
    run_review_export(_flags(), tmp_path, seed=1)
    records = json.loads((tmp_path / "argilla" / "records.json").read_text())
    for k, r in enumerate(records):
        r["responses"] = {
            "label": [
                {"value": "0", "user_id": "aaaaaaaa-1"},
                {"value": str(k % 2), "user_id": "bbbbbbbb-2"},
            ]
        }
    out = tmp_path / "argilla_export.json"
    out.write_text(json.dumps(records))
    run = run_review_import([out], key_path=tmp_path / "key.jsonl")
    # one naming rule for every export that names its annotators: <file stem>@<annotator>
    assert run.summary.experts == ("argilla_export@aaaaaaaa-1", "argilla_export@bbbbbbbb-2")
    assert run.summary.agreement_before["n"] == len(records)
    agree = sum(1 for k in range(len(records)) if k % 2 == 0)
    assert run.summary.status_counts["experts_agree"] == agree


def test_sampled_review_marks_the_rest_not_reviewed(tmp_path):
    from benchcheck.labels.analysis import gold_error_rate

    run_review_export(_flags(), tmp_path, seed=5, sample=3)
    _fill(tmp_path, lambda row: "0")
    run = run_review_import([tmp_path / "expert_a.csv", tmp_path / "expert_b.csv"])
    assert run.summary.status_counts == {
        "llm_agrees": 4,
        "experts_agree": 3,
        "reconciled": 0,
        "unresolved": 0,
        "not_reviewed": 5,
    }
    res, left = gold_error_rate(run.gold, population=50)
    assert res.sample == 7 and left["not_reviewed"] == 5


# ------------------------------------------------------------------ never lose a user's work


def test_export_refuses_a_folder_that_holds_a_review_and_names_it(tmp_path):
    run_review_export(_flags(), tmp_path, seed=1)
    _fill(tmp_path, lambda row: "1", names=("expert_a",))
    filled = (tmp_path / "expert_a.csv").read_bytes()
    key = (tmp_path / "key.jsonl").read_bytes()
    with pytest.raises(UsageError) as exc:
        run_review_export(_flags(), tmp_path, seed=2)
    msg = str(exc.value)
    assert "expert_a.csv (8 answer(s) filled)" in msg and "key.jsonl" in msg and "force" in msg
    assert (tmp_path / "expert_a.csv").read_bytes() == filled  # nothing touched
    assert (tmp_path / "key.jsonl").read_bytes() == key
    # a key alone is a review too
    only_key = tmp_path / "k"
    only_key.mkdir()
    shutil.copy(tmp_path / "key.jsonl", only_key / "key.jsonl")
    with pytest.raises(UsageError, match="key.jsonl"):
        run_review_export(_flags(), only_key, seed=1)
    # with force it overwrites, and says what it replaced
    res = run_review_export(_flags(), tmp_path, seed=2, force=True)
    assert "expert_a.csv (8 answer(s) filled)" in res.replaced
    assert any(r.startswith("key.jsonl") for r in res.replaced)
    assert (tmp_path / "key.jsonl").read_bytes() != key


def test_export_into_an_empty_or_unrelated_folder_is_fine(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    res = run_review_export(_flags(), tmp_path, seed=1)
    assert res.replaced == () and (tmp_path / "notes.txt").read_text() == "mine"


def test_import_refuses_an_expert_file_of_another_export(tmp_path):
    run_review_export(_flags(), tmp_path / "one", seed=1)
    run_review_export(_flags(), tmp_path / "two", seed=2)  # same review ids, other items
    _fill(tmp_path / "two", lambda row: "0")
    with pytest.raises(InputError, match="not exported with this review key") as exc:
        run_review_import(
            [tmp_path / "one" / "expert_a.csv", tmp_path / "two" / "expert_b.csv"],
            key_path=tmp_path / "one" / "key.jsonl",
        )
    assert "two" in str(exc.value) and exc.value.line is not None
    # without the hash column, the texts are hashed instead: still refused
    sheet = pl.read_csv(tmp_path / "two" / "expert_b.csv", infer_schema=False)
    sheet.drop("content_hash").write_csv(tmp_path / "texts_only.csv")
    with pytest.raises(InputError, match="not exported with this review key"):
        run_review_import([tmp_path / "texts_only.csv"], key_path=tmp_path / "one" / "key.jsonl")
    # and a file with neither cannot prove it belongs
    sheet.select("review_id", "label").write_csv(tmp_path / "bare.csv")
    with pytest.raises(InputError, match="cannot check"):
        run_review_import([tmp_path / "bare.csv"], key_path=tmp_path / "one" / "key.jsonl")


def test_import_accepts_texts_instead_of_the_hash(tmp_path):
    run_review_export(_flags(), tmp_path, seed=1)
    _fill(tmp_path, lambda row: row["label"])
    for name in ("expert_a", "expert_b"):
        sheet = pl.read_csv(tmp_path / f"{name}.csv", infer_schema=False)
        sheet.drop("content_hash").write_csv(tmp_path / f"{name}.csv")
    run = run_review_import([tmp_path / "expert_a.csv", tmp_path / "expert_b.csv"])
    assert run.summary.status_counts["experts_agree"] == 8


def test_import_refuses_a_file_given_twice(tmp_path):
    run_review_export(_flags(), tmp_path, seed=1)
    _fill(tmp_path, lambda row: "0")
    a = tmp_path / "expert_a.csv"
    with pytest.raises(UsageError, match="given twice"):
        run_review_import([a, a])
    with pytest.raises(UsageError, match="given twice"):
        run_review_import([a, tmp_path / "." / "expert_a.csv"])
    os.link(a, tmp_path / "hardlink.csv")
    with pytest.raises(UsageError, match="given twice"):
        run_review_import([a, tmp_path / "hardlink.csv"])
    with pytest.raises(UsageError, match="reconciled"):
        run_review_import([a, tmp_path / "expert_b.csv"], reconciled=a)
    # two copies with the same bytes: accepted (experts may agree fully) but warned about
    run = run_review_import([a, tmp_path / "expert_b.csv"])
    assert any("identical byte for byte" in w for w in run.summary.warnings)


def test_import_refuses_duplicate_ids(tmp_path):
    run_review_export(_flags(), tmp_path, seed=1)
    _fill(tmp_path, lambda row: "0")
    lines = (tmp_path / "key.jsonl").read_text().splitlines()
    dup_id = json.loads(lines[1])
    dup_id["id"] = json.loads(lines[0])["id"]
    bad = tmp_path / "bad_key.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(dup_id), *lines[2:]]) + "\n")
    with pytest.raises(InputError, match="id given twice") as exc:
        run_review_import([tmp_path / "expert_a.csv"], key_path=bad)
    assert exc.value.line == 2 and str(bad) in str(exc.value)
    rows = (tmp_path / "expert_a.csv").read_text().splitlines()
    (tmp_path / "dup.csv").write_text("\n".join([*rows, rows[1]]) + "\n")
    with pytest.raises(InputError, match="review_id given twice") as exc:
        run_review_import([tmp_path / "dup.csv"], key_path=tmp_path / "key.jsonl")
    assert exc.value.line == len(rows) + 1
    with pytest.raises(InputError, match="id given twice"):
        build_review(pl.concat([_flags(), _flags().head(1)]))


def test_export_refuses_a_review_key_as_flags(tmp_path):
    run_review_export(_flags(), tmp_path / "r", seed=1)
    with pytest.raises(InputError, match="review key") as exc:
        run_review_export(tmp_path / "r" / "key.jsonl", tmp_path / "s")
    assert "key.jsonl" in str(exc.value)


def test_a_data_column_named_stratum_is_kept_aside():
    flags = _flags().with_columns(pl.lit("north").alias("stratum"))
    key = build_review(flags, seed=1).key
    assert key["data_stratum"].unique().to_list() == ["north"]
    assert set(key["stratum"]) == {"disputed", "undisputed"}


# ------------------------------------------------------------------ spreadsheet formulas


def test_expert_csv_neutralises_formulas_and_import_restores_them(tmp_path):
    texts = [
        '=HYPERLINK("http://evil","x")',
        "+1",
        "-5 degrees",
        "@SUM(A1)",
        "\tTab",
        "\rCR",
        "'=quoted",
        "plain",
    ]
    n = len(texts)
    flags = pl.DataFrame(
        {
            "id": [f"f{i}" for i in range(n)],
            "text_a": texts,
            "text_b": ["claim"] * n,
            "label": ["1"] * n,
            "llm_label": ["0"] * n,
            "flagged": [True] * n,
        }
    )
    run_review_export(flags, tmp_path, seed=0)
    sheet = pl.read_csv(tmp_path / "expert_a.csv", infer_schema=False)
    key = read_rows(tmp_path / "key.jsonl")
    id_of = dict(zip(key["review_id"], key["id"], strict=True))
    raw = {f"f{i}": t for i, t in enumerate(texts)}
    for row in sheet.iter_rows(named=True):
        original = raw[id_of[row["review_id"]]]
        if original == "plain":
            assert row["text_a"] == "plain"
        else:
            assert row["text_a"] == "'" + original, original
    # the texts (not the hash) prove the rows belong: import restores them first
    _fill(tmp_path, lambda row: "0")
    for name in ("expert_a", "expert_b"):
        s = pl.read_csv(tmp_path / f"{name}.csv", infer_schema=False)
        s.drop("content_hash").write_csv(tmp_path / f"{name}.csv")
    run = run_review_import([tmp_path / "expert_a.csv", tmp_path / "expert_b.csv"])
    assert run.summary.status_counts["experts_agree"] == n
    tasks = json.loads((tmp_path / "tasks.json").read_text())  # JSON is left as is
    assert {t["data"]["text_a"] for t in tasks} == set(texts)


# ------------------------------------------------------------------ audit -> gold -> estimates


def test_audit_review_to_gold_keeps_the_paper_figure_and_feeds_the_strata(tmp_path):
    from benchcheck.labels.analysis import gold_error_rate
    from benchcheck.labels.error_rate import strata_counts, stratified_gold_error_rate

    flags = _big_flags(60, 12)
    # truth: 7 of the 12 flags are real errors, and 3 of the 48 unflagged are errors too
    wrong = {f"x{i:03d}" for i in (0, 1, 2, 3, 4, 5, 6, 20, 31, 47)}

    def truth(row):
        return ("0" if row["label"] == "1" else "1") if row["id"] in wrong else row["label"]

    run_review_export(flags, tmp_path / "plain", seed=7)
    _fill(tmp_path / "plain", truth)
    plain = run_review_import([tmp_path / "plain" / f"expert_{x}.csv" for x in "ab"]).gold
    run_review_export(flags, tmp_path / "audit", seed=7, audit_sample=48)  # a census of the rest
    _fill(tmp_path / "audit", truth)
    audit = run_review_import([tmp_path / "audit" / f"expert_{x}.csv" for x in "ab"])
    assert audit.summary.audited == 48 and audit.summary.audit_errors == 3
    # the paper's lower bound is the same with or without the audit
    lb_plain, left_plain = gold_error_rate(plain, population=60)
    lb_audit, left_audit = gold_error_rate(audit.gold, population=60)
    assert lb_plain == lb_audit and left_plain == left_audit
    assert (lb_plain.errors, lb_plain.sample) == (7, 60)
    # the strata by hand
    counts = strata_counts(audit.gold)
    assert counts.population == (12, 48) and counts.reviewed == (12, 48)
    assert counts.errors == (7, 3)
    est, _, note = stratified_gold_error_rate(audit.gold)
    assert note is None and est.error_rate == pytest.approx(10 / 60)
    assert est.ci == pytest.approx((10 / 60, 10 / 60))  # both strata are censuses
    assert est.recall == pytest.approx(0.7)
    # without an audit there is no stratified estimate, and it says why
    est, _, note = stratified_gold_error_rate(plain)
    assert est is None and "audit" in note
