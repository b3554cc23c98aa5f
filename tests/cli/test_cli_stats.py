"""The statistics commands end to end (stats, compare, sample, accuracy, audit), bad input, help."""

import json
import shutil
from pathlib import Path

import pytest
import typer

from benchcheck.cli import app, main
from benchcheck.sample_data import NER_SAMPLE

IO_FIXTURES = Path(__file__).resolve().parents[1] / "io" / "fixtures"


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def run_json(capsys, *argv):
    rc, out, err = run(capsys, *argv, "--json", "-")
    assert rc == 0, err
    payload = json.loads(out)
    assert payload["schema_version"]
    return payload


def _bad(capsys, *argv, where: str):
    """Exit code 2, one line on stderr naming ``where`` (file:line), no traceback."""
    rc, out, err = run(capsys, *argv)
    assert rc == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and where in lines[0], err
    assert "Traceback" not in out + err
    return lines[0]


# stats ------------------------------------------------------------------------------------


def test_stats_on_sample_data(capsys, tmp_path):
    rc, out, err = run(capsys, "stats", NER_SAMPLE)
    assert rc == 0, err
    for word in ("reliability", "difficulty", "validity", "redundancy", "↑", "↓"):
        assert word in out
    payload = run_json(capsys, "stats", NER_SAMPLE)
    assert payload["task"] == "ner" and set(payload["splits"]) == {"train", "dev", "test"}
    assert payload["splits"]["train"]["source"].startswith("benchcheck:sample_data")
    for key in ("redundancy", "leakage_ratio", "unseen_entity_ratio", "entity_null_rate"):
        assert key in payload["metrics"] and key in payload["dimensions"]
    assert "model_differentiation" not in payload["metrics"]
    target = tmp_path / "out" / "stats.json"
    rc, out, _ = run(capsys, "stats", NER_SAMPLE, "--json", target)
    assert rc == 0 and json.loads(target.read_text())["metrics"] == payload["metrics"]


def test_stats_explicit_splits_scores_and_predictions(capsys, tmp_path):
    files = {s: NER_SAMPLE / f"{s}.txt" for s in ("train", "dev", "test")}
    splits = [x for s, f in files.items() for x in ("--split", f"{s}={f}")]
    a = run_json(capsys, "stats", *splits, "--scores", "93.1,92.8,92.4,91.9,91.0")
    assert a["metrics"]["model_differentiation"] == pytest.approx(0.5464**0.5)
    assert a["splits"].keys() == {"train", "dev", "test"}
    # The gold test file as predictions: F1 = 100 for both models, so std 0.
    b = run_json(
        capsys,
        "stats",
        NER_SAMPLE,
        "--predictions",
        f"a={files['test']}",
        "--predictions",
        f"b={files['test']}",
    )
    assert b["model_scores"] == {"a": 100.0, "b": 100.0}
    # A lower-case --scheme applies to the prediction files too.
    c = run_json(
        capsys, "stats", NER_SAMPLE, "--scheme", "iob2", "--predictions", f"a={files['test']}"
    )
    assert c["model_scores"] == {"a": 100.0}
    assert b["metrics"]["model_differentiation"] == 0.0
    assert {k: v for k, v in b["metrics"].items() if k != "model_differentiation"} == {
        k: v for k, v in a["metrics"].items() if k != "model_differentiation"
    }


def test_stats_single_file_and_strict(capsys, tmp_path):
    payload = run_json(capsys, "stats", IO_FIXTURES / "repairs.conll")
    assert payload["splits"]["repairs"]["tag_repairs"] == 2
    assert payload["metrics"]["leakage_ratio"] is None
    assert any("repaired" in n for n in payload["notes"])
    path = IO_FIXTURES / "repairs.conll"
    line = _bad(capsys, "stats", path, "--strict", where=f"{path}:3:")
    assert "I-PER" in line
    payload = run_json(capsys, "stats", IO_FIXTURES / "iob1.conll", "--scheme", "iob2")
    assert payload["splits"]["iob1"]["scheme"] == "IOB2"


# compare ----------------------------------------------------------------------------------


def test_compare(capsys, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(IO_FIXTURES / "iob2.tsv", other / "train.tsv")
    shutil.copy(IO_FIXTURES / "bioes.txt", other / "test.txt")
    rc, out, err = run(capsys, "compare", f"sample={NER_SAMPLE}", f"other={other}")
    assert rc == 0, err
    assert "sample" in out and "other" in out and "redundancy" in out
    payload = run_json(capsys, "compare", f"sample={NER_SAMPLE}", f"other={other}")
    assert list(payload["datasets"]) == ["sample", "other"]
    assert payload["datasets"]["other"]["splits"].keys() == {"train", "test"}
    alone = run_json(capsys, "stats", other)
    assert payload["datasets"]["other"]["metrics"] == alone["metrics"]


# sample and accuracy ----------------------------------------------------------------------


def test_sample_writes_seeded_rows_and_refuses_to_overwrite(capsys, tmp_path):
    target = tmp_path / "to_annotate.jsonl"
    rc, out, err = run(capsys, "sample", NER_SAMPLE, "--per-split", 3, "--seed", 5, "-o", target)
    assert rc == 0, err
    first = target.read_text(encoding="utf-8")
    rows = [json.loads(line) for line in first.splitlines()]
    assert [r["split"] for r in rows] == ["train"] * 3 + ["dev"] * 3 + ["test"] * 3
    assert all(r["annotations"] == {} and r["tokens"] for r in rows)
    line = _bad(capsys, "sample", NER_SAMPLE, "-o", target, where=str(target))
    assert "--force" in line
    assert target.read_text(encoding="utf-8") == first  # untouched
    rc, *_ = run(
        capsys, "sample", NER_SAMPLE, "--per-split", 3, "--seed", 5, "-o", target, "--force"
    )
    assert rc == 0 and target.read_text(encoding="utf-8") == first  # same seed, same bytes
    rc, *_ = run(
        capsys, "sample", NER_SAMPLE, "--per-split", 3, "--seed", 6, "-o", target, "--force"
    )
    assert rc == 0 and target.read_text(encoding="utf-8") != first


def _annotate(path: Path, judgements: list[dict]) -> Path:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    out = path.with_name("annotated.jsonl")
    with out.open("w", encoding="utf-8") as fh:
        for row, judged in zip(rows, judgements, strict=False):
            fh.write(json.dumps({**row, "annotations": judged}, ensure_ascii=False) + "\n")
    return out


def test_accuracy_agreeing_annotators(capsys, tmp_path):
    target = tmp_path / "s.jsonl"
    assert run(capsys, "sample", NER_SAMPLE, "--per-split", 4, "-o", target)[0] == 0
    # Per split: judges a and b agree on every row: 1, 1, 0, 1 -> accuracy 3/4, kappa 1.
    judged = [{"a": v, "b": v} for v in (True, True, False, True)] * 3
    annotated = _annotate(target, judged)
    rc, out, err = run(capsys, "accuracy", annotated)
    assert rc == 0 and "warning" not in err and "0.7500" in out
    payload = run_json(capsys, "accuracy", annotated)
    # identical judges: alpha 1 too, and every bootstrap resample agrees perfectly
    assert payload["metrics"] == {
        "accuracy": 0.75,
        "kappa_mean": 1.0,
        "krippendorff_alpha": 1.0,
        "krippendorff_alpha_ci": [1.0, 1.0],
    }
    assert payload["splits"]["test"]["annotators"] == ["a", "b"]
    assert payload["warnings"] == [] and payload["kappa_threshold"] == 0.75


def test_accuracy_warns_on_low_kappa(capsys, tmp_path):
    target = tmp_path / "s.jsonl"
    assert run(capsys, "sample", NER_SAMPLE, "--per-split", 4, "-o", target)[0] == 0
    # a: 1 1 0 0, b: 1 0 1 0 -> p_o = .5, p_e = .5 -> kappa 0 in every split.
    judged = [{"a": x, "b": y} for x, y in ((1, 1), (1, 0), (0, 1), (0, 0))] * 3
    annotated = _annotate(target, judged)
    rc, out, err = run(capsys, "accuracy", annotated)
    assert rc == 0
    assert err.count("warning:") == 3 and "below 0.75" in err
    payload = run_json(capsys, "accuracy", annotated)
    assert payload["metrics"]["kappa_mean"] == 0.0 and len(payload["warnings"]) == 3
    # Majority of two: only (1, 1) counts as correct.
    assert payload["metrics"]["accuracy"] == 0.25


# audit ------------------------------------------------------------------------------------


def test_audit_writes_results_json(capsys, tmp_path):
    report = tmp_path / "report"
    rc, out, err = run(capsys, "audit", NER_SAMPLE, "-o", report)
    assert rc == 0, err
    results = json.loads((report / "results.json").read_text(encoding="utf-8"))
    assert results["schema_version"]
    stats = run_json(capsys, "stats", NER_SAMPLE)
    assert results["stats"]["metrics"] == stats["metrics"]
    assert "redundancy" in out
    printed = run_json(capsys, "audit", NER_SAMPLE, "-o", tmp_path / "again")
    assert printed["stats"]["metrics"] == stats["metrics"]


# bad input --------------------------------------------------------------------------------

BAD_CONLL = [
    ("one_column.conll", 2),
    # Token first, tag last, free columns between: ragged rows are read; these are not.
    ("tab_then_spaces.tsv", 3),
    ("nul.conll", 4),
    ("mixed_schemes.conll", 7),
    ("tag_per.conll", 3),
    ("tag_xper.conll", 1),
    ("undecodable.conll", 3),
    ("empty_token.tsv", 2),
    ("empty_middle.tsv", 2),
]


@pytest.mark.parametrize("command", ["stats", "audit", "sample"])
@pytest.mark.parametrize(("name", "line"), BAD_CONLL)
def test_bad_conll_exits_2_naming_file_and_line(capsys, tmp_path, command, name, line):
    # Inside a folder (found as the train split) and with a bracketed name, which must not
    # be eaten as console markup.
    folder = tmp_path / "data[train]"
    folder.mkdir()
    target = folder / f"train_{name}"
    shutil.copy(IO_FIXTURES / "bad" / name, target)
    extra = {"audit": ["-o", tmp_path / "r"], "sample": ["-o", tmp_path / "s.jsonl"]}.get(
        command, []
    )
    _bad(capsys, command, folder, *extra, where=f"{target}:{line}: ")


def test_other_bad_inputs(capsys, tmp_path):
    empty = IO_FIXTURES / "bad" / "only_docstart.conll"
    assert "empty split" in _bad(capsys, "stats", empty, where=f"{empty}:4: ")
    missing = tmp_path / "missing"
    _bad(capsys, "stats", missing, where=str(missing))
    jsonl = tmp_path / "train.jsonl"
    jsonl.write_text('{"tokens": ["a"], "tags": ["O"]}\n{"tokens": ["a"]}\n', encoding="utf-8")
    _bad(capsys, "stats", jsonl, where=f"{jsonl}:2: ")
    folder = tmp_path / "clash"
    folder.mkdir()
    for n in ("dev.txt", "valid.txt"):
        shutil.copy(IO_FIXTURES / "iob2.tsv", folder / n)
    assert "dev.txt" in _bad(capsys, "stats", folder, where=str(folder))
    # Predictions that do not line up with the test split.
    pred = tmp_path / "pred.txt"
    pred.write_text("Angela B-PER\n", encoding="utf-8")
    _bad(capsys, "stats", NER_SAMPLE, "--predictions", f"m={pred}", where=f"{pred}:1: ")
    # Annotations that are not judgements.
    ann = tmp_path / "ann.jsonl"
    rows = [
        '{"split": "test", "annotations": {"a": true}}',
        '{"split": "t", "annotations": {"a": "?"}}',
    ]
    ann.write_text("\n".join(rows) + "\n")
    _bad(capsys, "accuracy", ann, where=f"{ann}:2: ")


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["stats", "--scores", "93,abc"], "--scores"),
        (["stats", "--scores", "93", "--predictions", "m=x.txt"], "not both"),
        (["stats", "--scheme", "BIO"], "scheme"),
        (["compare", "justapath"], "NAME=VALUE"),
        (["stats", "--split", "train"], "--split"),
        (
            ["stats", "--split", f"train={NER_SAMPLE / 'train.txt'}", "--predictions", "m=p.txt"],
            "test",
        ),
    ],
)
def test_usage_errors_exit_2(capsys, argv, needle):
    if argv[0] == "stats" and "--split" not in argv:
        argv = [argv[0], str(NER_SAMPLE), *argv[1:]]
    assert needle in _bad(capsys, *argv, where="")


def test_option_clash_is_reported_before_reading_the_data(capsys, tmp_path):
    # The dataset does not exist: the option clash must be found without reading it.
    argv = ["stats", str(tmp_path / "missing"), "--scores", "93", "--predictions", "m=p.txt"]
    assert "not both" in _bad(capsys, *argv, where="")


@pytest.mark.parametrize(
    "argv", [["stats", "--bogus"], ["no-such-command"], ["compare"], ["sample", "--per-split", "0"]]
)
def test_click_usage_errors_exit_2_without_traceback(capsys, argv):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and "Traceback" not in out + err and "error" in err.lower()


# --help of every command -------------------------------------------------------------------


def _command_paths(command, prefix: tuple[str, ...] = ()):
    # Duck-typed: recent typer builds on its own vendored click, not on click's classes.
    if hasattr(command, "commands"):
        for name, sub in sorted(command.commands.items()):
            yield from _command_paths(sub, (*prefix, name))
    else:
        yield prefix


ALL_COMMANDS = sorted(_command_paths(typer.main.get_command(app)))


def test_the_tree_holds_the_stats_commands():
    names = {p[0] for p in ALL_COMMANDS}
    assert {"stats", "compare", "sample", "accuracy", "audit"} <= names


@pytest.mark.parametrize("path", ALL_COMMANDS, ids=" ".join)
def test_every_command_has_help_with_an_example(capsys, path):
    rc, out, err = run(capsys, *path, "--help")
    assert rc == 0, err
    assert "Example" in out, f"`benchcheck {' '.join(path)} --help` shows no example"


def test_user_names_are_shown_verbatim(capsys, tmp_path):
    folder = tmp_path / "data[bold]"
    folder.mkdir()
    shutil.copy(IO_FIXTURES / "iob2.tsv", folder / "train.tsv")
    rc, out, err = run(capsys, "stats", "--split", f"[x]={folder / 'train.tsv'}")
    assert rc == 0, err
    assert "[x]" in out
    rc, out, err = run(capsys, "stats", folder)
    assert rc == 0 and "data[bold]" in out
    rc, out, err = run(capsys, "compare", f"[a]={folder}", f"b={folder}")
    assert rc == 0 and "[a]" in out


def test_accuracy_shows_annotator_and_split_names_verbatim(capsys, tmp_path):
    ann = tmp_path / "out[1]" / "ann.jsonl"
    ann.parent.mkdir()
    rows = [("[dev]", {"[ann]": x, "b": y}) for x, y in ((1, 1), (1, 0), (0, 1), (0, 0))]
    ann.write_text("".join(json.dumps({"split": s, "annotations": a}) + "\n" for s, a in rows))
    rc, out, err = run(capsys, "accuracy", ann)
    assert rc == 0 and "[dev]" in out and "[ann]" in out
    assert "[dev]: mean pairwise Cohen's kappa 0.000 is below 0.75" in err.replace("\n", "")
    target = tmp_path / "s[2].jsonl"
    rc, out, err = run(capsys, "sample", NER_SAMPLE, "--per-split", 1, "-o", target)
    assert rc == 0 and str(target) in out.replace("\n", "")


def test_stats_on_jsonl_with_label_names(capsys, tmp_path):
    rows = [
        {"tokens": ["Ann", "Lee", "left"], "ner_tags": [1, 2, 0]},
        {"tokens": ["ok"], "ner_tags": [0]},
    ]
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    payload = run_json(capsys, "stats", path, "--label-names", "O,B-PER,I-PER")
    assert payload["splits"]["train"]["n_entities"] == 1
    assert payload["splits"]["train"]["entity_null_rate"] == 0.5
    assert "--label-names" in _bad(capsys, "stats", path, where=f"{path}:1: ")
