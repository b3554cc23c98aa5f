"""Every command line of README.md and docs/*.md stays a valid command (issue 33, item 3).

The command lines are read from the documents' shell blocks (``\\`` continuations joined,
comments dropped, blocks indented under a list item and ``$ `` lines of console transcripts
included; tests/docs/_doc_blocks.py, shared with the run test). Two checks:

* **every** line parses against the command line as it is today: the command exists and
  every option it names is one of the command's, with a value of the right type (click
  parses it exactly as ``benchcheck`` would, without running it). A renamed option or
  command fails here, naming the document and line;
* the README's label-error journey runs **as written**, in a folder set up so that each
  line's files exist: ``judge`` (a stand-in judge: no model, fixed probabilities; the
  embedded judge takes minutes), ``flag judgments.parquet --data data.jsonl …`` with no
  text column repeated (the line of issue 33), ``review export``, the experts (a stand-in
  writes their answers and the reconciled file, as the README's comment says they do),
  ``review import`` and ``error-rate --population 2500 --plan 0.02``.

Every line also runs as written, block by block on tiny data, in the slow
tests/docs/test_doc_commands_run.py (BENCHCHECK_DOCS=1; .ci/run); the journeys of docs/
run end to end, with their numbers asserted, in tests/cli/test_journeys.py.
"""

from __future__ import annotations

import math
import shlex
import sys
from pathlib import Path

import polars as pl
import pytest
from typer._click.exceptions import ClickException  # typer's own click: its exceptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _doc_blocks import ROOT, doc_commands  # noqa: E402

__all__ = ["doc_commands"]  # also read by tests/cli and tests/runs/audit
#: The README's label-error block, run as written (in this order).
README_LABELS = [
    "benchcheck judge data.jsonl --text-a grounding --text-b generated_text --label label "
    "--prompts all -o judgments.parquet",
    "benchcheck flag judgments.parquet --data data.jsonl --min-error-score 0.5 -o flags.jsonl",
    "benchcheck review export flags.jsonl --experts 2 --audit-sample 200 --seed 1 -o review/",
    "benchcheck review import review/expert_a.csv review/expert_b.csv --reconciled "
    "review/reconciled.csv -o gold.jsonl",
    "benchcheck error-rate gold.jsonl --population 2500 --plan 0.02 --json out.json",
]


COMMANDS = doc_commands()


def test_the_documents_have_commands():
    where = {w.split(":")[0] for w, _ in COMMANDS}
    assert {"README.md", "docs/labels.md", "docs/report.md", "docs/scale.md"} <= where
    assert len(COMMANDS) >= 60
    flat = [" ".join(["benchcheck", *a]) for _, a in COMMANDS]
    for line in README_LABELS:
        assert line in flat, line  # the block below runs what the README says


def _parse(argv: list[str]) -> None:
    """Parse ``argv`` as ``benchcheck`` does (click), without running the command."""
    import typer

    from benchcheck.cli import app

    cmd = typer.main.get_command(app)
    ctx = cmd.make_context("benchcheck", list(argv), resilient_parsing=False)
    args = _rest(ctx)
    while hasattr(cmd, "resolve_command"):  # a group: on to its command
        name, sub, args = cmd.resolve_command(ctx, args)
        assert sub is not None, f"no command {name!r}"
        cmd = sub
        ctx = cmd.make_context(name, list(args), parent=ctx, resilient_parsing=False)
        args = _rest(ctx)
    if args:
        raise ClickException(f"unexpected arguments {args}")


def _rest(ctx) -> list[str]:  # type: ignore[no-untyped-def]
    """The arguments a context left for its subcommand."""
    return [*getattr(ctx, "_protected_args", getattr(ctx, "protected_args", [])), *ctx.args]


@pytest.mark.parametrize(("where", "argv"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_every_documented_command_parses(where, argv):
    try:
        _parse(argv)
    except ClickException as exc:
        pytest.fail(f"{where}: benchcheck {' '.join(argv)}: {exc.format_message()}")


def test_readme_label_error_block_runs_as_written(tmp_path, monkeypatch, capsys):
    """The README's `judge → flag → review export → import → error-rate`, verbatim."""
    import benchcheck.judges.cache as cache_mod
    import benchcheck.judges.run as run_mod
    from benchcheck.cli import main

    sys.path.insert(0, str(ROOT / "tests" / "labels"))
    sys.path.insert(0, str(ROOT / "tests" / "cli"))
    from _labels_synth import make_case
    from test_journeys import StandInJudge

    monkeypatch.chdir(tmp_path)
    # 300 pairs (enough for the README's --audit-sample 200) with planted flips, in the
    # README's columns; error-rate's --population 2500 is then the dataset they came from
    data, _, truth, _ = make_case(300, flip_rate=0.05, seed=7)
    data = data.rename({"text_a": "grounding", "text_b": "generated_text"})
    data.write_ndjson("data.jsonl")
    right = {t: str(v) for t, v in zip(data["generated_text"], truth, strict=True)}
    monkeypatch.setattr(run_mod, "make_judge", lambda spec, **kw: StandInJudge(right, 0.999))
    monkeypatch.setattr(cache_mod, "default_cache_path", lambda: tmp_path / "cache.sqlite")

    def run(line: str) -> None:
        assert main(shlex.split(line)[1:]) == 0, line

    run(README_LABELS[0])
    run(README_LABELS[1])
    flags = pl.read_ndjson("flags.jsonl")
    assert flags.height == 300 and flags["flagged"].sum() > 0
    run(README_LABELS[2])
    # the experts fill their sheets alone (the second errs on every tenth item), then the
    # disagreements are reconciled
    key = pl.read_ndjson("review/key.jsonl").filter(pl.col("review_id").is_not_null())
    answer = {r: str(truth[int(i[1:])]) for r, i in zip(key["review_id"], key["id"], strict=True)}
    for name, slip in (("expert_a", 0), ("expert_b", 10)):
        sheet = pl.read_csv(f"review/{name}.csv", infer_schema=False)
        labels = [
            answer[r] if not slip or k % slip else str(1 - int(answer[r]))
            for k, r in enumerate(sheet["review_id"])
        ]
        sheet.with_columns(pl.Series("label", labels)).write_csv(f"review/{name}.csv")
    pl.DataFrame({"review_id": list(answer), "label": list(answer.values())}).write_csv(
        "review/reconciled.csv"
    )
    run(README_LABELS[3])
    capsys.readouterr()
    run(README_LABELS[4])
    # the plan's word, named once at the end of the output (issue 33, item 7)
    printed = capsys.readouterr().out.rstrip().splitlines()
    assert printed[-1] == "terms: stratum — benchcheck glossary TERM explains each"
    assert sum(line.startswith("terms:") for line in printed) == 1
    out = pl.read_json("out.json").to_dicts()[0]
    assert out["population"] == 2500 and out["sample"] > 0 and out["ci_fpc"] is not None
    assert out["plan"]["target_width"] == 0.02 and math.isfinite(out["error_rate"])
    assert sum(out["sample_parts"].values()) == out["sample"]


@pytest.mark.parametrize(
    "argv",
    [
        ["flag", "j.parquet", "--data", "d.jsonl", "--min-confidence", "0.5"],  # renamed
        ["review", "export", "f.jsonl", "--experts", "two", "-o", "r/"],  # not an integer
        ["flagg", "j.parquet"],  # no such command
    ],
)
def test_the_parse_check_catches_drift(argv):
    with pytest.raises(ClickException):
        _parse(argv)
