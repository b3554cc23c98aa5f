"""``benchcheck stats`` on the NER formats: --format, type renaming, span policies, bad input."""

import json
from pathlib import Path

from benchcheck.cli import main
from benchcheck.io.formats import FORMATS

OFFSETS = Path(__file__).resolve().parents[1] / "io" / "fixtures" / "offsets"


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_help_lists_every_format_with_an_example(capsys):
    rc, out, _ = run(capsys, "stats", "--help")
    assert rc == 0
    flat = " ".join(out.split())
    for fmt in FORMATS.values():
        assert f"{fmt.name}: " in flat
    assert "Example: hf:conll2003" in flat and "Example: benchcheck stats" in flat


def test_stats_with_format_writes_reading_and_warns(capsys, tmp_path):
    out_file = tmp_path / "out.json"
    rc, _, err = run(
        capsys,
        "stats",
        "--split",
        f"train={OFFSETS / 'cluener_train.json'}",
        "--split",
        f"test={OFFSETS / 'cluener_test.json'}",
        "--format",
        "cluener",
        "--json",
        out_file,
    )
    assert rc == 0, err
    payload = json.loads(out_file.read_text(encoding="utf-8"))
    assert payload["splits"]["train"]["reading"]["format"] == "cluener"
    assert payload["types_only_in"] == {"test": ["EVENT"], "train": ["MISC"]}
    assert "entity types seen only in split test: EVENT" in " ".join(err.split())


def test_type_map_and_coarse_types_on_the_command_line(capsys, tmp_path):
    data = tmp_path / "weibo.txt"
    data.write_text("张\tB-PER.NAM\n三\tI-PER.NAM\n说\tO\n\n他\tB-PER.PRO\n", encoding="utf-8")
    rc, out, err = run(capsys, "stats", data, "--type-map", '{"PER.PRO": "PER.NAM"}', "--json", "-")
    assert rc == 0, err
    payload = json.loads(out)
    assert payload["type_map"]["renamed"] == {"PER.PRO": "PER.NAM"}
    assert payload["splits"]["weibo"]["entity_imbalance_degree"] == 0.0  # one type left
    rc, out, _ = run(capsys, "stats", data, "--coarse-types", "--json", "-")
    assert json.loads(out)["type_map"] == {
        "map": {},
        "coarse_types": True,
        "renamed": {"PER.NAM": "PER", "PER.PRO": "PER"},
    }


def test_bad_offset_input_exits_2_and_writes_nothing(capsys, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "EU", "label": [[0, 9, "ORG"]]}\n', encoding="utf-8")
    out_file = tmp_path / "out.json"
    rc, out, err = run(capsys, "stats", bad, "--json", out_file)
    assert rc == 2 and not out_file.exists()
    assert err.strip().startswith(f"error: {bad}:1: span [0, 9) 'ORG' ends past the end")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in out + err


def test_unknown_format_and_policy_name_the_flag(capsys, tmp_path):
    rc, _, err = run(capsys, "stats", OFFSETS / "train.conll", "--format", "xml")
    assert rc == 2 and "unknown format 'xml'" in err
    rc, _, err = run(capsys, "stats", OFFSETS / "train.conll", "--align", "loose")
    assert rc == 2 and "--align must be one of strict, expand, contract" in err
    rc, _, err = run(capsys, "stats", OFFSETS / "train.conll", "--type-map", "[1]")
    assert rc == 2 and "--type-map expects a JSON object" in err


def test_overlaps_keep_longest_on_the_command_line(capsys, tmp_path):
    data = tmp_path / "nested.jsonl"
    data.write_text(
        '{"text": "Bank of China opened", "label": [[0, 13, "ORG"], [8, 13, "LOC"]]}\n',
        encoding="utf-8",
    )
    rc, _, err = run(capsys, "stats", data, "--json", "-")
    assert rc == 2 and "overlapping spans [0, 13) 'ORG' and [8, 13) 'LOC'" in err
    rc, out, err = run(capsys, "stats", data, "--overlaps", "keep-longest", "--json", "-")
    assert rc == 0, err
    split = json.loads(out)["splits"]["nested"]
    assert split["n_entities"] == 1 and split["reading"]["overlapping_spans"] == 1
