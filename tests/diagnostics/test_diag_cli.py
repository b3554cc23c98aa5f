import json
from pathlib import Path

import pytest

from benchcheck.cli import main
from benchcheck.diagnostics import sample_predictions_path, sample_suite_path

DATA = Path(__file__).parent / "data"
SUITE = str(sample_suite_path())
PREDS = str(sample_predictions_path())


@pytest.mark.parametrize("command", ["diagnose", "artifacts", "human", "check-suite"])
def test_help_has_example(command, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "Example:" in out and "benchcheck " + command in out


def test_diagnose_json_and_table(tmp_path, capsys):
    out = tmp_path / "d.json"
    rows = [json.loads(x) for x in Path(PREDS).read_text().splitlines()]
    other = tmp_path / "always_neutral.tsv"
    other.write_text("id\tprediction\n" + "".join(f"{r['id']}\t1\n" for r in rows))
    rc = main(
        [
            "diagnose",
            "--suite",
            SUITE,
            "--predictions",
            f"overlap={PREDS}",
            "--predictions",
            f"neutral={other}",
            "--resamples",
            "100",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "Logic" in text and "never compare" in text.replace("\n", " ")
    payload = json.loads(out.read_text())
    assert payload["schema_version"]
    cell = payload["models"]["overlap"]["coarse"]["Logic"]
    assert set(cell) >= {"r_k", "n", "ci", "confusion"}
    assert payload["models"]["neutral"]["overall"]["r_k"] == 0.0
    assert payload["rankings"]["overall"]["order"][0] == "overlap"
    assert "integer predictions read as indices" in " ".join(payload["prediction_notes"]["neutral"])


def test_diagnose_json_stdout(capsys):
    rc = main(
        [
            "diagnose",
            "--suite",
            SUITE,
            "--predictions",
            f"o={PREDS}",
            "--resamples",
            "20",
            "--json",
            "-",
        ]
    )
    assert rc == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["models"]["o"]["fine"]["Negation"]["n"] == 10


def test_diagnose_bad_predictions_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "ls-01:forward", "prediction": "entailment"}\n'
        '{"id": "ls-01:backward", "prediction": "perhaps"}\n'
    )
    rc = main(["diagnose", "--suite", SUITE, "--predictions", f"m={bad}"])
    assert rc == 2
    err = capsys.readouterr().err
    assert f"{bad}:2" in err.replace("\n", "") and "unknown label" in err


def test_diagnose_bad_suite_exit_2(tmp_path, capsys):
    bad = tmp_path / "suite.jsonl"
    bad.write_text(
        '{"id": "a", "sentence1": "x", "sentence2": "y", "forward": "neutral"}\n'
        '{"id": "b", "sentence2": "y", "forward": "neutral"}\n'
    )
    rc = main(["diagnose", "--suite", str(bad), "--predictions", f"m={PREDS}"])
    assert rc == 2
    assert f"{bad}:2" in capsys.readouterr().err.replace("\n", "")
    assert main(["diagnose", "--suite", SUITE]) == 2


def test_check_suite(tmp_path, capsys):
    out = tmp_path / "c.json"
    assert main(["check-suite", SUITE, "--json", str(out)]) == 0
    assert "45 of 45 pairs" in capsys.readouterr().out
    assert json.loads(out.read_text())["kind"] == "check-suite"
    assert main(["check-suite", str(DATA / "glue_mini.tsv"), "--strict"]) == 1
    assert "Telepathy" in capsys.readouterr().out
    bad = tmp_path / "x.tsv"
    bad.write_text("Logic\tPremise\tHypothesis\tLabel\nNegation\ta\t\tneutral\n")
    assert main(["check-suite", str(bad)]) == 2
    assert f"{bad}:2" in capsys.readouterr().err.replace("\n", "")


def test_human(tmp_path, capsys):
    ann = tmp_path / "ann.csv"
    ann.write_text(
        "id,annotator,label\n"
        "p1:forward,a,contradiction\np1:forward,b,contradiction\n"
        "p2:forward,a,neutral\np2:forward,b,entailment\n"
        "p2:backward,a,entailment\np2:backward,b,entailment\n"
    )
    out = tmp_path / "h.json"
    rc = main(
        [
            "human",
            "--suite",
            str(DATA / "suite_mini.jsonl"),
            "--annotations",
            str(ann),
            "--resamples",
            "50",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    assert "Fleiss' kappa" in capsys.readouterr().out
    payload = json.loads(out.read_text())
    assert payload["annotators"]["a"]["r_k"] == 1.0 and payload["n_items_kappa"] == 3
    ann.write_text("id,annotator,label\np1:forward,a,contradiction\nnope,a,neutral\n")
    assert (
        main(["human", "--suite", str(DATA / "suite_mini.jsonl"), "--annotations", str(ann)]) == 2
    )
    assert f"{ann}:3" in capsys.readouterr().err.replace("\n", "")


def _pairs(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_artifacts_folder_and_files(tmp_path, capsys):
    import numpy as np

    rng = np.random.default_rng(0)
    labels = ["entailment", "neutral", "contradiction"]

    def rows(n):
        out = []
        for i in range(n):
            lab = labels[rng.integers(3)]
            hyp = " ".join(rng.choice([f"w{j}" for j in range(50)], 5))
            if lab == "contradiction":
                hyp = "nobody " + hyp
            out.append({"premise": f"p{i}", "hypothesis": hyp, "label": lab})
        return out

    data = tmp_path / "nli"
    data.mkdir()
    _pairs(data / "train.jsonl", rows(200))
    _pairs(data / "test.jsonl", rows(90))
    out = tmp_path / "a.json"
    assert main(["artifacts", str(data), "--resamples", "50", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "nobody" in text and "majority class" in text
    payload = json.loads(out.read_text())
    assert payload["cues"]["contradiction"][0]["feature"] == "nobody"
    assert payload["meta"]["train"].endswith("train.jsonl")
    # Train on a pair table, evaluate on the shipped diagnostic suite (both directions).
    assert (
        main(
            [
                "artifacts",
                "--train",
                str(data / "train.jsonl"),
                "--eval",
                SUITE,
                "--resamples",
                "20",
                "--json",
                str(out),
                "--force",
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["n_eval"] == 90
    # Bad input: missing column → exit 2 naming the file.
    _pairs(tmp_path / "odd.jsonl", [{"a": "x", "b": "y", "label": "neutral"}])
    assert main(["artifacts", "--train", str(tmp_path / "odd.jsonl"), "--eval", SUITE]) == 2
    assert "odd.jsonl" in capsys.readouterr().err
    assert main(["artifacts", str(tmp_path / "missing_dir")]) == 2


def test_artifacts_label_map(tmp_path, capsys):
    rows = [
        {"premise": "p", "hypothesis": f"h {i} {'nobody' if i % 3 == 2 else ''}", "label": i % 3}
        for i in range(60)
    ]
    _pairs(tmp_path / "train.jsonl", rows)
    # Integer labels against the suite's names: refused with a hint, then mapped.
    assert main(["artifacts", "--train", str(tmp_path / "train.jsonl"), "--eval", SUITE]) == 2
    assert "--label-map" in capsys.readouterr().err
    out = tmp_path / "a.json"
    assert (
        main(
            [
                "artifacts",
                "--train",
                str(tmp_path / "train.jsonl"),
                "--eval",
                SUITE,
                "--label-map",
                "0=entailment,1=neutral,2=contradiction",
                "--resamples",
                "20",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["cues"]["contradiction"][0]["feature"] == "nobody"


def test_check_suite_custom_taxonomy(tmp_path, capsys):
    tax = tmp_path / "tax.toml"
    tax.write_text('name = "mini"\n[categories]\n"Logic" = ["Negation"]\n')
    out = tmp_path / "c.json"
    assert (
        main(
            [
                "check-suite",
                str(DATA / "suite_mini.jsonl"),
                "--taxonomy",
                str(tax),
                "--json",
                str(out),
            ]
        )
        == 0
    )
    payload = json.loads(out.read_text())
    assert list(payload["categories"]) == ["Logic"]
    assert set(payload["unknown_tags"]) == {
        "lexical entailment",
        "Universal",
        "Downward Monotone",
        "Core Arguments",
        "World Knowledge",
        "Telepathy",
    }
