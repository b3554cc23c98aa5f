"""Valid review exports, as Label Studio and Argilla write them, for the replay and the sweep.

The item review is the sweep workspace's ``review/`` package (``tasks.json``,
``argilla/records.json``, ``key.jsonl``); two reviewers answer every task with the key's
original label, the second skips (Label Studio ``was_cancelled``) or discards (Argilla) the
third. The exports carry every key Label Studio 1.23.2 writes into a JSON / JSON-MIN export
(the fields of ``tests/io/fixtures/label_studio_spans/ls.json``, which it wrote) and every
key of Argilla 2.8's ``Record.to_dict()``. The span review is that fixture folder itself.

:func:`write_exports` writes them all into a workspace; :data:`EXPORTS` names each by what
``review import`` is given (the export and its key).
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

SPAN_FIXTURE = Path(__file__).parents[1] / "io" / "fixtures" / "label_studio_spans"
USERS = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")
STAMP = "2026-12-02T11:55:32.068688Z"

#: name → (export file, key) in the workspace, as ``review import`` is given them
EXPORTS: dict[str, tuple[str, str]] = {
    "ls item": ("ls_items.json", "review/key.jsonl"),
    "ls-min item": ("ls_items_min.json", "review/key.jsonl"),
    "argilla item": ("argilla_items.json", "review/key.jsonl"),
    "ls span": ("spans/ls.json", "spans/key.jsonl"),
    "ls-min span": ("spans/ls_min.json", "spans/key.jsonl"),
}


def _truth(ws: Path) -> dict[str, str]:
    """review_id → the key's original label (what both reviewers answer)."""
    rows = [json.loads(x) for x in (ws / "review" / "key.jsonl").read_text().splitlines()]
    return {r["review_id"]: str(r["label"]) for r in rows if r.get("review_id")}


def _annotation(aid: int, user: int, task: int, label: str | None) -> dict[str, Any]:
    result = (
        []
        if label is None
        else [
            {
                "id": f"c{aid}",
                "from_name": "label",
                "to_name": "text_a",
                "type": "choices",
                "value": {"choices": [label]},
                "origin": "manual",
            }
        ]
    )
    return {
        "id": aid,
        "completed_by": user,
        "result": result,
        "was_cancelled": label is None,
        "ground_truth": False,
        "created_at": STAMP,
        "updated_at": STAMP,
        "draft_created_at": None,
        "lead_time": 3.5,
        "prediction": {},
        "result_count": len(result),
        "unique_id": f"00000000-0000-4000-8000-{aid:012d}",
        "import_id": None,
        "last_action": None,
        "bulk_created": False,
        "task": task,
        "project": 1,
        "updated_by": user,
        "parent_prediction": None,
        "parent_annotation": None,
        "last_created_by": None,
    }


def ls_item_tasks(ws: Path) -> list[dict[str, Any]]:
    """A Label Studio JSON export of the item review: two reviewers, one skip."""
    truth = _truth(ws)
    tasks = json.loads((ws / "review" / "tasks.json").read_text())
    out = []
    for k, t in enumerate(tasks):
        label = truth[t["data"]["review_id"]]
        anns = [_annotation(2 * k + 1, 1, t["id"], label)]
        anns.append(_annotation(2 * k + 2, 2, t["id"], None if k == 2 else label))
        out.append(
            {
                "id": t["id"],
                "annotations": anns,
                "drafts": [],
                "predictions": [],
                "data": t["data"],
                "meta": {},
                "created_at": STAMP,
                "updated_at": STAMP,
                "allow_skip": True,
                "inner_id": t["id"],
                "total_annotations": 2 - (k == 2),
                "cancelled_annotations": int(k == 2),
                "total_predictions": 0,
                "comment_count": 0,
                "unresolved_comment_count": 0,
                "last_comment_updated_at": None,
                "project": 1,
                "updated_by": 1,
                "comment_authors": [],
            }
        )
    return out


def ls_item_min(ws: Path) -> list[dict[str, Any]]:
    """The JSON-MIN export of the same answers: one row per submitted annotation."""
    rows = []
    for t in ls_item_tasks(ws):
        for a in t["annotations"]:
            if a["was_cancelled"]:
                continue  # JSON-MIN leaves a skipped annotation out
            row = {**t["data"], "id": t["id"]}
            if a["result"]:
                row["label"] = a["result"][0]["value"]["choices"][0]
            row |= {
                "annotator": a["completed_by"],
                "annotation_id": a["id"],
                "created_at": STAMP,
                "updated_at": STAMP,
                "lead_time": 3.5,
            }
            rows.append(row)
    return rows


def argilla_records(ws: Path) -> list[dict[str, Any]]:
    """An Argilla 2.x records export (``Record.to_dict()``): two users, one discarded."""
    truth = _truth(ws)
    records = json.loads((ws / "review" / "argilla" / "records.json").read_text())
    out = []
    for k, r in enumerate(records):
        label = truth[r["id"]]
        # Record.to_dict() writes value and user_id, no status: a discarded response is null
        second = {"value": None if k == 2 else label, "user_id": USERS[1]}
        responses = {"label": [{"value": label, "user_id": USERS[0]}, second]}
        out.append(
            {
                **copy.deepcopy(r),
                "responses": responses,
                "status": "completed",
                "_server_id": f"00000000-0000-4000-9000-{k:012d}",
            }
        )
    return out


def write_exports(ws: Path) -> None:
    """Write every export of :data:`EXPORTS` into the workspace ``ws``."""
    for name, rows in (
        ("ls_items.json", ls_item_tasks(ws)),
        ("ls_items_min.json", ls_item_min(ws)),
        ("argilla_items.json", argilla_records(ws)),
    ):
        (ws / name).write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    if not (ws / "spans").exists():
        shutil.copytree(SPAN_FIXTURE, ws / "spans")


def load(ws: Path, name: str) -> Any:
    return json.loads((ws / EXPORTS[name][0]).read_text())


def save(ws: Path, name: str, value: Any) -> None:
    (ws / EXPORTS[name][0]).write_text(json.dumps(value, ensure_ascii=False))


def import_argv(name: str, out: str = "g.jsonl") -> tuple[str, ...]:
    export, key = EXPORTS[name]
    return ("review", "import", export, "--key", key, "-o", out)
