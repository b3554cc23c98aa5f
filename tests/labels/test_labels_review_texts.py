"""An expert CSV returned without ``content_hash`` is still checked against the key's texts.

The export writes the texts under the dataset's own column names (``grounding``, not
``text_a``); a reviewer's spreadsheet may drop the ``content_hash`` column. The import then
compares each row's texts with the key's texts of that review id: an edited or foreign
text is one line naming the file and line, exit 2, nothing written (issue 33).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl
import pytest

from benchcheck.cli import main
from benchcheck.sample_data import PAIR_SAMPLE

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from test_journeys import PLANTED, StandInJudge  # noqa: E402


@pytest.fixture
def sheet(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """The pair sample judged, flagged (3) and exported to one expert; the sheet filled."""
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod

    monkeypatch.chdir(tmp_path)
    rows = [json.loads(line) for line in Path(PAIR_SAMPLE).read_text().splitlines()]
    truth = {r["id"]: PLANTED.get(r["id"], str(r["label"])) for r in rows}
    judge = StandInJudge({r["generated_text"]: truth[r["id"]] for r in rows})
    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: judge)
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")
    Path("data.jsonl").write_bytes(Path(PAIR_SAMPLE).read_bytes())
    cols = ["--text-a", "grounding", "--text-b", "generated_text", "--label", "label"]
    assert main(["judge", "data.jsonl", *cols, "-o", "j.parquet"]) == 0
    assert (
        main(["flag", "j.parquet", "--data", "data.jsonl", "--budget", "3", "-o", "f.jsonl"]) == 0
    )
    assert main(["review", "export", "f.jsonl", "--experts", "1", "-o", "review"]) == 0
    filled = pl.read_csv("review/expert_a.csv", infer_schema=False).drop("content_hash")
    return filled.with_columns(pl.lit("0").alias("label"))


def _import(frame: pl.DataFrame, capsys) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    frame.write_csv("answers.csv")
    capsys.readouterr()
    code = main(["review", "import", "answers.csv", "--key", "review/key.jsonl", "-o", "g.jsonl"])
    return code, capsys.readouterr().err.strip()


def test_the_key_s_texts_pass(sheet, capsys) -> None:
    assert sheet.columns == ["review_id", "grounding", "generated_text", "label"]
    assert _import(sheet, capsys) == (0, "")
    gold = pl.read_ndjson("g.jsonl").filter(pl.col("review_id").is_not_null())
    assert gold.height == 3 and set(gold["gold"].to_list()) == {"0"}


@pytest.mark.parametrize("column", ["grounding", "generated_text"])
def test_an_edited_text_is_one_line_naming_file_and_line(sheet, capsys, column) -> None:
    row = 1  # the second answer: line 3 of the CSV (after the header)
    edited = sheet.with_columns(
        pl.when(pl.int_range(pl.len()) == row)
        .then(pl.col(column) + " (edited)")
        .otherwise(pl.col(column))
        .alias(column)
    )
    rid = sheet["review_id"][row]
    code, err = _import(edited, capsys)
    assert code == 2
    assert err == (
        f"error: answers.csv:3: the {column!r} text of {rid} is not the review's (key.jsonl): "
        "an answer file of another review, or an edited text?"
    )
    assert not Path("g.jsonl").exists()
