"""Reviewers get a task (issue 33, item 5): column names, task, label meanings, NER context.

Every format of a review package — the expert CSV, Label Studio's tasks and interface,
Argilla's settings — and the package's ``guidelines.md`` show the dataset's own column
names, the task definition and what each label means: the default of the task, or the
user's ``--guidelines`` (TOML or text). An NER span review shows each sentence between its
neighbours in the same document, and snaps regions to whole words.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from benchcheck.cli import main
from benchcheck.data.columns import Columns
from benchcheck.io.judgments import with_data_columns
from benchcheck.sample_data import PAIR_SAMPLE

MEANING_1 = "yes: every fact in generated_text is supported by grounding (consistent)"
MEANING_0 = "no: generated_text states something grounding does not support or contradicts"


def _pair_flags(tmp: Path) -> Path:
    """Flags of the bundled pair sample (judgments: the three planted errors disputed)."""
    data = tmp / "data.jsonl"
    data.write_bytes(PAIR_SAMPLE.read_bytes())
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    wrong = {"p08", "p10", "p18"}  # the sample's README: deliberately wrong labels
    judged = []
    for r in rows:
        p1 = 0.95 if r["label"] == 1 else 0.05
        p1 = 1 - p1 if r["id"] in wrong else p1
        judged.append({"id": r["id"], "judge": "m", "prompt": "p", "p_0": 1 - p1, "p_1": p1})
    j = with_data_columns(
        pl.DataFrame(judged), Columns(text_a="grounding", text_b="generated_text")
    )
    j.write_parquet(tmp / "j.parquet")
    argv = ["flag", str(tmp / "j.parquet"), "--data", str(data), "--posterior", "none"]
    assert main([*argv, "-o", str(tmp / "flags.jsonl")]) == 0
    return tmp / "flags.jsonl"


def test_pair_package_shows_the_task_in_every_format(tmp_path):
    flags = _pair_flags(tmp_path)
    out = tmp_path / "review"
    assert main(["review", "export", str(flags), "-o", str(out)]) == 0
    # the expert sheet: the dataset's own column names
    sheet = pl.read_csv(out / "expert_a.csv", infer_schema=False)
    assert sheet.columns == ["review_id", "content_hash", "grounding", "generated_text", "label"]
    assert sheet.height == 3
    guide = (out / "guidelines.md").read_text()
    assert "Decide whether everything generated_text states is supported by grounding" in guide
    assert f"- `1`: {MEANING_1}" in guide and f"- `0`: {MEANING_0}" in guide
    assert "- `grounding`: the first text of the pair" in guide
    assert "guidelines.md" in (out / "README.txt").read_text()
    # Label Studio: the names above the texts, the meanings as hints and listed
    config = (out / "label_config.xml").read_text()
    assert '<Header value="grounding" size="5"/>\n  <Text name="text_a" value="$text_a"/>' in config
    assert f'<Choice value="1" hint="{MEANING_1}"/>' in config
    assert f'<Header value="1 — {MEANING_1}" size="6"/>' in config
    # Argilla: the guidelines, the names as field titles, the meanings on the options
    settings = json.loads((out / "argilla" / "settings.json").read_text())
    assert settings["guidelines"] == guide
    assert [f["title"] for f in settings["fields"]] == ["grounding", "generated_text"]
    options = settings["questions"][0]["settings"]["options"]
    assert options == [
        {"value": "0", "text": f"0 — {MEANING_0}"},
        {"value": "1", "text": f"1 — {MEANING_1}"},
    ]
    # answers under the dataset's names come back (the content hash proves them)
    key = pl.read_ndjson(out / "key.jsonl")
    truth = {"p08": "0", "p10": "1", "p18": "0"}
    ids = dict(zip(key["review_id"], key["id"], strict=True))
    for name in ("expert_a", "expert_b"):
        answered = sheet.with_columns(
            pl.Series("label", [truth[ids[r]] for r in sheet["review_id"]])
        )
        answered.write_csv(out / f"{name}.csv")
    gold = tmp_path / "gold.jsonl"
    assert (
        main(
            [
                "review",
                "import",
                str(out / "expert_a.csv"),
                str(out / "expert_b.csv"),
                "-o",
                str(gold),
            ]
        )
        == 0
    )
    assert pl.read_ndjson(gold)["status"].to_list().count("experts_agree") == 3


def test_given_guidelines_go_into_every_format(tmp_path, capsys):
    flags = _pair_flags(tmp_path)
    toml = tmp_path / "guide.toml"
    toml.write_text(
        'task = "Is the summary faithful to the article?"\n'
        '[labels]\n1 = "faithful"\n0 = "hallucinated"\n',
        encoding="utf-8",
    )
    out = tmp_path / "review"
    assert main(["review", "export", str(flags), "--guidelines", str(toml), "-o", str(out)]) == 0
    guide = (out / "guidelines.md").read_text()
    assert "Is the summary faithful to the article?" in guide
    assert "- `1`: faithful" in guide and "- `0`: hallucinated" in guide
    config = (out / "label_config.xml").read_text()
    assert '<Choice value="0" hint="hallucinated"/>' in config
    assert "Is the summary faithful to the article?" in config
    settings = json.loads((out / "argilla" / "settings.json").read_text())
    assert "1 — faithful" in settings["questions"][0]["description"]
    # a text file is the task; the meanings stay the default's
    text = tmp_path / "guide.md"
    text.write_text("Read both texts carefully.\n", encoding="utf-8")
    assert (
        main(
            ["review", "export", str(flags), "--guidelines", str(text), "-o", str(tmp_path / "r2")]
        )
        == 0
    )
    guide = (tmp_path / "r2" / "guidelines.md").read_text()
    assert "Read both texts carefully." in guide and MEANING_1 in guide
    # a bad file: one line naming it, exit 2, nothing written
    bad = tmp_path / "bad.toml"
    bad.write_text('task = "x"\ncolour = "red"\n', encoding="utf-8")
    capsys.readouterr()
    assert (
        main(["review", "export", str(flags), "--guidelines", str(bad), "-o", str(tmp_path / "r3")])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.toml" in err and "colour" in err
    assert not (tmp_path / "r3").exists()


def test_classification_default_asks_for_the_dataset_s_labels(tmp_path):
    rows = [{"id": f"t{i}", "review": f"text {i}", "stars": str(i % 3)} for i in range(6)]
    flags = pl.DataFrame(rows).with_columns(
        pl.col("id").alias("id"),
        pl.col("review").alias("text"),
        pl.col("stars").alias("label"),
        pl.lit("1").alias("llm_label"),
        (pl.col("stars") != "1").alias("flagged"),
    )
    flags.write_ndjson(tmp_path / "flags.jsonl")
    assert (
        main(["review", "export", str(tmp_path / "flags.jsonl"), "-o", str(tmp_path / "review")])
        == 0
    )
    sheet = pl.read_csv(tmp_path / "review" / "expert_a.csv", infer_schema=False)
    assert sheet.columns == ["review_id", "content_hash", "review", "label"]
    guide = (tmp_path / "review" / "guidelines.md").read_text()
    assert "Each item shows one text (review)" in guide
    assert "- `2`: (no meaning given)" in guide


NER = """-DOCSTART- O

Alice B-PER
sings O
. O

She O
lives O
in O
Oslo B-LOC
. O

-DOCSTART- O

Acme B-ORG
grew O
. O

Profits O
rose O
in O
Bergen B-PER
. O
"""


def test_ner_tasks_carry_their_document_and_neighbours(tmp_path):
    (tmp_path / "eng.testb").write_text(NER, encoding="utf-8")
    # span flags on sentences 1 and 2 (the first of the second document)
    flags = pl.DataFrame(
        {
            "id": ["1:3-4|3-4", "2:0-1|0-1"],
            "kind": ["type", "type"],
            "split": ["test", "test"],  # eng.testb is split test (the one rule)
            "sentence": [1, 2],
            "start": [3, 0],
            "end": [4, 1],
            "label": ["LOC", "ORG"],
            "llm_label": ["PER", "PER"],
        }
    )
    flags.write_ndjson(tmp_path / "sf.jsonl")
    out = tmp_path / "review"
    assert (
        main(
            [
                "review",
                "export",
                str(tmp_path / "sf.jsonl"),
                "--ner",
                str(tmp_path / "eng.testb"),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    tasks = {t["data"]["text"]: t["data"] for t in json.loads((out / "tasks.json").read_text())}
    she = tasks["She lives in Oslo ."]
    assert she["before"] == "Alice sings ." and she["after"] == ""  # not across documents
    assert she["document"] == "doc 1 (line 1)"
    acme = tasks["Acme grew ."]
    assert acme["before"] == "" and acme["after"] == "Profits rose in Bergen ."
    assert acme["document"] == "doc 2 (line 13)"
    config = (out / "label_config.xml").read_text()
    assert '<Text name="text" value="$text" granularity="word"/>' in config
    guide = (out / "guidelines.md").read_text()
    assert "Mark whole tokens" in guide and "- `ORG`: an organisation" in guide
