"""Run inside Argilla's own virtual environment: check a review package with the SDK's classes.

``python argilla_check.py PACKAGE_DIR ANSWERS_JSON OUT_JSON``: reads ``argilla/settings.json``
with ``rg.Settings.from_json`` and every record of ``argilla/records.json`` with
``rg.Record.from_dict`` into a dataset of those settings; adds the answers of
``ANSWERS_JSON`` (``{user_id: {record_id: label or null}}``; null = a discarded response) as
``rg.Response`` objects; writes the records' ``to_dict()`` (an Argilla records export) to
``OUT_JSON``; prints what the SDK read, as JSON. No server: the client's connection check
is skipped, nothing is sent.
"""

import json
import sys
import uuid
from pathlib import Path

import argilla as rg


class OfflineArgilla(rg.Argilla):
    """The SDK's client without its connection check (no server here; nothing is sent)."""

    def _validate_connection(self) -> None:
        return None


def main() -> None:
    package, answers_path, out = (Path(a) for a in sys.argv[1:4])
    client = OfflineArgilla(api_url="http://127.0.0.1:9", api_key="offline-check")
    rg.Argilla._set_default(client)  # the SDK's settings classes look up the default client
    settings = rg.Settings.from_json(str(package / "argilla" / "settings.json"))
    dataset = rg.Dataset(name="benchcheck-review", settings=settings, client=client)
    raw = json.loads((package / "argilla" / "records.json").read_text("utf-8"))
    records = [rg.Record.from_dict(r, dataset=dataset) for r in raw]
    question = settings.questions[0]
    fields = {f.name for f in settings.fields}
    for r in records:
        if set(r.fields) != fields:
            raise SystemExit(
                f"record {r.id}: fields {sorted(r.fields)} != settings {sorted(fields)}"
            )
    answers = json.loads(answers_path.read_text("utf-8"))
    for user, given in answers.items():
        for r in records:
            if r.id not in given:
                continue
            value = given[r.id]
            status = "discarded" if value is None else "submitted"
            if value is not None and value not in question.labels:
                raise SystemExit(f"record {r.id}: {value!r} is not one of {question.labels}")
            r.responses.add(
                rg.Response(question.name, value, user_id=uuid.UUID(user), status=status)
            )
    out.write_text(json.dumps([r.to_dict() for r in records], default=str), "utf-8")
    print(
        json.dumps(
            {
                "argilla": rg.__version__ if hasattr(rg, "__version__") else None,
                "fields": sorted(fields),
                "use_markdown": [f.use_markdown for f in settings.fields],
                "question": question.name,
                "question_type": type(question).__name__,
                "labels": list(question.labels),
                "metadata": [
                    (m.name, type(m).__name__, m.visible_for_annotators) for m in settings.metadata
                ],
                "records": [r.id for r in records],
                "metadata_of_first": dict(records[0].metadata),
            }
        )
    )


if __name__ == "__main__":
    main()
