"""items / rank / diff on the command line: JSON contract, bad input, review round trip."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from benchcheck.cli import main


def _write_case(tmp: Path, *, k: int = 60, m: int = 6, seed: int = 0) -> dict[str, str]:
    """A dataset, one prediction file per model (built from a simulated 2PL), a matrix."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(-1.5, 1.5, m)
    b = rng.normal(0, 1, k)
    x = (rng.random((k, m)) < 1 / (1 + np.exp(-1.7 * (theta[None, :] - b[:, None])))).astype(int)
    x[0] = (theta < 0).astype(int)  # a broken item: the weak models "right"
    labels = rng.choice(["0", "1"], k)
    ids = [f"q{i}" for i in range(k)]
    with open(tmp / "data.jsonl", "w") as f:
        for i in range(k):
            f.write(
                json.dumps(
                    {"id": ids[i], "text_a": f"p {i}", "text_b": f"h {i}", "label": labels[i]}
                )
                + "\n"
            )
    files = {}
    for j in range(m):
        pred = np.where(x[:, j] == 1, labels, np.where(labels == "1", "0", "1"))
        path = tmp / f"m{j}.csv"
        pl.DataFrame({"id": ids, "pred": pred.tolist()}).write_csv(path)
        files[f"m{j}"] = str(path)
    pl.DataFrame({"id": ids, **{f"m{j}": x[:, j] for j in range(m)}}).write_csv(tmp / "matrix.csv")
    return files


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_items_matrix_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("mirt")
    _write_case(tmp_path)
    code, out, _ = _run(
        ["items", "--matrix", str(tmp_path / "matrix.csv"), "--json", "-", "--bootstrap", "200"],
        capsys,
    )
    assert code == 0
    p = json.loads(out)
    assert list(p)[:6] == ["schema_version", "n_items", "n_models", "reliability", "items", "irt"]
    assert (p["n_items"], p["n_models"]) == (60, 6)
    assert set(p["reliability"]) >= {"kr20", "cronbach_alpha", "ci", "sem"}
    assert set(p["items"][0]) >= {"id", "difficulty", "discrimination", "upper_lower_index"}
    assert p["items"][0]["discrimination"] < 0
    assert p["irt"]["model"] == "2pl"
    assert set(p["irt"]["abilities"]["m0"]) == {"theta", "se"}
    assert set(p["irt"]["items"][0]) == {"id", "a", "b"}


def test_items_from_predictions_equals_matrix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _write_case(tmp_path)
    preds = [a for n, f in files.items() for a in ("--predictions", f"{n}={f}")]
    _, out1, _ = _run(
        ["items", str(tmp_path / "data.jsonl"), *preds, "--irt", "none", "--json", "-"], capsys
    )
    _, out2, _ = _run(
        ["items", "--matrix", str(tmp_path / "matrix.csv"), "--irt", "none", "--json", "-"], capsys
    )
    a, b = json.loads(out1), json.loads(out2)
    assert a["items"] == b["items"] and a["reliability"] == b["reliability"]


def test_items_to_review_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _write_case(tmp_path)
    preds = [a for n, f in files.items() for a in ("--predictions", f"{n}={f}")]
    review = tmp_path / "review"
    code, _, err = _run(
        [
            "items",
            str(tmp_path / "data.jsonl"),
            *preds,
            "--irt",
            "none",
            "--to-review",
            str(review),
        ],
        capsys,
    )
    assert code == 0, err
    key = pl.read_ndjson(review / "key.jsonl")
    assert "q0" in key.filter(pl.col("flagged"))["id"].to_list()  # the broken item
    experts = pl.read_csv(review / "expert_a.csv")
    assert "label" in experts.columns and "llm_label" not in experts.columns
    filled = experts.with_columns(pl.lit("1").alias("label"))
    filled.write_csv(review / "expert_a.csv")
    filled.write_csv(review / "expert_b.csv")
    code, _, err = _run(
        [
            "review",
            "import",
            str(review / "expert_a.csv"),
            str(review / "expert_b.csv"),
            "-o",
            str(tmp_path / "gold.jsonl"),
        ],
        capsys,
    )
    assert code == 0, err
    gold = pl.read_ndjson(tmp_path / "gold.jsonl")
    assert gold.filter(pl.col("status") == "experts_agree").height == experts.height


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("id,A\nq1,1\nq2,0\n", "at least two models"),
        ("id,A,B\nq1,1,0\nq2,,1\n", "matrix.csv:3: model 'A' has no score"),
        ("id,A,B\nq1,1,2\nq2,0,1\n", "matrix.csv:2: model 'B': a score must be in [0, 1]"),
        ("id,A,B\nq1,1,x\n", "matrix.csv:2: model 'B': a score must be a number"),
        ("id,A,B\nq1,1,0\nq1,0,1\n", "matrix.csv:3: item id given twice"),
    ],
)
def test_items_bad_matrix_exit_2_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    (tmp_path / "matrix.csv").write_text(content)
    out = tmp_path / "out"
    code, _, err = _run(
        [
            "items",
            "--matrix",
            str(tmp_path / "matrix.csv"),
            "-o",
            str(out),
            "--json",
            str(tmp_path / "items.json"),
        ],
        capsys,
    )
    assert code == 2
    assert message in err.replace("\n", " ")
    assert not out.exists() and not (tmp_path / "items.json").exists()


def test_items_different_item_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _write_case(tmp_path)
    short = pl.read_csv(files["m1"]).head(50)
    short.write_csv(files["m1"])
    preds = [a for n, f in files.items() for a in ("--predictions", f"{n}={f}")]
    code, _, err = _run(["items", str(tmp_path / "data.jsonl"), *preds, "--irt", "none"], capsys)
    assert code == 2 and "different items" in err and "m1: 50 of 60" in err and "--intersect" in err
    code, out, _ = _run(
        [
            "items",
            str(tmp_path / "data.jsonl"),
            *preds,
            "--irt",
            "none",
            "--intersect",
            "--json",
            "-",
        ],
        capsys,
    )
    p = json.loads(out)
    assert code == 0 and p["n_items"] == 50 and p["dropped"]["m0"] == 10
    assert any("intersection" in n for n in p["notes"])


def test_items_equal_totals_reliability_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "matrix.csv").write_text("id,A,B\nq1,1,0\nq2,0,1\nq3,1,1\n")
    code, out, _ = _run(
        ["items", "--matrix", str(tmp_path / "matrix.csv"), "--json", "-", "--irt", "none"], capsys
    )
    p = json.loads(out)
    assert code == 0 and p["reliability"]["kr20"] is None
    assert "same total" in p["reliability"]["note"]
    q3 = next(i for i in p["items"] if i["id"] == "q3")
    assert q3["discrimination"] is None and "every model right" in q3["note"]


def test_rank_with_gold_and_diff_gates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _write_case(tmp_path, k=40, m=3)
    data = pl.read_ndjson(tmp_path / "data.jsonl")
    gold = data.select("id", "label").with_columns(
        pl.when(pl.col("id").is_in(["q1", "q2", "q3"]))
        .then(pl.lit("1"))
        .otherwise(pl.col("label"))
        .alias("gold")
    )
    gold.write_ndjson(tmp_path / "gold.jsonl")
    preds = [a for n, f in files.items() for a in ("--predictions", f"{n}={f}")]
    code, out, err = _run(
        [
            "rank",
            str(tmp_path / "data.jsonl"),
            *preds,
            "--gold",
            str(tmp_path / "gold.jsonl"),
            "--error-rate",
            "2/50",
            "--draws",
            "300",
            "--json",
            "-",
        ],
        capsys,
    )
    assert code == 0, err
    p = json.loads(out)
    assert [m["rank"] for m in p["models"]] == sorted(m["rank"] for m in p["models"])
    assert set(p["models"][0]) >= {"name", "score", "interval", "rank"}
    assert all("|" in k for k in p["flip_probability"])
    assert p["gold_rerank"]["n"] == 40
    # diff: gate a single results.json, then two
    res = {"schema_version": "1.0", "stats": {"metrics": {"leakage_ratio": 0.02}}}
    (tmp_path / "r1.json").write_text(json.dumps(res))
    res["stats"]["metrics"]["leakage_ratio"] = 0.005
    (tmp_path / "r2.json").write_text(json.dumps(res))
    assert (
        _run(["diff", str(tmp_path / "r1.json"), "--fail-on", "leakage_ratio>0.01"], capsys)[0] == 1
    )
    assert (
        _run(
            [
                "diff",
                str(tmp_path / "r1.json"),
                str(tmp_path / "r2.json"),
                "--fail-on",
                "leakage_ratio>0.01,change(leakage_ratio)>0",
            ],
            capsys,
        )[0]
        == 0
    )
    code, _, err = _run(["diff", str(tmp_path / "r2.json"), "--fail-on", "nope>1"], capsys)
    assert code == 2 and "no value named 'nope'" in err


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in ("items", "rank", "diff"):
        code, out, _ = _run([cmd, "--help"], capsys)
        assert code == 0 and "Example: benchcheck " + cmd in out.replace("\n", " ")


def test_items_output_folder_and_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_case(tmp_path)
    argv = [
        "items",
        "--matrix",
        str(tmp_path / "matrix.csv"),
        "-o",
        str(tmp_path / "out"),
        "--irt",
        "none",
    ]
    assert _run(argv, capsys)[0] == 0
    rows = pl.read_csv(tmp_path / "out" / "items.csv")
    assert rows.columns[:4] == ["id", "difficulty", "discrimination", "upper_lower_index"]
    code, _, err = _run(argv, capsys)
    assert code == 2 and "--force" in err
    assert _run([*argv, "--force"], capsys)[0] == 0


def test_rank_with_flags_and_a_precision_prior(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _write_case(tmp_path, k=30, m=3)
    data = pl.read_ndjson(tmp_path / "data.jsonl")
    flags = data.select("id", "label").with_columns(
        pl.when(pl.col("label") == "1").then(pl.lit("0")).otherwise(pl.lit("1")).alias("llm_label"),
        pl.col("id").is_in(["q1", "q2", "q3", "q4"]).alias("flagged"),
        pl.lit("[0.9, 1]").alias("bin"),
    )
    flags.write_csv(tmp_path / "flags.csv")
    preds = [a for n, f in files.items() for a in ("--predictions", f"{n}={f}")]
    base = ["rank", str(tmp_path / "data.jsonl"), *preds, "--flags", str(tmp_path / "flags.csv")]
    code, _, err = _run(base, capsys)
    assert code == 2 and "--precision" in err  # flags without a precision: refused
    code, out, err = _run([*base, "--precision", "0.6", "--draws", "400", "--json", "-"], capsys)
    assert code == 0, err
    p = json.loads(out)
    assert p["uncertainty"]["flagged_uncertain"] == 4
    assert p["uncertainty"]["bins"]["[0.9, 1]"]["kind"] == "fixed prior"
