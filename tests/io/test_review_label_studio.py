"""A real Label Studio round trip of a blind review (marker ``apps``; BENCHCHECK_APPS=1).

Label Studio 1.23.2 is installed in its own virtual environment and started on 127.0.0.1
with a fresh data folder and a test user. The review package of the bundled pair sample
(three planted label errors, one false flag, an audit sample of three) goes in through the
REST API: the project from ``label_config.xml``, the tasks from ``tasks.json``. Two
reviewers answer through the API (the second disagrees once and skips one task); each export
Label Studio offers for the project (JSON, JSON-MIN, CSV) goes through ``benchcheck review
import``. The server is stopped by its process id.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from _apps import LABEL_STUDIO, LabelStudio, app_venv, apps_enabled

from benchcheck.cli import main
from benchcheck.sample_data import PAIR_SAMPLE

pytestmark = [
    pytest.mark.apps,
    pytest.mark.skipif(not apps_enabled(), reason="installs Label Studio: BENCHCHECK_APPS=1"),
]

#: The sample's planted errors (its README) and their correct labels.
TRUTH = {"p08": "0", "p10": "1", "p18": "0"}
#: A false flag: the detector disputes a correct label.
FALSE_FLAG = "p05"


def _flags(path: Path) -> dict[str, str]:
    """Flags of the bundled pair sample; returns every example's true label."""
    data = pl.read_ndjson(PAIR_SAMPLE)
    rows, truth = [], {}
    for r in data.iter_rows(named=True):
        label = str(r["label"])
        right = TRUTH.get(r["id"], label)
        llm = {"0": "1", "1": "0"}[label] if r["id"] in (*TRUTH, FALSE_FLAG) else label
        truth[r["id"]] = right
        rows.append(
            {
                "id": r["id"],
                "text_a": r["grounding"],
                "text_b": r["generated_text"],
                "label": label,
                "llm_label": llm,
                "confidence": 0.9,
                "disagree": llm != label,
                "flagged": llm != label,
            }
        )
    pl.DataFrame(rows).write_ndjson(path)
    return truth


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    root = tmp_path_factory.mktemp("label_studio")
    server = LabelStudio(app_venv(LABEL_STUDIO, root), root / "data", root / "server.log")
    try:
        server.wait()
        yield server
    finally:
        server.stop()
    assert server.process.poll() is not None  # stopped


def _choice(value: str) -> list[dict]:
    return [
        {
            "from_name": "label",
            "to_name": "text_a",
            "type": "choices",
            "value": {"choices": [value]},
        }
    ]


def _import(export: str, out: str, *options: str) -> dict:
    """``benchcheck review import`` of one export with the key; its JSON summary."""
    summary = f"summary_{Path(out).stem}.json"
    argv = ["review", "import", export, "--key", "review/key.jsonl", "-o", out, *options]
    assert main([*argv, "--json", summary]) == 0
    return json.loads(Path(summary).read_text())


def test_label_studio_round_trip(studio, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    truth = _flags(tmp_path / "flags.jsonl")
    assert (
        main(
            [
                "review",
                "export",
                "flags.jsonl",
                "--audit-sample",
                "3",
                "--seed",
                "1",
                "-o",
                "review",
            ]
        )
        == 0
    )
    key = pl.read_ndjson("review/key.jsonl")
    shown = json.loads(Path("review/tasks.json").read_text())
    config = Path("review/label_config.xml").read_text()

    project = studio.call(
        "POST", "/api/projects", {"title": "benchcheck review", "label_config": config}
    )
    pid = project["id"]
    assert project["label_config"].strip() == config.strip()  # accepted unchanged
    imported = studio.call("POST", f"/api/projects/{pid}/import", shown)
    assert imported["task_count"] == len(shown) == 7
    tasks = studio.call("GET", f"/api/tasks?project={pid}&page_size=100")["tasks"]
    tasks.sort(key=lambda t: t["id"])
    # Label Studio gives the tasks its own ids, keeps the blind order and every text as is
    assert [t["data"] for t in tasks] == [t["data"] for t in shown]

    me = studio.call("GET", "/api/current-user/whoami")["id"]
    other = studio.call(
        "POST",
        "/api/users/",
        {
            "email": "reviewer.two@example.org",
            "username": "reviewer2",
            "password": "benchcheck-review-2",
        },
    )["id"]
    item_of = dict(zip(key["review_id"].to_list(), key["id"].to_list(), strict=True))
    disagree_at, skip_at = tasks[0], tasks[2]
    for t in tasks:
        right = truth[item_of[t["data"]["review_id"]]]
        studio.call(
            "POST",
            f"/api/tasks/{t['id']}/annotations",
            {"result": _choice(right), "completed_by": me},
        )
        if t is skip_at:
            studio.call(
                "POST",
                f"/api/tasks/{t['id']}/annotations",
                {"result": [], "was_cancelled": True, "completed_by": other},
            )
            continue
        wrong = {"0": "1", "1": "0"}[right] if t is disagree_at else right
        studio.call(
            "POST",
            f"/api/tasks/{t['id']}/annotations",
            {"result": _choice(wrong), "completed_by": other},
        )

    offered = {
        f["name"]
        for f in studio.call("GET", f"/api/projects/{pid}/export/formats")
        if not f.get("disabled")
    }
    assert {"JSON", "JSON_MIN", "CSV"} <= offered
    golds = {}
    for fmt, name in (("JSON", "ls.json"), ("JSON_MIN", "ls_min.json"), ("CSV", "ls_table.csv")):
        blob = studio.call("GET", f"/api/projects/{pid}/export?exportType={fmt}", raw=True)
        Path(name).write_bytes(blob)
        stem = Path(name).stem
        summary = _import(name, f"gold_{stem}.jsonl")
        assert summary["experts"] == [f"{stem}@{me}", f"{stem}@{other}"]
        # unanimous: the disagreement and the skipped task stay unresolved
        assert summary["status_counts"]["experts_agree"] == 5
        assert summary["status_counts"]["unresolved"] == 2
        assert summary["agreement_before"]["n"] == 6  # both answered 6 of 7
        assert summary["agreement_before"]["percent"] == pytest.approx(5 / 6)
        assert summary["audited"] == 3
        # the adjudicator (reviewer one) settles both: every gold label is the truth
        out = f"adjudicated_{stem}.jsonl"
        adj = _import(name, out, "--consensus", "adjudicator", "--adjudicator", f"{stem}@{me}")
        assert adj["status_counts"]["adjudicated"] == 2
        assert adj["status_counts"]["unresolved"] == 0
        assert adj["audited"] == 3 and adj["audit_errors"] == 0
        gold = pl.read_ndjson(out).filter(pl.col("review_id").is_not_null())
        assert all(g == truth[i] for i, g in gold.select("id", "gold").iter_rows())
        assert sorted(gold.filter(pl.col("error"))["id"].to_list()) == sorted(TRUTH)
        assert adj["changes"] == {"0->1": 1, "1->0": 2}
        golds[fmt] = gold.select("id", "gold", "status").sort("id")
    assert golds["JSON"].equals(golds["JSON_MIN"]) and golds["JSON"].equals(golds["CSV"])

    # an export whose texts were edited does not belong to the key: one line, exit 2, no output
    rows = json.loads(Path("ls_min.json").read_text())
    rows[0]["content_hash"] = "0" * 16
    Path("edited.json").write_text(json.dumps(rows))
    assert (
        main(
            [
                "review",
                "import",
                "edited.json",
                "--key",
                "review/key.jsonl",
                "-o",
                "edited_gold.jsonl",
            ]
        )
        == 2
    )
    assert not Path("edited_gold.jsonl").exists()
