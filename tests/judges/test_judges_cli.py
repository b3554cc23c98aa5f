"""`benchcheck judge` end to end: output files, cache re-use, summary, errors."""

from __future__ import annotations

import json
from importlib.resources import files

import polars as pl
import pytest
from judges_fault_server import FaultServer

from benchcheck.cli import main

SAMPLE = str(files("benchcheck") / "sample_data" / "pair" / "sample.jsonl")
PAIR = ["--text-a", "grounding", "--text-b", "generated_text", "--label", "label"]


def test_bundled_pair_sample_reads_as_pairs():
    from benchcheck.io.tables import read_table

    f = read_table(SAMPLE, text_a="grounding", text_b="generated_text", label="label")
    assert 16 <= f.height <= 24
    assert set(f["label"]) == {"0", "1"}


def test_openai_judge_through_cli(tmp_path, capsys):
    out = tmp_path / "j.jsonl"
    args = [
        "judge",
        SAMPLE,
        *PAIR,
        "--judge",
        "openai:m",
        "--prompts",
        "nli,evidence",
        "--concurrency",
        "3",
        "--cache",
        str(tmp_path / "c.sqlite"),
        "-o",
        str(out),
        "--price-per-1k-tokens",
        "2.0",
    ]
    with FaultServer(["429", "500"]) as server:
        assert main([*args, "--base-url", server.base_url, "--json", "-"]) == 0
        first = json.loads(capsys.readouterr().out)
        assert main([*args, "--base-url", server.base_url, "--json", "-"]) == 2  # exists
        assert "pass --force" in capsys.readouterr().err
        assert main([*args, "--base-url", server.base_url, "--json", "-", "--force"]) == 0
        second = json.loads(capsys.readouterr().out)
        asked = len(server.requests)
    rows = pl.read_ndjson(out)
    # 20 examples x 2 prompts, plus the 3 content-free inputs x 2 prompts
    cf = rows.filter(pl.col("content_free").is_not_null())
    assert cf.height == 6 and set(cf["content_free"]) == {"N/A", "", "[MASK]"}
    rows = rows.filter(pl.col("content_free").is_null())
    assert rows.height == 40 and set(rows["prompt"]) == {"nli", "evidence"}
    assert {
        "id",
        "judge",
        "prompt",
        "p_0",
        "p_1",
        "logprob_0",
        "logprob_1",
        "model",
        "n_prompt_tokens",
        "seconds",
        "label",
    } <= set(rows.columns)
    assert first["computed"] == 46 and second["computed"] == 0 and second["cached"] == 46
    assert asked == 48  # 46 + the two retried faults; the re-run asked nothing
    assert first["cost"] == pytest.approx(first["prompt_tokens"] / 1000 * 2.0)
    assert first["schema_version"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-o", "x.csv"], "must end in .parquet or .jsonl"),
        (["--judge", "nope:x"], "unknown backend 'nope'"),
        (["--prompts", "nli,bogus"], "unknown prompt"),
    ],
)
def test_usage_errors_exit_2(tmp_path, capsys, extra, message):
    rc = main(["judge", SAMPLE, *PAIR, "--cache", str(tmp_path / "c.sqlite"), *extra])
    assert rc == 2
    assert message in capsys.readouterr().err


def test_prompt_file_and_verbalisers(tmp_path, capsys):
    toml = tmp_path / "p.toml"
    toml.write_text(
        '[prompts.mine]\nuser = "Claim: {text_b}\\nSource: {text_a}\\nTrue?"\n'
        'verbalisers = ["no", "yes"]\n'
    )
    with FaultServer() as server:
        rc = main(
            [
                "judge",
                SAMPLE,
                *PAIR,
                "--judge",
                "openai:m",
                "--base-url",
                server.base_url,
                "--prompt-file",
                str(toml),
                "--no-cache",
                "-o",
                str(tmp_path / "o.parquet"),
            ]
        )
        assert rc == 3  # the fake server answers '1'/'0', not 'no'/'yes': a clear judge error
        assert "no label token ['no', 'yes']" in capsys.readouterr().err


@pytest.mark.slow
def test_default_llama_judge_cli(tmp_path, capsys, small_gguf):
    small = tmp_path / "small.jsonl"
    small.write_text("".join(open(SAMPLE).readlines()[:3]))
    out = tmp_path / "j.parquet"
    args = [
        "judge",
        str(small),
        *PAIR,
        "--judge",
        "llama-cpp:qwen2.5-coder-0.5b-instruct",
        "--prompts",
        "nli",
        "--cache",
        str(tmp_path / "c.sqlite"),
        "-o",
        str(out),
    ]
    assert main(args) == 0
    assert main([*args, "--force"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    # 3 examples + the 3 content-free inputs of contextual calibration, for the one prompt
    assert "(6 computed, 0 from cache)" in text and "(0 computed, 6 from cache)" in text
    frame = pl.read_parquet(out)
    assert frame["cached"].all() and frame["weights_hash"][0] == small_gguf.sha256
    assert frame["content_free"].null_count() == 3
    assert sorted(frame["content_free"].drop_nulls()) == ["", "N/A", "[MASK]"]
    assert (frame["p_0"] + frame["p_1"]).to_list() == pytest.approx([1.0] * 6)
