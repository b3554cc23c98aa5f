"""The Python API as a newcomer meets it: short reprs, columns as a mapping or Columns,
errors that read well from Python, and files a folder holds but does not read."""

from __future__ import annotations

import shutil
import warnings

import pytest

import benchcheck as bc
from benchcheck.errors import DataWarning
from benchcheck.sample_data import NER_SAMPLE

PAIR = NER_SAMPLE.parent / "pair" / "sample.jsonl"
PAIR_COLUMNS = {"text_a": "grounding", "text_b": "generated_text"}


def test_a_dataset_and_its_statistics_print_as_one_short_line():
    data = bc.load(NER_SAMPLE)
    assert repr(data) == "<Dataset 'ner' (ner): train 22, dev 6, test 8>"
    assert repr(data["test"]).startswith("<Split 'test': 8 instances from ")
    stats = bc.compute_stats(data)
    known = sum(v is not None for v in stats.metrics.values())
    assert (
        repr(stats) == f"<StatsResult 'ner' (ner): 3 splits, {known} metrics; .metrics, .to_json()>"
    )
    from benchcheck.runs.audit import NerInput

    report = bc.run_audit(bc.AuditInputs(ner=NerInput(str(NER_SAMPLE))))
    assert repr(report).startswith("<AuditReport: ran statistics")
    assert all(len(repr(x)) < 200 for x in (data, data["test"], stats, report))


def test_load_takes_columns_as_a_mapping_or_columns():
    as_mapping = bc.load(PAIR, task="pair", columns=PAIR_COLUMNS)
    as_columns = bc.load(PAIR, task="pair", columns=bc.Columns(**PAIR_COLUMNS))
    assert as_mapping["sample"].table.equals(as_columns["sample"].table)
    assert as_mapping["sample"].n == 20


def test_columns_of_refuses_an_unknown_name_in_python_words():
    with pytest.raises(bc.UsageError, match=r"columns: unknown name 'txt'; expected text"):
        bc.Columns.of({"txt": "review"})
    assert bc.Columns.of(None) == bc.Columns()


def test_a_pair_file_read_as_ner_suggests_the_pair_reading():
    with pytest.raises(bc.InputError) as caught:
        bc.load(PAIR)
    message = str(caught.value)
    assert message.endswith(
        "sample.jsonl:1: the first record looks like a pair table, not NER (text fields "
        "'grounding' and 'generated_text', and a label): read it with task pair, text_a "
        "grounding and text_b generated_text"
    )
    assert "--" not in message  # Python words, no command-line flags


def test_a_pair_file_without_columns_on_the_command_line_names_the_flags(capsys):
    from benchcheck.cli import main

    assert main(["stats", str(PAIR)]) == 2
    err = capsys.readouterr().err
    assert "read it with --task pair, --text-a grounding and --text-b generated_text" in err


def test_a_folder_lists_the_files_it_does_not_read(tmp_path):
    folder = tmp_path / "data"
    shutil.copytree(NER_SAMPLE, folder)
    shutil.copy(folder / "train.txt", folder / "extra.conll")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bc.load(folder)
    said = [str(w.message) for w in caught if issubclass(w.category, DataWarning)]
    assert said == [
        f"{folder}: not read, their names point to no split (train, dev, test): extra.conll"
    ]
