"""Option groups: several flags on the command line, one typed value for the command."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from benchcheck.cli import _options as opt
from benchcheck.data.columns import Columns
from benchcheck.io.formats import NerOptions


def test_groups_add_plain_flags_and_pass_one_value():
    app = typer.Typer(add_completion=False)
    seen = {}

    @app.command()
    @opt.with_columns
    @opt.with_ner_reading
    def cmd(
        data: str,
        columns: Columns = opt.DEFAULT_COLUMNS,
        ner: NerOptions = opt.DEFAULT_NER,
        json_out: opt.JsonOpt = None,
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
        "json_out",
    ]
