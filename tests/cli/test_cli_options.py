"""The option table: plain parameters get flags and help; groups give one typed value."""

from __future__ import annotations

from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from benchcheck.cli._common import command
from benchcheck.cli._options import OPTIONS, Arg
from benchcheck.data.columns import Columns
from benchcheck.io.formats import NerOptions


def test_groups_add_plain_flags_and_pass_one_value():
    app = typer.Typer(add_completion=False)
    seen = {}

    @command("cmd", group=app)
    def cmd(
        data: Annotated[str, Arg()],
        columns: Columns = Columns(),
        ner: NerOptions = NerOptions(),
        json_out: str | None = None,
    ) -> None:
        seen.update(columns=columns, ner=ner, json=json_out)

    argv = ["d.jsonl", "--text-a", "p", "--text-b", "h", "--id", "uid", "--json", "o.json"]
    result = CliRunner().invoke(app, [*argv, "--coarse-types", "--align", "expand"])
    assert result.exit_code == 0, result.output
    assert seen["columns"] == Columns(text_a="p", text_b="h", id="uid")
    assert seen["ner"] == NerOptions(align="expand", coarse_types=True)
    assert seen["json"] == "o.json"
    params = [p.name for p in typer.main.get_command(app).params]
    assert params == [
        "data",
        *("text", "text_a", "text_b", "label", "id_col"),
        *("fmt", "type_map", "coarse_types", "tokenizer", "align", "overlaps"),
        *("instances", "sentence_language", "multi_type", "discontinuous", "offset_check"),
        *("span_fields", "inclusive_end", "medcat_keep", "split_lists"),
        "json_out",
        "force",
    ]


def test_plain_parameters_take_flag_and_help_from_the_table():
    app = typer.Typer(add_completion=False)
    seen = {}

    @command("cmd", group=app)
    def cmd(
        gold: Annotated[str, Arg("The gold file.")],
        id_col: str | None = None,
        output: Annotated[str | None, "Where to write."] = None,
        seed: int = 0,
        force: bool = False,
    ) -> None:
        seen.update(gold=gold, id_col=id_col, output=output, seed=seed, force=force)

    result = CliRunner().invoke(app, ["g.jsonl", "--id", "uid", "-o", "x", "--force"])
    assert result.exit_code == 0, result.output
    assert seen == {"gold": "g.jsonl", "id_col": "uid", "output": "x", "seed": 0, "force": True}
    params = {p.name: p for p in typer.main.get_command(app).params}
    assert list(params) == ["gold", "id_col", "output", "seed", "json_out", "force"]
    assert params["gold"].help == "The gold file."
    assert (params["id_col"].opts, params["id_col"].help) == (["--id"], "Id column.")
    assert (params["output"].opts, params["output"].help) == (["-o", "--output"], "Where to write.")
    assert params["seed"].help == f"{OPTIONS['seed']} [an integer from 0 to 4,294,967,295]"


def test_a_parameter_the_table_lacks_is_an_error_at_import():
    with pytest.raises(TypeError, match="'colour' has no entry"):

        @command("cmd", group=typer.Typer())
        def cmd(colour: str = "red") -> None:
            pass

    with pytest.raises(TypeError, match="'output' needs its command's own help"):

        @command("cmd", group=typer.Typer())
        def cmd2(output: str = "x") -> None:
            pass


def test_help_imports_no_heavy_dependency(heavy_modules_after):
    heavy = ("polars", "numpy", "scipy", "sklearn", "torch", "llama_cpp")
    quiet = "import io; sys.stdout = io.StringIO(); from benchcheck.cli import main"
    helps = "main(['--help']); main(['flag', '--help']); main(['stats', '--help'])"
    assert heavy_modules_after(f"{quiet}; {helps}; sys.stdout = sys.__stdout__", heavy) == []


def test_flag_defaults_are_those_of_the_run():
    from benchcheck.cli import app
    from benchcheck.labels.flags import DEFAULT_BINS
    from benchcheck.runs.flag import FlagOptions, flag_rule_for

    flag = typer.main.get_command(app).commands["flag"]  # type: ignore[attr-defined]
    shown = {p.name: p.default for p in flag.params}
    expected = FlagOptions()
    # no --min-error-score and no --flag-rule: flag_rule_for gives the run's defaults (a
    # minimum error score alone selects the threshold rule)
    assert shown["min_error_score"] is None and shown["flag_rule"] is None
    assert flag_rule_for(None, None) == (expected.threshold, expected.flag_rule)
    assert flag_rule_for(0.7, None) == (0.7, "threshold")
    for name in ("detector", "calibration", "features", "combination", "posterior"):
        assert shown[name] == getattr(expected, name), name
    assert shown["budget"] is expected.budget is None
    assert shown["target_precision"] is expected.target_precision is None
    assert tuple(float(b) for b in shown["bins"].split(",")) == DEFAULT_BINS


def test_ranges_and_reads_name_options_and_every_default_is_in_range():
    """RANGES and READS are keyed by table entries; no command's default breaks its range."""
    import typer.main

    from benchcheck.cli import app
    from benchcheck.cli._options import RANGES, READS

    assert set(RANGES) <= set(OPTIONS) and set(READS) <= set(OPTIONS)
    root = typer.main.get_command(app)
    stack, checked = [root], 0
    while stack:
        cmd = stack.pop()
        stack += list(getattr(cmd, "commands", {}).values())
        for p in getattr(cmd, "params", []):
            rule = RANGES.get(p.name)
            if rule is not None and isinstance(p.default, int | float) and p.default is not None:
                assert rule.holds(p.default), (cmd.name, p.name, p.default)
                checked += 1
    assert checked > 30


def test_declared_inputs_from_option_values(tmp_path, monkeypatch):
    from benchcheck.cli._options import declared_inputs

    monkeypatch.chdir(tmp_path)
    for name in ("c1.parquet", "c2.parquet", "bins.json"):
        (tmp_path / name).write_text("x")
    (tmp_path / "corpus").mkdir()
    values = {
        "type_map": "@map.json",
        "precision": "bins.json",
        "error_rate": "0.05",  # a number, not a file
        "corpus": ["c*.parquet", "corpus"],
        "predictions": ["a=pa.jsonl"],
        "source": ["gold=g.jsonl#label"],
        "split_lists": "train=tr.txt, test=te.txt",
        "label": "bins.json",  # not a file option
        "seed": 3,
    }
    inputs, deep = declared_inputs(values)
    assert sorted(inputs) == sorted(
        [
            *("map.json", "bins.json", "c1.parquet", "c2.parquet", "corpus", "pa.jsonl"),
            *("g.jsonl", "tr.txt", "te.txt"),
        ]
    )
    assert deep == ["corpus"]
