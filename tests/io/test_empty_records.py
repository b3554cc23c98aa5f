"""Records with no token are counted and named, never dropped without a word (issue 37, 9).

Every NER reader that meets a record holding no token (an NER JSONL line with no tokens, a
doccano text that is empty or blank, a blank PubTator document, a Hub row with no tokens)
leaves it out of the instances, keeps the count on the split (``empty_records``, in the
statistics) and says so in one ``DataWarning`` naming the file and the first few places.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from benchcheck.errors import DataWarning
from benchcheck.io._options import NerOptions
from benchcheck.io.formats import read_ner_file
from benchcheck.metrics.compute import SUMMARIES


def _read(path: Path, fmt: str, **kw: object):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        split = read_ner_file(path, name="test", options=NerOptions(format=fmt, **kw))
    notes = [str(w.message) for w in caught if issubclass(w.category, DataWarning)]
    return split, notes


def _lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_ner_jsonl_lines_without_tokens_counted(tmp_path):
    tok = {"tokens": ["EU", "rejects"], "tags": ["B-ORG", "O"]}
    rows = [tok, {"tokens": [], "tags": []}, tok, {"tokens": [], "tags": []}, tok]
    split, notes = _read(_lines(tmp_path / "a.jsonl", rows), "jsonl")
    assert split.n == 3
    assert (split.empty_records, split.empty_at) == (2, ("line 2", "line 4"))
    assert notes == [
        f"{tmp_path / 'a.jsonl'}: 2 lines with no token left out (no instance): line 2, line 4"
    ]
    assert SUMMARIES["ner"](split)["empty_records"] == 2


def test_first_five_named_then_an_ellipsis(tmp_path):
    rows = [{"tokens": ["A"], "tags": ["O"]}] + [{"tokens": [], "tags": []}] * 7
    split, notes = _read(_lines(tmp_path / "a.jsonl", rows), "jsonl")
    assert split.empty_records == 7
    assert notes[0].endswith("line 2, line 3, line 4, line 5, line 6, ...")


def test_nothing_left_out_says_nothing(tmp_path):
    split, notes = _read(_lines(tmp_path / "a.jsonl", [{"tokens": ["A"], "tags": ["O"]}]), "jsonl")
    assert (split.empty_records, notes) == (0, [])
    assert "empty_records" not in SUMMARIES["ner"](split)


def test_doccano_empty_and_blank_texts_counted(tmp_path):
    rows = [
        {"text": "EU rejects", "label": [[0, 2, "ORG"]]},
        {"text": "", "label": []},
        {"text": " \t ", "label": []},
        {"text": "Peter", "label": [[0, 5, "PER"]]},
    ]
    split, notes = _read(_lines(tmp_path / "d.jsonl", rows), "doccano")
    assert split.n == 2
    assert (split.empty_records, split.empty_at) == (2, ("line 2", "line 3"))
    assert notes == [
        f"{tmp_path / 'd.jsonl'}: 2 records with no token left out (no instance): line 2, line 3"
    ]


@pytest.mark.parametrize("instances", ["sentence", "document"])
def test_pubtator_blank_documents_counted_as_sentences_or_documents(tmp_path, instances):
    path = tmp_path / "p.txt"
    path.write_text(
        "1|t|Aspirin helps.\n1\t0\t7\tAspirin\tChemical\n\n2|t|\n\n3|t|   \n3|a|  \n\n"
        "4|t|Ibuprofen too.\n4\t0\t9\tIbuprofen\tChemical\n",
        encoding="utf-8",
    )
    split, notes = _read(path, "pubtator", instances=instances)
    assert split.n == 2
    assert split.empty_at == ("document 2 (line 4)", "document 3 (line 6)")
    assert len(notes) == 1 and "2 records with no token left out" in notes[0]


def test_hub_rows_without_tokens_counted(tmp_path):
    datasets = pytest.importorskip("datasets")
    from benchcheck.io.hf import read_hf_ner

    feats = datasets.Features(
        {
            "tokens": datasets.Sequence(datasets.Value("string")),
            "ner_tags": datasets.Sequence(datasets.ClassLabel(names=["O", "B-PER"])),
        }
    )
    part = datasets.Dataset.from_dict(
        {"tokens": [["Peter"], [], ["Mary"]], "ner_tags": [[1], [], [1]]}, features=feats
    )
    datasets.DatasetDict({"test": part}).save_to_disk(str(tmp_path / "hub"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        split = read_hf_ner(tmp_path / "hub")["test"]
    assert (split.n, split.empty_records, split.empty_at) == (2, 1, ("row 2",))
    assert any("1 row with no token left out" in str(w.message) for w in caught)


def test_spacy_lines_rejected_or_ignored_counted(tmp_path):
    """Prodigy's ``answer: reject/ignore`` lines are left out, counted and named (not silent)."""
    keep = {"text": "EU rejects it", "spans": [{"start": 0, "end": 2, "label": "ORG"}]}
    rows = [keep]
    rows += [{**keep, "answer": a} for a in ("reject", "ignore", "accept", "reject")]
    rows += [{**keep, "answer": "ignore"}] * 5
    split, notes = _read(_lines(tmp_path / "p.jsonl", rows), "spacy")
    assert split.n == 2  # the first line and the accepted one
    assert notes == [
        f'{tmp_path / "p.jsonl"}: 8 lines marked "answer": "reject" or "ignore" left out '
        "(Prodigy's review decisions): line 2, line 3, line 5, line 6, line 7, ..."
    ]
    one = [keep, {**keep, "answer": "reject"}]
    _, notes = _read(_lines(tmp_path / "q.jsonl", one), "spacy")
    assert notes == [
        f'{tmp_path / "q.jsonl"}: 1 line marked "answer": "reject" or "ignore" left out '
        "(Prodigy's review decisions): line 2"
    ]
